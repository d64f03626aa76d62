//! The memory benchmark run by `scripts/bench-memory`: the peak resident
//! memory (RSS) of the phases that hold the most, each run as its own
//! `langcrawl` process so each has its own peak (read with `wait4`):
//!
//! - fetch of 20,000 pages of 1 MiB from a server on 127.0.0.1 (aim: < 1 GiB),
//! - parse of 1,000 pages of 1 MiB with ~20,000 links each (aim: < 2 GiB),
//! - updatedb of a round of 1,000,000 links into a 10,000,000-URL crawldb
//!   (aim: < 4 GiB), with `bfs` and, on a copy, with `adaptive` (which
//!   learns from every link and scores each; aim: at most twice bfs's time).
//!
//! `LANGCRAWL_BENCH_SCALE` (default 1) scales the page, URL and link counts
//! (not the size of a page or its links) for a smoke run;
//! `LANGCRAWL_BENCH_MEMORY_LIMIT` passes `--memory-limit` to every step;
//! `LANGCRAWL_BENCH_STEPS` (default `fetch,parse,updatedb`) picks the steps;
//! `LANGCRAWL_BENCH_DIR` holds the crawls (default: a temp folder; the full
//! run writes a few GB). The setup steps (inject, generate, the fetches
//! that feed parse and updatedb) are listed too, without an aim.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, Context};
use langcrawl::websim::render::SimResponse;
use langcrawl::websim::server::Site;
use langcrawl::websim::spawn_background;

const MIB: usize = 1 << 20;
const GIB: u64 = 1 << 30;
/// Links on a link-dense page (about 52 bytes each fill 1 MiB).
const DENSE_LINKS: usize = 20_000;
/// Links on a page of the updatedb round.
const ROUND_LINKS: usize = 100;
/// Seed URLs per injected file (about 80 MB).
const SEEDS_PER_FILE: usize = 2_000_000;

/// URLs per host in the seeds.
const PER_HOST: usize = 100;

/// The benchmark's web: `/big/*` answers 1 MiB of text, `/dense/*` 1 MiB
/// of links, any other page 100 links to new pages; no robots.txt.
struct BenchWeb {
    big: Vec<u8>,
}

impl Site for BenchWeb {
    fn respond(&self, host: &str, path: &str) -> SimResponse {
        let (status, body) = if path == "/robots.txt" {
            (404, Vec::new())
        } else if path.starts_with("/big/") {
            (200, self.big.clone())
        } else if path.starts_with("/dense/") {
            (200, links_page(path, "d", DENSE_LINKS))
        } else {
            (200, links_page(&format!("{host}{path}"), "n", ROUND_LINKS))
        };
        SimResponse {
            status,
            content_type: Some("text/html; charset=utf-8".into()),
            location: None,
            headers: Vec::new(),
            body,
        }
    }
}

/// 1 MiB of HTML text with few links.
fn big_page() -> Vec<u8> {
    let mut html = String::from("<html><head><title>big</title></head><body>\n");
    let mut n = 0;
    while html.len() < MIB - 64 {
        html.push_str(&format!(
            "<p>Paragraph {n} of a long page, in English.</p>\n"
        ));
        n += 1;
    }
    html.push_str("</body></html>");
    html.truncate(MIB);
    html.into_bytes()
}

/// A page of `links` links to distinct pages on 1,000 hosts, each link
/// unique to the page `key`.
fn links_page(key: &str, prefix: &str, links: usize) -> Vec<u8> {
    let id = key
        .bytes()
        .fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32));
    let mut html = String::from("<html><body>\n");
    for j in 0..links {
        let host = (id as usize + j) % 1000;
        html.push_str(&format!(
            "<a href=\"http://{prefix}{host}.bench.jp/{id:x}/{j}\">l {j}</a>\n"
        ));
    }
    html.push_str("</body></html>");
    html.into_bytes()
}

/// One measured (or setup) child process.
struct Row {
    step: String,
    work: String,
    seconds: f64,
    peak: u64,
    aim: Option<u64>,
}

