-- adaptive: beyond the papers — follow the links the crawl itself has
-- learned lead to target pages. Every link whose destination was fetched
-- labels its features (link_features.sql); a naive Bayes model over them
-- (learn_model.sql, written as the round's `model`) scores this round's
-- links (link_scores.sql, written as `scores`). A link is followed when
-- its probability reaches the model's threshold, which tightens as labels
-- accumulate, and whose bite grows as target pages get scarce (the prior
-- falls). Exploration: below the threshold, of the links a relevant
-- server's pages make into servers not yet judged (unvisited, or
-- undecided: no target page among at most $tolerance fetched), the
-- $explore most likely per source server and round are still followed,
-- so new servers stay reachable.
-- Below the threshold, links within a server still undecided (no target
-- page yet among at most $tolerance fetched) are followed too, as Tamura's
-- tolerance does: target sections behind a few pages in another language
-- stay reachable.
-- Priority is the probability (a redirect keeps its URL's priority).
-- inputs:  link_scores, model
-- params:  $explore ($tolerance acts through link_features)
-- output:  src_url, url, accepted, priority, reason
WITH judged AS (
    SELECT s.src_url, s.url, s.src_host, s.dst_host, s.kind, s.src_priority, s.probability,
           s.src_server, s.dst_server,
           s.probability >= t.weight AS likely,
           s.dst_server LIKE 'undecided%' AND s.dst_host = s.src_host AS settles
    FROM link_scores s
    CROSS JOIN (SELECT weight FROM model WHERE feature = 'threshold') t
),
explored AS (
    SELECT src_url, url,
           row_number() OVER (PARTITION BY src_host ORDER BY probability DESC, url) AS place
    FROM judged
    WHERE NOT likely AND kind <> 'redirect'
      AND src_server = 'relevant' AND (dst_server = 'unvisited' OR dst_server LIKE 'undecided%')
)
SELECT j.src_url,
       j.url,
       j.kind = 'redirect' OR j.likely OR j.settles
           OR coalesce(e.place <= $explore, false) AS accepted,
       CASE WHEN j.kind = 'redirect' THEN j.src_priority ELSE j.probability END AS priority,
       CASE WHEN j.kind = 'redirect' THEN 'redirect'
            WHEN j.likely THEN 'likely-target'
            WHEN j.settles THEN 'undecided-server'
            WHEN e.place <= $explore THEN 'explore'
            ELSE 'unlikely-target' END AS reason
FROM judged j
LEFT JOIN explored e ON e.src_url = j.src_url AND e.url = j.url
