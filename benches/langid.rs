//! The language-identification benchmark run by `scripts/bench-langid`:
//! the target decision per target on held-out real text (leipzig-dev
//! sentences as pages, word pairs as anchors); identification on UDHR
//! paragraphs (whatlang's own training text: a check that nothing broke,
//! not evidence of accuracy); and page identification throughput on one
//! core, without a target and with targets whose second stage runs.
//!
//! The corpora are `$LANGCRAWL_LEIPZIG` / `$LANGCRAWL_UDHR` if set, else the
//! full shared corpora (`../shared/corpus/leipzig-dev`, `.../udhr`) when
//! they are there, else the slices in `tests/corpus`.

use std::path::Path;
use std::time::Instant;

use langcrawl::lang::eval::{self, Sample};
use langcrawl::lang::naming_eval;
use langcrawl::lang::target_eval::{self, Kind};
use langcrawl::lang::TargetLang;

mod common;
use langcrawl::lang::identify_page;

fn main() -> anyhow::Result<()> {
    let sentences = leipzig()?;
    let dir = common::data_dir("LANGCRAWL_UDHR", "udhr", "tests/corpus/udhr");
    println!("corpus: {}\n", dir.display());
    let paragraphs = eval::load_paragraphs(&dir)?;
    let pages = eval::score_pages(&paragraphs);
    println!(
        "## Paragraphs as pages ({} samples)\n\n{}",
        paragraphs.len(),
        eval::table(&pages)
    );
    println!(
        "mean recall over languages langcrawl can name: {:.2}%\n",
        100.0 * eval::mean_recall(&pages, eval::identifiable)
    );

    let anchors: Vec<Sample> = paragraphs
        .iter()
        .flat_map(|p| eval::anchors(p, 3))
        .collect();
    let scores = eval::score_anchors(&anchors);
    println!(
        "## Anchors, 2-5 words or 2-8 characters ({} samples)\n\n{}",
        anchors.len(),
        eval::table(&scores)
    );
    println!(
        "confident wrong: {:.2}% of anchors\n",
        100.0 * eval::confident_wrong_rate(&scores)
    );

    let html = html_pages(&dir, &paragraphs)?;
    println!("## Throughput, one core\n");
    println!("| input | items | avg bytes | items/s | MB/s |\n|---|---:|---:|---:|---:|");
    throughput(
        "HTML pages: decode, visible text, language",
        &html,
        |page| {
            langcrawl::detect::page(page, None);
        },
    );
    for code in ["hin", "ces", "msa", "nob"] {
        let target = TargetLang::parse(code)?;
        let crawl = |page: &[u8]| {
            langcrawl::detect::page(page, Some(&target));
        };
        throughput(&format!("the same pages, crawling {code}"), &html, crawl);
        let group = group_pages(&sentences, code);
        let label = format!("leipzig pages of {code}'s group, crawling {code} (all second stage)");
        throughput(&label, &group, crawl);
    }
    let texts: Vec<&[u8]> = paragraphs.iter().map(|p| p.text.as_bytes()).collect();
    throughput(
        "short texts (one paragraph) to identify_page",
        &texts,
        |text| {
            identify_page(
                std::str::from_utf8(text).unwrap_or_default(),
                None,
                "UTF-8",
                None,
            );
        },
    );
    Ok(())
}

/// On leipzig-dev: the label every page gets beside whatlang's, for every
/// language; the target decision per target against every other language;
/// the Marathi a Hindi crawl accepts.
fn leipzig() -> anyhow::Result<Vec<Sample>> {
    let dir = common::data_dir("LANGCRAWL_LEIPZIG", "leipzig-dev", "tests/corpus/leipzig");
    println!("corpus: {}\n", dir.display());
    let sentences = target_eval::load_all(&dir, Kind::Sentences, usize::MAX)?;
    let pairs = target_eval::load_all(&dir, Kind::WordPairs, usize::MAX)?;
    let started = Instant::now();
    println!(
        "## Which language, without a target: the label every page gets (sentences and word pairs as pages), beside whatlang's\n\n{}",
        naming_eval::table(&sentences, &pairs)
    );
    println!(
        "## Target vs every other language of the corpus: sentences as pages, word pairs as anchors\n\n{}",
        target_eval::table(&sentences, &pairs)
    );
    println!(
        "Marathi sentences a Hindi crawl accepts: {:.1}%; Hindi sentences a Marathi crawl accepts: {:.1}%",
        100.0 * target_eval::accepted_share(&sentences, "mar", "hin", Kind::Sentences),
        100.0 * target_eval::accepted_share(&sentences, "hin", "mar", Kind::Sentences),
    );
    println!("(measured in {:.0} s)\n", started.elapsed().as_secs_f64());
    Ok(sentences)
}

/// Pages of 20 leipzig sentences each in the languages of `target`'s
/// confusion group: every one goes through the second stage.
fn group_pages(sentences: &[Sample], target: &str) -> Vec<Vec<u8>> {
    let group = langcrawl::lang::neighbours::group(target);
    let texts: Vec<&str> = sentences
        .iter()
        .filter(|s| group.contains(&s.lang.as_str()))
        .map(|s| s.text.as_str())
        .collect();
    texts.chunks(20).map(html_page).collect()
}

/// A page of `paragraphs` under a title and a navigation bar.
fn html_page(paragraphs: &[&str]) -> Vec<u8> {
    let nav: String = (1..=20)
        .map(|k| format!("<li><a href=\"/section/{k}.html\">{k}</a></li>"))
        .collect();
    let body: String = paragraphs.iter().map(|p| format!("<p>{p}</p>\n")).collect();
    format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{}</title>\
         <style>body {{ font-family: serif }}</style></head>\
         <body><ul class=\"nav\">{nav}</ul>\n{body}</body></html>",
        paragraphs[0].chars().take(40).collect::<String>()
    )
    .into_bytes()
}

/// One HTML page per language (its declaration as paragraphs under a
/// title and a navigation bar), plus every legacy-encoded file as served,
/// without a declaration.
fn html_pages(dir: &Path, paragraphs: &[Sample]) -> anyhow::Result<Vec<Vec<u8>>> {
    let mut by_lang: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for p in paragraphs {
        by_lang.entry(p.lang.as_str()).or_default().push(&p.text);
    }
    let mut pages: Vec<Vec<u8>> = by_lang.values().map(|paras| html_page(paras)).collect();
    let legacy = dir.with_file_name("udhr-legacy");
    if legacy.is_dir() {
        for entry in std::fs::read_dir(&legacy)? {
            let path = entry?.path();
            if path.extension().is_none() {
                pages.push(std::fs::read(&path)?);
            }
        }
    }
    Ok(pages)
}

/// Runs `identify` over `items` until a second has passed and prints a row.
fn throughput(label: &str, items: &[impl AsRef<[u8]>], identify: impl Fn(&[u8])) {
    let bytes: usize = items.iter().map(|i| i.as_ref().len()).sum();
    // Once untimed: the second stage loads its models on first use.
    for item in items {
        identify(item.as_ref());
    }
    let (mut rounds, started) = (0usize, Instant::now());
    while rounds == 0 || started.elapsed().as_secs_f64() < 1.0 {
        for item in items {
            identify(std::hint::black_box(item.as_ref()));
        }
        rounds += 1;
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "| {label} | {} | {} | {:.0} | {:.1} |",
        items.len(),
        bytes / items.len().max(1),
        (rounds * items.len()) as f64 / secs,
        (rounds * bytes) as f64 / secs / 1e6
    );
}
