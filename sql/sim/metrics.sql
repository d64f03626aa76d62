-- sim/metrics: where a simulated crawl stands after a round (Tamura §5.2–
-- 5.3): pages fetched, target pages among them, the cumulative harvest rate,
-- coverage of the target pages reachable from the seeds, queue size and
-- servers accessed.
-- inputs:  crawldb
-- params:  $strategy, $round, $reachable_targets
-- output:  one row
WITH counts AS (
    SELECT SUM(CASE WHEN fetched_round IS NOT NULL THEN 1 ELSE 0 END) AS requests,
           SUM(CASE WHEN status = 'fetched' THEN 1 ELSE 0 END) AS pages_fetched,
           SUM(CASE WHEN status = 'fetched' AND relevant THEN 1 ELSE 0 END) AS target_fetched,
           SUM(CASE WHEN status = 'unfetched' THEN 1 ELSE 0 END) AS queue_size,
           count(DISTINCT CASE WHEN fetched_round IS NOT NULL THEN host END) AS servers_accessed
    FROM crawldb
)
SELECT CAST($strategy AS VARCHAR) AS strategy,
       CAST($round AS INT) AS round,
       requests,
       pages_fetched,
       target_fetched,
       CAST(target_fetched AS DOUBLE) / greatest(pages_fetched, 1) AS harvest_rate,
       CAST(target_fetched AS DOUBLE) / greatest(CAST($reachable_targets AS BIGINT), 1) AS coverage,
       queue_size,
       servers_accessed
FROM counts
