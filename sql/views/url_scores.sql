-- url_scores: each URL an open link leads to, at the probability of its
-- likeliest link (link_scores.sql): the priority `adaptive` gives a new
-- URL and the one a queued URL is re-scored to each round (the merge sets
-- it), so the queue is always ranked by the latest model.
-- inputs:  link_scores
-- params:  none
-- output:  url, priority
SELECT url, max(probability) AS priority
FROM link_scores
GROUP BY url
