-- transcribed_texts: Kumar & Vig's multilingual transcriptor over
-- context_words (materialized once a round). Only the words in the
-- dictionary's source language are touched — the language the anchor
-- identifier gives most of its source terms; a word is in it when the same
-- identifier says so (Devanagari is Hindi) — so English stays as written:
--   1. the source language's noise words (stop_words) are dropped, from the
--      text and from the dictionary's phrases alike;
--   2. dictionary phrases match longest first: a match is kept unless it
--      overlaps a longer one (or one as long that starts earlier), and is
--      replaced by its transcription.
-- With $transcribe false (`ontology-monolingual`) texts stay as written.
-- inputs:  context_words, dictionary (source_term, target_term),
--          stop_words (lang, word)
-- params:  $transcribe
-- output:  src_url, url, occurrence, part, text (' word word ... ')
WITH source_lang AS (
    SELECT lang
    FROM (SELECT anchor_language(source_term) AS lang, count(*) AS terms
          FROM dictionary GROUP BY 1)
    ORDER BY terms DESC, lang
    LIMIT 1
),
source_words AS (
    SELECT word
    FROM (SELECT DISTINCT word FROM context_words WHERE $transcribe)
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
    FROM context_words w
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
dominated AS (
    -- matches that overlap a longer one, or one as long that starts earlier
    SELECT m.text_key, m.j, m.n
    FROM matches m
    JOIN matches o
      ON o.text_key = m.text_key
     AND o.j <= m.j + m.n - 1 AND m.j <= o.j + o.n - 1
     AND (o.n > m.n OR (o.n = m.n AND o.j < m.j))
    GROUP BY m.text_key, m.j, m.n
),
longest AS (
    SELECT m.text_key, m.j, m.n, m.transcription
    FROM matches m
    LEFT JOIN dominated d ON d.text_key = m.text_key AND d.j = m.j AND d.n = m.n
    WHERE d.text_key IS NULL
),
tokens AS (
    SELECT w.src_url, w.url, w.occurrence, w.part, w.j,
           coalesce(k.transcription, w.word) AS token
    FROM kept_words w
    LEFT JOIN longest k ON k.text_key = w.text_key AND k.j = w.j
    -- the rest of a match's words go with its first
    LEFT JOIN longest c ON c.text_key = w.text_key AND w.j > c.j AND w.j < c.j + c.n
    WHERE c.text_key IS NULL
)
SELECT src_url, url, occurrence, part,
       ' ' || array_to_string(array_agg(token ORDER BY j), ' ') || ' ' AS text
FROM tokens
GROUP BY src_url, url, occurrence, part
