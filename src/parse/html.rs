//! HTML extraction with scraper: title, visible text (no script/style),
//! `<html lang>`, `<base href>`, and every outlink a browser follows — `a`,
//! `area`, `frame`, `iframe`, meta refresh, hreflang alternates, canonical —
//! with its anchor text (or an image's `alt`), a context window of the text
//! around it, the nearest heading (`h1`–`h6`) before it, its `hreflang` and
//! nofollow. Total: any input gives a result, and every anchor span lies
//! within the text.

use std::sync::LazyLock;

use ego_tree::NodeRef;
use scraper::node::Element;
use scraper::{Node, Selector};

use super::link_text::{LinkText, CONTEXT_CHARS, PAGE_LINK_TEXT};
use super::refresh::refresh_url;

/// Elements whose text is not visible (their links are still collected).
const HIDDEN: &[&str] = &[
    "script", "style", "noscript", "template", "head", "svg", "iframe", "title",
];
/// Elements that break the text flow (a space is put around them).
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "br",
    "li",
    "ul",
    "ol",
    "td",
    "th",
    "tr",
    "table",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "section",
    "article",
    "header",
    "footer",
    "nav",
    "blockquote",
    "pre",
    "dd",
    "dt",
];
/// Elements whose text is a heading: the links after one appear under it.
const HEADINGS: &[&str] = &["h1", "h2", "h3", "h4", "h5", "h6"];
static TITLE: LazyLock<Selector> = LazyLock::new(|| Selector::parse("title").unwrap());
static BASE: LazyLock<Selector> = LazyLock::new(|| Selector::parse("base[href]").unwrap());
static META_CONTENT_LANGUAGE: LazyLock<Selector> =
    LazyLock::new(|| Selector::parse(r#"meta[http-equiv="content-language" i][content]"#).unwrap());
static META_ROBOTS: LazyLock<Selector> =
    LazyLock::new(|| Selector::parse(r#"meta[name="robots" i]"#).unwrap());

/// Where a link comes from: the `kind` column of the `links` segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkKind {
    A,
    Area,
    Frame,
    Iframe,
    /// `<meta http-equiv="refresh" content="0; url=...">`.
    Refresh,
    /// An HTTP 3xx answer's `Location`.
    Redirect,
    /// `<link rel="alternate" hreflang="..." href="...">`.
    Alternate,
    /// `Link: <...>; rel="alternate"; hreflang="..."` (HTTP header).
    HeaderAlternate,
    /// `<link rel="canonical">` or `Link: <...>; rel="canonical"`.
    Canonical,
    /// A URL a sitemap lists (`<loc>`, a text line, a feed's item).
    Sitemap,
    /// A sitemap's `<xhtml:link rel="alternate" hreflang="...">`.
    SitemapAlternate,
}

impl LinkKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LinkKind::A => "a",
            LinkKind::Area => "area",
            LinkKind::Frame => "frame",
            LinkKind::Iframe => "iframe",
            LinkKind::Refresh => "refresh",
            LinkKind::Redirect => "redirect",
            LinkKind::Alternate => "alternate",
            LinkKind::HeaderAlternate => "header-alternate",
            LinkKind::Canonical => "canonical",
            LinkKind::Sitemap => "sitemap",
            LinkKind::SitemapAlternate => "sitemap-alternate",
        }
    }
}

