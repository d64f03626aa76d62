-- export/warc_exchanges: one round's answered requests as WARC records
-- need them — the request as sent, the status line's version and code, the
-- headers and the payload as received (with its Content-Encoding), and why
-- the payload is cut. Rows fetch wrote before it kept requests (and the
-- rows of a simulation) have no request and are left out.
-- inputs:  fetch, parse (segments of the round), crawldb
-- params:  $only_target (only pages in the target language), $target_lang
-- output:  url, fetched_at, request, http_version, http_status, headers,
--          remote_ip, payload, payload_truncated
SELECT f.url,
       f.fetched_at,
       f.request,
       f.http_version,
       f.http_status,
       f.headers,
       f.remote_ip,
       coalesce(f.payload, f.content) AS payload,
       f.payload_truncated
FROM fetch f
WHERE f.request IS NOT NULL
  AND f.http_status IS NOT NULL
  AND (NOT $only_target
       OR f.url IN (SELECT url FROM parse WHERE parsed AND lang = $target_lang)
       -- a 304 is not parsed: the page's language is the crawldb's
       OR (f.status = 'not-modified'
           AND f.url IN (SELECT url FROM crawldb WHERE lang = $target_lang)))
