//! The export benchmark run by `scripts/bench-export`: how close `export
//! text`'s main text comes to Mozilla Readability's on real pages (mean
//! token-level F1 against each page's `expected.html`; the full shared
//! collection of 114 pages when it is there, else the copy under
//! `tests/real-html`), and export speed in pages/s for WARC and for text
//! on a crawl of the synthetic web (with site menus and footers), fetched
//! through the in-process server. Prints tables; the figures are the result.

mod common;

use std::path::Path;
use std::time::Instant;

use langcrawl::export::main_text::{extract, html_text, token_f1};
use langcrawl::export::{text, warc};
use langcrawl::store::RoundRange;
use langcrawl::websim::WebSpec;

/// Pages in the benchmark crawl's fetch list.
const CRAWL_PAGES: usize = 10_000;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let dir = common::data_dir("LANGCRAWL_REAL_HTML", "real-html", "tests/real-html");
    main_text_f1(&dir)?;
    export_speed().await
}

/// Mean, median and lowest F1 of the main text against Readability's.
fn main_text_f1(dir: &Path) -> anyhow::Result<()> {
    let mut scores = Vec::new();
    let mut no_article = 0;
    let started = Instant::now();
    for entry in std::fs::read_dir(dir)? {
        let page = entry?.path();
        let (Ok(source), Ok(expected)) = (
            std::fs::read(page.join("source.html")),
            std::fs::read_to_string(page.join("expected.html")),
        ) else {
            continue;
        };
        let name = page
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let html = String::from_utf8_lossy(&source);
        let found = extract(&html, &format!("http://fakehost/{name}/"));
        no_article += usize::from(found.is_none());
        let text = found.map(|m| m.text).unwrap_or_default();
        scores.push((token_f1(&text, &html_text(&expected)), name));
    }
    let secs = started.elapsed().as_secs_f64();
    scores.sort_by(|a, b| a.0.total_cmp(&b.0));
    let n = scores.len().max(1);
    let mean = scores.iter().map(|s| s.0).sum::<f64>() / n as f64;
    println!("main text against Readability.js ({}):\n", dir.display());
    println!("| pages | mean token F1 | median | pages >= 0.9 | no article | aim | pages/s |");
    println!("|---:|---:|---:|---:|---:|---|---:|");
    println!(
        "| {} | {mean:.3} | {:.3} | {} | {no_article} | >= 0.85 | {:.0} |",
        scores.len(),
        scores.get(n / 2).map_or(0.0, |s| s.0),
        scores.iter().filter(|s| s.0 >= 0.9).count(),
        scores.len() as f64 / secs
    );
    let worst: Vec<String> = scores
        .iter()
        .take(5)
        .map(|(f, p)| format!("{p} {f:.2}"))
        .collect();
    println!("\nlowest: {}\n", worst.join(", "));
    Ok(())
}

/// Fetches and parses `CRAWL_PAGES` pages of the synthetic web, then times
/// both exports over them.
async fn export_speed() -> anyhow::Result<()> {
    let tmp = tempfile::tempdir()?;
    let spec = WebSpec {
        seed: 1,
        hosts: 300,
        pages: 20_000,
        chrome: true,
        ..WebSpec::default()
    };
    let (websim, engine, crawl) = common::generated_round(tmp.path(), spec, CRAWL_PAGES).await?;
    langcrawl::fetch::run(&crawl, &common::local_fetch_options(&websim.proxy_url())).await?;
    langcrawl::parse::run(&crawl)?;

    let started = Instant::now();
    let options = warc::WarcOptions {
        out: tmp.path().join("warc"),
        rounds: RoundRange::default(),
        only_target: false,
        max_file_bytes: 1 << 30,
    };
    let w = warc::export(&engine, &crawl, &options).await?;
    let warc_secs = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let options = text::TextOptions {
        out: tmp.path().join("corpus.jsonl.gz"),
        lang: None,
        rounds: RoundRange::default(),
        min_chars: 200,
        dedup: true,
        near_bits: 3,
        site_boilerplate_pages: 3,
    };
    let t = text::export(&engine, &crawl, &options).await?;
    let text_secs = started.elapsed().as_secs_f64();
    println!("export speed (synthetic web with menus and footers, {CRAWL_PAGES} URLs fetched):\n");
    println!("| export | work | seconds | pages/s |");
    println!("|---|---|---:|---:|");
    println!(
        "| warc | {} requests and responses ({} revisits), {:.1} MB | {warc_secs:.2} | {:.0} |",
        w.exchanges,
        w.revisits,
        w.bytes as f64 / 1e6,
        w.exchanges as f64 / warc_secs
    );
    println!(
        "| text --dedup | {} Japanese pages, {} written ({} exact, {} near duplicates) | {text_secs:.2} | {:.0} |",
        t.pages,
        t.written,
        t.exact_duplicates,
        t.near_duplicates,
        t.pages as f64 / text_secs
    );
    Ok(())
}
