-- server-aggressive: Tamura §4.1 — drop links to irrelevant servers
-- (Nr = 0 and Na > T); follow the rest, those of relevant pages first.
-- URLs still queued for a server that turns irrelevant are skipped
-- (sql/steps/prune_queue.sql).
-- Priority (Tamura's Fig. 3): 1 for a link of a relevant page, else 0; a
-- redirect keeps its URL's priority.
-- inputs:  link_facts
-- params:  none ($tolerance acts through the server view)
-- output:  src_url, url, accepted, priority, reason
SELECT src_url,
       url,
       dst_server_state <> 'irrelevant' AS accepted,
       CASE WHEN kind = 'redirect' THEN src_priority
            WHEN src_relevant THEN 1.0
            ELSE 0.0 END AS priority,
       CASE WHEN dst_server_state = 'irrelevant' THEN 'irrelevant-server'
            WHEN kind = 'redirect' THEN 'redirect'
            WHEN src_relevant THEN 'from-relevant-page'
            ELSE 'from-irrelevant-page' END AS reason
FROM link_facts
