-- language_report: pages fetched per language and their share, the target
-- language first (the form of Table 4 in Chan & Yamana). Every fetched page
-- counts; a page without a language says why: `(no text)` (a frameset, a
-- refresh, an image page), `(not html)`, `(parse failed)`; `und` is text
-- whose language could not be told.
-- inputs:  crawldb
-- params:  $target_lang
-- output:  lang, pages, percent
WITH per_lang AS (
    SELECT coalesce(lang, CASE lang_source WHEN 'no-text' THEN '(no text)'
                                           WHEN 'not-html' THEN '(not html)'
                                           WHEN 'parse-failed' THEN '(parse failed)'
                                           ELSE 'und' END) AS lang,
           count(*) AS pages
    FROM crawldb
    WHERE status = 'fetched'
    GROUP BY 1
),
total AS (SELECT sum(pages) AS all_pages FROM per_lang)
SELECT lang, pages, round(100.0 * pages / all_pages, 2) AS percent
FROM per_lang CROSS JOIN total
ORDER BY CASE WHEN lang = $target_lang THEN 0 ELSE 1 END, pages DESC, lang
