-- sim/export_pages: a finished crawl as the pages of a web graph — each
-- URL with the answer the crawl got (fetched 200, redirect 3xx, gone 4xx,
-- error 5xx; never fetched: NULL) and the language it found, plus the URLs
-- links pointed to that never entered the crawldb (status NULL). A fetched
-- page keeps the visible text the parse of its fetch round kept (for
-- `ontology`'s page class; streamed past the crawldb, never held); its
-- class is left to the strategy.
-- inputs:  crawldb, parse, links (all rounds)
-- params:  none
-- output:  web pages rows
SELECT c.url, c.host, c.domain, c.tld, c.dir,
       CASE WHEN c.status = 'fetched' THEN c.lang END AS lang,
       CASE WHEN c.status = 'fetched' THEN coalesce(c.http_status, 200)
            WHEN c.status = 'redirect' THEN coalesce(c.http_status, 301)
            WHEN c.status = 'gone' THEN coalesce(c.http_status, 404)
            WHEN c.status = 'error' THEN coalesce(c.http_status, 500)
            WHEN c.status = 'robots_denied' THEN 200
            END AS status,
       CASE WHEN c.status = 'redirect' THEN c.redirect_to END AS redirect_to,
       c.status <> 'robots_denied' AS robots_allowed,
       CAST(NULL AS VARCHAR) AS class,
       CASE WHEN c.status = 'fetched' THEN p.text END AS text
FROM crawldb c
LEFT JOIN parse p ON p.url = c.url AND p.round = c.fetched_round
UNION ALL
SELECT dst_url, min(dst_host), min(dst_domain), min(dst_tld), min(dst_dir),
       CAST(NULL AS VARCHAR), CAST(NULL AS INT), CAST(NULL AS VARCHAR), true,
       CAST(NULL AS VARCHAR), CAST(NULL AS VARCHAR)
FROM links
WHERE dst_url NOT IN (SELECT url FROM crawldb)
GROUP BY dst_url
