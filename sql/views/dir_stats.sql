-- dir_stats: the server view at top-directory granularity (host + first
-- path segment), for directory-based strategies.
-- inputs:  crawldb_after_round (crawldb rows as link selection sees them)
-- params:  $tolerance (T)
-- output:  dir, host, na, nr, state
WITH counts AS (
    SELECT dir, host,
           SUM(CASE WHEN status = 'fetched' THEN 1 ELSE 0 END) AS na,
           SUM(CASE WHEN status = 'fetched' AND relevant THEN 1 ELSE 0 END) AS nr
    FROM crawldb_after_round
    GROUP BY dir, host
)
SELECT dir, host, na, nr,
       CASE WHEN nr > 0 THEN 'relevant'
            WHEN na <= $tolerance THEN 'undecided'
            ELSE 'irrelevant' END AS state
FROM counts
