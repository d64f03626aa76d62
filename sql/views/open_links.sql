-- open_links: the links `adaptive` learns from and ranks this round — the
-- last round's frontier (links whose destination was not fetched yet) and
-- this round's links (link_features.sql) — with the features judged as the
-- crawl stands now and, where the destination has been fetched, the label:
-- did the link lead to a target page (`dst_relevant`; NULL while not).
--   inlinks     0, 1, 2, 3+: relevant pages linking to the destination
--   src_server  relevant | undecided | irrelevant (Tamura's state)
--   dst_server  unvisited | relevant | undecided-1 | undecided-2+ |
--               irrelevant: Tamura's state, undecided split by whether one
--               page or more (at most $tolerance) showed no target
--   dst_dir     the same for the destination's top-level directory
-- A link whose anchor text is in the target language has `/target-anchor`
-- after its destination's states (its server's only once visited: an
-- unvisited server is the `new` segment, count_labels.sql): such an
-- anchor into a server or directory the crawl has not judged says much,
-- into a relevant one little, and one weight per value cannot tell those
-- apart.
-- The destination's server and directory are judged by their other
-- fetched pages — the destination itself left out — so a label never
-- describes itself. A link whose destination left the queue otherwise
-- (gone, redirected, refused, robots, skipped, or never added: a limit
-- rejected it) is dropped unlabelled. Each link is labelled once, in the
-- round its destination is fetched (or found, if fetched before): the
-- labels grow by these rows only (count_labels.sql).
-- inputs:  open_candidates (open_candidates.sql: the last round's
--          frontier and this round's links), crawldb_after_round, servers,
--          dirs
-- params:  $tolerance, $round
-- output:  the open-links schema (store::schema::OPEN_LINKS)
WITH candidates AS (
    SELECT * FROM open_candidates
),
inlinks AS (
    -- relevant pages linking to each destination: every candidate link,
    -- or this round's only for a URL the crawldb does not hold (the
    -- frontier's are dropped below). An aggregate, not a window over
    -- `described`: a window sorts every open link by URL.
    SELECT url,
           sum(CASE WHEN src_relevant THEN 1 ELSE 0 END) AS known_count,
           sum(CASE WHEN src_relevant AND found_round = $round THEN 1 ELSE 0 END) AS round_count
    FROM candidates
    GROUP BY url
),
described AS (
    SELECT c.*,
           CASE WHEN d.status = 'fetched' THEN coalesce(d.relevant, false) END AS dst_relevant,
           CASE WHEN d.url IS NULL THEN i.round_count ELSE i.known_count END AS inlink_count,
           coalesce(ss.state, 'undecided') AS src_state,
           -- the destination's server and directory without the destination
           coalesce(ds.na, 0) - CASE WHEN d.status = 'fetched' THEN 1 ELSE 0 END AS server_na,
           coalesce(ds.nr, 0) - CASE WHEN d.status = 'fetched' AND d.relevant THEN 1 ELSE 0 END
               AS server_nr,
           coalesce(dd.na, 0) - CASE WHEN d.status = 'fetched' THEN 1 ELSE 0 END AS dir_na,
           coalesce(dd.nr, 0) - CASE WHEN d.status = 'fetched' AND d.relevant THEN 1 ELSE 0 END
               AS dir_nr
    FROM candidates c
    JOIN inlinks i ON i.url = c.url
    LEFT JOIN crawldb_after_round d ON d.url = c.url
    LEFT JOIN servers ss ON ss.host = c.src_host
    LEFT JOIN servers ds ON ds.host = c.dst_host
    LEFT JOIN dirs dd ON dd.dir = c.dir
    WHERE d.status IN ('unfetched', 'error', 'fetched')
       OR (d.url IS NULL AND c.found_round = $round)
)
SELECT found_round, src_url, url, src_host, dst_host, dir, src_priority, src_relevant, dst_relevant,
       kind, hreflang, url_lang, anchor, tld, hops,
       CASE WHEN inlink_count >= 3 THEN '3+' ELSE CAST(inlink_count AS VARCHAR) END AS inlinks,
       src_state AS src_server,
       CASE WHEN server_na <= 0 THEN 'unvisited'
            WHEN server_nr > 0 THEN 'relevant'
            WHEN server_na = 1 THEN 'undecided-1'
            WHEN server_na <= $tolerance THEN 'undecided-2+'
            ELSE 'irrelevant' END
       || CASE WHEN anchor = 'target' AND server_na > 0 THEN '/target-anchor' ELSE '' END
       AS dst_server,
       CASE WHEN dir_na <= 0 THEN 'unvisited'
            WHEN dir_nr > 0 THEN 'relevant'
            WHEN dir_na = 1 THEN 'undecided-1'
            WHEN dir_na <= $tolerance THEN 'undecided-2+'
            ELSE 'irrelevant' END
       || CASE WHEN anchor = 'target' THEN '/target-anchor' ELSE '' END
       AS dst_dir
FROM described
