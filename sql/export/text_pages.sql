-- export/text_pages: one round's fetched pages in a language, with what
-- parse found (title, language, charset) and the bytes to take the main
-- text from.
-- inputs:  fetch, parse (segments of the round)
-- params:  $lang (ISO 639-3)
-- output:  url, title, lang, lang_confidence, charset, fetched_at, content,
--          by url (which of two duplicate pages is kept must not depend
--          on the order the join's partitions finish in)
SELECT f.url,
       p.title,
       p.lang,
       p.lang_confidence,
       p.charset,
       f.fetched_at,
       f.content
FROM fetch f
JOIN parse p ON p.url = f.url
WHERE f.status = 'fetched'
  AND f.content IS NOT NULL
  AND p.parsed
  AND p.lang = $lang
ORDER BY f.url
