-- decide: a strategy's verdicts against what the crawldb already knows.
-- A followed link to a new URL is accepted with the strategy's reason; to a
-- URL still queued at a lower priority it raises that priority
-- (`priority-raised`); to any other known URL it is `already-known`.
-- Rejected links keep the strategy's reason.
-- inputs:  strategy_out (the strategy's rows), pages (crawldb rows)
-- params:  none
-- output:  src_url, url, accepted, priority, reason
SELECT s.src_url,
       s.url,
       s.accepted AND (c.url IS NULL OR (c.status = 'unfetched' AND s.priority > c.priority)) AS accepted,
       s.priority,
       CASE WHEN NOT s.accepted OR c.url IS NULL THEN s.reason
            WHEN c.status = 'unfetched' AND s.priority > c.priority THEN 'priority-raised'
            ELSE 'already-known' END AS reason
FROM strategy_out s
LEFT JOIN pages c ON s.url = c.url
