//! A page's outlinks as `links` rows: every link the page's HTML and its
//! `Link:` headers make, resolved (against `<base href>` for the HTML, the
//! page URL for headers), normalized, with the anchor's language and the
//! hreflang as ISO 639-3. A destination has one row per distinct text the
//! page links it with: the first occurrence keeps its kind and takes a
//! later one's anchor or hreflang when it has none; a later occurrence
//! with other anchor, context or heading is also a row of its own (its own
//! `position`; at most 4 a destination), so a strategy that reads contexts
//! sees each of them.

use std::collections::HashMap;

use url::Url;

use super::html::{Extracted, LinkKind, RawLink};
use super::link_header::HeaderLink;
use super::{FetchedPage, LinkRow};
use crate::lang;
use crate::urls;

pub(super) const MAX_ANCHOR_CHARS: usize = 200;
/// Rows a destination may have (one per distinct text it is linked with).
const MAX_ROWS_PER_DESTINATION: usize = 4;

/// The page's http(s) links; anchors are identified for a crawl of
/// `target` ([`lang::identify_anchor`]).
pub fn page_links(
    input: &FetchedPage<'_>,
    page: Option<&Extracted>,
    headers: &[HeaderLink],
    src_lang: Option<&str>,
    target: Option<&str>,
) -> Vec<LinkRow> {
    let Ok(page_url) = Url::parse(input.url) else {
        return Vec::new();
    };
    let base = page
        .and_then(|p| p.base_href.as_deref())
        .and_then(|b| page_url.join(b).ok())
        .unwrap_or_else(|| page_url.clone());
    let html = page.into_iter().flat_map(|p| &p.links);
    let html = html.filter_map(|raw| Some((urls::resolve(Some(&base), &raw.href).ok()?, raw)));
    let header = headers.iter().filter_map(header_link);
    let header =
        header.filter_map(|raw| Some((urls::resolve(Some(&page_url), &raw.href).ok()?, raw)));
    // At most one row per link found: room for all of them at once, the
    // spare given back when repeats made fewer (a page's rows wait in
    // memory until its batch is written).
    let most = page.map_or(0, |p| p.links.len()) + headers.len();
    let mut rows = Rows {
        links: Vec::with_capacity(most),
        seen: HashMap::with_capacity(most),
        target,
    };
    for (dst, raw) in html {
        rows.add(input, src_lang, &dst, raw);
    }
    for (dst, raw) in header {
        rows.add(input, src_lang, &dst, &raw);
    }
    crate::memory::fit(&mut rows.links);
    rows.links
}

/// The number of distinct destinations among `links`.
pub fn destinations(links: &[LinkRow]) -> usize {
    let urls: std::collections::HashSet<&str> = links.iter().map(|l| l.dst.url.as_str()).collect();
    urls.len()
}

/// The row of an HTTP redirect to `target`.
pub fn redirect_link(input: &FetchedPage<'_>, target: &str) -> Option<LinkRow> {
    let page_url = Url::parse(input.url).ok();
    let url = urls::resolve(page_url.as_ref(), target).ok()?;
    Some(bare_link(input.url, input.host, &url, LinkKind::Redirect))
}

/// A link with no anchor, context or source language (a redirect, a URL a
/// sitemap lists), first in its source's order.
pub fn bare_link(src_url: &str, src_host: &str, dst: &Url, kind: LinkKind) -> LinkRow {
    LinkRow {
        src_url: src_url.to_string(),
        src_host: src_host.to_string(),
        src_lang: None,
        dst: urls::parts(dst),
        anchor: String::new(),
        anchor_lang: lang::anchor::UNDETERMINED.into(),
        anchor_source: None,
        context: String::new(),
        heading: String::new(),
        nofollow: false,
        kind: kind.as_str(),
        hreflang: None,
        position: 0,
        lastmod: None,
        first_link_to_dst: None,
    }
}

