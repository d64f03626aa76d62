//! Tests of HTML extraction: hand-written pages for each kind of link, and
//! generated documents (proptest) for totality. `PROPTEST_CASES` sets the
//! number of generated documents (2,000 by default; `scripts/fuzz-parse`
//! runs 100,000).

use proptest::prelude::*;

use crate::testing::cases;

use super::*;
use crate::parse::link_text::{ANCHOR_CHARS, SHORT_ANCHOR_CHARS};

const PAGE: &str = r#"<!doctype html><html lang="ja"><head><title> 人権 宣言 </title>
    <base href="http://base.jp/dir/"><style>p{color:red}</style></head>
    <body><script>var x = "hidden";</script>
    <p>第一条 すべての人間は、<a href="a.html">生まれながらにして自由</a>であり、</p>
    <p><a href="http://b.jp/" rel="nofollow noopener">リンク</a> after</p>
    </body></html>"#;

#[test]
fn visible_text_hints_and_links() {
    let page = extract(PAGE);
    assert_eq!(page.title.as_deref(), Some("人権 宣言"));
    assert_eq!(page.html_lang.as_deref(), Some("ja"));
    assert_eq!(page.base_href.as_deref(), Some("http://base.jp/dir/"));
    assert!(
        !page.text.contains("hidden") && !page.text.contains("color"),
        "{}",
        page.text
    );
    assert!(page.text.contains("第一条 すべての人間は、"));
    assert_eq!(page.links.len(), 2);
    assert_eq!(page.links[0].anchor, "生まれながらにして自由");
    assert!(page.links[0].context.contains("第一条") && page.links[0].context.contains("であり"));
    assert!(!page.links[0].nofollow && page.links[1].nofollow);
    assert!(page.links.iter().all(|l| l.kind == LinkKind::A));
}

#[test]
fn numeric_character_references_are_decoded() {
    let page = extract("<p>&#26085;&#x672C; &amp; more</p>");
    assert_eq!(page.text, "日本 & more");
}

