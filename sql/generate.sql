-- generate: the fetch list of the next round.
-- inputs:  crawldb
-- params:  $top_n (URLs in all), $max_per_host, $max_retries (errors retried this often)
-- output:  url, host, depth, priority — highest priority first, then shallowest
WITH candidates AS (
    SELECT url, host, depth, priority,
           row_number() OVER (PARTITION BY host ORDER BY priority DESC, depth, url) AS host_rank
    FROM crawldb
    WHERE status = 'unfetched'
       OR (status = 'error' AND retries < $max_retries)
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
