-- round_size: how many URLs the next round holds, and how many of them
-- are new URLs, and explored ones (generate.sql picks them).
-- inputs:  fetch_candidates (fetch_candidates.sql), crawldb
-- params:  $top_n (URLs in all); $slow_start (a learning strategy): a
--          round holds at most as many URLs as pages fetched so far (at
--          least 10), so the crawl does not spend its budget faster than
--          it learns; and only the new URLs at least $round_cut as likely
--          as the best (or as many as it takes to expect $round_expect
--          target pages, and at least $round_floor of the pages fetched):
--          the others wait for the next round's model, which has learned
--          from these; $refetch (recrawl on) and $refetch_share: due
--          pages take at most that share of the list while new URLs
--          wait; $explore_share: the share of the new URLs spent on
--          exploring (generate.sql)
-- output:  one row: size (URLs in all), fetched (pages fetched so far),
--          new_room (room for new URLs), explored (of those, explored)
WITH best_new AS (
    -- the $top_n best new URLs: a round holds no more, so the count below
    -- is the same as over all of them once capped by $top_n (a top-k, not
    -- a sort of the whole queue). Off ($slow_start false) the planner
    -- drops this branch whole.
    SELECT priority, depth, host_rank, url
    FROM fetch_candidates
    WHERE NOT due AND $slow_start
    ORDER BY priority DESC, depth, host_rank, url
    LIMIT $top_n
),
ranked AS (
    -- the priorities of those ranked before each one, summed, and the
    -- best priority: what a learning strategy's round holds
    SELECT priority,
           sum(priority) OVER (ORDER BY priority DESC, depth, host_rank, url) - priority AS before,
           max(priority) OVER () AS best
    FROM best_new
),
promising AS (
    -- the new URLs at least $round_cut as likely as the best one, or as
    -- many as it takes to expect $round_expect target pages (priorities
    -- are probabilities)
    SELECT count(*) AS urls
    FROM ranked
    WHERE priority >= $round_cut * best OR before < $round_expect
),
fetched AS (
    SELECT count(*) AS pages FROM crawldb WHERE status = 'fetched'
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
    -- $refetch again: off, the planner drops the scan
    SELECT count(*) AS due FROM fetch_candidates WHERE due AND $refetch
),
room AS (
    -- due pages take their share of the list first (new URLs the rest),
    -- and after the new URLs whatever room those leave
    SELECT s.size, s.fetched,
           s.size - least(d.due, CAST(floor(s.size * $refetch_share) AS BIGINT)) AS new_room
    FROM sized s CROSS JOIN due_count d
)
SELECT size, fetched, new_room,
       CAST(floor(new_room * $explore_share) AS BIGINT) AS explored
FROM room
