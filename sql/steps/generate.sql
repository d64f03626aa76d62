-- generate: the fetch list of the next round: the new URLs best ranked,
-- the explored ones, then the pages due again, as many as round_size.sql
-- gives room for.
-- inputs:  fetch_candidates (fetch_candidates.sql)
-- params:  $size, $new_room, $explored, $fetched (round_size.sql's row);
--          $top_n; $explore_share: the explored URLs (a learning
--          strategy's) go to the servers the crawl knows least — a bandit
--          over servers: each server's yield so far, its best queued URL's
--          priority counting as two pages' worth of prior, plus an
--          upper-confidence bonus sqrt(ln(N + 2) / (Na + 1)) (N the pages
--          fetched, Na the server's); one URL per server before a second,
--          the rest of the list by priority; $refetch (recrawl on): due
--          pages, target pages first, then the longest overdue. They go
--          with their validators (etag, last_modified) for a conditional
--          request, count in the per-host limit after the new URLs, and not
--          in an undecided server's T + 1 - Na
-- output:  url, host, depth, priority, pick ('rank', 'explore' or
--          'refetch'), etag, last_modified — highest priority first, then
--          shallowest; explored URLs, then due pages last
WITH ranked AS (
    SELECT url, host, depth, priority, na, nr,
           row_number() OVER (ORDER BY priority DESC, depth, host_rank, url) AS rank
    FROM fetch_candidates
    WHERE NOT due
),
due_ranked AS (
    SELECT url, host, depth, priority, etag, last_modified,
           row_number() OVER (ORDER BY coalesce(relevant, false) DESC, next_fetch NULLS FIRST,
                                       priority DESC, url) AS rank
    FROM fetch_candidates
    -- $refetch again: off, the planner drops this branch whole
    WHERE due AND $refetch
),
unpicked AS (
    SELECT *,
           row_number() OVER (PARTITION BY host ORDER BY priority DESC, depth, url) AS left_rank,
           (nr + 2.0 * priority) / (na + 2.0) + sqrt(ln($fetched + 2.0) / (na + 1.0)) AS bound
    FROM ranked
    WHERE rank > $new_room - $explored AND $explored > 0
),
explored AS (
    SELECT url, host, depth, priority,
           row_number() OVER (ORDER BY left_rank, bound DESC, priority DESC, url) AS rank
    FROM unpicked
),
picked AS (
    SELECT url, host, depth, priority, 'rank' AS pick, rank AS place,
           CAST(NULL AS VARCHAR) AS etag, CAST(NULL AS VARCHAR) AS last_modified
    FROM ranked
    WHERE rank <= $new_room - $explored
    UNION ALL
    SELECT url, host, depth, priority, 'explore' AS pick, $top_n + rank AS place,
           CAST(NULL AS VARCHAR) AS etag, CAST(NULL AS VARCHAR) AS last_modified
    FROM explored
    WHERE rank <= $explored
    UNION ALL
    SELECT url, host, depth, priority, 'refetch' AS pick, 2 * $top_n + rank AS place,
           etag, last_modified
    FROM due_ranked
)
SELECT url, host, depth, priority, pick, etag, last_modified
FROM (SELECT p.*, row_number() OVER (ORDER BY place) AS n FROM picked p) numbered
WHERE n <= $size
ORDER BY place
