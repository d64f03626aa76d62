-- prune_queue: URLs still waiting in the queue on a server (or, for the
-- directory strategy, in a top-level directory) that has turned irrelevant.
-- Tamura §4.1 drops them; updatedb marks them `skipped`, so generate passes
-- them over, and logs one decision each.
-- inputs:  pages (crawldb rows with the round applied), servers, dirs
-- params:  $prune ('server' or 'dir')
-- output:  src_url (the page that found the URL, '' for a seed), url,
--          accepted (false), priority, reason
SELECT coalesce(p.found_from, '') AS src_url,
       p.url,
       false AS accepted,
       p.priority,
       CASE WHEN $prune = 'dir' THEN 'queued-in-irrelevant-dir'
            ELSE 'queued-on-irrelevant-server' END AS reason
FROM pages p
LEFT JOIN servers s ON s.host = p.host
LEFT JOIN dirs d ON d.dir = p.dir
WHERE p.status IN ('unfetched', 'error')
  AND CASE WHEN $prune = 'dir' THEN d.state ELSE s.state END = 'irrelevant'
