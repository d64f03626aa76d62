-- sim/miss_by_distance: at the end of a simulated crawl, the cumulative
-- share of target pages missed against their distance from the seeds
-- (Tamura Fig. 4).
-- inputs:  target_distance (url, distance: the target pages reachable from
--          the seeds), crawldb
-- params:  $strategy
-- output:  strategy, distance, target_pages, missed, cumulative_miss_ratio
WITH per_distance AS (
    SELECT d.distance,
           count(*) AS target_pages,
           SUM(CASE WHEN c.status = 'fetched' THEN 0 ELSE 1 END) AS missed
    FROM target_distance d
    LEFT JOIN crawldb c ON c.url = d.url
    GROUP BY d.distance
)
SELECT CAST($strategy AS VARCHAR) AS strategy,
       distance,
       target_pages,
       missed,
       CAST(SUM(missed) OVER (ORDER BY distance) AS DOUBLE)
           / SUM(target_pages) OVER (ORDER BY distance) AS cumulative_miss_ratio
FROM per_distance
ORDER BY distance
