-- sim/links: the links a simulated round finds — every recorded link of
-- each fetched page (its anchor as context), and one link per redirect
-- (kind `redirect`), as the parse phase of a live crawl writes them.
-- inputs:  fetch (the round's), web_pages, web_links
-- params:  none
-- output:  links segment rows
SELECT l.src_url, l.src_host, w.lang AS src_lang,
       l.dst_url, l.dst_host, l.dst_domain, l.dst_tld, l.dst_dir,
       l.anchor, l.anchor_lang, l.anchor AS context,
       false AS nofollow, 'a' AS kind, CAST(NULL AS VARCHAR) AS hreflang,
       CAST(NULL AS INT) AS position
FROM fetch f
JOIN web_links l ON l.src_url = f.url
JOIN web_pages w ON w.url = f.url
WHERE f.status = 'fetched'
UNION ALL
SELECT f.url, f.host, CAST(NULL AS VARCHAR),
       d.url, d.host, d.domain, d.tld, d.dir,
       '', 'und', '',
       false, 'redirect', CAST(NULL AS VARCHAR), CAST(0 AS INT)
FROM fetch f
JOIN web_pages d ON d.url = f.redirect_to
WHERE f.status = 'redirect'
