//! Sitemaps: which files a host's queue reads after its robots.txt. The
//! files robots.txt names (or `/sitemap.xml` when asked and it names none)
//! are read when a robots.txt is fetched; an index's children and a
//! file's redirect target are read in turn, at most [`MAX_LEVEL`] indexes
//! deep and [`MAX_FILES`] files a host, each file once. What a file lists
//! becomes rows of the `sitemaps` segment (`sitemap_rows`), which parse
//! turns into links of kind `sitemap` and `sitemap-alternate`.

use std::collections::{HashSet, VecDeque};

use url::Url;

use super::client::Response;
use super::sitemap_read::{self, Entry, Sitemap, SitemapKind};
use super::sitemap_rows::{entry_rows, SitemapRow};

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
    /// `robots`, `guess`, `index` or `redirect`.
    pub found_by: &'static str,
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
            queue: VecDeque::from(files),
            seen: HashSet::new(),
            taken: 0,
        }
    }

    /// The next file to read; the rows of files skipped on the way (read
    /// already, past the host's count — robots.txt may name more —, not a
    /// URL) go to `skipped`. (Files deeper than [`MAX_LEVEL`] are never
    /// queued.)
    pub fn next_file(&mut self, skipped: &mut Vec<SitemapRow>) -> Option<(File, Url)> {
        while let Some(file) = self.queue.pop_front() {
            let why = match Url::parse(&file.url) {
                _ if !self.seen.insert(file.url.clone()) => {
                    "listed again (a loop or a repeat)".into()
                }
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

    /// The rows of `file` from its answer (reading it on this thread).
    pub fn read(&mut self, file: &File, url: &Url, response: &Response) -> Vec<SitemapRow> {
        match self.failed(file, url, response) {
            Some(row) => vec![row],
            None => self.rows(file, url, response, sitemap_read::read(&response.content)),
        }
    }

    /// The row of a file whose answer is not a sitemap to read: an error,
    /// a status other than 2xx (a redirect's target is queued as a file).
    pub fn failed(&mut self, file: &File, url: &Url, response: &Response) -> Option<SitemapRow> {
        let status = response.http_status;
        let (kind, error) = match (&response.error, status) {
            (Some(error), _) => ("failed", error.clone()),
            (None, Some(200..=299)) => return None,
            (None, Some(300..=399)) => match self.redirect(file, url, response) {
                Ok(target) => ("redirected", target),
                Err(why) => ("failed", why),
            },
            (None, Some(status)) => ("failed", format!("HTTP {status}")),
            (None, None) => ("failed", "no answer".into()),
        };
        let mut row = self.file_row(file, kind, Some(error));
        row.http_status = status.map(i32::from);
        Some(row)
    }

    /// Queues a redirect's target in `file`'s place; the target, or why not.
    fn redirect(&mut self, file: &File, url: &Url, response: &Response) -> Result<String, String> {
        let location = response
            .location
            .as_deref()
            .ok_or("a redirect without Location")?;
        let target = crate::urls::resolve(Some(url), location)?;
        self.enqueue(File {
            url: target.to_string(),
            found_by: "redirect",
            ..file.clone()
        })
        .ok_or_else(|| format!("redirect to {target}: more than {MAX_FILES} sitemap files"))?;
        Ok(target.to_string())
    }

    /// Queues `file` if the host may read one more; `None` if not.
    fn enqueue(&mut self, file: File) -> Option<()> {
        (self.taken + self.queue.len() < MAX_FILES).then(|| self.queue.push_back(file))
    }

    /// The rows of `file`, read as `sitemap`; an index's children are queued.
    pub fn rows(
        &mut self,
        file: &File,
        url: &Url,
        response: &Response,
        sitemap: Sitemap,
    ) -> Vec<SitemapRow> {
        let mut problem = sitemap.problem.clone();
        // a body cut at the cap reads as broken XML there: the cut is the reason
        let many = problem.as_deref() == Some("too-many-urls");
        if response.truncated && !many {
            let read = problem.map(|p| format!(" ({p})")).unwrap_or_default();
            problem = Some(format!(
                "too-large: cut at {} bytes{read}",
                response.content.len()
            ));
        }
        let status = match (&problem, sitemap.entries.is_empty()) {
            (None, _) => "read",
            (Some(_), false) => "cut",
            (Some(_), true) => "failed",
        };
        let mut head = self.file_row(file, status, problem);
        head.http_status = response.http_status.map(i32::from);
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

    /// An index's children: rows of kind `sitemap-index`; those on the
    /// index's host are queued while the host may read more files and
    /// they are not too deep (`dropped` says why not).
    fn children(
        &mut self,
        file: &File,
        url: &Url,
        head: &SitemapRow,
        entries: Vec<Entry>,
    ) -> Vec<SitemapRow> {
        let mut rows = Vec::with_capacity(entries.len());
        for entry in entries {
            let mut row = head.clone();
            row.kind = Some("sitemap-index");
            row.lastmod = entry.lastmod;
            let child = match crate::urls::resolve(Some(url), &entry.loc) {
                Ok(child) => child,
                Err(_) => {
                    row.url = Some(entry.loc);
                    row.dropped = Some("bad-url");
                    rows.push(row);
                    continue;
                }
            };
            row.url = Some(child.to_string());
            row.dropped = if child.host_str() != url.host_str() {
                Some("other-host")
            } else if file.level + 1 > MAX_LEVEL {
                Some("too-deep")
            } else {
                let queued = self.enqueue(File {
                    url: child.to_string(),
                    parent: Some(file.url.clone()),
                    level: file.level + 1,
                    found_by: "index",
                });
                queued.is_none().then_some("too-many-files")
            };
            rows.push(row);
        }
        rows
    }
}

#[cfg(test)]
#[path = "sitemap_tests.rs"]
mod tests;
