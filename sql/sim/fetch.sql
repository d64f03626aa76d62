-- sim/fetch: the fetch phase of a simulated crawl — each fetch-list URL
-- looked up in the web graph instead of requested: a 200 page is fetched,
-- a 3xx a redirect (gone without a target, as live), a 4xx gone, a 5xx
-- an error (retried as in a live crawl), a page robots.txt disallows is
-- robots_denied, and a URL the web has no answer for is `unrecorded`
-- (never tried again). The error texts are a live crawl's.
-- inputs:  fetchlist (the round's), web_pages
-- params:  none
-- output:  fetch segment rows (the other columns are NULL)
SELECT f.url,
       f.host,
       CASE WHEN w.status IS NULL THEN 'unrecorded'
            WHEN NOT w.robots_allowed THEN 'robots_denied'
            WHEN w.status BETWEEN 200 AND 299 THEN 'fetched'
            WHEN w.status BETWEEN 300 AND 399 AND w.redirect_to IS NOT NULL THEN 'redirect'
            WHEN w.status BETWEEN 300 AND 499 THEN 'gone'
            ELSE 'error' END AS status,
       CASE WHEN w.robots_allowed THEN w.status END AS http_status,
       CASE WHEN w.robots_allowed AND w.status BETWEEN 300 AND 399 THEN w.redirect_to END AS redirect_to,
       CAST(0 AS BIGINT) AS content_length,
       false AS truncated,
       to_timestamp_millis(0) AS fetched_at,
       CAST(0 AS BIGINT) AS fetch_ms,
       CASE WHEN w.status IS NULL THEN 'not in the recorded web'
            WHEN NOT w.robots_allowed THEN 'disallowed by robots.txt'
            WHEN w.status BETWEEN 300 AND 399 AND w.redirect_to IS NULL
                THEN 'redirect without a Location header'
            WHEN w.status NOT BETWEEN 200 AND 499 THEN 'answered HTTP ' || CAST(w.status AS VARCHAR)
            END AS error
FROM fetchlist f
LEFT JOIN web_pages w ON w.url = f.url
