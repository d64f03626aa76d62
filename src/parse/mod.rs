//! The parse phase: decode each fetched page, extract its text and links,
//! identify its language, and write the `parse` and `links` segments. A page
//! that fails to parse is recorded as such; it never stops the phase.

pub mod html;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use datafusion::arrow::array::{
    Array, BinaryArray, BooleanArray, Float64Array, Int32Array, Int64Array, RecordBatch,
    StringArray,
};
use sha2::{Digest, Sha256};
use url::Url;

use crate::error::Result;
use crate::lang::{self, charset};
use crate::store::rows::{column, opt_str};
use crate::store::schema::{LINKS, PARSE};
use crate::store::{read_batches, CrawlConfig, CrawlDir, Phase, SegmentWriter};
use crate::urls;

/// Fetch rows read (and parsed in parallel) at a time.
const BATCH_ROWS: usize = 512;
/// Characters of visible text kept in the `text_sample` column.
const SAMPLE_CHARS: usize = 300;
const MAX_ANCHOR_CHARS: usize = 200;

#[derive(Debug, Default, Clone, PartialEq)]
pub struct ParseReport {
    pub round: u32,
    pub pages: usize,
    pub failed: usize,
    pub links: usize,
    pub seconds: f64,
}

impl std::fmt::Display for ParseReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "parse round {:05}: {} pages in {:.1}s ({:.0} pages/s), {} failed, {} links",
            self.round,
            self.pages,
            self.seconds,
            self.pages as f64 / self.seconds.max(1e-3),
            self.failed,
            self.links
        )
    }
}

/// Parses the latest fetched round of `crawl`.
pub fn run(crawl: &CrawlDir) -> Result<ParseReport> {
    let round = crawl.round_needing(Phase::Fetch, Phase::Parse, "updatedb")?;
    let started = Instant::now();
    let stale_links = crawl.segment(round, Phase::Links);
    if stale_links.exists() {
        // Left by a parse killed between its two renames.
        std::fs::remove_dir_all(&stale_links).map_err(crate::Error::io(&stale_links))?;
    }
    let mut parse_writer =
        SegmentWriter::create(&crawl.segment(round, Phase::Parse), PARSE.clone())?;
    let mut links_writer = SegmentWriter::create(&stale_links, LINKS.clone())?;
    let target = crate::store::CrawlConfig::load(crawl)?.target_lang;
    let mut report = ParseReport {
        round: round.0,
        ..ParseReport::default()
    };
    for batch in read_batches(&crawl.segment(round, Phase::Fetch), BATCH_ROWS)? {
        let batch = batch?;
        let inputs = fetched_pages(&batch)?;
        let outputs = parse_parallel(&inputs, target.as_deref());
        report.pages += outputs.iter().filter(|o| o.page.is_some()).count();
        report.failed += outputs
            .iter()
            .filter(|o| o.page.as_ref().is_some_and(|p| !p.parsed))
            .count();
        report.links += outputs.iter().map(|o| o.links.len()).sum::<usize>();
        parse_writer.write(&page_batch(outputs.iter().filter_map(|o| o.page.as_ref())))?;
        links_writer.write(&link_batch(outputs.iter().flat_map(|o| &o.links)))?;
    }
    links_writer.finish()?.commit()?;
    parse_writer.finish()?.commit()?;
    report.seconds = started.elapsed().as_secs_f64();
    CrawlConfig::record(crawl, "parse", round.0, &report.to_string())?;
    Ok(report)
}

/// A fetch row that parse has work for: a page, or a redirect.
#[derive(Debug)]
pub struct FetchedPage<'a> {
    pub url: &'a str,
    pub host: &'a str,
    pub status: &'a str,
    pub content_type: Option<&'a str>,
    pub content: Option<&'a [u8]>,
    pub redirect_to: Option<&'a str>,
}

fn fetched_pages(batch: &RecordBatch) -> Result<Vec<FetchedPage<'_>>> {
    let url = column::<StringArray>(batch, "url")?;
    let host = column::<StringArray>(batch, "host")?;
    let status = column::<StringArray>(batch, "status")?;
    let content_type = column::<StringArray>(batch, "content_type")?;
    let content = column::<BinaryArray>(batch, "content")?;
    let redirect_to = column::<StringArray>(batch, "redirect_to")?;
    Ok((0..batch.num_rows())
        .filter(|&row| matches!(status.value(row), "fetched" | "redirect"))
        .map(|row| FetchedPage {
            url: url.value(row),
            host: host.value(row),
            status: status.value(row),
            content_type: opt_str(content_type, row),
            content: (!content.is_null(row)).then(|| content.value(row)),
            redirect_to: opt_str(redirect_to, row),
        })
        .collect())
}

