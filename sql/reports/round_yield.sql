-- round_yield: each merged round's fetch requests by why generate picked
-- them — `rank` (the best of the queue by priority) or `explore` (the
-- exploration share of a learning strategy) — and the target pages among
-- them: the marginal yield that shows where to stop, and what the stop rule
-- (--min-yield, src/stop.rs) measures.
-- inputs:  fetchlists (every round's fetch list, with `round`), crawldb
-- params:  $merged (the last round whose results are in the crawldb)
-- output:  round, pick, requests, targets, yield
WITH picked AS (
    SELECT CAST(f.round AS INT) AS fetch_round,
           coalesce(f.pick, 'rank') AS how,
           CASE WHEN c.status = 'fetched' AND c.relevant THEN 1 ELSE 0 END AS target
    FROM fetchlists f
    LEFT JOIN crawldb c ON c.url = f.url
    WHERE f.round <= $merged
)
SELECT fetch_round AS round,
       how AS pick,
       CAST(count(*) AS BIGINT) AS requests,
       CAST(sum(target) AS BIGINT) AS targets,
       CAST(sum(target) AS DOUBLE) / count(*) AS yield
FROM picked
GROUP BY fetch_round, how
ORDER BY fetch_round, how
