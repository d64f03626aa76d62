-- soft-focused: Tamura §5.1 — follow every link; those of relevant pages
-- with high priority, those of other pages with low priority.
-- inputs:  link_facts
-- params:  none
-- output:  src_url, url, accepted, priority, reason
SELECT src_url,
       url,
       true AS accepted,
       focus_priority AS priority,
       focus_reason AS reason
FROM link_facts
