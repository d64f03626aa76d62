-- harvest_by_round: pages fetched per round, relevant ones (in the target
-- language), the round's harvest rate and the cumulative one.
-- inputs:  crawldb
-- params:  none
-- output:  round, fetched, relevant, harvest_rate, cumulative_harvest_rate
WITH per_round AS (
    SELECT fetched_round AS round,
           count(*) AS fetched,
           SUM(CASE WHEN relevant THEN 1 ELSE 0 END) AS relevant
    FROM crawldb
    WHERE status = 'fetched'
    GROUP BY fetched_round
)
SELECT round, fetched, relevant,
       round(CAST(relevant AS DOUBLE) / fetched, 3) AS harvest_rate,
       round(CAST(SUM(relevant) OVER (ORDER BY round) AS DOUBLE)
             / SUM(fetched) OVER (ORDER BY round), 3) AS cumulative_harvest_rate
FROM per_round
ORDER BY round
