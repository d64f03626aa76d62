-- queue_by_status: the crawldb's URLs by status — unfetched ones are the
-- queue, and with recrawl on, fetched pages due again count as `due`
-- (what `langcrawl status` prints).
-- inputs:  crawldb
-- params:  $refetch (recrawl on: due as generate.sql counts it — next_fetch
--          past, or a fetched page never scheduled)
-- output:  status, urls
SELECT CASE WHEN $refetch AND status = 'fetched'
                 AND (next_fetch IS NULL OR next_fetch <= now()) THEN 'due'
            ELSE status END AS status,
       count(*) AS urls
FROM crawldb
GROUP BY 1
ORDER BY urls DESC, status
