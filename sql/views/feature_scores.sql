-- feature_scores: each combination of feature values among the open links
-- not labelled yet (open_links.sql), scored by this round's model (fitted
-- on count_labels.sql by src/strategy/fit.rs): each value's weight within
-- the combination's segment (new: into a server not visited yet; known),
-- the prior, the score (their sum: the log-odds that the destination is a
-- target page) and the probability 1 / (1 + exp(-score)). A value the
-- model has not seen weighs 0. Links share a few thousand combinations,
-- so the model is joined to those, not to every link (link_scores.sql
-- gives each link its combination's row).
-- inputs:  open_links, model
-- params:  none
-- output:  segment, the features, w_prior, w_<feature> for each, score,
--          probability
WITH combinations AS (
    SELECT DISTINCT CASE WHEN dst_server = 'unvisited' THEN 'new' ELSE 'known' END AS segment,
           kind, hreflang, url_lang, anchor, tld, hops, inlinks, src_server, dst_server, dst_dir
    FROM open_links WHERE dst_relevant IS NULL
),
weighed AS (
    SELECT c.*,
           p.weight AS w_prior,
           coalesce(m_kind.weight, 0.0) AS w_kind,
           coalesce(m_hreflang.weight, 0.0) AS w_hreflang,
           coalesce(m_url_lang.weight, 0.0) AS w_url_lang,
           coalesce(m_anchor.weight, 0.0) AS w_anchor,
           coalesce(m_tld.weight, 0.0) AS w_tld,
           coalesce(m_hops.weight, 0.0) AS w_hops,
           coalesce(m_inlinks.weight, 0.0) AS w_inlinks,
           coalesce(m_src_server.weight, 0.0) AS w_src_server,
           coalesce(m_dst_server.weight, 0.0) AS w_dst_server,
           coalesce(m_dst_dir.weight, 0.0) AS w_dst_dir
    FROM combinations c
    JOIN model p ON p.feature = 'prior' AND p.value = c.segment
    LEFT JOIN model m_kind ON m_kind.feature = 'kind' AND m_kind.value = c.segment || ':' || c.kind
    LEFT JOIN model m_hreflang ON m_hreflang.feature = 'hreflang' AND m_hreflang.value = c.segment || ':' || c.hreflang
    LEFT JOIN model m_url_lang ON m_url_lang.feature = 'url_lang' AND m_url_lang.value = c.segment || ':' || c.url_lang
    LEFT JOIN model m_anchor ON m_anchor.feature = 'anchor' AND m_anchor.value = c.segment || ':' || c.anchor
    LEFT JOIN model m_tld ON m_tld.feature = 'tld' AND m_tld.value = c.segment || ':' || c.tld
    LEFT JOIN model m_hops ON m_hops.feature = 'hops' AND m_hops.value = c.segment || ':' || c.hops
    LEFT JOIN model m_inlinks ON m_inlinks.feature = 'inlinks' AND m_inlinks.value = c.segment || ':' || c.inlinks
    LEFT JOIN model m_src_server ON m_src_server.feature = 'src_server' AND m_src_server.value = c.segment || ':' || c.src_server
    LEFT JOIN model m_dst_server ON m_dst_server.feature = 'dst_server' AND m_dst_server.value = c.segment || ':' || c.dst_server
    LEFT JOIN model m_dst_dir ON m_dst_dir.feature = 'dst_dir' AND m_dst_dir.value = c.segment || ':' || c.dst_dir
),
scored AS (
    SELECT *, w_prior + w_kind + w_hreflang + w_url_lang + w_anchor + w_tld + w_hops + w_inlinks + w_src_server + w_dst_server + w_dst_dir AS score
    FROM weighed
)
SELECT *, 1.0 / (1.0 + exp(-score)) AS probability
FROM scored
