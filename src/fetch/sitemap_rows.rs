//! The rows of the `sitemaps` segment (`store::schema::SITEMAPS`): what a
//! sitemap file's entries and alternates become — which of them count for
//! the host, within a memory bound per file — and the writer thread.

use std::collections::HashSet;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray};
use tokio::sync::mpsc;
use url::Url;

use super::sitemap_read::Entry;
use crate::error::Result;
use crate::store::schema::SITEMAPS;
use crate::store::segment::Staged;
use crate::store::SegmentWriter;

/// Alternates kept of one URL (a page in more languages is rare).
pub const MAX_ALTERNATES_PER_URL: usize = 64;
/// The bytes of URLs one file's rows may hold; past it the file is `cut`.
pub const MAX_ROW_BYTES: usize = 32 << 20;
/// Rows sent and written at a time.
pub const BATCH_ROWS: usize = 8192;

/// A row of the `sitemaps` segment.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SitemapRow {
    pub host: String,
    pub sitemap: String,
    pub parent: Option<String>,
    pub level: i32,
    pub found_by: &'static str,
    /// `read`, `cut`, `failed`, `redirected` or `skipped`.
    pub status: &'static str,
    pub http_status: Option<i32>,
    pub format: Option<&'static str>,
    pub error: Option<String>,
    pub bytes: Option<i64>,
    /// `sitemap`, `sitemap-alternate` or `sitemap-index`.
    pub kind: Option<&'static str>,
    pub url: Option<String>,
    pub alternate_of: Option<String>,
    pub hreflang: Option<String>,
    pub lastmod: Option<String>,
    pub dropped: Option<&'static str>,
}

/// Which URLs a sitemap may name for the host whose robots.txt named it:
/// a `<loc>` on that host or on the sitemap's own host (sitemaps.org's
/// cross-submission rule); an alternate also on that host's registrable
/// domain (`ja.example.com` beside `example.com`).
struct Scope<'a> {
    host: &'a str,
    sitemap_host: Option<&'a str>,
    domain: Option<&'a str>,
}

impl Scope<'_> {
    fn page(&self, url: &Url) -> bool {
        url.host_str()
            .is_some_and(|h| h == self.host || Some(h) == self.sitemap_host)
    }

    fn alternate(&self, url: &Url) -> bool {
        self.page(url) || url.host_str().and_then(psl::domain_str) == self.domain
    }
}

/// The rows of a urlset's (or a text or feed sitemap's) entries and their
/// alternates, each a copy of `head` (the file's columns). Out of scope:
/// `dropped = 'other-host'` (a `<loc>` takes its alternates with it). Past
/// [`MAX_ROW_BYTES`] the rows stop and every row says the file was cut.
pub fn entry_rows(
    url: &Url,
    host: &str,
    head: &SitemapRow,
    entries: Vec<Entry>,
) -> Vec<SitemapRow> {
    let scope = Scope {
        host,
        sitemap_host: url.host_str(),
        domain: psl::domain_str(host),
    };
    let mut rows = Vec::with_capacity(entries.len());
    let mut bytes = 0;
    for entry in entries {
        if bytes > MAX_ROW_BYTES {
            mark_cut(&mut rows, "too-large: rows past 32 MiB of URLs");
            break;
        }
        let page = entry_row(url, &scope, head, &entry);
        bytes += page.url.as_ref().map_or(0, String::len);
        let alternates = entry.alternates.iter().take(MAX_ALTERNATES_PER_URL);
        let alternates: Vec<SitemapRow> = alternates
            .map(|a| alternate_row(url, &scope, &page, a))
            .collect();
        bytes += alternates
            .iter()
            .map(|r| 2 * r.url.as_ref().map_or(0, String::len))
            .sum::<usize>();
        rows.push(page);
        rows.extend(alternates);
    }
    rows
}

fn entry_row(url: &Url, scope: &Scope<'_>, head: &SitemapRow, entry: &Entry) -> SitemapRow {
    let mut row = head.clone();
    row.kind = Some("sitemap");
    row.lastmod.clone_from(&entry.lastmod);
    match crate::urls::resolve(Some(url), &entry.loc) {
        Ok(loc) => {
            row.dropped = (!scope.page(&loc)).then_some("other-host");
            row.url = Some(loc.to_string());
        }
        Err(_) => {
            row.dropped = Some("bad-url");
            row.url = Some(entry.loc.clone());
        }
    }
    row
}

fn alternate_row(
    url: &Url,
    scope: &Scope<'_>,
    page: &SitemapRow,
    alternate: &super::sitemap_read::Alternate,
) -> SitemapRow {
    let mut row = page.clone();
    row.kind = Some("sitemap-alternate");
    row.alternate_of = page.url.clone();
    row.hreflang = Some(alternate.hreflang.clone());
    match crate::urls::resolve(Some(url), &alternate.href) {
        Ok(href) => {
            let out = (!scope.alternate(&href)).then_some("other-host");
            row.dropped = page.dropped.or(out);
            row.url = Some(href.to_string());
        }
        Err(_) => {
            row.dropped = page.dropped.or(Some("bad-url"));
            row.url = Some(alternate.href.clone());
        }
    }
    row
}

fn mark_cut(rows: &mut [SitemapRow], why: &str) {
    for row in rows {
        row.status = "cut";
        row.error = Some(why.to_string());
    }
}

/// The writer thread: rows from the host queues into the `sitemaps`
/// segment; returns the staged segment and the number of files named.
pub fn write_rows(
    mut rx: mpsc::Receiver<Vec<SitemapRow>>,
    mut writer: SegmentWriter,
) -> Result<(Staged, usize)> {
    let mut files = HashSet::new();
    while let Some(rows) = rx.blocking_recv() {
        files.extend(rows.iter().map(|r| r.sitemap.clone()));
        writer.write(&to_batch(&rows))?;
    }
    Ok((writer.finish()?, files.len()))
}

fn to_batch(rows: &[SitemapRow]) -> RecordBatch {
    let strings = |f: fn(&SitemapRow) -> Option<&str>| -> ArrayRef {
        Arc::new(rows.iter().map(f).collect::<StringArray>())
    };
    let columns: Vec<ArrayRef> = vec![
        strings(|r| Some(&r.host)),
        strings(|r| Some(&r.sitemap)),
        strings(|r| r.parent.as_deref()),
        Arc::new(rows.iter().map(|r| Some(r.level)).collect::<Int32Array>()),
        strings(|r| Some(r.found_by)),
        strings(|r| Some(r.status)),
        Arc::new(rows.iter().map(|r| r.http_status).collect::<Int32Array>()),
        strings(|r| r.format),
        strings(|r| r.error.as_deref()),
        Arc::new(rows.iter().map(|r| r.bytes).collect::<Int64Array>()),
        strings(|r| r.kind),
        strings(|r| r.url.as_deref()),
        strings(|r| r.alternate_of.as_deref()),
        strings(|r| r.hreflang.as_deref()),
        strings(|r| r.lastmod.as_deref()),
        strings(|r| r.dropped),
    ];
    RecordBatch::try_new(SITEMAPS.clone(), columns).expect("sitemap rows match the sitemaps schema")
}
