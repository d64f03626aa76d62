//! The parse phase: decode each fetched page, extract its text and every
//! outlink a browser follows, identify its language, and write the `parse`
//! and `links` segments. Parsing is total: any bytes give a row. A panic
//! caught by the guard is a bug; it is logged once with the page's URL,
//! the page is recorded as failed, and the phase goes on.

mod active_formatting;
mod batches;
pub mod depth;
mod element_kinds;
mod guard;
pub mod html;
pub mod link_header;
mod link_text;
mod open_elements;
mod outlinks;
mod page;
pub mod refresh;
mod sitemap_links;
pub mod tree;
mod workers;

use std::time::Instant;

use datafusion::arrow::array::{Array, BinaryArray, RecordBatch, StringArray};

use crate::error::Result;
use crate::store::activity::ActivityFile;
use crate::store::rows::{column, opt_str};
use crate::store::schema::{LINKS, PARSE};
use crate::store::segment::largest_row_bytes;
use crate::store::{read_batches, CrawlConfig, CrawlDir, Phase, SegmentWriter};
use crate::urls;

pub use html::LinkKind;
pub use outlinks::hreflang_code;

/// Fetch rows read at a time, one worker's batch (a worker holds two): a
/// few pages' content and links are in flight, however link-dense the
/// pages.
const ROWS_PER_BATCH: usize = 4;
/// The page bytes one batch of fetch rows may hold (pages of up to
/// `--max-content-bytes` each): it binds only when the round's largest
/// page is above 16 MiB, a cap raised from the default 8 MiB.
const READ_BYTES: usize = 64 << 20;
/// Parsed rows are written out once they hold this many links (a batch
/// of four link-dense pages of 20,000 links each is written as it comes,
/// not held for the next: 300 such pages parsed in 430 MB at the peak
/// instead of 500–530),
const FLUSH_LINKS: usize = 50_000;
/// or about this many bytes,
const FLUSH_BYTES: usize = 32 << 20;
/// or this many pages.
const FLUSH_PAGES: usize = 512;
/// Failed pages named in the report line.
const NAMED_FAILURES: usize = 3;

#[derive(Debug, Default, Clone, PartialEq)]
pub struct ParseReport {
    pub round: u32,
    /// Pages (fetch rows with content), whatever their type.
    pub pages: usize,
    /// Pages with no visible text (`lang_source = 'no-text'`).
    pub no_text: usize,
    /// Responses that are not HTML (recorded with their content type).
    pub not_html: usize,
    /// Pages whose parse panicked (a bug; each logged with its URL).
    pub failed: usize,
    /// The first failed pages' URLs.
    pub failed_urls: Vec<String>,
    /// Links found, each page's destinations once (its `outlinks`; the
    /// `links` segment may hold a row per text a page links a URL with).
    pub links: usize,
    /// Links from the round's sitemaps (`sitemap`, `sitemap-alternate`).
    pub sitemap_links: usize,
    pub seconds: f64,
}

impl std::fmt::Display for ParseReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "parse round {:05}: {} pages in {:.1}s ({:.0} pages/s), {} without text, {} not HTML, {} failed, {} links",
            self.round,
            self.pages,
            self.seconds,
            self.pages as f64 / self.seconds.max(1e-3),
            self.no_text,
            self.not_html,
            self.failed,
            self.links
        )?;
        if self.sitemap_links > 0 {
            write!(f, ", {} from sitemaps", self.sitemap_links)?;
        }
        if self.failed > 0 {
            let more = self.failed.saturating_sub(self.failed_urls.len());
            write!(f, "; failed: {}", self.failed_urls.join(", "))?;
            if more > 0 {
                write!(f, " and {more} more")?;
            }
            write!(f, " (SELECT url, error FROM parse WHERE NOT parsed)")?;
        }
        Ok(())
    }
}

impl ParseReport {
    fn count(&mut self, outputs: &[Parsed]) {
        for page in outputs.iter().filter_map(|o| o.page.as_ref()) {
            self.pages += 1;
            match page.lang_source {
                page::NO_TEXT => self.no_text += 1,
                page::NOT_HTML => self.not_html += 1,
                _ => {}
            }
            if !page.parsed {
                self.failed += 1;
                if self.failed_urls.len() < NAMED_FAILURES {
                    self.failed_urls.push(page.url.clone());
                }
            }
        }
        self.links += outputs.iter().map(destinations).sum::<usize>();
    }
}

/// The destinations one parsed response links to: a page's `outlinks`, or
/// the link rows of a response with no page row (a redirect).
fn destinations(output: &Parsed) -> usize {
    output.page.as_ref().map_or(output.links.len(), |page| {
        usize::try_from(page.outlinks).unwrap_or(0)
    })
}

