-- generate: the fetch list of the next round.
-- inputs:  crawldb, hosts (fetch's host table: back-off per host)
-- params:  $top_n (URLs in all), $max_per_host, $max_retries (errors retried this often),
--          $round (the round generated), $now (timestamp)
-- output:  url, host, depth, priority — highest priority first, then shallowest
WITH deferred_hosts AS (
    -- hosts that answered 429 or 503 and asked to be left alone until later
    SELECT DISTINCT host FROM hosts WHERE deferred_until > $now
),
candidates AS (
    SELECT url, host, depth, priority,
           row_number() OVER (PARTITION BY host ORDER BY priority DESC, depth, url) AS host_rank
    FROM crawldb
    WHERE (status = 'unfetched'
           OR (status = 'error' AND retries < $max_retries))
      -- a failed or deferred URL waits until its retry round
      AND coalesce(retry_round, 0) <= $round
      AND host NOT IN (SELECT host FROM deferred_hosts)
),
ranked AS (
    SELECT url, host, depth, priority,
           row_number() OVER (ORDER BY priority DESC, depth, host_rank, url) AS rank
    FROM candidates
    WHERE host_rank <= $max_per_host
)
SELECT url, host, depth, priority
FROM ranked
WHERE rank <= $top_n
ORDER BY rank
