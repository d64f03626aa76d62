-- link_limits: the crawler-trap limits and the address guard, checked for
-- every link of the round whatever the strategy. limit_reason names the
-- first limit a link is past (NULL: within all of them); decide.sql rejects
-- the link with that reason. Each row also carries what the merge needs to
-- add the link's URL to the crawldb: its kind, anchor and destination
-- parts, and the depth and redirect hops it would get (a redirect target is
-- one deeper than the redirect, and counts its hop).
-- inputs:  page_links, crawldb_after_round
-- params:  $allow_private, $max_url_length, $max_redirects, $max_depth,
--          $max_repeated_segment, $max_outlinks
-- output:  src_url, url, kind, anchor, dst_host, dst_domain, dst_tld,
--          dst_dir, depth, redirect_hops, limit_reason
WITH placed AS (
    SELECT l.src_url, l.dst_url, l.kind, l.anchor,
           l.dst_host, l.dst_domain, l.dst_tld, l.dst_dir,
           coalesce(p.depth, 0) AS src_depth,
           coalesce(p.redirect_hops, 0) AS src_hops,
           row_number() OVER (PARTITION BY l.src_url ORDER BY l.position NULLS LAST, l.dst_url) AS place
    FROM page_links l
    LEFT JOIN crawldb_after_round p ON p.url = l.src_url
)
SELECT src_url,
       dst_url AS url,
       kind,
       anchor,
       dst_host,
       dst_domain,
       dst_tld,
       dst_dir,
       src_depth + 1 AS depth,
       CASE WHEN kind = 'redirect' THEN src_hops + 1 ELSE 0 END AS redirect_hops,
       CASE WHEN NOT (starts_with(dst_url, 'http://') OR starts_with(dst_url, 'https://'))
                THEN 'unsupported-scheme'
            WHEN NOT $allow_private AND blocked_address(dst_host) IS NOT NULL
                THEN 'private-address'
            WHEN character_length(dst_url) > $max_url_length THEN 'max-url-length'
            WHEN kind = 'redirect' AND src_hops + 1 > $max_redirects THEN 'redirect-chain'
            WHEN src_depth + 1 > $max_depth THEN 'max-depth'
            WHEN repeated_segment(dst_url) > $max_repeated_segment THEN 'repeated-path-segment'
            -- a sitemap lists up to 50,000 URLs (fetch bounds it)
            WHEN kind NOT IN ('redirect', 'sitemap', 'sitemap-alternate')
                 AND place > $max_outlinks THEN 'max-outlinks'
       END AS limit_reason
FROM placed
