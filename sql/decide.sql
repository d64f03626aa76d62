-- decide: a strategy's verdicts, with links to URLs the crawldb already
-- knows marked `already-known` (they are not added twice).
-- inputs:  strategy_out (the strategy's rows), pages (crawldb rows)
-- params:  none
-- output:  src_url, url, accepted, priority, reason
SELECT s.src_url,
       s.url,
       s.accepted AND c.url IS NULL AS accepted,
       s.priority,
       CASE WHEN s.accepted AND c.url IS NOT NULL THEN 'already-known' ELSE s.reason END AS reason
FROM strategy_out s
LEFT JOIN pages c ON s.url = c.url