/// Parses the latest fetched round of `crawl`.
pub fn run(crawl: &CrawlDir) -> Result<ParseReport> {
    crate::store::parts::refuse_whole(crawl, "parse")?;
    let round = crawl.round_needing(Phase::Fetch, Phase::Parse)?;
    let started = Instant::now();
    let stale_links = crawl.segment(round, Phase::Links);
    if stale_links.exists() {
        // Left by a parse killed between its two renames.
        std::fs::remove_dir_all(&stale_links).map_err(crate::Error::io(&stale_links))?;
    }
    let mut parse_writer =
        SegmentWriter::create(&crawl.segment(round, Phase::Parse), PARSE.clone())?;
    let mut links_writer = SegmentWriter::create(&stale_links, LINKS.clone())?;
    let target = CrawlConfig::load(crawl)?.target_lang;
    let mut report = ParseReport {
        round: round.0,
        ..ParseReport::default()
    };
    let mut pending = Pending::default();
    let fetched = crawl.segment(round, Phase::Fetch);
    let rows = crate::store::segment::row_count(&fetched).ok();
    let rows = rows.and_then(|n| u64::try_from(n).ok());
    let mut activity = ActivityFile::start(crawl.root(), "parse", round.0, rows);
    let mut read = 0;
    let batches = read_batches(&fetched, read_rows(largest_row_bytes(&fetched)?))?;
    workers::parse_all(
        &fetched,
        batches,
        target.as_deref(),
        crate::parallel::cores(),
        |rows, outputs| {
            read += rows as u64;
            activity.update(read);
            log_failures(&outputs);
            report.count(&outputs);
            pending.add(outputs);
            if pending.is_full() {
                pending.write(&mut parse_writer, &mut links_writer)?;
            }
            Ok(())
        },
    )?;
    pending.write(&mut parse_writer, &mut links_writer)?;
    report.sitemap_links = write_sitemap_links(crawl, round, &mut links_writer)?;
    links_writer.finish()?.commit()?;
    parse_writer.finish()?.commit()?;
    report.seconds = started.elapsed().as_secs_f64();
    CrawlConfig::record(crawl, "parse", round.0, &report.to_string())?;
    Ok(report)
}

/// Writes the links of the round's sitemaps (none for a round fetched
/// before sitemaps were read); returns how many.
fn write_sitemap_links(
    crawl: &CrawlDir,
    round: crate::store::RoundId,
    writer: &mut SegmentWriter,
) -> Result<usize> {
    if !crawl.has(round, Phase::Sitemaps) {
        return Ok(0);
    }
    let mut count = 0;
    for batch in read_batches(&crawl.segment(round, Phase::Sitemaps), 8192)? {
        let links = sitemap_links::links(&batch?)?;
        count += links.len();
        writer.write(&batches::link_batch(links.iter()))?;
    }
    Ok(count)
}

/// Fetch rows read at a time, one worker's batch: [`ROWS_PER_BATCH`],
/// fewer when rows of `row_bytes` would hold more than [`READ_BYTES`]
/// (at least one).
fn read_rows(row_bytes: usize) -> usize {
    let by_bytes = READ_BYTES / row_bytes.max(1);
    ROWS_PER_BATCH.min(by_bytes).max(1)
}

/// Parsed pages and links not yet written, with their size.
#[derive(Default)]
struct Pending {
    outputs: Vec<Parsed>,
    links: usize,
    bytes: usize,
}

impl Pending {
    fn add(&mut self, outputs: Vec<Parsed>) {
        for output in &outputs {
            self.links += output.links.len();
            self.bytes += output.page.as_ref().map_or(0, page_bytes);
            self.bytes += output.links.iter().map(link_bytes).sum::<usize>();
        }
        self.outputs.extend(outputs);
    }

    fn is_full(&self) -> bool {
        self.links >= FLUSH_LINKS || self.bytes >= FLUSH_BYTES || self.outputs.len() >= FLUSH_PAGES
    }

    /// Writes the pending rows into the two segments and forgets them.
    fn write(&mut self, pages: &mut SegmentWriter, links: &mut SegmentWriter) -> Result<()> {
        let outputs = std::mem::take(&mut self.outputs);
        *self = Pending::default();
        pages.write(&batches::page_batch(
            outputs.iter().filter_map(|o| o.page.as_ref()),
        ))?;
        links.write(&batches::link_batch(outputs.iter().flat_map(|o| &o.links)))
    }
}

