-- dir-conservative: Tamura §4.3 — the conservative rule with top-level
-- directories (www.xsp.com/user1/) in place of servers: drop links into
-- irrelevant directories, and a page in a directory with Nr = 0 may not
-- open an unvisited directory.
-- Priority (Tamura's Fig. 3): 1 for a link of a relevant page, else 0; a
-- redirect keeps its URL's priority.
-- inputs:  link_facts
-- params:  none ($tolerance acts through the directory view)
-- output:  src_url, url, accepted, priority, reason
SELECT src_url,
       url,
       dst_dir_state <> 'irrelevant'
           AND NOT (kind <> 'redirect' AND src_dir_nr = 0 AND dst_dir_na = 0) AS accepted,
       CASE WHEN kind = 'redirect' THEN src_priority
            WHEN src_relevant THEN 1.0
            ELSE 0.0 END AS priority,
       CASE WHEN dst_dir_state = 'irrelevant' THEN 'irrelevant-dir'
            WHEN kind <> 'redirect' AND src_dir_nr = 0 AND dst_dir_na = 0
                THEN 'unvisited-dir-from-irrelevant'
            WHEN kind = 'redirect' THEN 'redirect'
            WHEN src_relevant THEN 'from-relevant-page'
            ELSE 'from-irrelevant-page' END AS reason
FROM link_facts
