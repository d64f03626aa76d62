-- inject: the crawldb plus the seed URLs it does not know yet.
-- inputs:  crawldb (may be empty), seeds (url, host, domain, tld, dir)
-- params:  $round (the round seeds count as discovered in; 0 before any round)
-- output:  crawldb rows
SELECT * FROM crawldb
UNION ALL
SELECT s.url, s.host, s.domain, s.tld, s.dir,
       'unfetched'             AS status,
       CAST(0 AS INT)          AS retries,
       CAST(0 AS INT)          AS depth,
       CAST(1.0 AS DOUBLE)     AS priority,
       CAST($round AS INT)     AS discovered_round,
       CAST(NULL AS INT)       AS fetched_round,
       CAST(NULL AS INT)       AS http_status,
       CAST(NULL AS VARCHAR)   AS redirect_to,
       CAST(NULL AS VARCHAR)   AS lang,
       CAST(NULL AS DOUBLE)    AS lang_confidence,
       CAST(NULL AS VARCHAR)   AS lang_source,
       CAST(NULL AS BOOLEAN)   AS relevant,
       CAST(NULL AS VARCHAR)   AS digest,
       CAST(NULL AS VARCHAR)   AS found_from,
       CAST(NULL AS VARCHAR)   AS found_anchor,
       CAST(NULL AS INT)       AS redirect_hops,
       CAST(NULL AS INT)       AS retry_round,
       CAST(NULL AS VARCHAR)   AS etag,
       CAST(NULL AS VARCHAR)   AS last_modified,
       CAST(NULL AS TIMESTAMP) AS fetched_at,
       CAST(NULL AS TIMESTAMP) AS next_fetch,
       CAST(NULL AS BIGINT)    AS refetch_ms,
       CAST(NULL AS INT)       AS fetches,
       CAST(NULL AS INT)       AS changes
FROM seeds s
LEFT JOIN crawldb c ON s.url = c.url
WHERE c.url IS NULL
