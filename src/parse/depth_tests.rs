//! Tests of the depth bound: real pages untouched, deep pages flattened
//! with their text and links, and generated documents (deep, wide and
//! arbitrary) never panic and lose only tags. `PROPTEST_CASES` sets how
//! many documents each generated test tries (256 by default;
//! `scripts/fuzz-parse` runs more).

use proptest::prelude::*;

use super::{bounded, MAX_ATTRIBUTES, MAX_DEPTH};
use crate::parse::html::extract;
use crate::testing::cases;

/// The real pages saved with the tests (`tests/real-html/*/source.html`).
pub(crate) fn real_pages() -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/real-html");
    let mut pages = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().filter_map(|e| e.ok()) {
        let source = entry.path().join("source.html");
        if let Ok(bytes) = std::fs::read(&source) {
            pages.push((
                entry.file_name().to_string_lossy().into_owned(),
                String::from_utf8_lossy(&bytes).into_owned(),
            ));
        }
    }
    assert!(pages.len() >= 10, "{} real pages", pages.len());
    pages
}

#[test]
fn real_pages_are_left_as_they_are() {
    for (name, page) in real_pages() {
        assert!(
            matches!(bounded(&page, MAX_DEPTH), std::borrow::Cow::Borrowed(_)),
            "{name} was changed"
        );
        let extracted = extract(&page);
        assert!(!extracted.nesting_cut, "{name}");
        assert!(
            !extracted.link_text_cut,
            "{name}: a real page keeps its links' text"
        );
    }
}

/// `n` nested `<div>`s around a link and some text.
fn nested(n: usize) -> String {
    format!(
        "<html><body>{}<p>deep text <a href=\"/bottom\">bottom</a></p>{}</body></html>",
        "<div>".repeat(n),
        "</div>".repeat(n)
    )
}

#[test]
fn a_deep_page_keeps_its_text_and_links_and_nests_no_deeper_than_the_bound() {
    let page = nested(200_000);
    let flat = bounded(&page, MAX_DEPTH);
    // html and body count too
    assert_eq!(flat.matches("<div>").count(), MAX_DEPTH - 2);
    assert_eq!(flat.matches("</div>").count(), MAX_DEPTH - 2);
    let extracted = extract(&page);
    assert!(extracted.nesting_cut, "the page is marked as cut");
    assert!(
        extracted.text.contains("deep text bottom"),
        "{}",
        extracted.text
    );
    assert_eq!(extracted.links.len(), 1);
    assert_eq!(extracted.links[0].href, "/bottom");
}

/// One tag with `n` attributes named `a0`, `a1`, ... and then `last`.
fn attributed(tag: &str, n: usize, last: &str) -> String {
    let attributes: String = (0..n).map(|i| format!(" a{i}=\"{i}\"")).collect();
    format!(
        "<html><body><p>before <{tag}{attributes} {last}>inside</{tag}> after</p></body></html>"
    )
}

#[test]
fn a_tag_keeps_its_first_attributes_and_those_the_parse_reads() {
    let page = attributed(
        "a",
        100_000,
        "href=/far title='the far page' a0=dup href=/second",
    );
    let cut = bounded(&page, MAX_DEPTH);
    assert!(
        cut.len() < page.len() / 50,
        "{} of {} bytes",
        cut.len(),
        page.len()
    );
    let count = |name: &str| cut.matches(&format!(" {name}=")).count();
    assert_eq!(count(&format!("a{}", MAX_ATTRIBUTES - 1)), 1);
    assert_eq!(count(&format!("a{MAX_ATTRIBUTES}")), 0, "past the bound");
    assert_eq!(
        (count("href"), count("title")),
        (1, 1),
        "the first of each read one"
    );
    let extracted = extract(&page);
    assert_eq!(extracted.links.len(), 1);
    assert_eq!(extracted.links[0].href, "/far");
    assert!(
        extracted.text.contains("before inside after"),
        "{}",
        extracted.text
    );
    // a self-closing foreign tag stays self-closing; an unended one unended
    let svg = attributed("svg", 2_000, "/").replace("</svg>", "");
    assert!(
        bounded(&svg, MAX_DEPTH).contains(" />inside"),
        "{}",
        &svg[..80]
    );
    let unended = format!("<p>x<a {}", "b ".repeat(3_000));
    let cut = bounded(&unended, MAX_DEPTH);
    assert!(!cut.ends_with('>'), "{}", &cut[cut.len() - 20..]);
    assert_eq!(cut.matches(" b").count(), MAX_ATTRIBUTES);
    // a `/` before the cut does not close the tag, one in a kept value stays
    let slash = attributed("svg", MAX_ATTRIBUTES, "").replace(
        &format!(" a{}=\"{}\"", MAX_ATTRIBUTES - 1, MAX_ATTRIBUTES - 1),
        &format!(" a{}=\"x\"/a{MAX_ATTRIBUTES}", MAX_ATTRIBUTES - 1),
    );
    assert!(bounded(&slash, MAX_DEPTH).contains("=\"x\"/ >inside"));
    let kept_slash = attributed("svg", MAX_ATTRIBUTES, "href=/x/ zz/");
    assert!(bounded(&kept_slash, MAX_DEPTH).contains(" href=/x/ />inside"));
    // a tag too deep to keep goes whole, its attributes with it
    let deep = format!(
        "{}<div {}>deep</div>",
        "<div>".repeat(2 * MAX_DEPTH),
        "b ".repeat(2_000)
    );
    let cut = bounded(&deep, MAX_DEPTH);
    assert!(
        !cut.contains(" b ") && cut.ends_with(">deep"),
        "{}",
        &cut[cut.len() - 40..]
    );
    // at the bound a page is as it was
    let full = attributed("a", MAX_ATTRIBUTES - 1, "href=/x");
    assert!(matches!(
        bounded(&full, MAX_DEPTH),
        std::borrow::Cow::Borrowed(_)
    ));
}

