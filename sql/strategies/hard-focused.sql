-- hard-focused: Tamura §5.1 — follow only the links of relevant pages
-- (pages in the target language); the links of other pages are dropped.
-- inputs:  link_facts
-- params:  none
-- output:  src_url, url, accepted, priority, reason
SELECT src_url,
       url,
       kind = 'redirect' OR src_relevant AS accepted,
       CAST(0.0 AS DOUBLE) AS priority,
       CASE WHEN kind = 'redirect' THEN 'redirect'
            WHEN src_relevant THEN 'from-relevant-page'
            ELSE 'from-irrelevant-page' END AS reason
FROM link_facts
