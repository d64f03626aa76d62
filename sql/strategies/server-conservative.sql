-- server-conservative: Tamura §4.2 — as server-aggressive, and a page on a
-- server with Nr = 0 (undecided or irrelevant) may not open an unvisited
-- server (Na = 0); links to servers already visited but undecided are still
-- followed, to settle their state early.
-- Priority (Tamura's Fig. 3): 1 for a link of a relevant page, else 0; a
-- redirect keeps its URL's priority.
-- inputs:  link_facts
-- params:  none ($tolerance acts through the server view)
-- output:  src_url, url, accepted, priority, reason
SELECT src_url,
       url,
       dst_server_state <> 'irrelevant'
           AND NOT (kind <> 'redirect' AND src_server_nr = 0 AND dst_server_na = 0) AS accepted,
       CASE WHEN kind = 'redirect' THEN src_priority
            WHEN src_relevant THEN 1.0
            ELSE 0.0 END AS priority,
       CASE WHEN dst_server_state = 'irrelevant' THEN 'irrelevant-server'
            WHEN kind <> 'redirect' AND src_server_nr = 0 AND dst_server_na = 0
                THEN 'unvisited-server-from-irrelevant'
            WHEN kind = 'redirect' THEN 'redirect'
            WHEN src_relevant THEN 'from-relevant-page'
            ELSE 'from-irrelevant-page' END AS reason
FROM link_facts
