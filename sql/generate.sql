-- generate: the fetch list of the next round.
-- inputs:  crawldb, hosts (fetch's host table: back-off per host)
-- params:  $top_n (URLs in all), $max_per_host, $max_retries (errors retried
--          this often), $round (the round generated), $now (timestamp),
--          $cap_by ('server', 'dir' or 'none') and $tolerance: with a server
--          (dir) strategy, a server (top-level directory) without a target
--          page yet (Nr = 0) gets at most T + 1 - Na URLs, so Tamura's rule
--          (irrelevant after T + 1 irrelevant pages) holds within a round,
--          whatever its size
-- output:  url, host, depth, priority — highest priority first, then shallowest
WITH deferred_hosts AS (
    -- hosts that answered 429 or 503 and asked to be left alone until later
    SELECT DISTINCT host FROM hosts WHERE deferred_until > $now
),
units AS (
    SELECT CASE WHEN $cap_by = 'dir' THEN dir ELSE host END AS unit,
           SUM(CASE WHEN status = 'fetched' THEN 1 ELSE 0 END) AS na,
           SUM(CASE WHEN status = 'fetched' AND relevant THEN 1 ELSE 0 END) AS nr
    FROM crawldb
    GROUP BY 1
),
candidates AS (
    SELECT c.url, c.host, c.depth, c.priority, u.na, u.nr,
           row_number() OVER (PARTITION BY c.host ORDER BY c.priority DESC, c.depth, c.url) AS host_rank,
           row_number() OVER (PARTITION BY u.unit ORDER BY c.priority DESC, c.depth, c.url) AS unit_rank
    FROM crawldb c
    JOIN units u ON u.unit = CASE WHEN $cap_by = 'dir' THEN c.dir ELSE c.host END
    WHERE (c.status = 'unfetched'
           OR (c.status = 'error' AND c.retries < $max_retries))
      -- a failed or deferred URL waits until its retry round
      AND coalesce(c.retry_round, 0) <= $round
      AND c.host NOT IN (SELECT host FROM deferred_hosts)
),
ranked AS (
    SELECT url, host, depth, priority,
           row_number() OVER (ORDER BY priority DESC, depth, host_rank, url) AS rank
    FROM candidates
    WHERE host_rank <= $max_per_host
      AND ($cap_by = 'none' OR nr > 0 OR unit_rank <= $tolerance + 1 - na)
)
SELECT url, host, depth, priority
FROM ranked
WHERE rank <= $top_n
ORDER BY rank
