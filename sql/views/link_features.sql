-- link_features: this round's links (one row per page and destination, as
-- page_links.sql takes them), each with the features of the `adaptive`
-- strategy that are fixed when the link is found:
--   kind        a, area, frame, iframe, refresh, redirect, alternate, ...
--   hreflang    target | other | none: the language the link's hreflang names
--   url_lang    target | other | none: the language the destination URL names
--   anchor      target, the anchor's language code, or none (unknown/empty);
--               attribute-target or attribute-other where the link has no
--               text and an attribute names it (an image's alt, title,
--               aria-label): that text is the page's more than the
--               destination's, so the model weighs it apart
--   tld         the last label of the destination's public suffix (th, com)
--   hops        0 (source page relevant), 1 (the page that found the source
--               is), 2+ (neither): links since the last relevant page
-- and what the features judged later need (src_relevant, dir). The link
-- joins the crawl's frontier (open_links.sql) until its destination is
-- fetched. A page fetched again (recrawl) adds only its links to URLs the
-- crawl did not know: its other links were described when it was first
-- fetched, and are not labelled twice.
-- inputs:  page_links, crawldb_after_round, crawldb
-- params:  $target_lang, $han_matches, $round, $recrawl (the crawl refetches)
-- output:  the frontier schema (store::schema::FRONTIER)
WITH described AS (
    SELECT l.src_url, l.dst_url AS url, l.src_host, l.dst_host, l.dst_dir AS dir, l.kind,
           coalesce(s.priority, 0.0) AS src_priority,
           coalesce(s.relevant, false) AS src_relevant,
           coalesce(f.relevant, false) AS finder_relevant,
           l.hreflang, url_lang(l.dst_url) AS dst_url_lang,
           anchor_matches(l.anchor_lang, $target_lang, $han_matches) AS anchor_on_target,
           l.anchor_lang,
           coalesce(l.anchor_source, 'text') <> 'text' AS attribute_anchor,
           reverse(split_part(reverse(l.dst_tld), '.', 1)) AS tld,
           s.fetched_round < $round AND d.url IS NOT NULL AS described_before
    FROM page_links l
    LEFT JOIN crawldb_after_round s ON s.url = l.src_url
    LEFT JOIN crawldb_after_round f ON f.url = s.found_from
    -- the stored crawldb: the URLs known before this round (only a
    -- recrawl fetches a page twice; off, the planner drops this join)
    LEFT JOIN (SELECT url FROM crawldb WHERE $recrawl) d ON d.url = l.dst_url
)
SELECT CAST($round AS INT) AS found_round, src_url, url, src_host, dst_host, dir, src_priority,
       src_relevant, kind,
       CASE WHEN hreflang IS NULL OR hreflang = 'x-default' THEN 'none'
            WHEN hreflang = $target_lang THEN 'target'
            ELSE 'other' END AS hreflang,
       CASE WHEN dst_url_lang IS NULL THEN 'none'
            WHEN dst_url_lang = $target_lang THEN 'target'
            ELSE 'other' END AS url_lang,
       CASE WHEN anchor_on_target AND attribute_anchor THEN 'attribute-target'
            WHEN anchor_on_target THEN 'target'
            WHEN anchor_lang IS NULL OR anchor_lang IN ('', 'und') THEN 'none'
            WHEN attribute_anchor THEN 'attribute-other'
            ELSE anchor_lang END AS anchor,
       tld,
       CASE WHEN src_relevant THEN '0' WHEN finder_relevant THEN '1' ELSE '2+' END AS hops
FROM described
WHERE NOT coalesce(described_before, false)
