-- fetch_candidates: the URLs the next round may fetch, with what generate
-- ranks them by (round_size.sql sizes the round, generate.sql picks it).
-- inputs:  crawldb, hosts (fetch's host table: back-off per host)
-- params:  $max_per_host, $max_retries (errors retried this often),
--          $round (the round generated), $now (timestamp), $cap_by
--          ('server', 'dir' or 'none') and $tolerance: with a server (dir)
--          strategy, a server (top-level directory) without a target page
--          yet (Nr = 0) gets at most T + 1 - Na URLs, so Tamura's rule
--          (irrelevant after T + 1 irrelevant pages) holds within a round,
--          whatever its size; $refetch (recrawl on), $due_by (timestamp: a
--          fetched page whose next_fetch is at or before it is due; one
--          never scheduled, fetched before recrawl was on, is due
--          $refetch_after_ms after its fetch)
-- output:  url, host, depth, priority, na, nr (the server's, or the
--          directory's, fetched and target pages), due (a fetched page due
--          again), relevant, next_fetch, etag, last_modified, host_rank
--          (the URL's place in its host)
WITH deferred_hosts AS (
    -- hosts that answered 429 or 503 and asked to be left alone until later
    SELECT DISTINCT host FROM hosts WHERE deferred_until > $now
),
queued AS (
    -- Na and Nr of each URL's server (directory) by window, not by a join:
    -- windows sort, and a sort spills to disk when memory runs short.
    SELECT url, host, dir, depth, priority, status, retries, retry_round,
           relevant, next_fetch, etag, last_modified,
           $refetch AND status = 'fetched'
               AND coalesce(coalesce(next_fetch,
                                     to_timestamp_millis(CAST(fetched_at AS BIGINT)
                                                         + $refetch_after_ms))
                            <= $due_by, true) AS due,
           SUM(CASE WHEN status = 'fetched' THEN 1 ELSE 0 END)
               OVER (PARTITION BY CASE WHEN $cap_by = 'dir' THEN dir ELSE host END) AS na,
           SUM(CASE WHEN status = 'fetched' AND relevant THEN 1 ELSE 0 END)
               OVER (PARTITION BY CASE WHEN $cap_by = 'dir' THEN dir ELSE host END) AS nr
    FROM crawldb
),
candidates AS (
    SELECT url, host, depth, priority, na, nr, due, relevant, next_fetch, etag, last_modified,
           row_number() OVER (PARTITION BY host ORDER BY due, priority DESC, depth, url) AS host_rank,
           -- the rank within the directory; with a server cap the unit is
           -- the host, its rank host_rank (no column `unit` = host: Ballista
           -- loses such an equality across a shuffle, its issue 1296)
           row_number() OVER (PARTITION BY dir ORDER BY due, priority DESC, depth, url) AS dir_rank
    FROM queued
    WHERE (status = 'unfetched'
           OR (status = 'error' AND retries < $max_retries)
           OR due)
      -- a failed or deferred URL waits until its retry round
      AND coalesce(retry_round, 0) <= $round
      AND host NOT IN (SELECT host FROM deferred_hosts)
),
allowed AS (
    SELECT * FROM candidates
    WHERE host_rank <= $max_per_host
      AND (due OR $cap_by = 'none' OR nr > 0
           OR CASE WHEN $cap_by = 'dir' THEN dir_rank ELSE host_rank END <= $tolerance + 1 - na)
)
-- not dir_rank (the place in the directory): without a directory cap the
-- planner then drops its window
SELECT url, host, depth, priority, na, nr, due, relevant, next_fetch, etag, last_modified,
       host_rank
FROM allowed
