//! One fetched page to its `parse` row and outlinks: charset, DOM, visible
//! text, language, links. A non-HTML response keeps its content type and
//! is not parsed as HTML; a page with no visible text has no language.

use sha2::{Digest, Sha256};

use super::{html, link_header, outlinks, FetchedPage, Parsed};
use crate::fetch::client::header_values;
use crate::lang::{self, charset};

/// Characters of visible text kept in the `text_sample` column.
const SAMPLE_CHARS: usize = 300;
/// Characters of visible text kept in the `text` column (the whole text of
/// nearly every page; what a strategy that classifies pages reads).
const TEXT_CHARS: usize = 50_000;
/// The most of a page's bytes parse reads: a tree of a larger page takes
/// memory in proportion (a 57 MB page of links: over a gigabyte). What
/// lies beyond stays in the fetch segment (and its WARC record); the
/// page's `limits` says `size`.
pub const PARSE_MAX_BYTES: usize = 8 << 20;
pub use crate::lang::page::NO_TEXT;
/// `lang_source` of a response that is not HTML.
pub const NOT_HTML: &str = "not-html";

#[derive(Debug, Default, Clone)]
pub struct PageRow {
    pub url: String,
    pub host: String,
    /// False only when parsing failed (a caught panic: a bug).
    pub parsed: bool,
    pub content_type: Option<String>,
    pub title: Option<String>,
    pub text_sample: Option<String>,
    /// The visible text, up to `TEXT_CHARS` characters.
    pub text: Option<String>,
    pub text_chars: i64,
    pub lang: Option<String>,
    pub lang_confidence: Option<f64>,
    pub lang_source: &'static str,
    /// The script most of the text is in.
    pub script: Option<&'static str>,
    /// A clearly bilingual page's second language and its share of the letters.
    pub lang2: Option<String>,
    pub lang2_share: Option<f64>,
    /// Share of the text's letters in the target language's script.
    pub target_share: Option<f64>,
    pub charset: Option<&'static str>,
    pub charset_source: Option<&'static str>,
    pub html_lang: Option<String>,
    /// The Content-Language header, else `<meta http-equiv="content-language">`.
    pub content_language: Option<String>,
    pub meta_charset: Option<String>,
    pub digest: Option<String>,
    pub outlinks: i32,
    pub error: Option<String>,
    /// The limits that cut the page, comma-separated (`nesting`, `size`,
    /// `link_text`); `None` for a page parsed whole.
    pub limits: Option<String>,
}

/// The row of a page whose parse failed with `error`.
pub fn failed(input: &FetchedPage<'_>, error: String) -> PageRow {
    PageRow {
        url: input.url.to_string(),
        host: input.host.to_string(),
        content_type: input.content_type.map(str::to_string),
        lang_source: "none",
        digest: input.content.map(digest),
        error: Some(error),
        ..PageRow::default()
    }
}

pub fn parse_page(input: &FetchedPage<'_>, target: Option<&str>) -> Parsed {
    let headers = input
        .headers
        .map(link_header::header_links)
        .unwrap_or_default();
    if !input.content_type.is_none_or(is_html) {
        let links = outlinks::page_links(input, None, &headers, None, target);
        return Parsed {
            page: Some(not_html(input, links.len())),
            links,
        };
    }
    let whole = input.content.unwrap_or_default();
    let bytes = &whole[..whole.len().min(PARSE_MAX_BYTES)];
    let tld = input.host.rsplit('.').next();
    let http_charset = input.content_type.and_then(charset::header_charset);
    let decoded = lang::decode(bytes, http_charset, tld);
    let extracted = html::extract(&decoded.text);
    let running = extracted.running_text();
    let text = lang::page::PageText {
        all: &extracted.text,
        running: &running,
    };
    let content_language = input
        .headers
        .and_then(|h| header_values(h, "content-language").next())
        .filter(|value| !value.is_empty())
        .or(extracted.meta_content_language.as_deref());
    let declared = lang::page::Declared {
        html_lang: extracted.html_lang.as_deref(),
        content_language,
    };
    let page_lang = lang::page::identify_page_text(text, declared, decoded.charset, target);
    let src_lang = page_lang.lang.as_deref();
    let links = outlinks::page_links(input, Some(&extracted), &headers, src_lang, target);
    let cuts = [
        (extracted.nesting_cut, "nesting"),
        (bytes.len() < whole.len(), "size"),
        (extracted.link_text_cut, "link_text"),
    ];
    let cut: Vec<&str> = cuts.iter().filter(|c| c.0).map(|c| c.1).collect();
    let limits = (!cut.is_empty()).then(|| cut.join(","));
    let page = PageRow {
        url: input.url.to_string(),
        host: input.host.to_string(),
        parsed: true,
        content_type: input.content_type.map(str::to_string),
        title: extracted.title,
        text_sample: Some(lang::page::bounded_prefix(&extracted.text, SAMPLE_CHARS).to_string()),
        text: Some(lang::page::bounded_prefix(&extracted.text, TEXT_CHARS).to_string()),
        text_chars: extracted.text.chars().count() as i64,
        lang: page_lang.lang,
        lang_confidence: Some(page_lang.confidence),
        lang_source: page_lang.source,
        script: page_lang.script,
        lang2: page_lang.lang2,
        lang2_share: page_lang.lang2_share,
        target_share: target.and_then(|t| lang::ScriptCounts::of(&extracted.text).share_of(t)),
        charset: Some(decoded.charset),
        charset_source: Some(decoded.source),
        content_language: content_language.map(str::to_string),
        html_lang: extracted.html_lang,
        meta_charset: decoded.meta_charset,
        digest: Some(digest(whole)),
        outlinks: outlinks::destinations(&links) as i32,
        error: None,
        limits,
    };
    Parsed {
        page: Some(page),
        links,
    }
}

