-- prune_queue: URLs still waiting in the queue on a server (or, for the
-- directory strategy, in a top-level directory) that has turned irrelevant.
-- Tamura §4.1 drops them; updatedb marks them `skipped`, so generate passes
-- them over, and logs one decision each.
-- inputs:  crawldb_after_round, servers, dirs
-- params:  $prune ('server' or 'dir')
-- output:  src_url (the page that found the URL, '' for a seed), url,
--          accepted (false), priority, reason; the decisions schema's
--          other columns are NULL (nothing is added to the crawldb)
SELECT coalesce(p.found_from, '') AS src_url,
       p.url,
       false AS accepted,
       p.priority,
       CASE WHEN $prune = 'dir' THEN 'queued-in-irrelevant-dir'
            ELSE 'queued-on-irrelevant-server' END AS reason,
       CAST(NULL AS VARCHAR) AS kind,
       CAST(NULL AS VARCHAR) AS anchor,
       CAST(NULL AS VARCHAR) AS dst_host,
       CAST(NULL AS VARCHAR) AS dst_domain,
       CAST(NULL AS VARCHAR) AS dst_tld,
       CAST(NULL AS VARCHAR) AS dst_dir,
       CAST(NULL AS INT) AS depth,
       CAST(NULL AS INT) AS redirect_hops
FROM crawldb_after_round p
LEFT JOIN servers s ON s.host = p.host
LEFT JOIN dirs d ON d.dir = p.dir
WHERE p.status IN ('unfetched', 'error')
  AND CASE WHEN $prune = 'dir' THEN d.state ELSE s.state END = 'irrelevant'
