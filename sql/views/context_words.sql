-- context_words: the texts the `ontology` strategies score, word by word
-- (materialized once a round): the context of every link of the round —
-- its window of text (the anchor when there is none) and its heading
-- (unless the window already holds it: a heading just above a link),
-- one context per distinct text a page links a URL with (`occurrence`) —
-- and the whole visible text of each source page (part `page`), lower-
-- cased with punctuation as spaces.
-- inputs:  links, parse (text; title and text_sample in older segments)
-- params:  none
-- output:  text_key, src_url, url ('' for a page), occurrence, part
--          (context | heading | page), i (1-based), word
WITH contexts AS (
    SELECT src_url, dst_url AS url, heading,
           coalesce(nullif(context, ''), anchor) AS window_text,
           row_number() OVER (PARTITION BY src_url, dst_url
                              ORDER BY position NULLS LAST, anchor DESC, context, heading) AS occurrence
    FROM links
    WHERE kind <> 'redirect'
),
texts AS (
    SELECT src_url, url, occurrence, 'context' AS part, window_text AS text
    FROM contexts
    UNION ALL
    SELECT src_url, url, occurrence, 'heading' AS part, heading AS text
    FROM contexts
    WHERE coalesce(heading, '') <> ''
      AND strpos(coalesce(window_text, ''), heading) = 0
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
)
SELECT part || ' ' || CAST(occurrence AS VARCHAR) || ' ' || url || ' ' || src_url AS text_key,
       src_url, url, occurrence, part, i, array_element(words, i) AS word
FROM words
