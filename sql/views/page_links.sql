-- page_links: the round's links, one row per source page and destination.
-- A page that links a URL with several texts has a `links` row for each
-- (the `ontology` strategy reads them all); every verdict is about the
-- URL, so the views the strategies share take its first row. parse marks
-- it (`first_link_to_dst`); rows not marked (redirects, sitemap entries,
-- simulated rounds, segments written before the mark) get the first by
-- position, a row with an anchor before one without.
-- inputs:  links
-- params:  none
-- output:  the links schema, one row per (src_url, dst_url)
-- (A window, not DISTINCT ON: DataFusion plans that as one ordered
-- first_value aggregate per column, 6x slower and 5x the memory.)
SELECT *
FROM links
WHERE first_link_to_dst
UNION ALL
SELECT * EXCLUDE (place)
FROM (SELECT *,
             row_number() OVER (PARTITION BY src_url, dst_url
                                ORDER BY position NULLS LAST, anchor DESC) AS place
      FROM links
      WHERE first_link_to_dst IS NULL)
WHERE place = 1
