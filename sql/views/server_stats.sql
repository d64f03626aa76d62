-- server_stats: Tamura's per-server view. Na = fetched pages of the server,
-- Nr = relevant ones; state: relevant if Nr > 0, undecided if Nr = 0 and
-- Na <= T, irrelevant if Nr = 0 and Na > T.
-- inputs:  crawldb_after_round (crawldb rows as link selection sees them)
-- params:  $tolerance (T)
-- output:  host, na, nr, state
WITH counts AS (
    SELECT host,
           SUM(CASE WHEN status = 'fetched' THEN 1 ELSE 0 END) AS na,
           SUM(CASE WHEN status = 'fetched' AND relevant THEN 1 ELSE 0 END) AS nr
    FROM crawldb_after_round
    GROUP BY host
)
SELECT host, na, nr,
       CASE WHEN nr > 0 THEN 'relevant'
            WHEN na <= $tolerance THEN 'undecided'
            ELSE 'irrelevant' END AS state
FROM counts
