//! Sitemaps: which files a host's queue reads after its robots.txt, and
//! the rows of the `sitemaps` segment they give. The files robots.txt
//! names (or `/sitemap.xml` when asked and it names none) are read once a
//! robots.txt is fetched; an index's children are read in turn, at most
//! [`MAX_LEVEL`] indexes deep and [`MAX_FILES`] files a host, each file
//! once. A URL a sitemap lists counts for the host whose robots.txt named
//! the sitemap, and for the sitemap's own host (sitemaps.org's
//! cross-submission rule); others are kept with `dropped = 'other-host'`.
//! Parse turns the rows into links of kind `sitemap` and
//! `sitemap-alternate`.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray};
use tokio::sync::mpsc;
use url::Url;

use super::client::Response;
use super::sitemap_read::{self, Entry, SitemapKind};
use crate::error::Result;
use crate::store::schema::SITEMAPS;
use crate::store::segment::Staged;
use crate::store::SegmentWriter;

/// Sitemap files read for one host in a round.
pub const MAX_FILES: usize = 50;
/// The deepest level read: 0 is a file robots.txt names, 1 a file an
/// index lists, 2 a file an index in an index lists.
pub const MAX_LEVEL: i32 = 2;

/// What fetch does about sitemaps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SitemapOptions {
    /// Read the sitemaps robots.txt names.
    pub read: bool,
    /// Where robots.txt names none, try `/sitemap.xml`.
    pub guess: bool,
}

impl Default for SitemapOptions {
    fn default() -> Self {
        SitemapOptions {
            read: true,
            guess: false,
        }
    }
}

/// One sitemap file to read.
#[derive(Debug, Clone, PartialEq)]
pub struct File {
    pub url: String,
    pub parent: Option<String>,
    pub level: i32,
    /// `robots`, `guess` or `index`.
    pub found_by: &'static str,
}

/// A row of the `sitemaps` segment (`store::schema::SITEMAPS`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SitemapRow {
    pub host: String,
    pub sitemap: String,
    pub parent: Option<String>,
    pub level: i32,
    pub found_by: &'static str,
    /// `read`, `cut`, `failed` or `skipped`.
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

/// The files robots.txt names for `host` (`robots_sitemaps`), or, when it
/// names none and `guess` is set, `/sitemap.xml` on the host of `any_url`.
pub fn first_files(robots_sitemaps: &[String], any_url: &Url, guess: bool) -> Vec<File> {
    let file = |url: String, found_by| File {
        url,
        parent: None,
        level: 0,
        found_by,
    };
    if !robots_sitemaps.is_empty() {
        let resolve = |u: &String| {
            any_url
                .join(u.trim())
                .map_or_else(|_| u.clone(), String::from)
        };
        return robots_sitemaps
            .iter()
            .map(|u| file(resolve(u), "robots"))
            .collect();
    }
    match any_url.join("/sitemap.xml") {
        Ok(url) if guess => vec![file(url.to_string(), "guess")],
        _ => Vec::new(),
    }
}

/// One host's sitemaps as they are read: the files still to read, and the
/// ones seen (each is read once).
pub struct Walk {
    host: String,
    queue: VecDeque<File>,
    seen: HashSet<String>,
    taken: usize,
}

impl Walk {
    pub fn new(host: &str, files: Vec<File>) -> Self {
        Walk {
            host: host.to_string(),
            queue: VecDeque::new(),
            seen: HashSet::new(),
            taken: 0,
        }
        .with(files)
    }

    fn with(mut self, files: Vec<File>) -> Self {
        self.queue.extend(files);
        self
    }

    /// The next file to read; the rows of files skipped on the way (read
    /// already, too deep, past the host's count, not a URL) go to `skipped`.
    pub fn next_file(&mut self, skipped: &mut Vec<SitemapRow>) -> Option<(File, Url)> {
        while let Some(file) = self.queue.pop_front() {
            let why = match Url::parse(&file.url) {
                _ if !self.seen.insert(file.url.clone()) => {
                    "listed again (a loop or a repeat)".into()
                }
                _ if file.level > MAX_LEVEL => format!("nested deeper than {MAX_LEVEL} indexes"),
                _ if self.taken >= MAX_FILES => format!("more than {MAX_FILES} sitemap files"),
                Ok(url) if matches!(url.scheme(), "http" | "https") => {
                    self.taken += 1;
                    return Some((file, url));
                }
                Ok(url) => format!("not an http(s) URL (scheme {})", url.scheme()),
                Err(e) => format!("not a URL ({e})"),
            };
            skipped.push(self.file_row(&file, "skipped", Some(why)));
        }
        None
    }

    /// The row of a file that gives no entry.
    pub fn file_row(&self, file: &File, status: &'static str, error: Option<String>) -> SitemapRow {
        SitemapRow {
            host: self.host.clone(),
            sitemap: file.url.clone(),
            parent: file.parent.clone(),
            level: file.level,
            found_by: file.found_by,
            status,
            error,
            ..SitemapRow::default()
        }
    }

