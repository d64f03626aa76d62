-- transcribed_texts: Kumar & Vig's multilingual transcriptor over
-- context_words (materialized once a round). Only the words written in
-- the script of the dictionary's source terms are touched (a word is in
-- the source language when its script is: Devanagari for a Hindi
-- dictionary), so English stays as written:
--   1. the noise words (stop_words) of the dictionary's source language —
--      the language the anchor identifier gives its source terms taken
--      together — are dropped, from the text and from the dictionary's
--      phrases alike;
--   2. dictionary phrases match longest first: a match is kept unless it
--      overlaps a longer one (or one as long that starts earlier) — it is
--      the best match at each of its words — and is replaced by its
--      transcription.
-- Every join is on equal keys (text, word position), so a text costs time
-- in proportion to its words times the longest phrase.
-- With $transcribe false (`ontology-monolingual`) texts stay as written.
-- inputs:  context_words, dictionary (source_term, target_term),
--          stop_words (lang, word)
-- params:  $transcribe
-- output:  src_url, url, occurrence, part, text (' word word ... ')
WITH source AS (
    SELECT anchor_language(string_agg(source_term, ' ')) AS lang,
           (SELECT script FROM (SELECT text_script(source_term) AS script, count(*) AS terms
                                FROM dictionary GROUP BY 1)
            ORDER BY terms DESC, script LIMIT 1) AS script
    FROM dictionary
),
noise AS (
    SELECT DISTINCT trim(lower(word)) AS word
    FROM stop_words
    WHERE $transcribe AND lang = (SELECT lang FROM source)
),
source_words AS (
    SELECT word
    FROM (SELECT DISTINCT word FROM context_words WHERE $transcribe)
    WHERE text_script(word) = (SELECT script FROM source)
),
kept_words AS (
    SELECT w.text_key, w.src_url, w.url, w.occurrence, w.part, w.word,
           CAST(row_number() OVER (PARTITION BY w.text_key ORDER BY w.i) AS BIGINT) AS j
    FROM context_words w
    LEFT JOIN noise z ON z.word = w.word
    WHERE z.word IS NULL
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
-- each source term without its noise words, numbered 1..n again
phrase_terms AS (
    SELECT p.source, p.transcription, p.word,
           CAST(row_number() OVER (PARTITION BY p.source ORDER BY p.k) AS BIGINT) AS k
    FROM phrase_words p
    LEFT JOIN noise z ON z.word = p.word
    WHERE z.word IS NULL AND p.word <> ''
),
-- one phrase per text after normalization (two spellings of one phrase
-- must not match twice)
phrases AS (
    SELECT phrase, min(transcription) AS transcription, min(source) AS source, max(n) AS n
    FROM (SELECT source, min(transcription) AS transcription,
                 array_to_string(array_agg(word ORDER BY k), ' ') AS phrase,
                 CAST(count(*) AS BIGINT) AS n
          FROM phrase_terms GROUP BY source)
    GROUP BY phrase
),
phrase_parts AS (
    SELECT p.phrase, p.n, p.transcription, t.k, t.word
    FROM phrases p
    JOIN phrase_terms t ON t.source = p.source
),
-- a phrase matches at j when its k-th word is the text's (j + k - 1)-th
matches AS (
    SELECT w.text_key, w.j - p.k + 1 AS j, p.phrase, min(p.n) AS n,
           min(p.transcription) AS transcription
    FROM kept_words w
    JOIN source_words s ON s.word = w.word
    JOIN phrase_parts p ON p.word = w.word
    WHERE w.j - p.k + 1 >= 1
    GROUP BY w.text_key, w.j - p.k + 1, p.phrase
    HAVING count(*) = min(p.n)
),
match_words AS (
    SELECT text_key, j, n, transcription, unnest(range(j, j + n)) AS at
    FROM matches
),
-- the best match at each word: the longest, then the earliest
best_at AS (
    SELECT text_key, at, j, n,
           row_number() OVER (PARTITION BY text_key, at ORDER BY n DESC, j) AS rank
    FROM match_words
),
longest AS (
    SELECT m.text_key, m.j, m.n, min(m.transcription) AS transcription
    FROM match_words m
    JOIN best_at b ON b.text_key = m.text_key AND b.at = m.at AND b.rank = 1
    GROUP BY m.text_key, m.j, m.n
    HAVING sum(CASE WHEN b.j = m.j AND b.n = m.n THEN 1 ELSE 0 END) = m.n
),
covered AS (
    SELECT text_key, j, transcription, unnest(range(j, j + n)) AS at FROM longest
),
tokens AS (
    SELECT w.src_url, w.url, w.occurrence, w.part, w.j,
           CASE WHEN c.at IS NULL THEN w.word ELSE c.transcription END AS token
    FROM kept_words w
    LEFT JOIN covered c ON c.text_key = w.text_key AND c.at = w.j
    -- a match's first word becomes its transcription, the others go
    WHERE c.at IS NULL OR c.at = c.j
)
SELECT src_url, url, occurrence, part,
       ' ' || array_to_string(array_agg(token ORDER BY j), ' ') || ' ' AS text
FROM tokens
GROUP BY src_url, url, occurrence, part
