-- ontology: Kumar & Vig's crawler — score each link's context against an
-- ontology, and look ahead through class-transition rules.
--   1. A link's context is its window of text (anchor included) and the
--      heading it appears under (unless the window holds it already):
--      parts with a weight each (`parts` below;
--      edit them in a --sql-dir copy to weigh headings more or less). A
--      page that links one URL with several texts has a context for each.
--      The texts come transcribed (views/transcribed_texts.sql; as written
--      for `ontology-monolingual`).
--   2. OBRS of a context = Σ over its parts of weight × Σ over the
--      importance table of count(term in the part) × importance; terms
--      match as substrings of the normalized text (lower-case, punctuation
--      as spaces), so they work in scripts written without spaces too. A
--      link's OBRS is its best context's.
--   3. A source page's class is the class whose terms score highest on its
--      whole visible text (transcribed the same way). LARS is the
--      probability that a page of that class leads to the class sought,
--      through the class rules chained up to $rule_depth (at most 4) steps:
--      P(i → k) = max over j of P(i → j) × P(j → k).
--   4. Follow the link if OBRS > $min_ont_rel, else if LARS > $min_la_rel;
--      priority = OBRS.
-- inputs:  transcribed_texts, link_facts (one row per link), importance
--          (term, importance, class), class_rules (from_class, to_class,
--          probability)
-- params:  $min_ont_rel, $min_la_rel, $target_class ('' = the class of the
--          most important term), $rule_depth
-- output:  src_url, url, accepted, priority, reason
WITH parts AS (
    SELECT * FROM (VALUES ('context', 1.0), ('heading', 1.0)) AS p(part, weight)
),
terms AS (
    SELECT trim(regexp_replace(lower(term), '[^\p{L}\p{N}\p{M}]+', ' ', 'g')) AS term,
           importance,
           class
    FROM importance
),
class_scores AS (
    SELECT x.src_url, x.url, x.occurrence, x.part, t.class,
           SUM(CAST((length(x.text) - length(replace(x.text, t.term, ''))) / length(t.term) AS DOUBLE)
               * t.importance) AS score
    FROM transcribed_texts x
    CROSS JOIN terms t
    WHERE t.term <> ''
    GROUP BY x.src_url, x.url, x.occurrence, x.part, t.class
),
context_obrs AS (
    SELECT s.src_url, s.url, s.occurrence, SUM(s.score * p.weight) AS obrs
    FROM class_scores s
    JOIN parts p ON p.part = s.part
    WHERE s.part <> 'page'
    GROUP BY s.src_url, s.url, s.occurrence
),
obrs AS (
    SELECT src_url, url, max(obrs) AS obrs FROM context_obrs GROUP BY src_url, url
),
page_class AS (
    SELECT src_url, class
    FROM (
        SELECT src_url, class,
               row_number() OVER (PARTITION BY src_url ORDER BY score DESC, class) AS rank
        FROM class_scores
        WHERE part = 'page' AND score > 0 AND class IS NOT NULL
    )
    WHERE rank = 1
),
sought AS (
    SELECT coalesce(nullif($target_class, ''),
                    (SELECT class FROM terms WHERE class IS NOT NULL ORDER BY importance DESC, class LIMIT 1)) AS class
),
chains AS (
    -- chained rules, written out to 4 steps (kept within $rule_depth)
    SELECT from_class, to_class, probability FROM class_rules
    UNION ALL
    SELECT a.from_class, b.to_class, a.probability * b.probability
    FROM class_rules a
    JOIN class_rules b ON b.from_class = a.to_class
    WHERE $rule_depth >= 2
    UNION ALL
    SELECT a.from_class, c.to_class, a.probability * b.probability * c.probability
    FROM class_rules a
    JOIN class_rules b ON b.from_class = a.to_class
    JOIN class_rules c ON c.from_class = b.to_class
    WHERE $rule_depth >= 3
    UNION ALL
    SELECT a.from_class, d.to_class, a.probability * b.probability * c.probability * d.probability
    FROM class_rules a
    JOIN class_rules b ON b.from_class = a.to_class
    JOIN class_rules c ON c.from_class = b.to_class
    JOIN class_rules d ON d.from_class = c.to_class
    WHERE $rule_depth >= 4
),
lars AS (
    SELECT c.src_url, max(r.probability) AS lars
    FROM page_class c
    CROSS JOIN sought s
    JOIN chains r ON r.from_class = c.class AND r.to_class = s.class
    GROUP BY c.src_url
),
scored AS (
    SELECT l.src_url, l.url, l.kind, l.src_priority,
           coalesce(o.obrs, 0.0) AS obrs,
           coalesce(r.lars, 0.0) AS lars
    FROM link_facts l
    LEFT JOIN obrs o ON o.src_url = l.src_url AND o.url = l.url
    LEFT JOIN lars r ON r.src_url = l.src_url
)
SELECT src_url,
       url,
       kind = 'redirect' OR obrs > $min_ont_rel OR lars > $min_la_rel AS accepted,
       CASE WHEN kind = 'redirect' THEN src_priority ELSE obrs END AS priority,
       CASE WHEN kind = 'redirect' THEN 'redirect'
            WHEN obrs > $min_ont_rel THEN 'ontology-relevance'
            WHEN lars > $min_la_rel THEN 'look-ahead'
            ELSE 'below-threshold' END AS reason
FROM scored
