-- round_pages: what one round's fetch and parse learned about each URL.
-- inputs:  fetch, parse (segments of the round)
-- params:  $target_lang (ISO 639-3)
-- output:  url, status, http_status, redirect_to, lang, lang_confidence, digest, relevant
SELECT f.url,
       f.status,
       f.http_status,
       f.redirect_to,
       p.lang,
       p.lang_confidence,
       p.digest,
       CASE WHEN f.status = 'fetched' THEN coalesce(p.lang = $target_lang, false) END AS relevant
FROM fetch f
LEFT JOIN parse p ON f.url = p.url
