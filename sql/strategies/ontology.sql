-- ontology: Kumar & Vig — score each link's context (the anchor and the
-- text around it) against an ontology.
--   1. The context is split into words; a word found in the bilingual
--      dictionary is replaced by its transcription (Hindi → English, say).
--   2. OBRS = Σ over the importance table of count(term in context) ×
--      importance. Terms match as substrings of the normalized text
--      (lower-case, punctuation as spaces), so they work for scripts
--      written without spaces too.
--   3. The source page's class is the class whose terms score highest on
--      its title and text (transcribed the same way); LARS is the
--      probability of the class rule from that class to the class sought.
--   4. Follow the link if OBRS > $min_ont_rel, else if LARS > $min_la_rel;
--      priority = OBRS.
-- inputs:  link_facts, parse (source pages' title, text_sample),
--          importance (term, importance, class), dictionary (source_term,
--          target_term), class_rules (from_class, to_class, probability)
-- params:  $min_ont_rel, $min_la_rel, $target_class ('' = the class of the
--          most important term)
-- output:  src_url, url, accepted, priority, reason
WITH terms AS (
    SELECT trim(regexp_replace(lower(term), '[^\p{L}\p{N}\p{M}]+', ' ', 'g')) AS term,
           importance,
           class
    FROM importance
),
dictionary_words AS (
    SELECT trim(regexp_replace(lower(source_term), '[^\p{L}\p{N}\p{M}]+', ' ', 'g')) AS word,
           min(trim(regexp_replace(lower(target_term), '[^\p{L}\p{N}\p{M}]+', ' ', 'g'))) AS transcription
    FROM dictionary
    GROUP BY 1
),
texts AS (
    SELECT src_url, url, coalesce(nullif(context, ''), anchor) AS text
    FROM link_facts
    UNION ALL
    SELECT url AS src_url, CAST(NULL AS VARCHAR) AS url,
           coalesce(title, '') || ' ' || coalesce(text_sample, '') AS text
    FROM parse
    WHERE url IN (SELECT src_url FROM link_facts)
),
words AS (
    SELECT src_url, url, words, unnest(range(1, CAST(cardinality(words) AS BIGINT) + 1)) AS i
    FROM (
        SELECT src_url, url,
               string_to_array(trim(regexp_replace(lower(text), '[^\p{L}\p{N}\p{M}]+', ' ', 'g')), ' ') AS words
        FROM texts
    )
),
transcribed AS (
    SELECT w.src_url, w.url,
           ' ' || array_to_string(
               array_agg(coalesce(d.transcription, array_element(w.words, w.i)) ORDER BY w.i), ' ') || ' ' AS text
    FROM words w
    LEFT JOIN dictionary_words d ON d.word = array_element(w.words, w.i)
    GROUP BY w.src_url, w.url
),
class_scores AS (
    SELECT x.src_url, x.url, t.class,
           SUM(CAST((length(x.text) - length(replace(x.text, t.term, ''))) / length(t.term) AS DOUBLE)
               * t.importance) AS score
    FROM transcribed x
    CROSS JOIN terms t
    WHERE t.term <> ''
    GROUP BY x.src_url, x.url, t.class
),
obrs AS (
    SELECT src_url, url, SUM(score) AS obrs
    FROM class_scores
    WHERE url IS NOT NULL
    GROUP BY src_url, url
),
page_class AS (
    SELECT src_url, class
    FROM (
        SELECT src_url, class,
               row_number() OVER (PARTITION BY src_url ORDER BY score DESC, class) AS rank
        FROM class_scores
        WHERE url IS NULL AND score > 0 AND class IS NOT NULL
    )
    WHERE rank = 1
),
sought AS (
    SELECT coalesce(nullif($target_class, ''),
                    (SELECT class FROM terms WHERE class IS NOT NULL ORDER BY importance DESC, class LIMIT 1)) AS class
),
lars AS (
    SELECT c.src_url, r.probability AS lars
    FROM page_class c
    CROSS JOIN sought s
    JOIN class_rules r ON r.from_class = c.class AND r.to_class = s.class
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
