-- count_labels: the adaptive strategy's training set after this round —
-- its labelled links counted by segment and feature values: the last
-- round's counts (`labels_before`) plus the links labelled this round
-- (open_links.sql labels each link once, in the round its destination is
-- fetched), so no link found earlier is read again. Segment `new`: links
-- into a server not visited yet (what finds new target servers);
-- `known`: into a server the crawl has seen. `relevant` counts the links
-- that led to a target page, `other` the rest. The model is fitted on
-- these rows (src/strategy/fit.rs).
-- inputs:  open_links, labels_before (the last round's labels; empty at first)
-- params:  none
-- output:  segment, the ten features, relevant, other (store::schema::LABELS)
WITH labelled AS (
    SELECT CASE WHEN dst_server = 'unvisited' THEN 'new' ELSE 'known' END AS segment,
           kind, hreflang, url_lang, anchor, tld, hops, inlinks, src_server, dst_server, dst_dir,
           CASE WHEN dst_relevant THEN 1 ELSE 0 END AS relevant,
           CASE WHEN dst_relevant THEN 0 ELSE 1 END AS other
    FROM open_links WHERE dst_relevant IS NOT NULL
),
counted AS (
    SELECT segment, kind, hreflang, url_lang, anchor, tld, hops, inlinks, src_server,
           dst_server, dst_dir, relevant, other
    FROM labels_before
    UNION ALL
    SELECT segment, kind, hreflang, url_lang, anchor, tld, hops, inlinks, src_server,
           dst_server, dst_dir, relevant, other
    FROM labelled
)
SELECT segment, kind, hreflang, url_lang, anchor, tld, hops, inlinks, src_server,
       dst_server, dst_dir,
       CAST(sum(relevant) AS BIGINT) AS relevant, CAST(sum(other) AS BIGINT) AS other
FROM counted
GROUP BY segment, kind, hreflang, url_lang, anchor, tld, hops, inlinks, src_server,
         dst_server, dst_dir
ORDER BY segment, kind, hreflang, url_lang, anchor, tld, hops, inlinks, src_server,
         dst_server, dst_dir
