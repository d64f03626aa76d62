//! Parse throughput on one core, per stage and in all (charset, DOM, text,
//! language, links), on real pages and on the synthetic web's pages.
//!
//! Real pages: `$LANGCRAWL_REAL_HTML` if set, else the full shared
//! collection (`../shared/corpus/real-html`, 114 pages) when it is there,
//! else the handful in `tests/real-html`. Run by `scripts/bench-parse`.

use std::path::Path;
use std::time::Instant;

use langcrawl::lang;
use langcrawl::parse::html::extract;
use langcrawl::parse::{parse_one, FetchedPage};
use langcrawl::websim::{Web, WebSpec};

mod common;

fn main() -> anyhow::Result<()> {
    let dir = common::data_dir("LANGCRAWL_REAL_HTML", "real-html", "tests/real-html");
    let real = real_pages(&dir)?;
    let synthetic = synthetic_pages(2_000);
    println!("real pages: {}", dir.display());
    println!(
        "one core, release build; each measure repeated for at least 2 s, each pass a new thread\n"
    );
    println!("| input | measure | pages | mean KB | pages/s | MB/s of HTML |");
    println!("|---|---|---:|---:|---:|---:|");
    for (input, pages) in [("real pages", &real), ("synthetic web", &synthetic)] {
        measure(input, "charset + decode", pages, |p| {
            std::hint::black_box(lang::decode(&p.1, p.2.as_deref(), None));
        });
        let decoded: Vec<Page> = pages
            .iter()
            .map(|p| {
                (
                    p.0.clone(),
                    lang::decode(&p.1, None, None).text.into_bytes(),
                    None,
                )
            })
            .collect();
        measure(input, "DOM + text + links", &decoded, |p| {
            std::hint::black_box(extract(std::str::from_utf8(&p.1).unwrap_or_default()));
        });
        // A Japanese crawl; a Czech one also names every Latin anchor by
        // the second stage (one warm-up pass loads its models first).
        for target in ["jpn", "ces"] {
            let parse = |p: &Page| {
                let input = FetchedPage {
                    url: &p.0,
                    host: "bench.example",
                    status: "fetched",
                    content_type: p.2.as_deref(),
                    content: Some(&p.1),
                    ..FetchedPage::default()
                };
                std::hint::black_box(parse_one(&input, Some(target)));
            };
            pages.iter().for_each(parse);
            measure(
                input,
                &format!("whole parse, crawling {target}"),
                pages,
                parse,
            );
        }
    }
    Ok(())
}

/// A page: its URL, bytes and Content-Type.
type Page = (String, Vec<u8>, Option<String>);

fn real_pages(dir: &Path) -> anyhow::Result<Vec<Page>> {
    let mut pages = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path().join("source.html");
        if let Ok(bytes) = std::fs::read(&path) {
            let name = path.parent().and_then(|p| p.file_name());
            let name = name.map(|n| n.to_string_lossy()).unwrap_or_default();
            pages.push((format!("http://real.example/{name}/"), bytes, None));
        }
    }
    pages.sort();
    Ok(pages)
}

/// The first `n` pages the procedural synthetic web serves with status 200.
fn synthetic_pages(n: usize) -> Vec<Page> {
    let web = Web::generate(WebSpec::default());
    let mut pages = Vec::new();
    'hosts: for (h, host) in web.hosts.iter().enumerate() {
        for j in 0..host.pages {
            let path = web.page_path(h, j);
            let answer = web.respond(&host.name, &path);
            if answer.status == 200 {
                pages.push((
                    format!("http://{}{path}", host.name),
                    answer.body,
                    answer.content_type,
                ));
            }
            if pages.len() == n {
                break 'hosts;
            }
        }
    }
    pages
}

/// Runs `work` over `pages` for at least two seconds and prints a row.
/// Each pass is a new thread, as a parse worker that has seen none of the
/// pages: the words and anchors a worker keeps would otherwise answer
/// every pass after the first.
fn measure(input: &str, label: &str, pages: &[Page], work: impl Fn(&Page) + Sync) {
    let bytes: usize = pages.iter().map(|p| p.1.len()).sum();
    let (mut rounds, started) = (0usize, Instant::now());
    while rounds == 0 || started.elapsed().as_secs_f64() < 2.0 {
        std::thread::scope(|s| {
            s.spawn(|| pages.iter().for_each(&work));
        });
        rounds += 1;
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "| {input} | {label} | {} | {:.1} | {:.0} | {:.1} |",
        pages.len(),
        bytes as f64 / pages.len().max(1) as f64 / 1e3,
        (rounds * pages.len()) as f64 / secs,
        (rounds * bytes) as f64 / secs / 1e6
    );
}
