-- merge_crawldb: the next crawldb — this round's pages plus every accepted
-- new URL once, at its best priority and shallowest depth.
-- inputs:  pages (crawldb with the round applied), decisions, links
-- params:  $round
-- output:  crawldb rows
WITH accepted AS (
    SELECT d.url, d.priority, d.src_url,
           l.dst_host, l.dst_domain, l.dst_tld, l.dst_dir, l.anchor,
           CASE WHEN l.kind = 'redirect' THEN p.depth ELSE p.depth + 1 END AS depth,
           row_number() OVER (PARTITION BY d.url ORDER BY d.priority DESC, p.depth, d.src_url) AS pick
    FROM decisions d
    JOIN links l ON l.src_url = d.src_url AND l.dst_url = d.url
    JOIN pages p ON p.url = d.src_url
    WHERE d.accepted
)
SELECT * FROM pages
UNION ALL
SELECT url, dst_host, dst_domain, dst_tld, dst_dir,
       'unfetched'           AS status,
       CAST(0 AS INT)        AS retries,
       CAST(depth AS INT)    AS depth,
       priority,
       CAST($round AS INT)   AS discovered_round,
       CAST(NULL AS INT)     AS fetched_round,
       CAST(NULL AS INT)     AS http_status,
       CAST(NULL AS VARCHAR) AS redirect_to,
       CAST(NULL AS VARCHAR) AS lang,
       CAST(NULL AS DOUBLE)  AS lang_confidence,
       CAST(NULL AS BOOLEAN) AS relevant,
       CAST(NULL AS VARCHAR) AS digest,
       src_url               AS found_from,
       anchor                AS found_anchor
FROM accepted
WHERE pick = 1
