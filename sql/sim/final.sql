-- sim/final: the final table of a simulation — each strategy where it
-- stopped: rounds, pages fetched, target pages, harvest rate, coverage,
-- the share of reachable target pages it missed, queue size and servers;
-- and, to compare strategies at similar coverage, the pages it had fetched
-- and its harvest rate when its coverage first reached 90%.
-- inputs:  sim_metrics, sim_miss_by_distance
-- params:  none
-- output:  one row per strategy, highest harvest rate first
WITH last AS (
    SELECT *, row_number() OVER (PARTITION BY strategy ORDER BY round DESC) AS pick
    FROM sim_metrics
),
at_90 AS (
    SELECT strategy, pages_fetched AS pages_to_90, harvest_rate AS harvest_at_90
    FROM (
        SELECT strategy, pages_fetched, harvest_rate,
               row_number() OVER (PARTITION BY strategy ORDER BY round) AS pick
        FROM sim_metrics
        WHERE coverage >= 0.9
    )
    WHERE pick = 1
),
missed AS (
    SELECT strategy, SUM(missed) AS missed, SUM(target_pages) AS reachable
    FROM sim_miss_by_distance
    GROUP BY strategy
)
SELECT l.strategy,
       l.round AS rounds,
       l.pages_fetched,
       l.target_fetched,
       round(l.harvest_rate, 3) AS harvest_rate,
       round(l.coverage, 3) AS coverage,
       round(CAST(m.missed AS DOUBLE) / greatest(m.reachable, 1), 3) AS miss_ratio,
       l.queue_size,
       l.servers_accessed,
       a.pages_to_90,
       round(a.harvest_at_90, 3) AS harvest_at_90
FROM last l
LEFT JOIN missed m ON m.strategy = l.strategy
LEFT JOIN at_90 a ON a.strategy = l.strategy
WHERE l.pick = 1
ORDER BY 5 DESC, 1
