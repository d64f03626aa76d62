-- server-aggressive: Tamura §4.1 — drop links to irrelevant servers
-- (Nr = 0 and Na > T); follow the rest, those of relevant pages first.
-- URLs still queued for a server that turns irrelevant are skipped
-- (sql/prune_queue.sql).
-- inputs:  link_facts
-- params:  none ($tolerance acts through the server view)
-- output:  src_url, url, accepted, priority, reason
SELECT src_url,
       url,
       dst_server_state <> 'irrelevant' AS accepted,
       focus_priority AS priority,
       CASE WHEN dst_server_state = 'irrelevant' THEN 'irrelevant-server'
            ELSE focus_reason END AS reason
FROM link_facts