/// What a page says, before URLs are resolved.
#[derive(Debug, Default)]
pub struct Extracted {
    pub title: Option<String>,
    pub text: String,
    pub html_lang: Option<String>,
    /// `<meta http-equiv="content-language" content="...">`.
    pub meta_content_language: Option<String>,
    pub base_href: Option<String>,
    /// `<meta name=robots content=nofollow>`: no link of the page is endorsed.
    pub nofollow_all: bool,
    pub links: Vec<RawLink>,
    /// The page nested deeper than [`MAX_DEPTH`](super::depth::MAX_DEPTH)
    /// and lost the deeper containers' tags, or nested so that its end was
    /// left unparsed ([`tree`](super::tree)).
    pub nesting_cut: bool,
    /// The page's links spent [`PAGE_LINK_TEXT`]: the later ones keep a
    /// short anchor and no context.
    pub link_text_cut: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RawLink {
    pub kind: LinkKind,
    pub href: String,
    pub anchor: String,
    /// Where the anchor is from: `text` (the link's own), or the attribute
    /// that names a link without text (`alt`, `title`, `aria-label`; an
    /// image's `alt` inside it); `None` without an anchor.
    pub anchor_source: Option<&'static str>,
    pub context: String,
    /// The text of the nearest heading (`h1`–`h6`) at or before the link
    /// ("" when none): the heading or sub-heading it appears under.
    pub heading: String,
    pub nofollow: bool,
    /// The `hreflang` attribute as written.
    pub hreflang: Option<String>,
    /// Byte range of the link's text in [`Extracted::text`] (empty for an
    /// image link, a frame, a `<link>` or a refresh).
    pub span: std::ops::Range<usize>,
}

impl Extracted {
    /// The visible text without the links' texts: the page's running text.
    pub fn running_text(&self) -> String {
        let mut spans: Vec<&std::ops::Range<usize>> = self
            .links
            .iter()
            .map(|l| &l.span)
            .filter(|s| !s.is_empty())
            .collect();
        spans.sort_by_key(|s| s.start);
        let mut running = String::with_capacity(self.text.len());
        let mut at = 0;
        for span in spans {
            if span.start > at {
                running.push_str(self.text.get(at..span.start).unwrap_or_default());
                running.push(' ');
            }
            at = at.max(span.end);
        }
        running.push_str(self.text.get(at..).unwrap_or_default());
        running
    }
}

/// Extracts title, visible text, hints and links from an HTML document.
pub fn extract(html: &str) -> Extracted {
    // nesting bounded first: the tree builder's work grows with the depth
    let page_len = html.len();
    let html = super::depth::bounded(html, super::depth::MAX_DEPTH);
    let (document, unparsed_end) = super::tree::parse_document(&html, page_len);
    let nesting_cut = matches!(html, std::borrow::Cow::Owned(_)) || unparsed_end;
    let mut walk = Walk::default();
    walk.visit(document.tree.root());
    let nofollow_all = document.select(&META_ROBOTS).any(|m| {
        m.value()
            .attr("content")
            .is_some_and(|c| c.to_ascii_lowercase().contains("nofollow"))
    });
    walk.finish();
    let mut text_left = PAGE_LINK_TEXT;
    let mut link_text_cut = false;
    let links = walk
        .links
        .iter()
        .map(|span| {
            let short = text_left == 0;
            link_text_cut |= short;
            let text = LinkText::of(
                &walk.text,
                (span.start, span.end),
                span.fallback.as_ref(),
                short,
            );
            text_left = text_left.saturating_sub(text.bytes());
            walk.raw_link(span, nofollow_all, text)
        })
        .collect();
    Extracted {
        title: document
            .select(&TITLE)
            .next()
            .map(|t| collapse_whitespace(&t.text().collect::<String>())),
        html_lang: document
            .root_element()
            .value()
            .attr("lang")
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty()),
        meta_content_language: document
            .select(&META_CONTENT_LANGUAGE)
            .next()
            .and_then(|m| m.value().attr("content"))
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty()),
        base_href: document
            .select(&BASE)
            .next()
            .and_then(|b| b.value().attr("href"))
            .map(str::to_string),
        nofollow_all,
        text: walk.text,
        link_text_cut,
        links,
        nesting_cut,
    }
}

