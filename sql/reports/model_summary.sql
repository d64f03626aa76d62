-- model_summary: what the adaptive strategy learned, round by round — the
-- labelled links it had seen, and the feature
-- values that weighed most toward a target page and most against one
-- (the three strongest each way, with their weights).
-- inputs:  model (every round's, with `round`)
-- params:  none
-- output:  round, labelled, target_share, toward_target, against
WITH values_ranked AS (
    SELECT round, feature || '=' || value || ' (' || CAST(round(weight, 1) AS VARCHAR) || ')' AS label,
           weight,
           row_number() OVER (PARTITION BY round ORDER BY weight DESC, feature, value) AS up,
           row_number() OVER (PARTITION BY round ORDER BY weight, feature, value) AS down
    FROM model
    WHERE feature <> 'prior'
),
toward AS (
    SELECT round, string_agg(label, ', ' ORDER BY up) AS toward_target
    FROM values_ranked
    WHERE up <= 3 AND weight > 0
    GROUP BY round
),
against AS (
    SELECT round, string_agg(label, ', ' ORDER BY down) AS against
    FROM values_ranked
    WHERE down <= 3 AND weight < 0
    GROUP BY round
)
SELECT p.round,
       p.relevant + p.other AS labelled,
       round(CAST(p.relevant AS DOUBLE) / greatest(p.relevant + p.other, 1), 3) AS target_share,
       u.toward_target,
       a.against
FROM model p
LEFT JOIN toward u ON u.round = p.round
LEFT JOIN against a ON a.round = p.round
WHERE p.feature = 'prior'
ORDER BY p.round
