-- learn_model: the adaptive strategy's model — naive Bayes over the
-- features of link_features, fitted on every labelled link (one whose
-- destination has been fetched). Per feature value: the labelled links
-- with that value that led to a target page (`relevant`) and to another
-- page (`other`), and its weight, the smoothed log-odds
--   ln((relevant + 1) / (R + V)) - ln((other + 1) / (O + V))
-- with R and O the labelled links of each kind and V the values the
-- feature takes among them. Row `prior`/`all`: R, O and ln((R + 1) / (O + 1)).
-- Row `threshold`/`probability`: the probability a link needs to be
-- followed, $min_probability scaled by how much the model has seen,
-- n / (n + $warmup) with n = R + O — no threshold before the first label.
-- A link's score is the prior plus the weight of each of its values (0 for
-- a value never seen); its probability is 1 / (1 + exp(-score)).
-- Features named in $leave_out (comma-separated) are left out.
-- inputs:  link_features
-- params:  $leave_out, $min_probability, $warmup
-- output:  feature, value, relevant, other, weight
WITH labelled AS (
    SELECT * FROM link_features WHERE dst_relevant IS NOT NULL
),
pairs AS (
    SELECT dst_relevant,
           unnest(make_array(
               'kind=' || kind, 'hreflang=' || hreflang, 'url_lang=' || url_lang,
               'anchor=' || anchor, 'tld=' || tld, 'hops=' || hops,
               'inlinks=' || inlinks, 'src_server=' || src_server,
               'dst_server=' || dst_server, 'dst_dir=' || dst_dir)) AS pair
    FROM labelled
),
counts AS (
    SELECT split_part(pair, '=', 1) AS feature,
           substr(pair, strpos(pair, '=') + 1) AS value,
           sum(CASE WHEN dst_relevant THEN 1 ELSE 0 END) AS relevant,
           sum(CASE WHEN dst_relevant THEN 0 ELSE 1 END) AS other
    FROM pairs
    GROUP BY 1, 2
),
kept AS (
    SELECT * FROM counts
    WHERE strpos(',' || $leave_out || ',', ',' || feature || ',') = 0
),
sizes AS (
    SELECT feature, count(*) AS values_seen FROM kept GROUP BY feature
),
totals AS (
    SELECT coalesce(sum(CASE WHEN dst_relevant THEN 1 ELSE 0 END), 0) AS relevant,
           coalesce(sum(CASE WHEN dst_relevant THEN 0 ELSE 1 END), 0) AS other
    FROM labelled
)
SELECT k.feature, k.value, k.relevant, k.other,
       ln((k.relevant + 1.0) / (t.relevant + s.values_seen))
           - ln((k.other + 1.0) / (t.other + s.values_seen)) AS weight
FROM kept k
JOIN sizes s ON s.feature = k.feature
CROSS JOIN totals t
UNION ALL
SELECT 'prior', 'all', relevant, other, ln((relevant + 1.0) / (other + 1.0))
FROM totals
UNION ALL
SELECT 'threshold', 'probability', relevant, other,
       $min_probability * (relevant + other) / (relevant + other + $warmup)
FROM totals
