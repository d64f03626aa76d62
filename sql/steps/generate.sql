-- generate: the fetch list of the next round.
-- inputs:  crawldb, hosts (fetch's host table: back-off per host)
-- params:  $top_n (URLs in all), $max_per_host, $max_retries (errors retried
--          this often), $round (the round generated), $now (timestamp),
--          $cap_by ('server', 'dir' or 'none') and $tolerance: with a server
--          (dir) strategy, a server (top-level directory) without a target
--          page yet (Nr = 0) gets at most T + 1 - Na URLs, so Tamura's rule
--          (irrelevant after T + 1 irrelevant pages) holds within a round,
--          whatever its size;
--          $explore_share: the share of the list (a learning strategy's;
--          0 for the others) spent on the servers the crawl knows least —
--          a bandit over servers: each server's yield so far, its best
--          queued URL's priority counting as two pages' worth of prior,
--          plus an upper-confidence bonus sqrt(ln(N + 2) / (Na + 1)) (N the
--          pages fetched, Na the server's); one URL per server before a
--          second, the rest of the list by priority;
--          $slow_start (a learning strategy): a round holds at most as many
--          URLs as pages fetched so far (at least 10), so the crawl does not
--          spend its budget faster than it learns; and only the new URLs
--          at least $round_cut as likely as the best (or as many as it
--          takes to expect $round_expect target pages, and at least
--          $round_floor of the pages fetched): the others wait for the
--          next round's model, which has learned from these;
--          $refetch (recrawl on), $due_by (timestamp: a fetched page whose
--          next_fetch is at or before it is due; a fetched page never
--          scheduled is due), $refetch_share: due pages take at most that
--          share of the list while new URLs wait, and all the room new
--          URLs leave; target pages first, then the longest overdue. They
--          go with their validators (etag, last_modified) for a
--          conditional request, count in the per-host limit after the new
--          URLs, and not in an undecided server's T + 1 - Na
-- output:  url, host, depth, priority, pick ('rank', 'explore' or
--          'refetch'), etag, last_modified — highest priority first, then
--          shallowest; explored URLs, then due pages last
WITH deferred_hosts AS (
    -- hosts that answered 429 or 503 and asked to be left alone until later
    SELECT DISTINCT host FROM hosts WHERE deferred_until > $now
),
queued AS (
    -- Na and Nr of each URL's server (directory) by window, not by a join:
    -- windows sort, and a sort spills to disk when memory runs short.
    SELECT url, host, dir, depth, priority, status, retries, retry_round,
           relevant, next_fetch, etag, last_modified,
           $refetch AND status = 'fetched'
               AND CASE WHEN next_fetch IS NULL THEN true ELSE next_fetch <= $due_by END AS due,
           SUM(CASE WHEN status = 'fetched' THEN 1 ELSE 0 END)
               OVER (PARTITION BY CASE WHEN $cap_by = 'dir' THEN dir ELSE host END) AS na,
           SUM(CASE WHEN status = 'fetched' AND relevant THEN 1 ELSE 0 END)
               OVER (PARTITION BY CASE WHEN $cap_by = 'dir' THEN dir ELSE host END) AS nr
    FROM crawldb
),
candidates AS (
    SELECT url, host, depth, priority, na, nr, due, relevant, next_fetch, etag, last_modified,
           row_number() OVER (PARTITION BY host ORDER BY due, priority DESC, depth, url) AS host_rank,
           -- the rank within the directory; with a server cap the unit is
           -- the host, its rank host_rank (no column `unit` = host: Ballista
           -- loses such an equality across a shuffle, its issue 1296)
           row_number() OVER (PARTITION BY dir ORDER BY due, priority DESC, depth, url) AS dir_rank
    FROM queued
    WHERE (status = 'unfetched'
           OR (status = 'error' AND retries < $max_retries)
           OR due)
      -- a failed or deferred URL waits until its retry round
      AND coalesce(retry_round, 0) <= $round
      AND host NOT IN (SELECT host FROM deferred_hosts)
),
allowed AS (
    SELECT * FROM candidates
    WHERE host_rank <= $max_per_host
      AND (due OR $cap_by = 'none' OR nr > 0
           OR CASE WHEN $cap_by = 'dir' THEN dir_rank ELSE host_rank END <= $tolerance + 1 - na)
),
ranked AS (
    SELECT url, host, depth, priority, na, nr,
           row_number() OVER (ORDER BY priority DESC, depth, host_rank, url) AS rank,
           -- the priorities of the URLs ranked before this one, summed,
           -- and the best priority: what a learning strategy's round holds
           sum(priority) OVER (ORDER BY priority DESC, depth, host_rank, url) - priority AS before,
           max(priority) OVER () AS best
    FROM allowed
    WHERE NOT due
),
due_ranked AS (
    SELECT url, host, depth, priority, etag, last_modified,
           row_number() OVER (ORDER BY coalesce(relevant, false) DESC, next_fetch NULLS FIRST,
                                       priority DESC, url) AS rank
    FROM allowed
    -- $refetch again: off, the planner drops this branch whole
    WHERE due AND $refetch
),
fetched AS (
    SELECT count(*) AS pages FROM crawldb WHERE status = 'fetched'
),
promising AS (
    -- a learning strategy's round: the new URLs at least $round_cut as
    -- likely as the best one, or as many as it takes to expect
    -- $round_expect target pages (priorities are probabilities)
    SELECT count(*) AS urls
    FROM ranked
    WHERE $slow_start AND (priority >= $round_cut * best OR before < $round_expect)
),
sized AS (
    SELECT CASE WHEN $slow_start
                THEN least($top_n, greatest(10, least(f.pages,
                         greatest(p.urls, CAST(ceil($round_floor * f.pages) AS BIGINT)))))
                ELSE $top_n END AS size,
           f.pages AS fetched
    FROM fetched f CROSS JOIN promising p
),
due_count AS (
    SELECT count(*) AS due FROM due_ranked
),
room AS (
    -- due pages take their share of the list first (new URLs the rest),
    -- and after the new URLs whatever room those leave
    SELECT s.size, s.fetched,
           s.size - least(d.due, CAST(floor(s.size * $refetch_share) AS BIGINT)) AS new_room
    FROM sized s CROSS JOIN due_count d
),
budget AS (
    SELECT size, fetched, new_room,
           CAST(floor(new_room * $explore_share) AS BIGINT) AS explored
    FROM room
),
unpicked AS (
    SELECT r.*,
           row_number() OVER (PARTITION BY host ORDER BY priority DESC, depth, url) AS left_rank,
           (nr + 2.0 * priority) / (na + 2.0) + sqrt(ln(b.fetched + 2.0) / (na + 1.0)) AS bound
    FROM ranked r CROSS JOIN budget b
    WHERE r.rank > b.new_room - b.explored
),
explored AS (
    SELECT url, host, depth, priority,
           row_number() OVER (ORDER BY left_rank, bound DESC, priority DESC, url) AS rank
    FROM unpicked
),
picked AS (
    SELECT r.url, r.host, r.depth, r.priority, 'rank' AS pick, r.rank AS place,
           CAST(NULL AS VARCHAR) AS etag, CAST(NULL AS VARCHAR) AS last_modified
    FROM ranked r CROSS JOIN budget b
    WHERE r.rank <= b.new_room - b.explored
    UNION ALL
    SELECT e.url, e.host, e.depth, e.priority, 'explore' AS pick, $top_n + e.rank AS place,
           CAST(NULL AS VARCHAR) AS etag, CAST(NULL AS VARCHAR) AS last_modified
    FROM explored e CROSS JOIN budget b
    WHERE e.rank <= b.explored
    UNION ALL
    SELECT url, host, depth, priority, 'refetch' AS pick, 2 * $top_n + rank AS place,
           etag, last_modified
    FROM due_ranked
)
SELECT url, host, depth, priority, pick, etag, last_modified
FROM (SELECT p.*, row_number() OVER (ORDER BY place) AS n FROM picked p) numbered
CROSS JOIN budget b
WHERE numbered.n <= b.size
ORDER BY place
