-- apply_fetch: the crawldb with one round's fetch results applied.
-- inputs:  crawldb, round_pages (see round_pages.sql)
-- params:  $round, $max_retries; the refetch schedule (`schedule.rs`):
--          $refetch_after_ms (0: off), $min_interval_ms, $max_interval_ms,
--          $changed_factor, $unchanged_factor
-- output:  crawldb rows. A requested URL takes the round's status; an
--          `error` counts a retry and waits 2^retries rounds (1, 2, 4, ...)
--          before generate picks it again (retry_round); after $max_retries
--          failures it is `gone`. A `deferred` URL was not requested (robots.txt
--          unavailable, back-off, the host's time budget, the phase's
--          deadline): it keeps its status and retries and waits for the next
--          round. `refused` (address guard, scheme) is final.
--          A `not-modified` page (304) keeps what its last fetch found —
--          status, language, digest — and is not parsed again; it counts
--          as unchanged, as does a page fetched with the digest it had.
--          A page fetched again keeps the round of its first fetch; if
--          the refetch fails (`error`) it keeps what it had and is tried
--          again one interval later.
--          With recrawl on, a page answered (200 or 304) is due again
--          after its interval: $refetch_after_ms the first time, then
--          × $changed_factor if it changed, × $unchanged_factor if not,
--          within [$min_interval_ms, $max_interval_ms].
WITH joined AS (
    -- one join with the round (each reference to round_pages reads the
    -- round's fetch and parse again)
    SELECT c.*,
           p.status AS r_status, p.http_status AS r_http_status,
           p.redirect_to AS r_redirect_to, p.lang AS r_lang,
           p.lang_confidence AS r_lang_confidence, p.lang_source AS r_lang_source,
           p.relevant AS r_relevant, p.digest AS r_digest, p.fetched_at AS r_fetched_at,
           p.etag AS r_etag, p.last_modified AS r_last_modified,
           -- requested, and answered with something that replaces the row
           coalesce(p.status NOT IN ('deferred', 'not-modified'), false) AS answered,
           coalesce(p.status = 'not-modified', false) AS not_modified,
           coalesce(p.status = 'deferred', false) AS deferred,
           coalesce(c.fetches, 0) > 0 OR c.status = 'fetched' AS seen_before
    FROM crawldb c
    LEFT JOIN round_pages p ON c.url = p.url
),
judged AS (
    SELECT *,
           not_modified OR coalesce(r_status = 'fetched', false) AS page_answered,
           seen_before AND coalesce(r_status = 'error', false) AS refetch_failed
    FROM joined
),
applied AS (
    SELECT *,
           NOT answered OR refetch_failed AS kept,
           page_answered AND seen_before
               AND (not_modified OR coalesce(r_digest = digest, false)) AS unchanged,
           page_answered AND seen_before AND NOT not_modified
               AND r_digest IS DISTINCT FROM digest AS changed,
           CASE WHEN not_modified THEN coalesce(r_etag, etag)
                WHEN page_answered THEN r_etag ELSE etag END AS new_etag,
           CASE WHEN not_modified THEN coalesce(r_last_modified, last_modified)
                WHEN page_answered THEN r_last_modified ELSE last_modified END AS new_last_modified,
           CASE WHEN page_answered THEN r_fetched_at ELSE fetched_at END AS new_fetched_at
    FROM judged
),
scheduled AS (
    SELECT *,
           CASE WHEN $refetch_after_ms = 0 OR NOT page_answered THEN refetch_ms
                WHEN refetch_ms IS NULL OR NOT seen_before THEN CAST($refetch_after_ms AS BIGINT)
                ELSE least(CAST($max_interval_ms AS BIGINT),
                           greatest(CAST($min_interval_ms AS BIGINT),
                                    CAST(round(refetch_ms * CASE WHEN changed THEN $changed_factor
                                                                 WHEN unchanged THEN $unchanged_factor
                                                                 ELSE 1.0 END) AS BIGINT)))
           END AS new_refetch_ms
    FROM applied
)
SELECT url, host, domain, tld, dir,
       CASE WHEN kept THEN status
            WHEN r_status = 'error' AND retries + 1 >= $max_retries THEN 'gone'
            ELSE r_status END AS status,
       CASE WHEN kept THEN retries
            WHEN r_status = 'error' THEN retries + 1
            ELSE 0 END AS retries,
       depth,
       priority,
       discovered_round,
       CASE WHEN kept OR seen_before THEN fetched_round ELSE CAST($round AS INT) END AS fetched_round,
       CASE WHEN kept THEN http_status ELSE r_http_status END AS http_status,
       CASE WHEN kept THEN redirect_to ELSE r_redirect_to END AS redirect_to,
       CASE WHEN kept THEN lang ELSE r_lang END AS lang,
       CASE WHEN kept THEN lang_confidence ELSE r_lang_confidence END AS lang_confidence,
       CASE WHEN kept THEN lang_source ELSE r_lang_source END AS lang_source,
       CASE WHEN kept THEN relevant ELSE r_relevant END AS relevant,
       CASE WHEN kept THEN digest ELSE r_digest END AS digest,
       found_from,
       found_anchor,
       redirect_hops,
       CASE WHEN refetch_failed THEN retry_round
            WHEN r_status = 'error' THEN CAST($round + power(2, least(retries, 16)) AS INT)
            WHEN deferred THEN CAST($round + 1 AS INT)
            WHEN answered OR not_modified THEN CAST(NULL AS INT)
            ELSE retry_round END AS retry_round,
       new_etag AS etag,
       new_last_modified AS last_modified,
       new_fetched_at AS fetched_at,
       CASE WHEN $refetch_after_ms > 0 AND page_answered
                THEN to_timestamp_millis(CAST(new_fetched_at AS BIGINT) + new_refetch_ms)
            WHEN $refetch_after_ms > 0 AND refetch_failed
                THEN to_timestamp_millis(CAST(r_fetched_at AS BIGINT)
                                         + coalesce(refetch_ms, CAST($refetch_after_ms AS BIGINT)))
            ELSE next_fetch END AS next_fetch,
       new_refetch_ms AS refetch_ms,
       CAST(coalesce(fetches, 0) + CASE WHEN page_answered THEN 1 ELSE 0 END AS INT) AS fetches,
       CAST(coalesce(changes, 0) + CASE WHEN changed THEN 1 ELSE 0 END AS INT) AS changes
FROM scheduled
