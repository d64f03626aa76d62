//! The language-identification benchmark run by `scripts/bench-langid`:
//! per-language precision and recall on UDHR paragraphs and on short
//! anchors cut from them, and identification throughput on one core.
//!
//! The corpus is `$LANGCRAWL_UDHR` if set, else the full shared corpus
//! (`../shared/corpus/udhr`) when it is there, else the trimmed copy in
//! `tests/corpus/udhr`.

use std::path::Path;
use std::time::Instant;

use langcrawl::lang::eval::{self, Sample};

mod common;
use langcrawl::lang::identify_page;

fn main() -> anyhow::Result<()> {
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
        "mean recall over languages whatlang knows: {:.2}%\n",
        100.0 * eval::mean_recall(&pages, eval::whatlang_knows)
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
    let texts: Vec<&[u8]> = paragraphs.iter().map(|p| p.text.as_bytes()).collect();
    throughput(
        "short texts (one paragraph) to identify_page",
        &texts,
        |text| {
            identify_page(std::str::from_utf8(text).unwrap_or_default(), None, "UTF-8");
        },
    );
    Ok(())
}

/// One HTML page per language (its declaration as paragraphs under a
/// title and a navigation bar), plus every legacy-encoded file as served,
/// without a declaration.
fn html_pages(dir: &Path, paragraphs: &[Sample]) -> anyhow::Result<Vec<Vec<u8>>> {
    let mut by_lang: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for p in paragraphs {
        by_lang.entry(p.lang.as_str()).or_default().push(&p.text);
    }
    let mut pages: Vec<Vec<u8>> = by_lang
        .values()
        .map(|paras| {
            let nav: String = (1..=20)
                .map(|k| format!("<li><a href=\"/section/{k}.html\">{k}</a></li>"))
                .collect();
            let body: String = paras.iter().map(|p| format!("<p>{p}</p>\n")).collect();
            format!(
                "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{}</title>\
                 <style>body {{ font-family: serif }}</style></head>\
                 <body><ul class=\"nav\">{nav}</ul>\n{body}</body></html>",
                paras[0].chars().take(40).collect::<String>()
            )
            .into_bytes()
        })
        .collect();
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
