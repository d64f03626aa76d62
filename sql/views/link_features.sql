-- link_features: every link found so far (this round's and earlier
-- rounds'), described by the discrete features the `adaptive` strategy
-- learns from, with its label: whether its destination, if fetched, is a
-- target page (`dst_relevant`; NULL while it is not fetched).
--   kind        a, area, frame, iframe, refresh, redirect, alternate, ...
--   hreflang    target | other | none: the language the link's hreflang names
--   url_lang    target | other | none: the language the destination URL names
--   anchor      target, the anchor's language code, or none (unknown/empty)
--   tld         the last label of the destination's public suffix (th, com)
--   hops        0 (source page relevant), 1 (the page that found the source
--               is), 2+ (neither): links since the last relevant page
--   inlinks     0, 1, 2, 3+: relevant pages linking to the destination
--   src_server  relevant | undecided | irrelevant (Tamura's state)
--   dst_server  unvisited | relevant | undecided-1 | undecided-2+ |
--               irrelevant: Tamura's state, undecided split by whether one
--               page or more (at most $tolerance) showed no target
--   dst_dir     the same for the destination's top-level directory
-- The destination's server and directory are judged by their other
-- fetched pages — the destination itself left out — so a label never
-- describes itself, and a server whose only fetched page is the
-- destination reads `unvisited`, as it did when the link was found.
-- inputs:  all_links (links of every round so far, with `round`),
--          crawldb_after_round, servers, dirs, target_tlds (tld)
-- params:  $target_lang, $han_matches, $tolerance
-- output:  round, src_url, url, src_host, dst_host, kind, src_priority,
--          dst_relevant, the features above
WITH described AS (
    SELECT l.round, l.src_url, l.dst_url AS url, l.src_host, l.dst_host, l.kind,
           coalesce(s.priority, 0.0) AS src_priority,
           CASE WHEN d.status = 'fetched' THEN coalesce(d.relevant, false) END AS dst_relevant,
           l.hreflang, url_lang(l.dst_url) AS dst_url_lang,
           anchor_matches(l.anchor_lang, $target_lang, $han_matches) AS anchor_on_target,
           l.anchor_lang,
           reverse(split_part(reverse(l.dst_tld), '.', 1)) AS tld,
           coalesce(s.relevant, false) AS src_relevant,
           coalesce(f.relevant, false) AS finder_relevant,
           -- a page's links are in the round it was fetched, once each
           sum(CASE WHEN s.relevant THEN 1 ELSE 0 END) OVER (PARTITION BY l.dst_url) AS inlinks,
           coalesce(ss.state, 'undecided') AS src_server,
           CASE WHEN d.status = 'fetched' THEN 1 ELSE 0 END AS self_na,
           CASE WHEN d.status = 'fetched' AND d.relevant THEN 1 ELSE 0 END AS self_nr,
           coalesce(ds.na, 0) AS server_na, coalesce(ds.nr, 0) AS server_nr,
           coalesce(dd.na, 0) AS dir_na, coalesce(dd.nr, 0) AS dir_nr
    -- one row per page and destination, as page_links.sql takes them
    FROM (SELECT DISTINCT ON (round, src_url, dst_url) * FROM all_links
          ORDER BY round, src_url, dst_url, position NULLS LAST, anchor DESC) l
    LEFT JOIN crawldb_after_round s ON s.url = l.src_url
    LEFT JOIN crawldb_after_round f ON f.url = s.found_from
    LEFT JOIN crawldb_after_round d ON d.url = l.dst_url
    LEFT JOIN servers ss ON ss.host = l.src_host
    LEFT JOIN servers ds ON ds.host = l.dst_host
    LEFT JOIN dirs dd ON dd.dir = l.dst_dir
)
SELECT round, src_url, url, src_host, dst_host, kind, src_priority, dst_relevant,
       CASE WHEN hreflang IS NULL OR hreflang = 'x-default' THEN 'none'
            WHEN hreflang = $target_lang THEN 'target'
            ELSE 'other' END AS hreflang,
       CASE WHEN dst_url_lang IS NULL THEN 'none'
            WHEN dst_url_lang = $target_lang THEN 'target'
            ELSE 'other' END AS url_lang,
       CASE WHEN anchor_on_target THEN 'target'
            WHEN anchor_lang IS NULL OR anchor_lang IN ('', 'und') THEN 'none'
            ELSE anchor_lang END AS anchor,
       tld,
       CASE WHEN src_relevant THEN '0' WHEN finder_relevant THEN '1' ELSE '2+' END AS hops,
       CASE WHEN inlinks >= 3 THEN '3+' ELSE CAST(inlinks AS VARCHAR) END AS inlinks,
       src_server,
       CASE WHEN server_na - self_na <= 0 THEN 'unvisited'
            WHEN server_nr - self_nr > 0 THEN 'relevant'
            WHEN server_na - self_na = 1 THEN 'undecided-1'
            WHEN server_na - self_na <= $tolerance THEN 'undecided-2+'
            ELSE 'irrelevant' END AS dst_server,
       CASE WHEN dir_na - self_na <= 0 THEN 'unvisited'
            WHEN dir_nr - self_nr > 0 THEN 'relevant'
            WHEN dir_na - self_na = 1 THEN 'undecided-1'
            WHEN dir_na - self_na <= $tolerance THEN 'undecided-2+'
            ELSE 'irrelevant' END AS dst_dir
FROM described
