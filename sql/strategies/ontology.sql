-- ontology: Kumar & Vig's crawler — score each link's context against an
-- ontology, and look ahead through class-transition rules.
--   1. The context of a link is its window of text (anchor included; the
--      anchor alone when there is no text around it) and the heading it
--      appears under, each a part with its own weight (`parts` below). A
--      page that links one URL with several texts has a context for each.
--   2. The transcriptor (skipped by `ontology-monolingual`, $transcribe
--      false) rewrites the words in the dictionary's source language — the
--      language the anchor identifier gives most of its source terms; a
--      word is in it when the same identifier says so — and leaves the
--      rest as they are (English stays English): first the source
--      language's noise words (stop_words) are dropped, from the text and
--      from the dictionary's phrases alike; then dictionary phrases match
--      longest first (a match is kept unless it overlaps a longer one, or
--      one as long that starts earlier) and become their transcription.
--   3. OBRS of a context = Σ over its parts of weight × Σ over the
--      importance table of count(term in the transcribed part) ×
--      importance; terms match as substrings of the normalized text
--      (lower-case, punctuation as spaces), so they work in scripts written
--      without spaces too. A link's OBRS is its best context's.
--   4. A source page's class is the class whose terms score highest on its
--      whole visible text (transcribed the same way). LARS is the
--      probability that a page of that class leads to the class sought,
--      through rules chained up to $rule_depth steps:
--      P(i → k) = max over j of P(i → j) × P(j → k).
--   5. Follow the link if OBRS > $min_ont_rel, else if LARS > $min_la_rel;
--      priority = OBRS.
-- inputs:  links (every context), link_facts (one row per link), parse
--          (source pages' text), importance (term, importance, class),
--          dictionary (source_term, target_term), stop_words (lang, word),
--          class_rules (from_class, to_class, probability)
-- params:  $min_ont_rel, $min_la_rel, $target_class ('' = the class of the
--          most important term), $rule_depth, $transcribe
-- output:  src_url, url, accepted, priority, reason
WITH RECURSIVE parts AS (
    SELECT * FROM (VALUES ('context', 1.0), ('heading', 1.0), ('page', 1.0)) AS p(part, weight)
),
contexts AS (
    SELECT src_url, dst_url AS url, anchor, context, heading,
           row_number() OVER (PARTITION BY src_url, dst_url
                              ORDER BY position NULLS LAST, anchor DESC, context, heading) AS occurrence
    FROM links
    WHERE kind <> 'redirect'
),
texts AS (
    SELECT src_url, url, occurrence, 'context' AS part,
           coalesce(nullif(context, ''), anchor) AS text
    FROM contexts
    UNION ALL
    SELECT src_url, url, occurrence, 'heading' AS part, heading AS text
    FROM contexts
    WHERE coalesce(heading, '') <> ''
    UNION ALL
    SELECT url AS src_url, '' AS url, CAST(0 AS BIGINT) AS occurrence, 'page' AS part,
           coalesce(text, coalesce(title, '') || ' ' || coalesce(text_sample, '')) AS text
    FROM parse
    WHERE url IN (SELECT src_url FROM links)
),
words AS (
    SELECT src_url, url, occurrence, part, words,
           unnest(range(1, CAST(cardinality(words) AS BIGINT) + 1)) AS i
    FROM (
        SELECT src_url, url, occurrence, part,
               string_to_array(trim(regexp_replace(lower(text), '[^\p{L}\p{N}\p{M}]+', ' ', 'g')), ' ') AS words
        FROM texts
    )
),
numbered_words AS (
    SELECT part || ' ' || CAST(occurrence AS VARCHAR) || ' ' || url || ' ' || src_url AS text_key,
           src_url, url, occurrence, part, i, array_element(words, i) AS word
    FROM words
),
source_lang AS (
    SELECT lang
    FROM (SELECT anchor_language(source_term) AS lang, count(*) AS terms
          FROM dictionary GROUP BY 1)
    ORDER BY terms DESC, lang
    LIMIT 1
),
source_words AS (
    SELECT word
    FROM (SELECT DISTINCT word FROM numbered_words WHERE $transcribe)
    WHERE anchor_language(word) = (SELECT lang FROM source_lang)
),
noise AS (
    SELECT DISTINCT trim(lower(word)) AS word
    FROM stop_words
    WHERE $transcribe AND lang = (SELECT lang FROM source_lang)
),
kept_words AS (
    SELECT w.text_key, w.src_url, w.url, w.occurrence, w.part, w.word,
           CAST(row_number() OVER (PARTITION BY w.text_key ORDER BY w.i) AS BIGINT) AS j
    FROM numbered_words w
    LEFT JOIN (SELECT n.word FROM noise n JOIN source_words s ON s.word = n.word) z ON z.word = w.word
    WHERE z.word IS NULL
),
sequences AS (
    SELECT text_key, array_agg(word ORDER BY j) AS words FROM kept_words GROUP BY text_key
),
phrase_words AS (
    SELECT source, transcription, k, array_element(words, k) AS word
    FROM (
        SELECT source, transcription, words,
               unnest(range(1, CAST(cardinality(words) AS BIGINT) + 1)) AS k
        FROM (
            SELECT source,
                   string_to_array(trim(regexp_replace(lower(source), '[^\p{L}\p{N}\p{M}]+', ' ', 'g')), ' ') AS words,
                   trim(regexp_replace(lower(min(target_term)), '[^\p{L}\p{N}\p{M}]+', ' ', 'g')) AS transcription
            FROM (SELECT source_term AS source, target_term FROM dictionary WHERE $transcribe)
            GROUP BY source
        )
    )
),
phrases AS (
    SELECT array_to_string(array_agg(p.word ORDER BY p.k), ' ') AS phrase,
           array_element(array_agg(p.word ORDER BY p.k), 1) AS first_word,
           CAST(count(*) AS BIGINT) AS n,
           min(p.transcription) AS transcription
    FROM phrase_words p
    LEFT JOIN noise z ON z.word = p.word
    WHERE z.word IS NULL AND p.word <> ''
    GROUP BY p.source
),
matches AS (
    SELECT w.text_key, w.j, p.n, p.transcription
    FROM kept_words w
    JOIN source_words s ON s.word = w.word
    JOIN phrases p ON p.first_word = w.word
    JOIN sequences q ON q.text_key = w.text_key
    WHERE array_to_string(array_slice(q.words, w.j, w.j + p.n - 1), ' ') = p.phrase
),
longest AS (
    SELECT m.text_key, m.j, m.n, m.transcription
    FROM matches m
    LEFT JOIN matches o
           ON o.text_key = m.text_key
          AND o.j <= m.j + m.n - 1 AND m.j <= o.j + o.n - 1
          AND (o.n > m.n OR (o.n = m.n AND o.j < m.j))
    WHERE o.text_key IS NULL
),
covered AS (
    SELECT text_key, unnest(range(j, j + n)) AS j FROM longest
),
tokens AS (
    SELECT w.src_url, w.url, w.occurrence, w.part, w.j,
           coalesce(k.transcription, w.word) AS token
    FROM kept_words w
    LEFT JOIN longest k ON k.text_key = w.text_key AND k.j = w.j
    LEFT JOIN covered c ON c.text_key = w.text_key AND c.j = w.j
    WHERE k.j IS NOT NULL OR c.j IS NULL
),
transcribed AS (
    SELECT src_url, url, occurrence, part,
           ' ' || array_to_string(array_agg(token ORDER BY j), ' ') || ' ' AS text
    FROM tokens
    GROUP BY src_url, url, occurrence, part
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
    FROM transcribed x
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
    SELECT from_class, to_class, probability, 1 AS steps FROM class_rules
    UNION ALL
    SELECT c.from_class, r.to_class, c.probability * r.probability AS probability, c.steps + 1 AS steps
    FROM chains c
    JOIN class_rules r ON r.from_class = c.to_class
    WHERE c.steps < $rule_depth
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
