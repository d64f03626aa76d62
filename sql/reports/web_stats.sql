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
-- Each link with its source's facts: pages (not links) on the build side
-- of every join, so memory holds the pages, never the links.
page_facts AS (
    SELECT c.url, c.target, v.target_server > 0 AS on_target_server
    FROM servers v
    JOIN content c ON c.host = v.host
),
links_from AS (
    SELECT s.target AS src_target, s.on_target_server AS src_on_target_server,
           l.src_host <> l.dst_host AS inter, l.dst_url
    FROM page_facts s
    JOIN web_links l ON l.src_url = s.url
),
links AS (
    SELECT l.src_target, l.src_on_target_server, l.inter,
           CASE WHEN d.target THEN 1.0 ELSE 0.0 END AS dst_target
    FROM content d
    JOIN links_from l ON l.dst_url = d.url
),
-- The six link shares in one pass over the links (a CTE read twice would
-- be joined twice).
link_shares AS (
    SELECT avg(CASE WHEN src_target THEN dst_target END) AS s4,
           avg(CASE WHEN src_target AND inter THEN dst_target END) AS s5,
           avg(CASE WHEN NOT src_target AND src_on_target_server THEN dst_target END) AS s6,
           avg(CASE WHEN NOT src_target AND src_on_target_server AND inter THEN dst_target END) AS s7,
           avg(CASE WHEN NOT src_on_target_server THEN dst_target END) AS s8,
           avg(CASE WHEN NOT src_on_target_server AND inter THEN dst_target END) AS s9
    FROM links
),
link_names AS (
    SELECT * FROM (VALUES
        (4, 'links from target pages to target pages'),
        (5, '  of them inter-server'),
        (6, 'links from other pages on target servers to target pages'),
        (7, '  of them inter-server'),
        (8, 'links from other pages on other servers to target pages'),
        (9, '  of them inter-server')
    ) AS t(ord, name)
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
    SELECT n.ord, n.name,
           CASE n.ord WHEN 4 THEN s.s4 WHEN 5 THEN s.s5 WHEN 6 THEN s.s6
                      WHEN 7 THEN s.s7 WHEN 8 THEN s.s8 ELSE s.s9 END
    FROM link_names n
    CROSS JOIN link_shares s
)
SELECT name, coalesce(achieved, 0.0) AS achieved
FROM stats
ORDER BY ord
