-- queue_by_status: the crawldb's URLs by status — unfetched ones are the
-- queue, and with recrawl on, fetched pages due again count as `due`
-- (what `langcrawl status` prints).
-- inputs:  crawldb
-- params:  $refetch (recrawl on: due as fetch_candidates.sql counts it —
--          next_fetch past, or for a page never scheduled its fetch more
--          than $refetch_after_ms ago)
-- output:  status, urls
SELECT CASE WHEN $refetch AND status = 'fetched'
                 AND coalesce(coalesce(next_fetch,
                                       to_timestamp_millis(CAST(fetched_at AS BIGINT)
                                                           + $refetch_after_ms))
                              <= now(), true) THEN 'due'
            ELSE status END AS status,
       count(*) AS urls
FROM crawldb
GROUP BY 1
ORDER BY urls DESC, status