struct Bench {
    dir: PathBuf,
    proxy: String,
    memory_limit: Option<String>,
    rows: Vec<Row>,
    /// Lines printed under the table.
    notes: Vec<String>,
}

impl Bench {
    /// Runs `langcrawl args --crawl crawl` and records its time and peak.
    fn step(
        &mut self,
        crawl: &Path,
        args: &[&str],
        work: String,
        aim: Option<u64>,
    ) -> anyhow::Result<()> {
        let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        all.extend([
            "--quiet".into(),
            "--crawl".into(),
            crawl.display().to_string(),
        ]);
        if matches!(args.first(), Some(&"fetch")) {
            all.extend(
                [
                    "--proxy",
                    &self.proxy,
                    "--delay-ms",
                    "0",
                    "--concurrency",
                    "64",
                ]
                .map(String::from),
            );
            all.push("--allow-private".into());
        }
        if let Some(limit) = &self.memory_limit {
            all.extend(["--memory-limit".into(), limit.clone()]);
        }
        let log = self.dir.join(format!("{}.log", self.rows.len()));
        let started = Instant::now();
        let (code, peak) = common::run_langcrawl(&all, &log)?;
        if code != 0 {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            bail!("langcrawl {} exited with {code}: {text}", all.join(" "));
        }
        self.rows.push(Row {
            step: args[0].to_string(),
            work,
            seconds: started.elapsed().as_secs_f64(),
            peak,
            aim,
        });
        Ok(())
    }

    /// A new crawl of `urls` seed URLs `http://{prefix}{h}.bench.jp/{kind}/{i}`
    /// (100 per host), injected and generated into one round.
    fn crawl(
        &mut self,
        name: &str,
        prefix: &str,
        kind: &str,
        urls: usize,
    ) -> anyhow::Result<PathBuf> {
        let crawl = self.dir.join(name);
        // in files of at most SEEDS_PER_FILE URLs: inject reads at most
        // 128 MiB of seeds a file, and each inject adds to the crawldb
        for first in (0..urls).step_by(SEEDS_PER_FILE) {
            let last = (first + SEEDS_PER_FILE).min(urls);
            let seeds = self.dir.join(format!("{name}-seeds-{first}.txt"));
            let mut text = String::with_capacity((last - first) * 40);
            for i in first..last {
                text.push_str(&format!(
                    "http://{prefix}{}.bench.jp/{kind}/{i}\n",
                    i / PER_HOST
                ));
            }
            std::fs::write(&seeds, text)?;
            let seeds = seeds.display().to_string();
            self.step(
                &crawl,
                &["inject", &seeds, "--lang", "ja"],
                format!("seed URLs {first}..{last}"),
                None,
            )?;
        }
        Ok(crawl)
    }

    fn generate(&mut self, crawl: &Path, urls: usize, known: usize) -> anyhow::Result<()> {
        let n = urls.to_string();
        let args = ["generate", "--top-n", &n, "--max-per-host", &n];
        self.step(crawl, &args, format!("{urls} of {known} URLs"), None)
    }

    fn print(&self, scale: f64) {
        println!("Peak memory per step (scale {scale}; each step a process of its own):\n");
        println!("| step | work | seconds | peak RSS | aim | |");
        println!("|---|---|---:|---:|---:|---|");
        for row in &self.rows {
            let aim = row.aim.map_or("-".into(), |a| format!("< {} GiB", a / GIB));
            let verdict = match row.aim {
                Some(aim) if row.peak < aim => "ok",
                Some(_) => "OVER",
                None => "setup",
            };
            println!(
                "| {} | {} | {:.1} | {:.2} GiB | {aim} | {verdict} |",
                row.step,
                row.work,
                row.seconds,
                row.peak as f64 / GIB as f64
            );
        }
        for note in &self.notes {
            println!("\n{note}");
        }
    }
}

fn scaled(n: usize, scale: f64) -> usize {
    ((n as f64 * scale).round() as usize).max(1)
}

