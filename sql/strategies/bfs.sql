-- bfs: Nutch's default and the papers' control group — follow every link,
-- first in, first out by depth (all priorities equal).
-- inputs:  link_facts
-- params:  none
-- output:  src_url, url, accepted, priority, reason
SELECT src_url,
       url,
       true AS accepted,
       CAST(0.0 AS DOUBLE) AS priority,
       CASE WHEN kind = 'redirect' THEN 'redirect' ELSE 'follow-all' END AS reason
FROM link_facts
