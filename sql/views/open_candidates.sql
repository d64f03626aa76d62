-- open_candidates: the links open_links.sql describes — the last round's
-- frontier (links whose destination was not fetched yet) and this round's
-- links (link_features.sql). Held once per round: open_links.sql reads
-- them twice (to count each destination's inlinks, then to describe each
-- link), and a view would read the frontier and describe the round's
-- links again for each.
-- inputs:  frontier_before, link_features
-- params:  none
-- output:  the frontier schema (store::schema::FRONTIER)
SELECT * FROM frontier_before
UNION ALL
SELECT * FROM link_features
