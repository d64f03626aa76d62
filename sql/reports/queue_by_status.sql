-- queue_by_status: the crawldb's URLs by status — unfetched ones are the
-- queue (what `langcrawl status` prints).
-- inputs:  crawldb
-- params:  none
-- output:  status, urls
SELECT status, count(*) AS urls
FROM crawldb
GROUP BY status
ORDER BY urls DESC, status
