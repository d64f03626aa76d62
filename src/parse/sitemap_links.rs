//! The links of the round's sitemaps (the `sitemaps` segment fetch wrote):
//! each URL a sitemap lists becomes a `links` row of kind `sitemap` from
//! the sitemap's URL, each hreflang alternate one of kind
//! `sitemap-alternate` with its hreflang, both with the sitemap's
//! `lastmod`. Rows fetch dropped (another host's URL, not a URL) and an
//! index's children (read by fetch itself) are not links.

use datafusion::arrow::array::{Array, RecordBatch, StringArray};
use url::Url;

use super::html::LinkKind;
use super::{outlinks, LinkRow};
use crate::error::Result;
use crate::store::rows::{column, opt_str};

/// The link rows of one batch of the `sitemaps` segment.
pub fn links(batch: &RecordBatch) -> Result<Vec<LinkRow>> {
    let host = column::<StringArray>(batch, "host")?;
    let sitemap = column::<StringArray>(batch, "sitemap")?;
    let kind = column::<StringArray>(batch, "kind")?;
    let url = column::<StringArray>(batch, "url")?;
    let hreflang = column::<StringArray>(batch, "hreflang")?;
    let lastmod = column::<StringArray>(batch, "lastmod")?;
    let dropped = column::<StringArray>(batch, "dropped")?;
    let mut rows = Vec::new();
    for row in (0..batch.num_rows()).filter(|&row| dropped.is_null(row)) {
        let kind = match opt_str(kind, row) {
            Some("sitemap") => LinkKind::Sitemap,
            Some("sitemap-alternate") => LinkKind::SitemapAlternate,
            _ => continue,
        };
        let Some(dst) = opt_str(url, row).and_then(|u| Url::parse(u).ok()) else {
            continue;
        };
        let mut link = outlinks::bare_link(sitemap.value(row), host.value(row), &dst, kind);
        link.hreflang = opt_str(hreflang, row).and_then(outlinks::hreflang_code);
        link.position = i32::try_from(row).unwrap_or(i32::MAX);
        link.lastmod = opt_str(lastmod, row).map(str::to_string);
        rows.push(link);
    }
    Ok(rows)
}
