-- apply_fetch: the crawldb with one round's fetch results applied.
-- inputs:  crawldb, round_pages (see round_pages.sql)
-- params:  $round
-- output:  crawldb rows; fetched URLs take the round's status, errors count a retry
SELECT c.url, c.host, c.domain, c.tld, c.dir,
       CASE WHEN r.url IS NULL THEN c.status ELSE r.status END AS status,
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
       c.retry_round
FROM crawldb c
LEFT JOIN round_pages r ON c.url = r.url
