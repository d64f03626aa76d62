-- sim/export_pages: a finished crawl as the pages of a web graph — each
-- URL with the answer the crawl got (fetched 200, redirect 3xx, gone 4xx,
-- error 5xx; never fetched: NULL) and the language it found, plus the URLs
-- links pointed to that never entered the crawldb (status NULL).
-- inputs:  crawldb, links (all rounds)
-- params:  none
-- output:  web pages rows
SELECT url, host, domain, tld, dir,
       CASE WHEN status = 'fetched' THEN lang END AS lang,
       CASE WHEN status = 'fetched' THEN coalesce(http_status, 200)
            WHEN status = 'redirect' THEN coalesce(http_status, 301)
            WHEN status = 'gone' THEN coalesce(http_status, 404)
            WHEN status = 'error' THEN coalesce(http_status, 500)
            WHEN status = 'robots_denied' THEN 200
            END AS status,
       CASE WHEN status = 'redirect' THEN redirect_to END AS redirect_to,
       status <> 'robots_denied' AS robots_allowed,
       CAST(NULL AS VARCHAR) AS class, CAST(NULL AS VARCHAR) AS text
FROM crawldb
UNION ALL
SELECT dst_url, min(dst_host), min(dst_domain), min(dst_tld), min(dst_dir),
       CAST(NULL AS VARCHAR), CAST(NULL AS INT), CAST(NULL AS VARCHAR), true,
       CAST(NULL AS VARCHAR), CAST(NULL AS VARCHAR)
FROM links
WHERE dst_url NOT IN (SELECT url FROM crawldb)
GROUP BY dst_url