/// A response that is not HTML: its type and digest, no text, no language.
fn not_html(input: &FetchedPage<'_>, outlinks: usize) -> PageRow {
    PageRow {
        url: input.url.to_string(),
        host: input.host.to_string(),
        parsed: true,
        content_type: input.content_type.map(str::to_string),
        lang_source: NOT_HTML,
        digest: input.content.map(digest),
        outlinks: outlinks as i32,
        ..PageRow::default()
    }
}

/// HTML, XHTML or plain text (whose text is identified as a page's).
fn is_html(content_type: &str) -> bool {
    let mime = content_type.split(';').next().unwrap_or_default();
    let mime = mime.trim().to_ascii_lowercase();
    mime.is_empty()
        || mime == "text/html"
        || mime == "application/xhtml+xml"
        || mime == "text/plain"
}

/// Hex SHA-256 of the page bytes (first 128 bits).
fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::parse::parse_one;

    fn fetched<'a>(
        content_type: Option<&'a str>,
        headers: &'a str,
        bytes: &'a [u8],
    ) -> FetchedPage<'a> {
        FetchedPage {
            url: "http://example.jp/dir/page.html",
            host: "example.jp",
            status: "fetched",
            content_type,
            headers: Some(headers),
            content: Some(bytes),
            redirect_to: None,
        }
    }

    #[test]
    fn a_frameset_has_no_language_and_follows_its_frames() {
        let html = br#"<html lang="ja"><frameset><frame src="a.html"><frame src="/b.html"></frameset></html>"#;
        let parsed = parse_one(&fetched(Some("text/html"), "", html), Some("jpn"));
        let page = parsed.page.unwrap();
        assert_eq!((page.lang, page.lang_source), (None, NO_TEXT));
        let links: Vec<(&str, &str)> = parsed
            .links
            .iter()
            .map(|l| (l.dst.url.as_str(), l.kind))
            .collect();
        assert_eq!(
            links,
            [
                ("http://example.jp/dir/a.html", "frame"),
                ("http://example.jp/b.html", "frame")
            ]
        );
    }

    #[test]
    fn a_page_beyond_the_parse_bound_is_parsed_from_its_start_and_says_so() {
        let start = "<html><body><p>日本語の文章です。<a href=/first>最初</a></p>";
        let filler = "<p>x</p>".repeat(PARSE_MAX_BYTES / 8);
        let html = format!("{start}{filler}<a href=/beyond>beyond</a></body></html>");
        let parsed = parse_one(
            &fetched(Some("text/html"), "", html.as_bytes()),
            Some("jpn"),
        );
        let page = parsed.page.unwrap();
        assert_eq!(page.limits.as_deref(), Some("size"));
        assert_eq!(
            page.digest,
            Some(digest(html.as_bytes())),
            "of the whole page"
        );
        let urls: Vec<&str> = parsed.links.iter().map(|l| l.dst.url.as_str()).collect();
        assert_eq!(urls, ["http://example.jp/first"]);
        let small = parse_one(
            &fetched(Some("text/html"), "", start.as_bytes()),
            Some("jpn"),
        );
        assert_eq!(small.page.unwrap().limits, None);
    }

    #[test]
    fn a_page_whose_links_spend_their_text_budget_says_so_with_its_other_cuts() {
        // 12,000 links of 400 bytes of anchor each: past the page's budget
        let anchor = "リンクの文章。".repeat(20);
        let links: String = (0..12_000)
            .map(|i| format!("<p><a href=/{i}>{anchor}</a></p>"))
            .collect();
        let deep = "<div>".repeat(300);
        let html = format!("<html><body>{deep}{links}</body></html>");
        let parsed = parse_one(
            &fetched(Some("text/html"), "", html.as_bytes()),
            Some("jpn"),
        );
        assert_eq!(parsed.links.len(), 12_000, "every link kept");
        assert_eq!(
            parsed.page.unwrap().limits.as_deref(),
            Some("nesting,link_text")
        );
    }

    #[test]
    fn a_pdf_keeps_its_type_and_its_header_links() {
        let headers = "content-type: application/pdf\nlink: <http://example.jp/th/doc.pdf>; rel=\"alternate\"; hreflang=\"th\"\n";
        let parsed = parse_one(
            &fetched(Some("application/pdf"), headers, b"%PDF-1.4 <a href=x>"),
            None,
        );
        let page = parsed.page.unwrap();
        assert!(page.parsed);
        assert_eq!(page.lang_source, NOT_HTML);
        assert_eq!(page.content_type.as_deref(), Some("application/pdf"));
        assert_eq!(parsed.links.len(), 1);
        assert_eq!(parsed.links[0].kind, "header-alternate");
        assert_eq!(parsed.links[0].hreflang.as_deref(), Some("tha"));
    }

    #[test]
    fn html_and_header_links_with_hreflang() {
        let html = r#"<html><head><link rel="alternate" hreflang="zh-Hant" href="/zh/"><link rel="alternate" hreflang="x-default" href="/"></head>
            <body><a href="/ko/" hreflang="ko-KR">한국어</a> <a href="/zh/">中文</a></body></html>"#;
        let headers =
            "link: </en/>; rel=\"alternate\"; hreflang=\"en\", </canonical>; rel=canonical\n";
        let parsed = parse_one(&fetched(Some("text/html"), headers, html.as_bytes()), None);
        let rows: Vec<(&str, &str, Option<&str>, &str)> = parsed
            .links
            .iter()
            .map(|l| {
                (
                    l.dst.url.as_str(),
                    l.kind,
                    l.hreflang.as_deref(),
                    l.anchor.as_str(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("http://example.jp/zh/", "alternate", Some("cmn"), "中文"),
                ("http://example.jp/", "alternate", Some("x-default"), ""),
                ("http://example.jp/ko/", "a", Some("kor"), "한국어"),
                ("http://example.jp/en/", "header-alternate", Some("eng"), ""),
                ("http://example.jp/canonical", "canonical", None, ""),
            ]
        );
    }

    /// A URL linked with two texts is two rows, each with its anchor,
    /// context and heading (one outlink); the same link repeated (here the
    /// ±80-character window is the whole text) is one; an image link takes
    /// a later link's anchor, as before.
    #[test]
    fn a_url_linked_with_two_texts_keeps_both_contexts() {
        let html = r#"<h2>Courses</h2><p>The <a href="/cse">Comp. Sc.</a> syllabus</p>
            <p>The <a href="/cse">Comp. Sc.</a> syllabus</p>
            <h2>News</h2><p>Read <a href="/cse">more</a> here</p>
            <a href="/logo"><img src="l.png"></a> <a href="/logo">Home</a>"#;
        let parsed = parse_one(&fetched(Some("text/html"), "", html.as_bytes()), None);
        let rows: Vec<(&str, &str, &str, &str, i32)> = parsed
            .links
            .iter()
            .map(|l| {
                let path = &l.dst.url["http://example.jp".len()..];
                (
                    path,
                    l.anchor.as_str(),
                    l.context.as_str(),
                    l.heading.as_str(),
                    l.position,
                )
            })
            .collect();
        assert_eq!(rows.len(), 3, "{rows:#?}");
        assert_eq!(
            rows[0],
            (
                "/cse",
                "Comp. Sc.",
                "Courses The Comp. Sc. syllabus The Comp. Sc. syllabus News Read more here Home",
                "Courses",
                0
            )
        );
        assert_eq!(
            (rows[1].0, rows[1].1, rows[1].3, rows[1].4),
            ("/cse", "more", "News", 1)
        );
        assert_eq!((rows[2].0, rows[2].1), ("/logo", "Home"));
        // link selection reads a destination's first row, marked by parse
        let first: Vec<Option<bool>> = parsed.links.iter().map(|l| l.first_link_to_dst).collect();
        assert_eq!(first, [Some(true), Some(false), Some(true)]);
        assert_eq!(parsed.page.unwrap().outlinks, 2);
    }

    const CONTENT_TYPES: &[Option<&str>] = &[
        None,
        Some("text/html"),
        Some("text/html; charset=shift_jis"),
        Some("text/html; charset=\"euc-kr"),
        Some("text/html; charset=bogus"),
        Some("application/pdf"),
        Some(""),
        Some(";;;"),
    ];

    proptest! {
        /// Any bytes under any content type and headers give a parsed row.
        #[test]
        fn any_bytes_parse(
            bytes in prop::collection::vec(any::<u8>(), 0..3000),
            content_type in prop::sample::select(CONTENT_TYPES),
            headers in "(link: <[^>]{0,20}>; rel=alternate; hreflang=[a-zA-Z-]{0,8}\n|[^\n]{0,30}\n){0,3}",
            target in prop::sample::select(vec!["tha", "hin", "ces", "msa", "jpn", "srp"]),
        ) {
            let parsed = parse_one(&fetched(content_type, &headers, &bytes), Some(target));
            let page = parsed.page.unwrap();
            prop_assert!(page.parsed, "{:?}", page.error);
            let destinations: std::collections::HashSet<&str> =
                parsed.links.iter().map(|l| l.dst.url.as_str()).collect();
            prop_assert_eq!(page.outlinks as usize, destinations.len());
        }
    }
}