/// A link and the byte range of its anchor in the walk's text.
#[derive(Debug)]
struct LinkSpan {
    kind: LinkKind,
    href: String,
    start: usize,
    end: usize,
    nofollow: bool,
    hreflang: Option<String>,
    /// The anchor when the span has no text, and the attribute it is
    /// from: the link's own `alt`, `title` or `aria-label`, else the `alt`
    /// of an image in it.
    fallback: Option<(String, &'static str)>,
    /// Headings entered before the link.
    headings_before: usize,
}

/// A depth-first walk that collects visible text and link spans in it.
#[derive(Default)]
struct Walk {
    text: String,
    links: Vec<LinkSpan>,
    /// Open `a` links (indexes into `links`), innermost last.
    open: Vec<usize>,
    /// Depth of hidden elements around the current node.
    hidden: usize,
    /// Byte ranges of the headings' text, in document order after `finish`
    /// (each with its place among the headings entered).
    headings: Vec<(usize, std::ops::Range<usize>)>,
    /// Headings entered so far.
    headings_entered: usize,
}

enum Step<'a> {
    Enter(NodeRef<'a, Node>),
    Break,
    Unhide,
    EndLink(usize),
    /// A heading closes: its place among the headings, where its text started.
    EndHeading(usize, usize),
}

impl Walk {
    /// Walks the tree under `root` without recursion (any depth is safe).
    fn visit(&mut self, root: NodeRef<'_, Node>) {
        let mut stack = vec![Step::Enter(root)];
        while let Some(step) = stack.pop() {
            match step {
                Step::Break => self.push_break(),
                Step::Unhide => self.hidden -= 1,
                Step::EndLink(index) => self.end_link(index),
                Step::EndHeading(place, start) => self.end_heading(place, start),
                Step::Enter(node) => {
                    if let Node::Text(text) = node.value() {
                        self.push_text(text);
                        continue;
                    }
                    if let Node::Element(element) = node.value() {
                        self.enter_element(element, &mut stack);
                    }
                    stack.extend(node.children().rev().map(Step::Enter));
                }
            }
        }
    }

    fn enter_element(&mut self, element: &Element, stack: &mut Vec<Step<'_>>) {
        let name = element.name();
        if HIDDEN.contains(&name) {
            self.hidden += 1;
            stack.push(Step::Unhide);
        }
        if BLOCKS.contains(&name) {
            self.push_break();
            stack.push(Step::Break);
        }
        if HEADINGS.contains(&name) {
            stack.push(Step::EndHeading(self.headings_entered, self.text.len()));
            self.headings_entered += 1;
        }
        match (name, element_link(element)) {
            ("a", Some(link)) => {
                self.push_break();
                self.push_link(link);
                self.open.push(self.links.len() - 1);
                stack.push(Step::EndLink(self.links.len() - 1));
            }
            (_, Some(link)) => self.push_link(link),
            ("img", None) => self.note_image(element),
            _ => {}
        }
    }

    fn push_link(&mut self, mut link: LinkSpan) {
        link.start = self.text.len();
        link.end = link.start;
        link.headings_before = self.headings_entered;
        self.links.push(link);
    }

    fn end_link(&mut self, index: usize) {
        let link = &mut self.links[index];
        link.end = self.text.trim_end().len().max(link.start);
        self.open.retain(|&open| open != index);
    }

    fn end_heading(&mut self, place: usize, start: usize) {
        let end = self.text.trim_end().len();
        if end > start {
            self.headings.push((place, start..end));
        }
    }

    /// The text of the last heading entered before the link (the one it
    /// sits in, or the nearest before it).
    fn heading_before(&self, link: &LinkSpan) -> String {
        let after = self
            .headings
            .partition_point(|(place, _)| *place < link.headings_before);
        after
            .checked_sub(1)
            .and_then(|i| self.text.get(self.headings[i].1.clone()))
            .map(|h| h.trim().chars().take(CONTEXT_CHARS * 2).collect())
            .unwrap_or_default()
    }