#[test]
fn end_tags_of_elements_not_open_do_not_undo_the_depth() {
    // `</b>` with no `<b>` open closes nothing in the tree builder: counted
    // as a close, it let 100,000 `<div>`s through (100 s in detect).
    for stray in ["</b>", "</span>", "</font>"] {
        let page = format!(
            "<body>{}text</body>",
            format!("<div>{stray}").repeat(100_000)
        );
        let flat = bounded(&page, MAX_DEPTH);
        assert!(flat.matches("<div>").count() < MAX_DEPTH, "{stray}");
    }
}

/// How deep the tree the HTML builder makes of `html` nests.
fn tree_depth(html: &str) -> usize {
    let document = scraper::Html::parse_document(html);
    document
        .tree
        .nodes()
        .map(|node| node.ancestors().count())
        .max()
        .unwrap_or(0)
}

#[test]
fn scripts_comments_and_unclosed_paragraphs_do_not_count_as_depth() {
    let page = format!(
        "<body>{}<script>{}</script><!-- {} -->{}<a href=/x>x</a></body>",
        "<p>para".repeat(1000),
        "<div>".repeat(1000),
        "<div>".repeat(1000),
        "<li>item".repeat(1000)
    );
    assert!(matches!(
        bounded(&page, MAX_DEPTH),
        std::borrow::Cow::Borrowed(_)
    ));
}

/// The tags `html` holds, as `<name` or `</name`, in order.
fn tags(html: &str) -> Vec<&str> {
    html.match_indices('<')
        .map(|(i, _)| {
            let rest = &html[i..];
            let end = rest[1..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '/'))
                .map_or(rest.len(), |e| e + 1);
            &rest[..end]
        })
        .collect()
}

/// The links parse finds in `html`, in order.
fn hrefs(html: &str) -> Vec<String> {
    extract(html).links.into_iter().map(|l| l.href).collect()
}

/// A document of nested and sibling elements: each node an element
/// with children, or text.
fn document() -> impl Strategy<Value = String> {
    let leaf = prop_oneof!["[a-z <>/=\"']{0,12}", Just("<a href=/l>l</a>".to_string())];
    leaf.prop_recursive(64, 2048, 8, |inner| {
        (
            prop_oneof![
                Just("div"),
                Just("span"),
                Just("b"),
                Just("a"),
                Just("p"),
                Just("table"),
                Just("script")
            ],
            prop::collection::vec(inner, 0..8),
        )
            .prop_map(|(name, children)| format!("<{name}>{}</{name}>", children.concat()))
    })
}

/// Tags of every kind the builder treats apart: blocks, formatting
/// elements (with attributes, which the builder tells apart), tables,
/// lists, forms, buttons, headings, selects, templates, framesets, raw
/// text, stray end tags and text.
const TAGS: [&str; 84] = [
    "<div>",
    "</div>",
    "<span>",
    "</span>",
    "<b>",
    "</b>",
    "</i>",
    "<section>",
    "x",
    "<i>",
    "<p>",
    "</p>",
    "<table>",
    "</table>",
    "<td>",
    "</td>",
    "<tr>",
    "</tr>",
    "<a href=/x>",
    "</a>",
    "<form>",
    "</form>",
    "<button>",
    "</button>",
    "<h1>",
    "<h2>",
    "</h1>",
    "</h2>",
    "<body>",
    "</body>",
    "</html>",
    "<div/>",
    "<li>",
    "<ul>",
    "</ul>",
    "<font>",
    "</font>",
    "<caption>",
    "</caption>",
    "<select>",
    "</select>",
    "<object>",
    "</object>",
    "<dl>",
    "<dd>",
    "<template>",
    "</template>",
    "<marquee>",
    "</marquee>",
    "<tbody>",
    "</tbody>",
    "<frameset>",
    "<textarea>x</textarea>",
    "<option>",
    "<optgroup>",
    "<input>",
    "<html>",
    "<head>",
    "</head>",
    "<noscript>",
    "</noscript>",
    "<em>",
    "</em>",
    "<rt>",
    "<ruby>",
    "<dt>",
    "<details>",
    "<strike>",
    "<font size=2>",
    "<b class=1>",
    "<b class=2>",
    "<th>",
    "<thead>",
    "<img>",
    "</br>",
    "</li>",
    "<title>t</title>",
    "<main>",
    "<label>",
    "</label>",
    "<u>",
    "<strong>",
    "</strong>",
    "<h3>",
];