/// Parses pages on all cores, keeping their order.
fn parse_parallel(inputs: &[FetchedPage<'_>], target: Option<&str>) -> Vec<Parsed> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = inputs.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = inputs
            .chunks(chunk)
            .map(|pages| {
                scope.spawn(move || {
                    pages
                        .iter()
                        .map(|p| parse_one(p, target))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// One fetch row's results: its `parse` row (pages only) and its links.
#[derive(Debug, Default)]
pub struct Parsed {
    pub page: Option<PageRow>,
    pub links: Vec<LinkRow>,
}

#[derive(Debug, Default, Clone)]
pub struct PageRow {
    pub url: String,
    pub host: String,
    pub parsed: bool,
    pub title: Option<String>,
    pub text_sample: Option<String>,
    pub text_chars: i64,
    pub lang: Option<String>,
    pub lang_confidence: Option<f64>,
    pub lang_source: &'static str,
    /// The script most of the text is in.
    pub script: Option<&'static str>,
    /// Share of the text's letters in the target language's script.
    pub target_share: Option<f64>,
    pub charset: Option<&'static str>,
    pub charset_source: Option<&'static str>,
    pub html_lang: Option<String>,
    pub meta_charset: Option<String>,
    pub digest: Option<String>,
    pub outlinks: i32,
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LinkRow {
    pub src_url: String,
    pub src_host: String,
    pub src_lang: Option<String>,
    pub dst: urls::UrlParts,
    pub anchor: String,
    pub anchor_lang: String,
    pub context: String,
    pub nofollow: bool,
    pub kind: &'static str,
}

/// Parses one fetch row; a panic inside the HTML parser becomes a failed
/// row. `target` (ISO 639-3) is the language whose script share is recorded.
pub fn parse_one(input: &FetchedPage<'_>, target: Option<&str>) -> Parsed {
    if input.status == "redirect" {
        return Parsed {
            page: None,
            links: input
                .redirect_to
                .and_then(|to| redirect_link(input, to))
                .into_iter()
                .collect(),
        };
    }
    let outcome =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| parse_page(input, target)));
    outcome.unwrap_or_else(|_| Parsed {
        page: Some(failed(input, "the HTML parser panicked".into())),
        links: Vec::new(),
    })
}

fn redirect_link(input: &FetchedPage<'_>, target: &str) -> Option<LinkRow> {
    let url = urls::normalize(target).ok()?;
    Some(LinkRow {
        src_url: input.url.to_string(),
        src_host: input.host.to_string(),
        src_lang: None,
        dst: urls::parts(&url),
        anchor: String::new(),
        anchor_lang: lang::anchor::UNDETERMINED.into(),
        context: String::new(),
        nofollow: false,
        kind: "redirect",
    })
}

fn failed(input: &FetchedPage<'_>, error: String) -> PageRow {
    PageRow {
        url: input.url.to_string(),
        host: input.host.to_string(),
        lang_source: "none",
        digest: input.content.map(digest),
        error: Some(error),
        ..PageRow::default()
    }
}

fn parse_page(input: &FetchedPage<'_>, target: Option<&str>) -> Parsed {
    let bytes = input.content.unwrap_or_default();
    if let Some(kind) = input.content_type.filter(|t| !is_html(t)) {
        let page = failed(input, format!("not HTML (Content-Type {kind})"));
        return Parsed {
            page: Some(page),
            links: Vec::new(),
        };
    }
    let tld = input.host.rsplit('.').next();
    let http_charset = input.content_type.and_then(charset::header_charset);
    let decoded = lang::decode(bytes, http_charset, tld);
    let extracted = html::extract(&decoded.text);
    let page_lang = lang::identify_page(
        &extracted.text,
        extracted.html_lang.as_deref(),
        decoded.charset,
    );
    let links = page_links(input, &extracted, page_lang.lang.as_deref());
    let page = PageRow {
        url: input.url.to_string(),
        host: input.host.to_string(),
        parsed: true,
        title: extracted.title.clone(),
        text_sample: Some(lang::page::bounded_prefix(&extracted.text, SAMPLE_CHARS).to_string()),
        text_chars: extracted.text.chars().count() as i64,
        lang: page_lang.lang,
        lang_confidence: Some(page_lang.confidence),
        lang_source: page_lang.source,
        script: page_lang.script,
        target_share: target.and_then(|t| lang::ScriptCounts::of(&extracted.text).share_of(t)),
        charset: Some(decoded.charset),
        charset_source: Some(decoded.source),
        html_lang: extracted.html_lang,
        meta_charset: decoded.meta_charset,
        digest: Some(digest(bytes)),
        outlinks: links.len() as i32,
        error: None,
    };
    Parsed {
        page: Some(page),
        links,
    }
}

fn is_html(content_type: &str) -> bool {
    let mime = content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    mime.is_empty()
        || mime == "text/html"
        || mime == "application/xhtml+xml"
        || mime == "text/plain"
}

/// The page's http(s) links, resolved against `<base href>` and de-duplicated.
fn page_links(
    input: &FetchedPage<'_>,
    page: &html::Extracted,
    src_lang: Option<&str>,
) -> Vec<LinkRow> {
    let Ok(page_url) = Url::parse(input.url) else {
        return Vec::new();
    };
    let base = page
        .base_href
        .as_deref()
        .and_then(|b| page_url.join(b).ok())
        .unwrap_or(page_url);
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut links: Vec<LinkRow> = Vec::new();
    for raw in &page.links {
        let Ok(dst) = urls::resolve(Some(&base), &raw.href) else {
            continue;
        };
        let anchor: String = raw.anchor.chars().take(MAX_ANCHOR_CHARS).collect();
        if let Some(&index) = seen.get(dst.as_str()) {
            if links[index].anchor.is_empty() && !anchor.is_empty() {
                links[index].anchor_lang = lang::anchor_lang(&anchor);
                links[index].anchor = anchor;
            }
            continue;
        }
        seen.insert(dst.to_string(), links.len());
        links.push(LinkRow {
            src_url: input.url.to_string(),
            src_host: input.host.to_string(),
            src_lang: src_lang.map(str::to_string),
            dst: urls::parts(&dst),
            anchor_lang: lang::anchor_lang(&anchor),
            anchor,
            context: raw.context.clone(),
            nofollow: raw.nofollow,
            kind: "link",
        });
    }
    links
}

/// Hex SHA-256 of the page bytes (first 128 bits).
fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn strings<'a, T: 'a>(rows: &[&'a T], f: impl Fn(&'a T) -> Option<&'a str>) -> Arc<StringArray> {
    Arc::new(rows.iter().map(|r| f(r)).collect::<StringArray>())
}

fn page_batch<'a>(rows: impl Iterator<Item = &'a PageRow>) -> RecordBatch {
    let rows: Vec<&PageRow> = rows.collect();
    let columns: Vec<Arc<dyn Array>> = vec![
        strings(&rows, |r| Some(&r.url)),
        strings(&rows, |r| Some(&r.host)),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.parsed))
                .collect::<BooleanArray>(),
        ),
        strings(&rows, |r| r.title.as_deref()),
        strings(&rows, |r| r.text_sample.as_deref()),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.text_chars))
                .collect::<Int64Array>(),
        ),
        strings(&rows, |r| r.lang.as_deref()),
        Arc::new(
            rows.iter()
                .map(|r| r.lang_confidence)
                .collect::<Float64Array>(),
        ),
        strings(&rows, |r| Some(r.lang_source)),
        strings(&rows, |r| r.script),
        Arc::new(
            rows.iter()
                .map(|r| r.target_share)
                .collect::<Float64Array>(),
        ),
        strings(&rows, |r| r.charset),
        strings(&rows, |r| r.charset_source),
        strings(&rows, |r| r.html_lang.as_deref()),
        strings(&rows, |r| r.meta_charset.as_deref()),
        strings(&rows, |r| r.digest.as_deref()),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.outlinks))
                .collect::<Int32Array>(),
        ),
        strings(&rows, |r| r.error.as_deref()),
    ];
    RecordBatch::try_new(PARSE.clone(), columns).expect("parse rows match the parse schema")
}

fn link_batch<'a>(rows: impl Iterator<Item = &'a LinkRow>) -> RecordBatch {
    let rows: Vec<&LinkRow> = rows.collect();
    let columns: Vec<Arc<dyn Array>> = vec![
        strings(&rows, |r| Some(&r.src_url)),
        strings(&rows, |r| Some(&r.src_host)),
        strings(&rows, |r| r.src_lang.as_deref()),
        strings(&rows, |r| Some(&r.dst.url)),
        strings(&rows, |r| Some(&r.dst.host)),
        strings(&rows, |r| Some(&r.dst.domain)),
        strings(&rows, |r| Some(&r.dst.tld)),
        strings(&rows, |r| Some(&r.dst.dir)),
        strings(&rows, |r| Some(&r.anchor)),
        strings(&rows, |r| Some(&r.anchor_lang)),
        strings(&rows, |r| Some(&r.context)),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.nofollow))
                .collect::<BooleanArray>(),
        ),
        strings(&rows, |r| Some(r.kind)),
    ];
    RecordBatch::try_new(LINKS.clone(), columns).expect("link rows match the links schema")
}
