//! Real pages (tests/real-html, saved from the live web): every page parses,
//! and the `a` links extracted equal the `<a href>` elements counted
//! independently with the `scraper` selector `a[href]`, after the same
//! resolution and scheme filter.

use std::path::PathBuf;

use langcrawl::lang;
use langcrawl::parse::html::{extract, LinkKind};
use langcrawl::parse::{parse_one, FetchedPage};
use langcrawl::urls;
use scraper::{Html, Selector};
use url::Url;

fn real_pages() -> Vec<(String, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/real-html");
    let mut pages: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|entry| {
            let path = entry.unwrap().path().join("source.html");
            let name = path.parent()?.file_name()?.to_string_lossy().to_string();
            Some((name, std::fs::read(&path).ok()?))
        })
        .collect();
    pages.sort();
    assert!(
        pages.len() >= 10,
        "{} real pages in {}",
        pages.len(),
        dir.display()
    );
    pages
}

fn page_url(name: &str) -> String {
    format!("http://real.example/{name}/index.html")
}

/// `a[href]` elements whose href resolves to an http(s) URL.
fn independent_a_count(html: &str, page: &Url) -> usize {
    let document = Html::parse_document(html);
    let base_selector = Selector::parse("base[href]").unwrap();
    let base = document
        .select(&base_selector)
        .next()
        .and_then(|b| page.join(b.value().attr("href")?).ok())
        .unwrap_or_else(|| page.clone());
    let selector = Selector::parse("a[href]").unwrap();
    document
        .select(&selector)
        .filter(|a| urls::resolve(Some(&base), a.value().attr("href").unwrap()).is_ok())
        .count()
}

#[test]
fn every_real_page_parses_and_its_a_links_match_an_independent_count() {
    let mut kinds = std::collections::BTreeSet::new();
    for (name, bytes) in real_pages() {
        let url = page_url(&name);
        let input = FetchedPage {
            url: &url,
            host: "real.example",
            status: "fetched",
            content_type: Some("text/html"),
            content: Some(&bytes),
            ..FetchedPage::default()
        };
        let parsed = parse_one(&input, Some("eng"));
        let page = parsed.page.expect("a page row");
        assert!(page.parsed, "{name}: {:?}", page.error);
        if page.text_chars >= 200 {
            assert!(
                page.lang.is_some(),
                "{name}: no language ({})",
                page.lang_source
            );
        }

        let html = lang::decode(&bytes, None, None).text;
        let extracted = extract(&html);
        let base = Url::parse(&url).unwrap();
        let base = extracted
            .base_href
            .as_deref()
            .and_then(|b| base.join(b).ok())
            .unwrap_or(base);
        let ours = extracted
            .links
            .iter()
            .filter(|l| l.kind == LinkKind::A)
            .filter(|l| urls::resolve(Some(&base), &l.href).is_ok())
            .count();
        let expected = independent_a_count(&html, &Url::parse(&url).unwrap());
        assert_eq!(
            ours, expected,
            "{name}: a links extracted vs a[href] counted"
        );
        for link in &extracted.links {
            assert!(extracted.text.get(link.span.clone()).is_some(), "{name}");
        }
        kinds.extend(parsed.links.iter().map(|l| l.kind));
    }
    for kind in ["a", "area", "iframe", "alternate", "canonical"] {
        assert!(
            kinds.contains(kind),
            "no {kind} link on any real page: {kinds:?}"
        );
    }
}

/// The heading a link appears under is the text of one of the page's own
/// `h1`–`h6` elements (selected independently; compared without
/// whitespace, the start of it: at most 160 characters are kept), and real pages give many links one.
#[test]
fn link_headings_of_real_pages_are_their_headings() {
    let selector = Selector::parse("h1, h2, h3, h4, h5, h6").unwrap();
    let mut with_heading = 0;
    for (name, bytes) in real_pages() {
        let html = lang::decode(&bytes, None, None).text;
        let document = Html::parse_document(&html);
        let headings: Vec<String> = document
            .select(&selector)
            .map(|h| h.text().collect::<String>().split_whitespace().collect())
            .collect();
        for link in extract(&html)
            .links
            .iter()
            .filter(|l| !l.heading.is_empty())
        {
            with_heading += 1;
            assert!(
                headings
                    .iter()
                    .any(|h| h.starts_with(&link.heading.replace(' ', ""))),
                "{name}: heading {:?} of {} is none of {headings:?}",
                link.heading,
                link.href
            );
        }
    }
    assert!(with_heading > 500, "{with_heading} links with a heading");
}

