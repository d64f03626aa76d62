-- crawldb_at_round: the crawldb as updatedb saw it when it merged round
-- $round — the URLs discovered before that round, with the fetch results of
-- rounds up to it — rebuilt from the current crawldb (each row keeps the
-- round it was discovered in and the round it was fetched in). refilter
-- decides old links against it, so the server view is the one of that round.
-- inputs:  crawldb
-- params:  $round
-- output:  crawldb rows
SELECT url, host, domain, tld, dir,
       CASE WHEN fetched_round <= $round THEN status ELSE 'unfetched' END AS status,
       retries, depth, priority, discovered_round,
       CASE WHEN fetched_round <= $round THEN fetched_round END AS fetched_round,
       CASE WHEN fetched_round <= $round THEN http_status END AS http_status,
       CASE WHEN fetched_round <= $round THEN redirect_to END AS redirect_to,
       CASE WHEN fetched_round <= $round THEN lang END AS lang,
       CASE WHEN fetched_round <= $round THEN lang_confidence END AS lang_confidence,
       CASE WHEN fetched_round <= $round THEN lang_source END AS lang_source,
       CASE WHEN fetched_round <= $round THEN relevant END AS relevant,
       CASE WHEN fetched_round <= $round THEN digest END AS digest,
       found_from, found_anchor, redirect_hops, retry_round,
       etag, last_modified, fetched_at, next_fetch, refetch_ms, fetches, changes
FROM crawldb
WHERE discovered_round < $round
