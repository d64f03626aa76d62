-- link_scores: every open link not labelled yet — this round's and those
-- still waiting in the frontier — scored by this round's model: its
-- combination of feature values as the crawl stands now, with that
-- combination's weights, score and probability (feature_scores.sql). So
-- every queued URL is re-scored each round (url_scores.sql); this round's
-- links are written as the round's `scores` segment: why a link scored as
-- it did is a query.
-- inputs:  open_links, feature_scores
-- params:  none
-- output:  found_round, src_url, url, src_host, dst_host, src_priority, the features,
--          w_prior, w_<feature> for each, score, probability
SELECT c.found_round, c.src_url, c.url, c.src_host, c.dst_host, c.src_priority,
       c.kind, c.hreflang, c.url_lang, c.anchor, c.tld, c.hops, c.inlinks, c.src_server,
       c.dst_server, c.dst_dir,
       s.w_prior, s.w_kind, s.w_hreflang, s.w_url_lang, s.w_anchor, s.w_tld, s.w_hops,
       s.w_inlinks, s.w_src_server, s.w_dst_server, s.w_dst_dir, s.score, s.probability
FROM (SELECT *, CASE WHEN dst_server = 'unvisited' THEN 'new' ELSE 'known' END AS segment
      FROM open_links WHERE dst_relevant IS NULL) c
-- NULL values (a host without a public suffix has no tld) match as one
JOIN feature_scores s
  ON (c.segment IS NOT DISTINCT FROM s.segment)
 AND (c.kind IS NOT DISTINCT FROM s.kind)
 AND (c.hreflang IS NOT DISTINCT FROM s.hreflang)
 AND (c.url_lang IS NOT DISTINCT FROM s.url_lang)
 AND (c.anchor IS NOT DISTINCT FROM s.anchor)
 AND (c.tld IS NOT DISTINCT FROM s.tld)
 AND (c.hops IS NOT DISTINCT FROM s.hops)
 AND (c.inlinks IS NOT DISTINCT FROM s.inlinks)
 AND (c.src_server IS NOT DISTINCT FROM s.src_server)
 AND (c.dst_server IS NOT DISTINCT FROM s.dst_server)
 AND (c.dst_dir IS NOT DISTINCT FROM s.dst_dir)
