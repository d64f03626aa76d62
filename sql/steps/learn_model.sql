-- learn_model: the adaptive strategy's model of this round — naive Bayes
-- over the features of open_links, in two segments: links into servers
-- not visited yet (`new`: what finds new target servers) and links into
-- servers the crawl has seen (`known`). Each feature value is counted and
-- weighed within its segment (`value` = segment:value, e.g. new:target),
-- so what leads into known servers does not drown what discovers new ones. Its counts are the last round's model
-- (`model_before`) plus the links labelled this round (each link is
-- labelled once, when its destination is fetched): no link found earlier is
-- read again. Per feature value: the labelled links with that value that
-- led to a target page (`relevant`) and to another page (`other`), and its
-- weight, the smoothed log-odds
--   ln((relevant + 1) / (R + V)) - ln((other + 1) / (O + V))
-- with R and O the labelled links of each kind and V the values the
-- feature takes among them (0 for a feature named in $leave_out,
-- comma-separated: its counts are kept, its weight is not used).
-- Rows `prior`/new and `prior`/known: each segment's R, O and
-- ln((R + 1) / (O + 1)).
-- What the papers' rules know before the crawl has labelled anything — a
-- target-language anchor and a target ccTLD (Chan & Yamana), a relevant
-- source page (Tamura's hard focus) — counts as $rule_prior labelled links
-- that led to target pages for each of those values, in the weight only:
-- the counts are the crawl's own, and its labels soon outweigh the rules.
-- A link's score is the prior plus the weight of each of its values (0 for
-- a value never seen); its probability is 1 / (1 + exp(-score)).
-- inputs:  open_links, model_before (the last round's model; empty at first),
--          target_tlds
-- params:  $leave_out, $rule_prior
-- output:  feature, value, relevant, other, weight
WITH labelled AS (
    SELECT *, CASE WHEN dst_server = 'unvisited' THEN 'new' ELSE 'known' END AS segment
    FROM open_links WHERE dst_relevant IS NOT NULL
),
pairs AS (
    SELECT dst_relevant, segment,
           unnest(make_array(
               'kind=' || kind, 'hreflang=' || hreflang, 'url_lang=' || url_lang,
               'anchor=' || anchor, 'tld=' || tld, 'hops=' || hops,
               'inlinks=' || inlinks, 'src_server=' || src_server,
               'dst_server=' || dst_server, 'dst_dir=' || dst_dir)) AS pair
    FROM labelled
),
new_counts AS (
    SELECT split_part(pair, '=', 1) AS feature,
           segment || ':' || substr(pair, strpos(pair, '=') + 1) AS value,
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
rule_values AS (
    SELECT 'anchor' AS feature, 'target' AS value
    UNION ALL SELECT 'hops', '0'
    UNION ALL SELECT DISTINCT 'tld', reverse(split_part(reverse(tld), '.', 1)) FROM target_tlds
),
rules AS (
    SELECT r.feature, s.segment || ':' || r.value AS value
    FROM rule_values r
    CROSS JOIN (SELECT 'new' AS segment UNION ALL SELECT 'known') s
),
valued AS (
    SELECT coalesce(c.feature, r.feature) AS feature, coalesce(c.value, r.value) AS value,
           coalesce(c.relevant, 0) AS relevant, coalesce(c.other, 0) AS other,
           CASE WHEN r.feature IS NULL THEN 0.0 ELSE CAST($rule_prior AS DOUBLE) END AS pseudo
    FROM counts c
    FULL OUTER JOIN rules r ON r.feature = c.feature AND r.value = c.value
),
segmented AS (
    SELECT *, split_part(value, ':', 1) AS segment FROM valued
),
sizes AS (
    SELECT feature, segment, count(*) AS values_seen FROM segmented GROUP BY feature, segment
),
totals AS (
    -- every labelled link has exactly one kind
    SELECT segment, sum(relevant) AS relevant, sum(other) AS other
    FROM segmented WHERE feature = 'kind' GROUP BY segment
),
segments AS (
    SELECT s.segment, coalesce(t.relevant, 0) AS relevant, coalesce(t.other, 0) AS other
    FROM (SELECT 'new' AS segment UNION ALL SELECT 'known') s
    LEFT JOIN totals t ON t.segment = s.segment
)
SELECT k.feature, k.value, k.relevant, k.other,
       CASE WHEN strpos(',' || $leave_out || ',', ',' || k.feature || ',') > 0 THEN 0.0
            ELSE ln((k.relevant + k.pseudo + 1.0) / (t.relevant + s.values_seen))
                 - ln((k.other + 1.0) / (t.other + s.values_seen)) END AS weight
FROM segmented k
JOIN sizes s ON s.feature = k.feature AND s.segment = k.segment
JOIN segments t ON t.segment = k.segment
UNION ALL
SELECT 'prior', segment, relevant, other, ln((relevant + 1.0) / (other + 1.0))
FROM segments