    /// The rows of `file` from its answer; an index's children are queued.
    pub fn read(&mut self, file: &File, url: &Url, response: &Response) -> Vec<SitemapRow> {
        let http_status = response.http_status.map(i32::from);
        let failed = match (&response.error, response.http_status) {
            (Some(error), _) => Some(error.clone()),
            (None, Some(200..=299)) => None,
            (None, Some(status)) => Some(format!("HTTP {status}")),
            (None, None) => Some("no answer".into()),
        };
        if let Some(error) = failed {
            let mut row = self.file_row(file, "failed", Some(error));
            row.http_status = http_status;
            return vec![row];
        }
        let sitemap = sitemap_read::read(&response.content);
        let mut problem = sitemap.problem.clone();
        // a body cut at the cap reads as broken XML there: the cut is the reason
        let many = problem.as_deref() == Some("too-many-urls");
        if response.truncated && !many {
            problem = Some(format!(
                "too-large: cut at {} bytes",
                response.content.len()
            ));
        }
        let status = match (&problem, sitemap.entries.is_empty()) {
            (None, _) => "read",
            (Some(_), false) => "cut",
            (Some(_), true) => "failed",
        };
        let mut head = self.file_row(file, status, problem);
        head.http_status = http_status;
        head.format = Some(sitemap.kind.as_str());
        head.bytes = i64::try_from(sitemap.decoded_bytes).ok();
        let rows = match sitemap.kind {
            SitemapKind::Index => self.children(file, url, &head, sitemap.entries),
            _ => entry_rows(url, &self.host, &head, sitemap.entries),
        };
        if rows.is_empty() {
            return vec![head];
        }
        rows
    }

    /// An index's children: rows of kind `sitemap-index`, and the files
    /// queued (on the index's host only).
    fn children(
        &mut self,
        file: &File,
        url: &Url,
        head: &SitemapRow,
        entries: Vec<Entry>,
    ) -> Vec<SitemapRow> {
        let mut rows = Vec::with_capacity(entries.len());
        for entry in entries {
            let child = crate::urls::resolve(Some(url), &entry.loc);
            let mut row = head.clone();
            row.kind = Some("sitemap-index");
            row.lastmod = entry.lastmod;
            match child {
                Ok(child) if child.host_str() == url.host_str() => {
                    row.url = Some(child.to_string());
                    self.queue.push_back(File {
                        url: child.to_string(),
                        parent: Some(file.url.clone()),
                        level: file.level + 1,
                        found_by: "index",
                    });
                }
                Ok(child) => {
                    row.url = Some(child.to_string());
                    row.dropped = Some("other-host");
                }
                Err(_) => {
                    row.url = Some(entry.loc);
                    row.dropped = Some("bad-url");
                }
            }
            rows.push(row);
        }
        rows
    }
}

/// The rows of a urlset's (or a text or feed sitemap's) entries and their
/// alternates. A `<loc>` on neither `host` nor the sitemap's own host is
/// dropped (`other-host`), and its alternates with it.
fn entry_rows(url: &Url, host: &str, head: &SitemapRow, entries: Vec<Entry>) -> Vec<SitemapRow> {
    let allowed = |u: &Url| {
        u.host_str()
            .is_some_and(|h| h == host || Some(h) == url.host_str())
    };
    let mut rows = Vec::with_capacity(entries.len());
    for entry in entries {
        let mut row = head.clone();
        row.kind = Some("sitemap");
        row.lastmod = entry.lastmod;
        let loc = crate::urls::resolve(Some(url), &entry.loc);
        let page = match loc {
            Ok(loc) => {
                row.dropped = (!allowed(&loc)).then_some("other-host");
                loc.to_string()
            }
            Err(_) => {
                row.dropped = Some("bad-url");
                entry.loc
            }
        };
        row.url = Some(page.clone());
        let dropped = row.dropped;
        rows.push(row);
        for alternate in entry.alternates {
            let mut row = head.clone();
            row.kind = Some("sitemap-alternate");
            row.alternate_of = Some(page.clone());
            row.hreflang = Some(alternate.hreflang);
            row.dropped = dropped;
            match crate::urls::resolve(Some(url), &alternate.href) {
                Ok(href) => row.url = Some(href.to_string()),
                Err(_) => {
                    row.url = Some(alternate.href);
                    row.dropped = row.dropped.or(Some("bad-url"));
                }
            }
            rows.push(row);
        }
    }
    rows
}

/// The writer thread: rows from the host queues into the `sitemaps`
/// segment; returns the staged segment and the number of files named.
pub fn write_rows(
    mut rx: mpsc::Receiver<Vec<SitemapRow>>,
    mut writer: SegmentWriter,
) -> Result<(Staged, usize)> {
    let mut files = 0;
    while let Some(rows) = rx.blocking_recv() {
        files += rows
            .iter()
            .map(|r| &r.sitemap)
            .collect::<HashSet<_>>()
            .len();
        for chunk in rows.chunks(BATCH_ROWS) {
            writer.write(&to_batch(chunk))?;
        }
    }
    Ok((writer.finish()?, files))
}

/// Rows written at a time.
const BATCH_ROWS: usize = 8192;

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

#[cfg(test)]
#[path = "sitemap_tests.rs"]
mod tests;
