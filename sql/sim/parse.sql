-- sim/parse: the parse phase of a simulated crawl — each fetched page with
-- the language, class and text the web graph records for it and its number
-- of outlinks (distinct destinations in the round's links, which sim/links
-- wrote before).
-- inputs:  fetch, links (the round's), web_pages
-- params:  none
-- output:  parse segment rows (the other columns are NULL)
WITH outlinks AS (
    SELECT src_url, count(DISTINCT dst_url) AS outlinks FROM links WHERE kind <> 'redirect' GROUP BY src_url
)
SELECT f.url,
       f.host,
       true AS parsed,
       CAST(0 AS BIGINT) AS text_chars,
       w.lang,
       CASE WHEN w.lang IS NOT NULL THEN 1.0 END AS lang_confidence,
       'recorded' AS lang_source,
       CAST(coalesce(o.outlinks, 0) AS INT) AS outlinks,
       w.text,
       w.class
FROM fetch f
JOIN web_pages w ON w.url = f.url
LEFT JOIN outlinks o ON o.src_url = f.url
WHERE f.status = 'fetched'
