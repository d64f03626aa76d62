-- adaptive: beyond the papers — a frontier, not a filter. Every link is
-- followed (the crawl's limits apart, decide.sql); what the crawl learned
-- decides only when: a URL's priority is the probability, under a logistic
-- regression on this crawl's own fetches (count_labels.sql, fitted by
-- src/strategy/fit.rs), that its
-- likeliest link leads to a target page (url_scores.sql), and every queued
-- URL is re-scored with each round's model. generate fetches the best of
-- the whole queue, and spends --explore-share of each round on the servers
-- the crawl knows least (generate.sql); the crawl stops when the measured
-- yield falls below --min-yield (round_yield.sql). A redirect keeps at
-- least its source's priority. A link to a page already fetched has
-- nothing to score (priority 0: it is `already-known`).
-- inputs:  page_links, url_scores, crawldb_after_round
-- params:  none
-- output:  src_url, url, accepted, priority, reason
SELECT l.src_url,
       l.dst_url AS url,
       true AS accepted,
       CASE WHEN l.kind = 'redirect' THEN greatest(coalesce(s.priority, 0.0), coalesce(u.priority, 0.0))
            ELSE coalesce(u.priority, 0.0) END AS priority,
       CASE WHEN l.kind = 'redirect' THEN 'redirect' ELSE 'ranked' END AS reason
FROM page_links l
LEFT JOIN url_scores u ON u.url = l.dst_url
LEFT JOIN crawldb_after_round s ON s.url = l.src_url
