-- sim/export_links: a finished crawl's links as the links of a web graph,
-- of every kind a crawler follows (redirects are kept as the pages'
-- redirect_to instead): one row per source page, destination and text —
-- a page that links one URL with two anchors, contexts or headings keeps
-- both, as its links segment did.
-- inputs:  links (all rounds)
-- params:  none
-- output:  web links rows
SELECT src_url, min(src_host) AS src_host, dst_url,
       min(dst_host) AS dst_host, min(dst_domain) AS dst_domain,
       min(dst_tld) AS dst_tld, min(dst_dir) AS dst_dir,
       anchor, min(anchor_lang) AS anchor_lang,
       min(kind) AS kind, min(hreflang) AS hreflang,
       context, heading, min(anchor_source) AS anchor_source
FROM links
WHERE kind <> 'redirect'
GROUP BY src_url, dst_url, anchor, context, heading
