-- crawl_metrics: a crawl's progress round by round, in the terms simulate
-- measures (sql/sim/metrics.sql): fetch requests, pages fetched, target
-- pages among them, the cumulative harvest rate, the URLs known but not yet
-- fetched (queue), servers accessed. Coverage needs the whole web graph,
-- so it is NULL here.
-- inputs:  crawldb
-- params:  $strategy
-- output:  strategy, round, requests, pages_fetched, target_fetched,
--          harvest_rate, coverage, queue_size, servers_accessed
WITH rounds AS (
    SELECT DISTINCT fetched_round AS round FROM crawldb WHERE fetched_round IS NOT NULL
),
counts AS (
    SELECT r.round,
           SUM(CASE WHEN c.fetched_round <= r.round THEN 1 ELSE 0 END) AS requests,
           SUM(CASE WHEN c.status = 'fetched' AND c.fetched_round <= r.round THEN 1 ELSE 0 END) AS pages_fetched,
           SUM(CASE WHEN c.status = 'fetched' AND c.relevant AND c.fetched_round <= r.round
                    THEN 1 ELSE 0 END) AS target_fetched,
           SUM(CASE WHEN c.discovered_round <= r.round AND c.status <> 'skipped'
                     AND (c.fetched_round IS NULL OR c.fetched_round > r.round)
                    THEN 1 ELSE 0 END) AS queue_size,
           count(DISTINCT CASE WHEN c.fetched_round <= r.round THEN c.host END) AS servers_accessed
    FROM rounds r
    CROSS JOIN crawldb c
    GROUP BY r.round
)
SELECT CAST($strategy AS VARCHAR) AS strategy,
       CAST(round AS INT) AS round,
       requests,
       pages_fetched,
       target_fetched,
       CAST(target_fetched AS DOUBLE) / greatest(pages_fetched, 1) AS harvest_rate,
       CAST(NULL AS DOUBLE) AS coverage,
       queue_size,
       servers_accessed
FROM counts
ORDER BY round
