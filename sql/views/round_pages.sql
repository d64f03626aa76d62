-- round_pages: what one round's fetch and parse learned about each URL.
-- inputs:  fetch, parse (segments of the round)
-- params:  $target_lang (ISO 639-3), $relevant_class ('' unless a
--          simulated topic crawl: then a page of that class is relevant)
-- output:  url, status, http_status, redirect_to, lang, lang_confidence,
--          lang_source (`parse-failed` when parse failed), digest, relevant,
--          and the answer's validators (etag, last_modified) and time
--          (a `not-modified` page has no parse row: its language is the
--          crawldb's)
SELECT f.url,
       f.status,
       f.http_status,
       f.redirect_to,
       p.lang,
       p.lang_confidence,
       CASE WHEN f.status = 'fetched' THEN
           CASE WHEN NOT p.parsed THEN 'parse-failed' ELSE p.lang_source END
       END AS lang_source,
       p.digest,
       CASE WHEN f.status = 'fetched' THEN
           coalesce(CASE WHEN $relevant_class = '' THEN p.lang = $target_lang
                         ELSE p.class = $relevant_class END, false)
       END AS relevant,
       f.etag,
       f.last_modified,
       f.fetched_at
FROM fetch f
LEFT JOIN parse p ON f.url = p.url