/// The hreflang of a link as stored: ISO 639-3 where it names a language,
/// else the value as written (lower-cased).
pub fn hreflang_code(value: &str) -> Option<String> {
    let value = value.trim();
    if value.is_empty() {
        return None;
    }
    lang::codes::tag_code(value).or_else(|| Some(value.to_ascii_lowercase()))
}

/// A `Link:` header link the crawl follows: a language alternate or the
/// canonical URL.
fn header_link(link: &HeaderLink) -> Option<RawLink> {
    let has = |rel: &str| link.rel.iter().any(|r| r == rel);
    let kind = match (has("alternate"), &link.hreflang, has("canonical")) {
        (true, Some(_), _) => LinkKind::HeaderAlternate,
        (_, _, true) => LinkKind::Canonical,
        _ => return None,
    };
    Some(RawLink {
        kind,
        href: link.uri.clone(),
        anchor: String::new(),
        anchor_source: None,
        context: String::new(),
        heading: String::new(),
        nofollow: false,
        hreflang: link.hreflang.clone(),
        span: 0..0,
    })
}

/// Link rows, one per destination and distinct text.
struct Rows<'a> {
    links: Vec<LinkRow>,
    /// Each destination's rows, first occurrence first.
    seen: HashMap<String, Vec<usize>>,
    target: Option<&'a str>,
}

impl Rows<'_> {
    fn anchor_lang(&self, anchor: &str) -> String {
        lang::recent_anchor_lang(anchor, self.target)
    }

    fn add(&mut self, input: &FetchedPage<'_>, src_lang: Option<&str>, dst: &Url, raw: &RawLink) {
        let anchor: String = raw.anchor.chars().take(MAX_ANCHOR_CHARS).collect();
        let hreflang = raw.hreflang.as_deref().and_then(hreflang_code);
        let Some(rows) = self.seen.get(dst.as_str()) else {
            self.seen.insert(dst.to_string(), vec![self.links.len()]);
            return self.push(input, src_lang, dst, raw, anchor, hreflang);
        };
        let first = rows[0];
        let known = &self.links[first];
        let fill_anchor = known.anchor.is_empty() && !anchor.is_empty();
        if fill_anchor {
            let anchor_lang = self.anchor_lang(&anchor);
            let known = &mut self.links[first];
            known.anchor_lang = anchor_lang;
            known.anchor.clone_from(&anchor);
            known.anchor_source = raw.anchor_source;
        }
        let known = &mut self.links[first];
        if known.hreflang.is_none() {
            known.hreflang.clone_from(&hreflang);
        }
        let rows = &self.seen[dst.as_str()];
        let is_new_text = !raw.context.is_empty()
            && rows.len() < MAX_ROWS_PER_DESTINATION
            && !rows.iter().map(|&i| &self.links[i]).any(|l| {
                l.anchor == anchor && l.context == raw.context && l.heading == raw.heading
            });
        if is_new_text {
            let row = self.links.len();
            self.seen.entry(dst.to_string()).or_default().push(row);
            self.push(input, src_lang, dst, raw, anchor, hreflang);
            if let Some(later) = self.links.last_mut() {
                later.first_link_to_dst = Some(false);
            }
        }
    }

    fn push(
        &mut self,
        input: &FetchedPage<'_>,
        src_lang: Option<&str>,
        dst: &Url,
        raw: &RawLink,
        anchor: String,
        hreflang: Option<String>,
    ) {
        self.links.push(LinkRow {
            src_url: input.url.to_string(),
            src_host: input.host.to_string(),
            src_lang: src_lang.map(str::to_string),
            dst: urls::parts(dst),
            anchor_lang: self.anchor_lang(&anchor),
            anchor,
            anchor_source: raw.anchor_source,
            context: raw.context.clone(),
            heading: raw.heading.clone(),
            nofollow: raw.nofollow,
            kind: raw.kind.as_str(),
            hreflang,
            position: i32::try_from(self.links.len()).unwrap_or(i32::MAX),
            lastmod: None,
            first_link_to_dst: Some(true),
        });
    }
}
