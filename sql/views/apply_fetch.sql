-- apply_fetch: the crawldb with one round's fetch results applied.
-- inputs:  crawldb, round_pages (see round_pages.sql)
-- params:  $round, $max_retries
-- output:  crawldb rows. A requested URL takes the round's status; an
--          `error` counts a retry and waits 2^retries rounds (1, 2, 4, ...)
--          before generate picks it again (retry_round); after $max_retries
--          failures it is `gone`. A `deferred` URL was not requested (robots.txt
--          unavailable, back-off, the host's time budget, the phase's
--          deadline): it keeps its status and retries and waits for the next
--          round. `refused` (address guard, scheme) is final.
SELECT c.url, c.host, c.domain, c.tld, c.dir,
       CASE WHEN r.url IS NULL THEN c.status
            WHEN r.status = 'error' AND c.retries + 1 >= $max_retries THEN 'gone'
            ELSE r.status END AS status,
       CASE WHEN r.url IS NULL THEN c.retries
            WHEN r.status = 'error' THEN c.retries + 1
            ELSE 0 END AS retries,
       c.depth,
       c.priority,
       c.discovered_round,
       CASE WHEN r.url IS NULL THEN c.fetched_round ELSE CAST($round AS INT) END AS fetched_round,
       CASE WHEN r.url IS NULL THEN c.http_status ELSE r.http_status END AS http_status,
       CASE WHEN r.url IS NULL THEN c.redirect_to ELSE r.redirect_to END AS redirect_to,
       CASE WHEN r.url IS NULL THEN c.lang ELSE r.lang END AS lang,
       CASE WHEN r.url IS NULL THEN c.lang_confidence ELSE r.lang_confidence END AS lang_confidence,
       CASE WHEN r.url IS NULL THEN c.lang_source ELSE r.lang_source END AS lang_source,
       CASE WHEN r.url IS NULL THEN c.relevant ELSE r.relevant END AS relevant,
       CASE WHEN r.url IS NULL THEN c.digest ELSE r.digest END AS digest,
       c.found_from,
       c.found_anchor,
       c.redirect_hops,
       CASE WHEN r.status = 'error' THEN CAST($round + power(2, least(c.retries, 16)) AS INT)
            WHEN d.url IS NOT NULL THEN CAST($round + 1 AS INT)
            WHEN r.url IS NOT NULL THEN CAST(NULL AS INT)
            ELSE c.retry_round END AS retry_round
FROM crawldb c
LEFT JOIN (SELECT * FROM round_pages WHERE status <> 'deferred') r ON c.url = r.url
LEFT JOIN (SELECT url FROM round_pages WHERE status = 'deferred') d ON c.url = d.url
