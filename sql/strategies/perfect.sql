-- perfect: Tamura §5.1's oracle, for simulations only — follow exactly the
-- links that lead to target pages: to a target page, or to a page on the
-- way to a target page that no chain of target pages reaches (known from
-- the web graph: table oracle, built by simulate).
-- inputs:  link_facts, oracle (url, follow)
-- params:  none
-- output:  src_url, url, accepted, priority, reason
SELECT l.src_url,
       l.url,
       coalesce(o.follow, false) AS accepted,
       CAST(0.0 AS DOUBLE) AS priority,
       CASE WHEN o.follow THEN 'leads-to-target' ELSE 'leads-elsewhere' END AS reason
FROM link_facts l
LEFT JOIN oracle o ON o.url = l.url
