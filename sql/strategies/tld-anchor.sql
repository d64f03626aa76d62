-- tld-anchor: Chan & Yamana — follow a link if its host is under one of the
-- target's ccTLDs, else if its anchor text is in the target language; drop
-- it otherwise. No prioritization, as in the paper.
-- inputs:  link_facts
-- params:  none (the ccTLDs are table target_tlds; the anchor rule uses
--          $target_lang and $han_matches through link_facts)
-- output:  src_url, url, accepted, priority, reason
SELECT src_url,
       url,
       kind = 'redirect' OR tld_on_target OR anchor_on_target AS accepted,
       CAST(0.0 AS DOUBLE) AS priority,
       CASE WHEN kind = 'redirect' THEN 'redirect'
            WHEN tld_on_target THEN 'tld-match'
            WHEN anchor_on_target THEN 'anchor-lang'
            ELSE 'other-tld-and-anchor' END AS reason
FROM link_facts