/// About the memory a page row takes.
fn page_bytes(page: &PageRow) -> usize {
    let texts = [&page.title, &page.text_sample, &page.text, &page.error];
    std::mem::size_of::<PageRow>()
        + page.url.len()
        + texts
            .iter()
            .map(|t| t.as_ref().map_or(0, String::len))
            .sum::<usize>()
}

/// About the memory a link row takes.
fn link_bytes(link: &LinkRow) -> usize {
    let dst = &link.dst;
    std::mem::size_of::<LinkRow>()
        + [
            &link.src_url,
            &link.src_host,
            &link.anchor,
            &link.context,
            &link.heading,
        ]
        .iter()
        .chain([&dst.url, &dst.host, &dst.domain, &dst.tld, &dst.dir].iter())
        .map(|s| s.len())
        .sum::<usize>()
}

/// One line on stderr per page whose parse panicked.
fn log_failures(outputs: &[Parsed]) {
    let failed = outputs.iter().filter_map(|o| o.page.as_ref());
    for page in failed.filter(|p| !p.parsed) {
        let error = page.error.as_deref().unwrap_or_default();
        eprintln!("langcrawl: warning: parse {}: {error}", page.url);
    }
}

/// A fetch row that parse has work for: a page, or a redirect.
#[derive(Debug, Default)]
pub struct FetchedPage<'a> {
    pub url: &'a str,
    pub host: &'a str,
    pub status: &'a str,
    pub content_type: Option<&'a str>,
    /// The response headers, `name: value` lines.
    pub headers: Option<&'a str>,
    pub content: Option<&'a [u8]>,
    pub redirect_to: Option<&'a str>,
}

fn fetched_pages(batch: &RecordBatch) -> Result<Vec<FetchedPage<'_>>> {
    let url = column::<StringArray>(batch, "url")?;
    let host = column::<StringArray>(batch, "host")?;
    let status = column::<StringArray>(batch, "status")?;
    let content_type = column::<StringArray>(batch, "content_type")?;
    let headers = column::<StringArray>(batch, "headers")?;
    let content = column::<BinaryArray>(batch, "content")?;
    let redirect_to = column::<StringArray>(batch, "redirect_to")?;
    Ok((0..batch.num_rows())
        .filter(|&row| matches!(status.value(row), "fetched" | "redirect"))
        .map(|row| FetchedPage {
            url: url.value(row),
            host: host.value(row),
            status: status.value(row),
            content_type: opt_str(content_type, row),
            headers: opt_str(headers, row),
            content: (!content.is_null(row)).then(|| content.value(row)),
            redirect_to: opt_str(redirect_to, row),
        })
        .collect())
}

/// One fetch row's results: its `parse` row (pages only) and its links.
#[derive(Debug, Default)]
pub struct Parsed {
    pub page: Option<PageRow>,
    pub links: Vec<LinkRow>,
}

impl Parsed {
    fn of_page(page: PageRow) -> Self {
        Parsed {
            page: Some(page),
            links: Vec::new(),
        }
    }
}

pub use page::PageRow;

#[derive(Debug, Clone, PartialEq)]
pub struct LinkRow {
    pub src_url: String,
    pub src_host: String,
    pub src_lang: Option<String>,
    pub dst: urls::UrlParts,
    pub anchor: String,
    pub anchor_lang: String,
    /// `text`, or the attribute that named a link without text (`alt`,
    /// `title`, `aria-label`); `None` without an anchor (see
    /// [`html::RawLink::anchor_source`]).
    pub anchor_source: Option<&'static str>,
    pub context: String,
    /// The heading the link appears under ("" when none).
    pub heading: String,
    pub nofollow: bool,
    /// [`LinkKind`] as stored.
    pub kind: &'static str,
    /// ISO 639-3 (or `x-default`) of the link's hreflang.
    pub hreflang: Option<String>,
    /// The link's place among the page's links, first 0.
    pub position: i32,
    /// A sitemap's `<lastmod>` for the URL.
    pub lastmod: Option<String>,
    /// Whether this is the page's first row for its destination (`None`:
    /// not marked, for `sql/views/page_links.sql` to pick one).
    pub first_link_to_dst: Option<bool>,
}

/// Parses one fetch row; `target` (ISO 639-3) is the language whose script
/// share is recorded. Never panics: a panic inside is caught and the page
/// recorded as failed, with the panic's message as its error.
pub fn parse_one(input: &FetchedPage<'_>, target: Option<&str>) -> Parsed {
    if input.status == "redirect" {
        let links = input
            .redirect_to
            .and_then(|to| outlinks::redirect_link(input, to));
        return Parsed {
            page: None,
            links: links.into_iter().collect(),
        };
    }
    guarded(input, || page::parse_page(input, target))
}

