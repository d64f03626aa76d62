-- compare_decisions: a refiltered decision set beside the crawl's own, per
-- round: links decided, links each set accepted, decisions that differ, and
-- the target-language share of each set's accepted links whose pages the
-- crawl fetched.
-- inputs:  original, refiltered (round, src_url, url, accepted: link
--          decisions only), crawldb
-- params:  none
-- output:  round, links, accepted_original, accepted_refiltered, differ,
--          target_share_original, target_share_refiltered
WITH pairs AS (
    SELECT r.round, r.url, o.accepted AS original, r.accepted AS refiltered
    FROM refiltered r
    LEFT JOIN original o ON o.round = r.round AND o.src_url = r.src_url AND o.url = r.url
),
fetched AS (
    SELECT url, CASE WHEN relevant THEN 1.0 ELSE 0.0 END AS relevant
    FROM crawldb
    WHERE status = 'fetched'
)
SELECT p.round,
       count(*) AS links,
       SUM(CASE WHEN p.original THEN 1 ELSE 0 END) AS accepted_original,
       SUM(CASE WHEN p.refiltered THEN 1 ELSE 0 END) AS accepted_refiltered,
       SUM(CASE WHEN p.original IS DISTINCT FROM p.refiltered THEN 1 ELSE 0 END) AS differ,
       round(avg(CASE WHEN p.original THEN f.relevant END), 3) AS target_share_original,
       round(avg(CASE WHEN p.refiltered THEN f.relevant END), 3) AS target_share_refiltered
FROM pairs p
LEFT JOIN fetched f ON f.url = p.url
GROUP BY p.round
ORDER BY p.round
