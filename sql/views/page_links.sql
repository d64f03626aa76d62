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
-- The first row of each pair is the one whose predecessor, in one order
-- of all the rows, is another pair (`lag`): not DISTINCT ON (DataFusion
-- plans that as one ordered first_value aggregate per column, 6x slower
-- and 5x the memory), nor row_number() over a window partitioned by the
-- pair (its window pays per partition, and most pairs are alone: 2.3-2.8x
-- slower over a replay's rounds, docs/benchmarks.md).
SELECT *
FROM links
WHERE first_link_to_dst
UNION ALL
SELECT * EXCLUDE (src_before, dst_before)
FROM (SELECT *, lag(src_url) OVER w AS src_before, lag(dst_url) OVER w AS dst_before
      FROM links
      WHERE first_link_to_dst IS NULL
      WINDOW w AS (ORDER BY src_url, dst_url, position NULLS LAST, anchor DESC))
WHERE (src_before IS DISTINCT FROM src_url) OR (dst_before IS DISTINCT FROM dst_url)
