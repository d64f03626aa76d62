-- sim/coverage_goals: the pages each strategy fetched to reach 90% and
-- 99% of the coverage `bfs` reached in the end (of the best final
-- coverage if bfs did not run), and its harvest rate at those points —
-- interpolated linearly within the round that crossed the goal, so the
-- figure does not jump by a whole round's pages. NULL: never reached.
-- inputs:  sim_metrics
-- params:  none
-- output:  one row per strategy: strategy, final_coverage (of the
--          reference), pages_to_90, harvest_at_90, pages_to_99, harvest_at_99
WITH ranked AS (
    SELECT strategy, round, pages_fetched, target_fetched, coverage,
           coalesce(lag(pages_fetched) OVER (PARTITION BY strategy ORDER BY round), 0) AS prev_pages,
           coalesce(lag(coverage) OVER (PARTITION BY strategy ORDER BY round), 0.0) AS prev_coverage,
           row_number() OVER (PARTITION BY strategy ORDER BY round DESC) AS from_last
    FROM sim_metrics
),
finals AS (
    SELECT strategy, coverage,
           CAST(target_fetched AS DOUBLE) / nullif(coverage, 0.0) AS reachable
    FROM ranked
    WHERE from_last = 1
),
reference AS (
    SELECT coalesce(max(CASE WHEN strategy = 'bfs' THEN coverage END), max(coverage)) AS coverage,
           max(reachable) AS reachable
    FROM finals
),
goals AS (
    SELECT 0.9 AS share UNION ALL SELECT 0.99 AS share
),
crossings AS (
    SELECT s.strategy, g.share,
           s.prev_pages + (g.share * r.coverage - s.prev_coverage)
               / (s.coverage - s.prev_coverage) * (s.pages_fetched - s.prev_pages) AS pages,
           g.share * r.coverage * r.reachable AS targets,
           row_number() OVER (PARTITION BY s.strategy, g.share ORDER BY s.round) AS pick
    FROM ranked s
    CROSS JOIN goals g
    CROSS JOIN reference r
    WHERE s.coverage >= g.share * r.coverage AND s.prev_coverage < g.share * r.coverage
),
reached AS (
    SELECT strategy, share, round(pages) AS pages, round(targets / pages, 3) AS harvest
    FROM crossings
    WHERE pick = 1
)
SELECT f.strategy,
       round(f.coverage / r.coverage, 3) AS final_coverage,
       CAST(a.pages AS BIGINT) AS pages_to_90,
       a.harvest AS harvest_at_90,
       CAST(b.pages AS BIGINT) AS pages_to_99,
       b.harvest AS harvest_at_99
FROM finals f
CROSS JOIN reference r
LEFT JOIN reached a ON a.strategy = f.strategy AND a.share = 0.9
LEFT JOIN reached b ON b.strategy = f.strategy AND b.share = 0.99
ORDER BY a.pages NULLS LAST, f.strategy