    /// An image inside a link names the link when its text is empty.
    fn note_image(&mut self, element: &Element) {
        let alt = element.attr("alt").map(collapse_whitespace);
        if let (Some(&index), Some(alt)) = (self.open.last(), alt.filter(|a| !a.is_empty())) {
            self.links[index].fallback.get_or_insert((alt, "alt"));
        }
    }

    /// Drops the trailing space and keeps every span within the text.
    fn finish(&mut self) {
        let len = self.text.trim_end().len();
        self.text.truncate(len);
        for link in &mut self.links {
            link.start = link.start.min(len);
            link.end = link.end.clamp(link.start, len);
        }
        for (_, heading) in &mut self.headings {
            heading.start = heading.start.min(len);
            heading.end = heading.end.clamp(heading.start, len);
        }
        self.headings.sort_by_key(|(place, _)| *place);
    }

    fn push_text(&mut self, text: &str) {
        if self.hidden > 0 {
            return;
        }
        let mut words = text.split_whitespace().peekable();
        if words.peek().is_none() {
            return self.push_break();
        }
        if text.starts_with(char::is_whitespace) {
            self.push_break();
        }
        for (i, word) in words.enumerate() {
            if i > 0 {
                self.text.push(' ');
            }
            self.text.push_str(word);
        }
        if text.ends_with(char::is_whitespace) {
            self.push_break();
        }
    }

    fn push_break(&mut self) {
        if !self.text.is_empty() && !self.text.ends_with(' ') {
            self.text.push(' ');
        }
    }

    /// The link of `span`, its anchor and context `text`.
    fn raw_link(&self, span: &LinkSpan, nofollow_all: bool, text: LinkText) -> RawLink {
        RawLink {
            kind: span.kind,
            href: span.href.clone(),
            anchor: text.anchor,
            anchor_source: text.source,
            context: text.context,
            heading: self.heading_before(span),
            nofollow: span.nofollow || nofollow_all,
            hreflang: span.hreflang.clone(),
            span: span.start..span.end,
        }
    }
}

/// The link an element makes, if it makes one (its span starts here).
fn element_link(element: &Element) -> Option<LinkSpan> {
    let rel = element.attr("rel").unwrap_or_default().to_ascii_lowercase();
    let has_rel = |token: &str| rel.split_ascii_whitespace().any(|r| r == token);
    let hreflang = element.attr("hreflang").map(str::to_string);
    let (kind, href) = match element.name() {
        "a" => (LinkKind::A, element.attr("href")?),
        "area" => (LinkKind::Area, element.attr("href")?),
        "frame" => (LinkKind::Frame, element.attr("src")?),
        "iframe" => (LinkKind::Iframe, element.attr("src")?),
        "meta" if is_refresh(element) => {
            (LinkKind::Refresh, refresh_url(element.attr("content")?)?)
        }
        "link" if has_rel("alternate") && hreflang.is_some() => {
            (LinkKind::Alternate, element.attr("href")?)
        }
        "link" if has_rel("canonical") => (LinkKind::Canonical, element.attr("href")?),
        _ => return None,
    };
    let fallback = ["alt", "title", "aria-label"].into_iter().find_map(|name| {
        let value = collapse_whitespace(element.attr(name)?);
        (!value.is_empty()).then_some((value, name))
    });
    Some(LinkSpan {
        kind,
        href: href.to_string(),
        start: 0,
        end: 0,
        nofollow: has_rel("nofollow"),
        hreflang,
        fallback,
        headings_before: 0,
    })
}

fn is_refresh(element: &Element) -> bool {
    element
        .attr("http-equiv")
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("refresh"))
}

pub(super) fn collapse_whitespace(text: &str) -> String {
    let mut collapsed = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !collapsed.is_empty() {
            collapsed.push(' ');
        }
        collapsed.push_str(word);
    }
    collapsed
}

#[cfg(test)]
#[path = "html_tests.rs"]
mod tests;