/// Runs `parse` under the panic guard: a panic becomes a failed page row.
fn guarded(input: &FetchedPage<'_>, parse: impl FnOnce() -> Parsed) -> Parsed {
    guard::catch(parse).unwrap_or_else(|panic| {
        Parsed::of_page(page::failed(input, format!("internal error: {panic}")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fetched page of host a.jp.
    fn fetched(url: &'static str, content: &'static [u8]) -> FetchedPage<'static> {
        FetchedPage {
            url,
            host: "a.jp",
            status: "fetched",
            content: Some(content),
            ..FetchedPage::default()
        }
    }

    #[test]
    fn a_panic_in_parse_is_a_failed_page_counted_and_named_in_the_report() {
        let input = fetched("http://a.jp/broken.html", b"<p>x");
        let failed = guarded(&input, || panic!("a parser bug"));
        let page = failed.page.as_ref().unwrap();
        assert!(!page.parsed);
        assert!(page
            .error
            .as_deref()
            .unwrap()
            .starts_with("internal error: a parser bug (at "));
        let ok = parse_one(&input, None);
        let mut report = ParseReport::default();
        report.count(&[failed, ok]);
        assert_eq!((report.pages, report.failed), (2, 1));
        let line = report.to_string();
        assert!(line.contains("1 failed"), "{line}");
        assert!(line.contains("failed: http://a.jp/broken.html"), "{line}");
    }

    #[test]
    fn content_language_is_recorded_and_hints_only_where_the_text_is_unsure() {
        let with_header = |html: &'static [u8], header: &'static str| {
            let input = FetchedPage {
                headers: Some(header),
                ..fetched("http://a.com/", html)
            };
            parse_one(&input, None).page.unwrap()
        };
        let short = with_header(
            b"<p>OK</p>",
            "content-type: text/html\ncontent-language: ko\n",
        );
        assert_eq!(short.content_language.as_deref(), Some("ko"));
        assert_eq!(
            (short.lang.as_deref(), short.lang_source),
            (Some("kor"), "content_language")
        );
        let english =
            b"<p>The committee met on Tuesday to discuss the budget for the coming year, \
            and most members agreed that the library should stay open longer.</p>";
        let clear = with_header(english, "Content-Language: ja\n");
        assert_eq!(
            (clear.lang.as_deref(), clear.lang_source),
            (Some("eng"), "text")
        );
        let several = with_header(b"<p>OK</p>", "content-language: ko, en\n");
        assert_eq!(
            several.lang, None,
            "a header naming two languages is no hint"
        );
        let declared = with_header(b"<html lang=th><p>OK</p>", "content-language: ko\n");
        assert_eq!(declared.lang.as_deref(), Some("tha"), "<html lang> first");
        let meta = br#"<meta http-equiv="Content-Language" content="ko"><p>OK</p>"#;
        let by_meta = parse_one(&fetched("http://a.com/", meta), None)
            .page
            .unwrap();
        assert_eq!(by_meta.content_language.as_deref(), Some("ko"));
        assert_eq!(by_meta.lang.as_deref(), Some("kor"));
    }

    #[test]
    fn the_report_counts_a_url_linked_with_two_texts_once() {
        let html = b"<a href=/b>news</a> <a href=/b>archive</a> <a href=/c>c</a>";
        let page = parse_one(&fetched("http://a.jp/", html), None);
        assert_eq!(page.links.len(), 3, "a row per text");
        let mut report = ParseReport::default();
        report.count(&[page]);
        assert_eq!(report.links, 2);
    }

    #[test]
    fn parsed_rows_are_written_out_by_links_and_by_bytes_not_only_by_pages() {
        let page = parse_one(&fetched("http://a.jp/", b"<a href=/b>b</a>"), None);
        let link = page.links[0].clone();
        let dense = |links: usize, context: &str| Parsed {
            page: None,
            links: vec![
                LinkRow {
                    context: context.into(),
                    ..link.clone()
                };
                links
            ],
        };
        let mut pending = Pending::default();
        pending.add(vec![dense(FLUSH_LINKS - 1, "")]);
        assert!(!pending.is_full(), "one page, {} links", pending.links);
        pending.add(vec![dense(1, "")]);
        assert!(pending.is_full(), "{} links", pending.links);

        let mut pending = Pending::default();
        pending.add(vec![dense(100, &"x".repeat(FLUSH_BYTES / 100))]);
        assert!(pending.is_full(), "{} bytes", pending.bytes);
    }
}
