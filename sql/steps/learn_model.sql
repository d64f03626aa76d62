-- learn_model: the adaptive strategy's model of this round — naive Bayes
-- over the features of open_links. Its counts are the last round's model
-- (`model_before`) plus the links labelled this round (each link is
-- labelled once, when its destination is fetched): no link found earlier is
-- read again. Per feature value: the labelled links with that value that
-- led to a target page (`relevant`) and to another page (`other`), and its
-- weight, the smoothed log-odds
--   ln((relevant + 1) / (R + V)) - ln((other + 1) / (O + V))
-- with R and O the labelled links of each kind and V the values the
-- feature takes among them (0 for a feature named in $leave_out,
-- comma-separated: its counts are kept, its weight is not used).
-- Row `prior`/`all`: R, O and ln((R + 1) / (O + 1)).
-- A link's score is the prior plus the weight of each of its values (0 for
-- a value never seen); its probability is 1 / (1 + exp(-score)).
-- inputs:  open_links, model_before (the last round's model; empty at first)
-- params:  $leave_out
-- output:  feature, value, relevant, other, weight
WITH labelled AS (
    SELECT * FROM open_links WHERE dst_relevant IS NOT NULL
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
new_counts AS (
    SELECT split_part(pair, '=', 1) AS feature,
           substr(pair, strpos(pair, '=') + 1) AS value,
           sum(CASE WHEN dst_relevant THEN 1 ELSE 0 END) AS relevant,
           sum(CASE WHEN dst_relevant THEN 0 ELSE 1 END) AS other
    FROM pairs
    GROUP BY 1, 2
),
counts AS (
    SELECT feature, value, CAST(sum(relevant) AS BIGINT) AS relevant,
           CAST(sum(other) AS BIGINT) AS other
    FROM (
        SELECT feature, value, relevant, other FROM model_before WHERE feature <> 'prior'
        UNION ALL
        SELECT feature, value, relevant, other FROM new_counts
    ) c
    GROUP BY feature, value
),
sizes AS (
    SELECT feature, count(*) AS values_seen FROM counts GROUP BY feature
),
totals AS (
    -- every labelled link has exactly one kind
    SELECT coalesce(sum(relevant), 0) AS relevant, coalesce(sum(other), 0) AS other
    FROM counts WHERE feature = 'kind'
)
SELECT k.feature, k.value, k.relevant, k.other,
       CASE WHEN strpos(',' || $leave_out || ',', ',' || k.feature || ',') > 0 THEN 0.0
            ELSE ln((k.relevant + 1.0) / (t.relevant + s.values_seen))
                 - ln((k.other + 1.0) / (t.other + s.values_seen)) END AS weight
FROM counts k
JOIN sizes s ON s.feature = k.feature
CROSS JOIN totals t
UNION ALL
SELECT 'prior', 'all', relevant, other, ln((relevant + 1.0) / (other + 1.0))
FROM totals
