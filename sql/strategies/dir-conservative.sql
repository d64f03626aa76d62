-- dir-conservative: Tamura §4.3 — the conservative rule with top-level
-- directories (www.xsp.com/user1/) in place of servers: drop links into
-- irrelevant directories, and a page in a directory with Nr = 0 may not
-- open an unvisited directory.
-- inputs:  link_facts
-- params:  none ($tolerance acts through the directory view)
-- output:  src_url, url, accepted, priority, reason
SELECT src_url,
       url,
       dst_dir_state <> 'irrelevant'
           AND NOT (kind <> 'redirect' AND src_dir_nr = 0 AND dst_dir_na = 0) AS accepted,
       focus_priority AS priority,
       CASE WHEN dst_dir_state = 'irrelevant' THEN 'irrelevant-dir'
            WHEN kind <> 'redirect' AND src_dir_nr = 0 AND dst_dir_na = 0
                THEN 'unvisited-dir-from-irrelevant'
            ELSE focus_reason END AS reason
FROM link_facts