/// The language a URL names, checked against an independent label: the
/// `hreflang` real pages give their alternates and interlanguage links
/// (Wikipedia's `ar.wikipedia.org`, Mozilla's `/de/`, ...).
#[test]
fn the_language_a_url_names_agrees_with_the_hreflang_of_real_links() {
    let (mut labelled, mut named, mut agreed) = (0, 0, 0);
    let mut disagreements = Vec::new();
    for (name, bytes) in real_pages() {
        let url = page_url(&name);
        let input = FetchedPage {
            url: &url,
            host: "real.example",
            status: "fetched",
            content_type: Some("text/html"),
            content: Some(&bytes),
            ..FetchedPage::default()
        };
        for link in parse_one(&input, None).links {
            let Some(hreflang) = link.hreflang.filter(|h| h != "x-default") else {
                continue;
            };
            labelled += 1;
            let Some(found) = lang::url_lang(&link.dst.url) else {
                continue;
            };
            named += 1;
            if found == hreflang {
                agreed += 1;
            } else {
                disagreements.push(format!("{} {hreflang} {found}", link.dst.url));
            }
        }
    }
    println!(
        "{labelled} links with hreflang, {named} name a language, {agreed} agree; differ: {disagreements:?}"
    );
    assert!(labelled >= 60, "{labelled} labelled links");
    assert!(
        named * 10 >= labelled * 7,
        "{named} of {labelled} URLs name a language"
    );
    assert!(
        agreed * 100 >= named * 95,
        "{agreed} of {named} agree: {disagreements:?}"
    );
}

/// `a[href]` elements with no text of their own and no naming attribute,
/// and an image inside with a non-empty `alt` (the first such): the links
/// whose anchor is an image's description (selected independently), its
/// first 200 characters as a link keeps them.
fn independent_image_links(html: &str) -> Vec<String> {
    let document = Html::parse_document(html);
    let links = Selector::parse("a[href]").unwrap();
    let images = Selector::parse("img[alt]").unwrap();
    let named = |a: &scraper::ElementRef| {
        ["alt", "title", "aria-label"]
            .iter()
            .any(|n| a.value().attr(n).is_some_and(|v| !v.trim().is_empty()))
    };
    document
        .select(&links)
        .filter(|a| a.text().all(|t| t.trim().is_empty()) && !named(a))
        .filter_map(|a| {
            a.select(&images).find_map(|img| {
                let alt: Vec<&str> = img.value().attr("alt")?.split_whitespace().collect();
                let kept: String = alt.join(" ").chars().take(200).collect();
                (!alt.is_empty()).then(|| kept.trim_end().to_string())
            })
        })
        .collect()
}

/// An image link's anchor is its image's `alt`, marked as such (link
/// selection weighs it apart from anchor text: it describes the image, in
/// the page's language); a link with text has its text, marked `text`.
/// Checked against the image links selected independently on real pages.
#[test]
fn image_links_of_real_pages_take_their_alt_marked_as_such() {
    let mut image_links = 0;
    for (name, bytes) in real_pages() {
        let html = lang::decode(&bytes, None, None).text;
        let mut expected = independent_image_links(&html);
        let extracted = extract(&html);
        let links = extracted.links.iter().filter(|l| l.kind == LinkKind::A);
        let mut ours: Vec<String> = links
            .clone()
            .filter(|l| l.anchor_source == Some("alt"))
            .map(|l| l.anchor.clone())
            .collect();
        expected.sort();
        ours.sort();
        assert_eq!(ours, expected, "{name}: image links' anchors");
        image_links += ours.len();
        for link in links {
            let text = extracted.text.get(link.span.clone()).unwrap_or_default();
            let from_text = !text.trim().is_empty();
            assert_eq!(
                link.anchor_source == Some("text"),
                from_text,
                "{name}: {} anchor {:?} from {:?}",
                link.href,
                link.anchor,
                link.anchor_source
            );
            assert_eq!(
                link.anchor.is_empty(),
                link.anchor_source.is_none(),
                "{name}"
            );
        }
    }
    assert!(image_links >= 10, "{image_links} image links");
}