fn main() -> anyhow::Result<()> {
    let scale: f64 = match std::env::var("LANGCRAWL_BENCH_SCALE") {
        Ok(s) => s.parse().context("LANGCRAWL_BENCH_SCALE: not a number")?,
        Err(_) => 1.0,
    };
    if !(scale > 0.0 && scale <= 1.0) {
        bail!("LANGCRAWL_BENCH_SCALE {scale}: must be in (0, 1]");
    }
    let tmp = match std::env::var_os("LANGCRAWL_BENCH_DIR") {
        Some(dir) => tempfile::tempdir_in(dir)?,
        None => tempfile::tempdir()?,
    };
    let web = spawn_background(BenchWeb { big: big_page() }, 0)?;
    let mut bench = Bench {
        dir: tmp.path().to_path_buf(),
        proxy: web.proxy_url(),
        memory_limit: std::env::var("LANGCRAWL_BENCH_MEMORY_LIMIT").ok(),
        rows: Vec::new(),
        notes: Vec::new(),
    };

    let steps = std::env::var("LANGCRAWL_BENCH_STEPS").unwrap_or("fetch,parse,updatedb".into());
    for step in steps.split(',').map(str::trim) {
        match step {
            "fetch" => fetch(&mut bench, scale)?,
            "parse" => parse(&mut bench, scale)?,
            "updatedb" => updatedb(&mut bench, scale)?,
            other => bail!("LANGCRAWL_BENCH_STEPS: no step {other:?} (fetch, parse, updatedb)"),
        }
    }
    bench.print(scale);
    Ok(())
}

fn fetch(bench: &mut Bench, scale: f64) -> anyhow::Result<()> {
    let pages = scaled(20_000, scale);
    let crawl = bench.crawl("fetch", "b", "big", pages)?;
    bench.generate(&crawl, pages, pages)?;
    let work = format!("{pages} pages of 1 MiB, concurrency 64");
    bench.step(&crawl, &["fetch"], work, Some(GIB))
}

fn parse(bench: &mut Bench, scale: f64) -> anyhow::Result<()> {
    let pages = scaled(1_000, scale);
    let crawl = bench.crawl("parse", "p", "dense", pages)?;
    bench.generate(&crawl, pages, pages)?;
    let work = format!("{pages} link-dense pages");
    bench.step(&crawl, &["fetch"], work, None)?;
    let work = format!("{pages} pages of 1 MiB, ~{DENSE_LINKS} links each");
    bench.step(&crawl, &["parse"], work, Some(2 * GIB))
}

fn updatedb(bench: &mut Bench, scale: f64) -> anyhow::Result<()> {
    let (urls, round) = (scaled(10_000_000, scale), scaled(10_000, scale));
    let crawl = bench.crawl("updatedb", "u", "page", urls)?;
    bench.generate(&crawl, round, urls)?;
    bench.step(&crawl, &["fetch"], format!("{round} pages"), None)?;
    let work = format!("{round} pages, {ROUND_LINKS} links each");
    bench.step(&crawl, &["parse"], work, None)?;
    // The same round, merged by bfs and (in a copy) by adaptive, which
    // also learns from every link and scores each: aim at most twice bfs.
    let copy = bench.dir.join("updatedb-adaptive");
    let copied = Command::new("cp")
        .arg("-a")
        .arg(&crawl)
        .arg(&copy)
        .status()?;
    if !copied.success() {
        bail!(
            "copying {} to {}: {copied}",
            crawl.display(),
            copy.display()
        );
    }
    for (strategy, dir) in [("bfs", &crawl), ("adaptive", &copy)] {
        let work = format!(
            "{} links into a crawldb of {urls} URLs, {strategy}",
            round * ROUND_LINKS
        );
        let args = ["updatedb", "--strategy", strategy];
        bench.step(dir, &args, work, Some(4 * GIB))?;
    }
    let seconds = |strategy: &str| {
        bench
            .rows
            .iter()
            .rev()
            .find(|r| r.step == "updatedb" && r.work.ends_with(strategy))
            .map_or(f64::NAN, |r| r.seconds)
    };
    bench.notes.push(format!(
        "updatedb adaptive / bfs: {:.2}x (aim: at most 2x)",
        seconds("adaptive") / seconds("bfs")
    ));
    Ok(())
}
