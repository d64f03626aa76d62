-- soft-focused: Tamura §5.1 — follow every link; those of relevant pages
-- with high priority, those of other pages with low priority.
-- Priority (Tamura's Fig. 3): 1 for a link of a relevant page, else 0; a
-- redirect keeps its URL's priority.
-- inputs:  link_facts
-- params:  none
-- output:  src_url, url, accepted, priority, reason
SELECT src_url,
       url,
       true AS accepted,
       CASE WHEN kind = 'redirect' THEN src_priority
            WHEN src_relevant THEN 1.0
            ELSE 0.0 END AS priority,
       CASE WHEN kind = 'redirect' THEN 'redirect'
            WHEN src_relevant THEN 'from-relevant-page'
            ELSE 'from-irrelevant-page' END AS reason
FROM link_facts