#[test]
fn meta_robots_nofollow_covers_every_link() {
    let page = extract(r#"<meta name="ROBOTS" content="noindex, nofollow"><a href="/x">x</a>"#);
    assert!(page.nofollow_all && page.links[0].nofollow);
}

/// Each link's href, anchor and where the anchor is from.
fn anchors(page: &Extracted) -> Vec<(&str, &str, Option<&str>)> {
    page.links
        .iter()
        .map(|l| (l.href.as_str(), l.anchor.as_str(), l.anchor_source))
        .collect()
}

/// The bug that stopped a real crawl after three pages: a link with no
/// text after some text put its end before its start.
#[test]
fn image_links_and_empty_anchors_after_text() {
    let page = extract(
        r#"<p>Some text <a href="/img"><img src="logo.png" alt="ロゴ"></a>
        <a href="/empty"></a> <a href="/icon"><i class="icon"></i></a>
        <a href="/titled" title="Home page"><svg><path d=""/></svg></a> tail</p>"#,
    );
    assert_eq!(
        anchors(&page),
        [
            ("/img", "ロゴ", Some("alt")),
            ("/empty", "", None),
            ("/icon", "", None),
            ("/titled", "Home page", Some("title"))
        ]
    );
    assert_eq!(page.text, "Some text tail");
    for link in &page.links {
        assert!(link.span.start <= link.span.end && link.span.end <= page.text.len());
    }
}

#[test]
fn every_kind_of_link_a_browser_follows() {
    let page = extract(
        r##"<html><head>
        <meta http-equiv="Refresh" content="0; URL='/moved.html'">
        <link rel="alternate" hreflang="th" href="/th/">
        <link rel="alternate" type="application/rss+xml" href="/feed">
        <link rel="canonical" href="/canonical">
        <link rel="stylesheet" href="/s.css">
        </head><body>
        <a href="/ko" hreflang="ko">한국어</a>
        <img src="map.png" usemap="#m"><map name="m"><area href="/area" alt="地図"></map>
        <iframe src="/inner.html" title="inner"></iframe>
        </body></html>"##,
    );
    let kinds: Vec<(LinkKind, &str, Option<&str>)> = page
        .links
        .iter()
        .map(|l| (l.kind, l.href.as_str(), l.hreflang.as_deref()))
        .collect();
    assert_eq!(
        kinds,
        [
            (LinkKind::Refresh, "/moved.html", None),
            (LinkKind::Alternate, "/th/", Some("th")),
            (LinkKind::Canonical, "/canonical", None),
            (LinkKind::A, "/ko", Some("ko")),
            (LinkKind::Area, "/area", None),
            (LinkKind::Iframe, "/inner.html", None),
        ]
    );
    assert_eq!(page.links[4].anchor, "地図");
    assert_eq!(page.links[3].anchor_source, Some("text"));
    assert_eq!(page.links[4].anchor_source, Some("alt"));
}

/// A link's own naming attribute comes before an image's `alt`, and an
/// empty one is passed over for the next (`alt=""` marks a decorative
/// image).
#[test]
fn a_link_without_text_is_named_by_its_first_non_empty_attribute() {
    let page = extract(
        r#"<a href="/a" aria-label="Menu"><img alt="icon"></a>
        <a href="/b" alt="" title="Search"><img alt="magnifier"></a>
        <a href="/c" title=" "><img alt=""><img alt="Second"></a>"#,
    );
    assert_eq!(
        anchors(&page),
        [
            ("/a", "Menu", Some("aria-label")),
            ("/b", "Search", Some("title")),
            ("/c", "Second", Some("alt")),
        ]
    );
}

#[test]
fn a_frameset_has_frames_and_no_text() {
    let page = extract(
        r#"<html><head><title>Frames</title></head><frameset cols="20%,80%">
        <frame src="menu.html"><frame src="main.html" name="main">
        <noframes><body>Use a browser with frames</body></noframes></frameset></html>"#,
    );
    let frames: Vec<&str> = page.links.iter().map(|l| l.href.as_str()).collect();
    assert_eq!(frames, ["menu.html", "main.html"]);
    assert!(page.links.iter().all(|l| l.kind == LinkKind::Frame));
    assert_eq!(page.title.as_deref(), Some("Frames"));
}

#[test]
fn links_inside_links_and_deep_nesting_stay_within_the_text() {
    let mut html = "<a href=/outer>outer ".to_string();
    html.push_str(&"<span><b>".repeat(5_000));
    html.push_str("<a href=/inner>inner</a></a> after");
    let page = extract(&html);
    let hrefs: Vec<&str> = page.links.iter().map(|l| l.href.as_str()).collect();
    assert_eq!(hrefs, ["/outer", "/inner"]);
    assert_eq!(page.links[1].anchor, "inner");
    assert_span_invariants(&page);
}

/// Every span lies within the text, on character boundaries, and a link
/// with text has that text as its anchor.
fn assert_span_invariants(page: &Extracted) {
    for link in &page.links {
        let span = page.text.get(link.span.clone());
        assert!(
            span.is_some(),
            "span {:?} outside {:?}",
            link.span,
            page.text
        );
        let span = span.unwrap_or_default().trim();
        if !span.is_empty() {
            assert!(
                span.starts_with(&link.anchor),
                "{:?} not in {span:?}",
                link.anchor
            );
            assert!(
                link.anchor.chars().count() <= ANCHOR_CHARS,
                "{:?}",
                link.anchor
            );
            let cut = link.anchor.len() < span.len();
            assert!(cut || link.anchor == span, "{:?} for {span:?}", link.anchor);
        }
        assert!(link.context.chars().count() <= ANCHOR_CHARS + 2 * CONTEXT_CHARS);
        assert!(
            page.text.contains(&link.heading) && link.heading.chars().count() <= 160,
            "heading {:?} not in {:?}",
            link.heading,
            page.text
        );
    }
}

/// Each link's heading is the nearest h1–h6 at or before it: none before
/// the first, the section's own after it, the heading a link sits in.
#[test]
fn links_take_the_heading_they_appear_under() {
    let page = extract(
        r#"<a href="/top"><img alt="Logo"></a><h1>University</h1><p><a href="/a">a</a></p>
        <h2>Comp. Sc. <b>and</b> Engg.</h2><ul><li><a href="/b">b</a></li></ul>
        <h3><a href="/c">Courses</a></h3><div><a href="/d">d</a></div>"#,
    );
    let headings: Vec<(&str, &str)> = page
        .links
        .iter()
        .map(|l| (l.href.as_str(), l.heading.as_str()))
        .collect();
    assert_eq!(
        headings,
        [
            // an image link just before the first heading is under none
            ("/top", ""),
            ("/a", "University"),
            ("/b", "Comp. Sc. and Engg."),
            ("/c", "Courses"),
            ("/d", "Courses"),
        ]
    );
}

const TEXTS: &[&str] = &[
    "日本語の文章",
    "ภาษาไทย",
    "한국어 텍스트",
    "हिन्दी पाठ",
    "中文网页",
    "plain English words",
    "&amp;",
    "&#26085;",
    "&#x;",
    "&am",
    "p;",
    "&lt;a href=x&gt;",
    " ",
    "\n\t",
    "\u{0}",
    "\u{200B}",
    "<!-- comment <a href=c> -->",
    "</a>",
    "</p>",
    "<a href=",
    "<",
    "<![CDATA[x]]>",
    "\u{FEFF}",
];

const VOIDS: &[&str] = &[
    r#"<img src="x.png">"#,
    r#"<img src="x.png" alt="写真">"#,
    "<br>",
    r#"<area href="/area" alt="エリア">"#,
    r#"<frame src="/f.html">"#,
    r#"<iframe src="/i.html"></iframe>"#,
    r#"<meta http-equiv="refresh" content="0; url=/r">"#,
    r#"<link rel="alternate" hreflang="th" href="/th/">"#,
    r#"<link rel=canonical href=/c>"#,
    r#"<base href="http://b.jp/x/">"#,
    "<hr/>",
];

const TAGS: &[&str] = &[
    "a", "a", "a", "p", "div", "span", "b", "table", "td", "tr", "li", "ul", "script", "style",
    "noscript", "template", "svg", "frameset", "map", "title", "head", "body", "html", "select",
    "option", "textarea", "h1", "form", "button",
];

fn attribute() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z./:#?=&%]{0,20}".prop_map(|h| format!(r#" href="{h}""#)),
        Just(" href".to_string()),
        Just(" href=''".to_string()),
        "[a-z]{1,3}".prop_map(|l| format!(" hreflang={l}")),
        Just(r#" rel="nofollow""#.to_string()),
        "[a-zA-Z0-9]{1000,4000}".prop_map(|v| format!(r#" href="/{v}" title="{v}""#)),
        Just(r#" alt="代替""#.to_string()),
        Just(" \"=\"'".to_string()),
    ]
}

fn leaf() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(TEXTS).prop_map(str::to_string),
        1 => prop::sample::select(VOIDS).prop_map(str::to_string),
        1 => "\\PC{0,12}",
    ]
}

/// Generated HTML: random nesting, empty and image anchors, links inside
/// links, entities, broken and unclosed tags, long attributes, mixed
/// scripts.
pub fn document() -> impl Strategy<Value = String> {
    leaf().prop_recursive(8, 256, 8, |inner| {
        (
            prop::sample::select(TAGS),
            prop::collection::vec(attribute(), 0..3),
            prop::collection::vec(inner, 0..8),
            any::<bool>(),
        )
            .prop_map(|(tag, attrs, children, close)| {
                let close = if close {
                    format!("</{tag}>")
                } else {
                    String::new()
                };
                format!("<{tag}{}>{}{close}", attrs.concat(), children.concat())
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(2_000)))]

    #[test]
    fn generated_documents_extract_with_every_span_in_the_text(html in document()) {
        let page = extract(&html);
        assert_span_invariants(&page);
    }

    #[test]
    fn the_context_is_the_text_within_80_characters_of_the_link_collapsed(
        text in "[a ก-ฮ\\n\\t日本]{0,400}",
        cut in (0usize..400, 0usize..400),
    ) {
        let (start, end) = (cut.0.min(cut.1), cut.0.max(cut.1));
        let by_chars = |text: &str| -> String {
            let (Some(head), Some(span), Some(tail)) =
                (text.get(..start), text.get(start..end), text.get(end..))
            else {
                return String::new();
            };
            let before: String = head.chars().rev().take(CONTEXT_CHARS).collect::<Vec<_>>().into_iter().rev().collect();
            let after: String = tail.chars().take(CONTEXT_CHARS).collect();
            // a long link text as its anchor keeps it, then a space
            let anchor: String = span.trim().chars().take(ANCHOR_CHARS).collect();
            let cut = anchor.len() < span.trim().len();
            let span = if cut { format!("{anchor} ") } else { span.to_string() };
            format!("{before}{span}{after}").split_whitespace().collect::<Vec<_>>().join(" ")
        };
        let kept = crate::parse::link_text::LinkText::of(&text, (start, end), None, false);
        prop_assert_eq!(kept.context, by_chars(&text));
    }

    #[test]
    fn refresh_contents_never_panic(content in "\\PC{0,40}") {
        if let Some(url) = refresh_url(&content) {
            prop_assert!(!url.is_empty());
        }
    }
}

/// Links nest inside `<math>`, `<object>` and table cells, each then
/// spanning the rest of the page (200 of them held 1.5 GB): anchors and
/// contexts stay bounded link by link.
#[test]
fn links_left_open_around_the_rest_of_a_page_keep_bounded_anchors() {
    let words = "word ".repeat(100);
    let nested = |link: &dyn Fn(usize) -> String| (0..300).map(link).collect::<String>();
    for (how, body) in [
        (
            "math",
            format!("<math>{}", nested(&|i| format!("<a href=/{i}>{words}"))),
        ),
        (
            "object",
            nested(&|i| format!("<a href=/{i}><object>{words}")),
        ),
        (
            "table",
            nested(&|i| format!("<a href=/{i}><table><td>{words}")),
        ),
    ] {
        let page = extract(&format!("<html><body>{body}</body></html>"));
        assert!(page.links.len() >= 200, "{how}: {}", page.links.len());
        assert_span_invariants(&page);
        let first = page.links[0].anchor.chars().count();
        assert!(
            (ANCHOR_CHARS - 1..=ANCHOR_CHARS).contains(&first),
            "{how}: {first}"
        );
        let spanned = page
            .text
            .get(page.links[0].span.clone())
            .unwrap_or_default();
        assert!(
            spanned.len() > 10 * ANCHOR_CHARS,
            "{how}: links no longer nest"
        );
    }
}

/// Past [`PAGE_LINK_TEXT`] bytes of anchors and contexts a page's links
/// keep a short anchor and no context, so that the links of a page are
/// bounded in all, however many there are.
#[test]
fn a_pages_links_keep_a_bounded_text_in_all() {
    let words = "word ".repeat(100);
    let links = 9_000;
    let body: String = (0..links)
        .map(|i| format!("<p><a href=/{i}>{words}</a></p>"))
        .collect();
    let page = extract(&format!("<html><body>{body}</body></html>"));
    assert_eq!(page.links.len(), links);
    assert!(page.link_text_cut, "the page is marked as cut");
    assert_span_invariants(&page);
    let kept: usize = page
        .links
        .iter()
        .map(|l| l.anchor.len() + l.context.len())
        .sum();
    let most = 4 * (ANCHOR_CHARS + 2 * CONTEXT_CHARS);
    assert!(
        kept <= PAGE_LINK_TEXT + links * (SHORT_ANCHOR_CHARS + 1) + most,
        "{kept}"
    );
    let (first, last) = (&page.links[0], &page.links[links - 1]);
    assert!((ANCHOR_CHARS - 1..=ANCHOR_CHARS).contains(&first.anchor.chars().count()));
    assert!(!first.context.is_empty());
    let short = last.anchor.chars().count();
    assert!(
        (SHORT_ANCHOR_CHARS - 1..=SHORT_ANCHOR_CHARS).contains(&short),
        "{:?}",
        last.anchor
    );
    assert!(last.context.is_empty());
}
