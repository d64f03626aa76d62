-- merge_crawldb: the next crawldb — this round's pages, with queued URLs
-- whose priority a link raised, or that a learning strategy re-scored
-- (`url_scores`: every queued URL its open links lead to, empty for the
-- other strategies), and URLs pruned from the queue (`skipped`),
-- plus every accepted new URL once, at its best priority and shallowest depth
-- (each decision carries the depth, redirect hops and URL parts it gives).
-- inputs:  crawldb_after_round, decisions, url_scores
-- params:  $round
-- output:  crawldb rows
WITH accepted AS (
    SELECT url, priority, src_url,
           dst_host, dst_domain, dst_tld, dst_dir, anchor, depth, redirect_hops,
           row_number() OVER (PARTITION BY url ORDER BY priority DESC, depth, src_url) AS pick
    FROM decisions
    WHERE accepted AND reason <> 'priority-raised'
),
raised AS (
    SELECT url, max(priority) AS priority
    FROM decisions
    WHERE accepted AND reason = 'priority-raised'
    GROUP BY url
),
pruned AS (
    SELECT DISTINCT url FROM decisions WHERE reason LIKE 'queued-%'
)
SELECT p.url, p.host, p.domain, p.tld, p.dir,
       CASE WHEN x.url IS NULL THEN p.status ELSE 'skipped' END AS status,
       p.retries,
       p.depth,
       CASE WHEN q.url IS NOT NULL AND p.status IN ('unfetched', 'error') THEN q.priority
            WHEN r.priority > p.priority THEN r.priority ELSE p.priority END AS priority,
       p.discovered_round, p.fetched_round, p.http_status, p.redirect_to, p.lang,
       p.lang_confidence, p.lang_source, p.relevant, p.digest, p.found_from, p.found_anchor,
       p.redirect_hops, p.retry_round,
       p.etag, p.last_modified, p.fetched_at, p.next_fetch, p.refetch_ms, p.fetches, p.changes
FROM crawldb_after_round p
LEFT JOIN raised r ON r.url = p.url
LEFT JOIN pruned x ON x.url = p.url
LEFT JOIN url_scores q ON q.url = p.url
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
       CAST(NULL AS VARCHAR) AS lang_source,
       CAST(NULL AS BOOLEAN) AS relevant,
       CAST(NULL AS VARCHAR) AS digest,
       src_url               AS found_from,
       anchor                AS found_anchor,
       CAST(redirect_hops AS INT) AS redirect_hops,
       CAST(NULL AS INT)     AS retry_round,
       CAST(NULL AS VARCHAR) AS etag,
       CAST(NULL AS VARCHAR) AS last_modified,
       CAST(NULL AS TIMESTAMP) AS fetched_at,
       CAST(NULL AS TIMESTAMP) AS next_fetch,
       CAST(NULL AS BIGINT)  AS refetch_ms,
       CAST(NULL AS INT)     AS fetches,
       CAST(NULL AS INT)     AS changes
FROM accepted
WHERE pick = 1
