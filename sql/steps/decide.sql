-- decide: a strategy's verdicts, within the crawl's limits, against what the
-- crawldb already knows. A link past a limit (link_limits.sql) is rejected
-- with the limit's name. A followed link to a new URL is accepted with the
-- strategy's reason, unless its host already holds $host_budget URLs
-- (`host-budget`); to a URL still queued at a lower priority it raises that
-- priority (`priority-raised`); to any other known URL it is `already-known`.
-- Rejected links keep the strategy's reason. Every row keeps what the merge
-- needs to add its URL (from link_limits).
-- inputs:  strategy_out (the strategy's rows), link_limits, crawldb_after_round
-- params:  $host_budget
-- output:  the decisions schema: src_url, url, accepted, priority, reason,
--          kind, anchor, dst_host, dst_domain, dst_tld, dst_dir, depth,
--          redirect_hops
WITH judged AS (
    SELECT s.src_url, s.url, s.priority,
           m.kind, m.anchor, m.dst_host, m.dst_domain, m.dst_tld, m.dst_dir,
           m.depth, m.redirect_hops,
           c.url IS NULL AS new_url,
           s.accepted AND m.limit_reason IS NULL
               AND (c.url IS NULL OR (c.status = 'unfetched' AND s.priority > c.priority)) AS accepted,
           CASE WHEN m.limit_reason IS NOT NULL THEN m.limit_reason
                WHEN NOT s.accepted OR c.url IS NULL THEN s.reason
                WHEN c.status = 'unfetched' AND s.priority > c.priority THEN 'priority-raised'
                ELSE 'already-known' END AS reason
    FROM strategy_out s
    JOIN link_limits m ON m.src_url = s.src_url AND m.url = s.url
    LEFT JOIN crawldb_after_round c ON s.url = c.url
),
new_urls AS (
    SELECT dst_host, url, max(priority) AS priority
    FROM judged
    WHERE accepted AND new_url
    GROUP BY dst_host, url
),
host_places AS (
    SELECT n.url,
           coalesce(k.urls, 0)
               + row_number() OVER (PARTITION BY n.dst_host ORDER BY n.priority DESC, n.url) AS place
    FROM new_urls n
    LEFT JOIN (SELECT host, count(*) AS urls FROM crawldb_after_round GROUP BY host) k ON k.host = n.dst_host
)
SELECT j.src_url,
       j.url,
       j.accepted AND coalesce(h.place <= $host_budget, true) AS accepted,
       j.priority,
       CASE WHEN j.accepted AND h.place > $host_budget THEN 'host-budget'
            ELSE j.reason END AS reason,
       j.kind, j.anchor, j.dst_host, j.dst_domain, j.dst_tld, j.dst_dir,
       j.depth, j.redirect_hops
FROM judged j
LEFT JOIN host_places h ON h.url = j.url AND j.new_url
