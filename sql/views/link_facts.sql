-- link_facts: every link of the round with the facts the strategies decide
-- on — facts only, no verdicts: is its source page relevant and how was it
-- prioritized, do its TLD and anchor point at the target, the language its
-- destination URL names (dst_url_lang: `/th/`, `hl=ja`, `ko.` hosts), and
-- the Tamura states of the source and destination servers and top-level
-- directories (an unknown server or directory is unvisited: Na = 0). Each strategy
-- turns these into its own accepted, priority and reason.
-- inputs:  page_links, crawldb_after_round, servers, dirs, target_tlds (tld)
-- params:  $target_lang, $han_matches
-- output:  one row per link
SELECT l.src_url,
       l.dst_url AS url,
       l.kind,
       l.hreflang,
       l.anchor,
       l.anchor_lang,
       l.context,
       l.dst_host,
       l.dst_dir,
       l.dst_tld,
       url_lang(l.dst_url) AS dst_url_lang,
       coalesce(p.relevant, false) AS src_relevant,
       coalesce(p.priority, 0.0) AS src_priority,
       anchor_matches(l.anchor_lang, $target_lang, $han_matches) AS anchor_on_target,
       t.tld IS NOT NULL AS tld_on_target,
       coalesce(ss.nr, 0) AS src_server_nr,
       coalesce(ds.na, 0) AS dst_server_na,
       coalesce(ds.state, 'undecided') AS dst_server_state,
       coalesce(sd.nr, 0) AS src_dir_nr,
       coalesce(dd.na, 0) AS dst_dir_na,
       coalesce(dd.state, 'undecided') AS dst_dir_state
FROM page_links l
LEFT JOIN crawldb_after_round p ON p.url = l.src_url
LEFT JOIN target_tlds t ON t.tld = reverse(split_part(reverse(l.dst_tld), '.', 1))
LEFT JOIN servers ss ON ss.host = l.src_host
LEFT JOIN servers ds ON ds.host = l.dst_host
LEFT JOIN dirs sd ON sd.dir = p.dir
LEFT JOIN dirs dd ON dd.dir = l.dst_dir
