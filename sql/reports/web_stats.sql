-- web_stats: a web graph's shape in the terms of Tamura §2–3 (Tables 1, 4
-- and 5): how many pages and servers are in the target language, how many
-- target pages sit outside the target ccTLDs, and where links lead.
-- inputs:  web_pages, web_links (a web directory), target_tlds (tld)
-- params:  $target_lang
-- output:  name, achieved (a share, 0 to 1), in a fixed order
WITH content AS (
    SELECT url, host, tld, coalesce(lang = $target_lang, false) AS target
    FROM web_pages
    WHERE status = 200 AND robots_allowed AND lang IS NOT NULL
),
servers AS (
    SELECT host, max(CASE WHEN target THEN 1.0 ELSE 0.0 END) AS target_server
    FROM content
    GROUP BY host
),
links AS (
    SELECT s.target AS src_target,
           v.target_server > 0 AS src_on_target_server,
           l.src_host <> l.dst_host AS inter,
           CASE WHEN d.target THEN 1.0 ELSE 0.0 END AS dst_target
    FROM web_links l
    JOIN content s ON s.url = l.src_url
    JOIN content d ON d.url = l.dst_url
    JOIN servers v ON v.host = s.host
),
stats AS (
    SELECT 1 AS ord, 'target pages / pages' AS name,
           avg(CASE WHEN target THEN 1.0 ELSE 0.0 END) AS achieved
    FROM content
    UNION ALL
    SELECT 2, 'target pages outside the target ccTLDs',
           avg(CASE WHEN t.tld IS NULL THEN 1.0 ELSE 0.0 END)
    FROM content c
    LEFT JOIN target_tlds t ON t.tld = reverse(split_part(reverse(c.tld), '.', 1))
    WHERE c.target
    UNION ALL
    SELECT 3, 'servers with a target page / servers', avg(target_server) FROM servers
    UNION ALL
    SELECT 4, 'links from target pages to target pages', avg(dst_target)
    FROM links WHERE src_target
    UNION ALL
    SELECT 5, '  of them inter-server', avg(dst_target)
    FROM links WHERE src_target AND inter
    UNION ALL
    SELECT 6, 'links from other pages on target servers to target pages', avg(dst_target)
    FROM links WHERE NOT src_target AND src_on_target_server
    UNION ALL
    SELECT 7, '  of them inter-server', avg(dst_target)
    FROM links WHERE NOT src_target AND src_on_target_server AND inter
    UNION ALL
    SELECT 8, 'links from other pages on other servers to target pages', avg(dst_target)
    FROM links WHERE NOT src_on_target_server
    UNION ALL
    SELECT 9, '  of them inter-server', avg(dst_target)
    FROM links WHERE NOT src_on_target_server AND inter
)
SELECT name, coalesce(achieved, 0.0) AS achieved
FROM stats
ORDER BY ord
