-- sim/links: the links a simulated round finds — every recorded link of
-- each fetched page (with the context, heading and anchor source the web
-- records, else its anchor as context), and one link per redirect
-- (kind `redirect`), as the parse phase of a live crawl writes them. The
-- round's pages are the build side of each join: the web's pages and links
-- are only scanned.
-- inputs:  fetch (the round's), web_pages, web_links
-- params:  none
-- output:  links segment rows
SELECT l.src_url, l.src_host, w.lang AS src_lang,
       l.dst_url, l.dst_host, l.dst_domain, l.dst_tld, l.dst_dir,
       l.anchor, l.anchor_lang, coalesce(l.context, l.anchor) AS context,
       false AS nofollow, coalesce(l.kind, 'a') AS kind, l.hreflang,
       CAST(NULL AS INT) AS position, l.heading, l.anchor_source
FROM fetch f
JOIN web_pages w ON w.url = f.url
JOIN web_links l ON l.src_url = f.url
WHERE f.status = 'fetched'
UNION ALL
SELECT f.url AS src_url, f.host AS src_host, CAST(NULL AS VARCHAR) AS src_lang,
       d.url AS dst_url, d.host AS dst_host, d.domain AS dst_domain, d.tld AS dst_tld,
       d.dir AS dst_dir, '' AS anchor, 'und' AS anchor_lang, '' AS context,
       false AS nofollow, 'redirect' AS kind, CAST(NULL AS VARCHAR) AS hreflang,
       CAST(0 AS INT) AS position, CAST(NULL AS VARCHAR) AS heading,
       CAST(NULL AS VARCHAR) AS anchor_source
FROM fetch f
JOIN web_pages d ON d.url = f.redirect_to
WHERE f.status = 'redirect'