/// Pages of a run of tags repeated that nested past the bound before the
/// depth model followed the builder: each tag run, 4,000 times.
#[test]
fn runs_of_tags_that_once_passed_the_bound_nest_no_deeper_than_it() {
    let runs = [
        "<table><table></table><div>x</table>", // a table opened in a table closes it
        "<div><table></div></table>",           // an end tag stops at a table
        "<div/>",                               // `/` closes no HTML element
        "<form><div></form>",                   // `</form>` closes the form alone
        "<li><dd>",                             // list items close only their own kind
        "<h1><li>",                             // a heading nests under an item
        "<option><h1>",                         // and under an option
        "<strike><button>",                     // formatting reopened after a button
        "<noscript><table></noscript><ul>",     // noscript's content is text
        "<template><table>",                    // a template nests in a table
        "<table><caption>",                     // a table nests in a caption
        "<head><article></head>",               // `</head>` after the body closes nothing
        // the end tag of a dropped select closes nothing the builder has
        "</select><h1><font><a href=/x><select><a href=/x>",
        "<frameset><input><select>", // in a frameset an input ends nothing
        "<tbody><svg>",              // in SVG a table part nests
        "<form><select></form>",     // `</form>` closes the form pointer's form
        // a cell in a template read as a body closes nothing
        "<template></noscript><div/><td><noscript>",
    ];
    for run in runs {
        let page = run.repeat(4_000);
        let depth = tree_depth(&bounded(&page, 64));
        assert!(depth <= 4 * 64 + 16, "{run}: {depth}");
    }
    // formatting elements the builder tells apart by their attributes
    let page: String = (0..4_000)
        .map(|n| format!("<div><b class={n}>x</div>"))
        .collect();
    let depth = tree_depth(&bounded(&page, 64));
    assert!(depth <= 4 * 64 + 16, "distinct <b>s: {depth}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn any_input_loses_only_tags_and_never_links(html in "\\PC{0,400}") {
        let flat = bounded(&html, 4);
        prop_assert_eq!(hrefs(&flat), hrefs(&html));
    }

    #[test]
    fn start_and_stray_end_tags_in_any_order_nest_no_deeper_than_the_bound(
        tokens in prop::collection::vec(
            prop_oneof![
                Just("<div>"), Just("</div>"), Just("<span>"), Just("</span>"),
                Just("<b>"), Just("</b>"), Just("</i>"), Just("<section>"), Just("x"),
            ],
            0..3000,
        ),
        max in 1usize..32,
    ) {
        let page = tokens.concat();
        let flat = bounded(&page, max);
        // On top of the counted containers come html and body, and the
        // formatting elements the builder reopens by itself (HTML §13.2.4.3:
        // up to three `<b>`s reconstructed in each block): a bound in
        // proportion to `max`, whatever the input's length.
        prop_assert!(tree_depth(&flat) <= 4 * max + 16, "{}", tree_depth(&flat));
    }

    #[test]
    fn tags_of_every_kind_in_any_order_nest_no_deeper_than_the_bound(
        tokens in prop::collection::vec(prop::sample::select(&TAGS[..]), 0..3000),
        max in 1usize..32,
    ) {
        let page = tokens.concat();
        let depth = tree_depth(&bounded(&page, max));
        prop_assert!(depth <= 4 * max + 16, "{}", depth);
    }

    #[test]
    fn a_run_of_tags_repeated_nests_no_deeper_the_longer_the_page(
        run in prop::collection::vec(prop::sample::select(&TAGS[..]), 1..12),
    ) {
        // bounded, the depth stops growing with the page's length (a
        // template adds its content's node to the tree: hence 8 ×)
        let depth = |times: usize| tree_depth(&bounded(&run.concat().repeat(times), 16));
        let (half, whole) = (depth(600), depth(1200));
        prop_assert!(whole <= half && half <= 8 * 16 + 16, "{} then {}", half, whole);
    }

    #[test]
    fn deep_and_wide_documents_lose_only_container_tags(html in document(), max in 1usize..16) {
        let flat = bounded(&html, max);
        prop_assert!(tags(&flat).len() <= tags(&html).len() + tags(&flat).iter().filter(|t| **t == "<").count());
        prop_assert_eq!(hrefs(&flat), hrefs(&html));
    }
}
