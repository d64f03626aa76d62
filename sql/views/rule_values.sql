-- rule_values: what the papers' rules know before the crawl has labelled
-- anything, as feature values of adaptive's model — a target-language
-- anchor and a target ccTLD (Chan & Yamana), a link from a relevant page
-- (hops 0: Tamura's hard focus). The fit (src/strategy/fit.rs) starts
-- their weights from a positive prior instead of 0, in both segments;
-- the crawl's labels soon outweigh it.
-- inputs:  target_tlds
-- params:  none
-- output:  feature, value
SELECT 'anchor' AS feature, 'target' AS value
UNION ALL SELECT 'hops', '0'
UNION ALL SELECT DISTINCT 'tld', reverse(split_part(reverse(tld), '.', 1)) FROM target_tlds
