//! Tests of the cap on the tree builder's work: real pages cost a few
//! steps a byte and are parsed whole, so are pages built against the
//! builder once bounded; a page that defeats the depth bound
//! is cut, its links before the cut kept.

use super::{budget, parse_within, WORK_PER_BYTE};
use crate::parse::depth::{bounded, MAX_DEPTH};

/// The real pages saved with the tests, bounded as parse bounds them.
fn real_pages() -> Vec<(String, String)> {
    crate::parse::depth::tests::real_pages()
        .into_iter()
        .map(|(name, page)| (name, bounded(&page, MAX_DEPTH).into_owned()))
        .collect()
}

#[test]
fn real_pages_cost_a_few_steps_a_byte_and_are_parsed_whole() {
    for (name, page) in real_pages() {
        let (_, cut, work) = parse_within(&page, budget(page.len()));
        assert!(!cut, "{name}");
        let per_byte = work as f64 / page.len() as f64;
        eprintln!("{name}: {work} steps, {per_byte:.2} a byte");
        assert!(
            per_byte < WORK_PER_BYTE as f64 / 8.0,
            "{name}: {per_byte:.2} a byte"
        );
    }
}

#[test]
fn a_page_nested_past_any_bound_is_cut_in_bounded_work_and_keeps_its_first_links() {
    // the depth bound is left out: this is what the cap guards if the
    // bound misreads a page
    let page = format!(
        "<body><a href=/first>first</a>{}<a href=/last>last</a>",
        "<div>x".repeat(30_000)
    );
    let budget = budget(page.len());
    let (document, cut, work) = parse_within(&page, budget);
    assert!(cut, "the page is marked as cut");
    // one piece of 4 KiB past the budget at most
    assert!(work < 2 * budget, "{work} steps for a budget of {budget}");
    let links: Vec<_> = document
        .select(&scraper::Selector::parse("a").unwrap())
        .filter_map(|a| a.value().attr("href"))
        .collect();
    assert_eq!(links, ["/first"]);
}

#[test]
fn a_page_cut_anywhere_is_parsed_up_to_the_cut() {
    // a budget spent on the first piece: the rest is not fed, and the
    // pieces end on character boundaries (Thai is 3 bytes a character)
    let page = format!("<p>{}</p>", "ภาษาไทย".repeat(2_000));
    let (document, cut, _) = parse_within(&page, 0);
    assert!(cut);
    let text: String = document.root_element().text().collect();
    assert!(
        !text.is_empty() && page.contains(&text),
        "{} chars",
        text.len()
    );
}

#[test]
fn pages_built_against_the_builder_are_parsed_whole_within_the_budget() {
    // each once cost the builder the square of its length: a table in a
    // table, markers left in the formatting list, formatting elements
    // with different attributes opened again after every block
    for run in [
        "<table><table></table><div>x</table>",
        "<table><nobr><nobr><marquee>",
        "<div><b class=N>x</div>",
    ] {
        let page: String = (0..200_000 / run.len())
            .map(|n| run.replace('N', &n.to_string()))
            .collect();
        let (_, cut, work) = parse_within(&bounded(&page, MAX_DEPTH), usize::MAX);
        assert!(!cut);
        let per_byte = work as f64 / page.len() as f64;
        assert!(
            per_byte < WORK_PER_BYTE as f64,
            "{run}: {per_byte:.1} a byte"
        );
    }
}
