//! The out-of-core replay benchmark run by `scripts/bench-replay`: a
//! calibrated Thai web generated (`websim generate`) and replayed with
//! `server-conservative` until its queue is empty (`simulate`), at 1M, 3M
//! and 10M pages (about ten links a page), each step its own `langcrawl`
//! process so each has its own peak resident memory. The round size grows
//! with the web (a fiftieth of its pages), so each size takes about as
//! many rounds. Aim at 10M pages: both steps in under 45 minutes, each
//! under 8 GB.
//!
//! `LANGCRAWL_BENCH_REPLAY_PAGES` (default `1000000,3000000,10000000`)
//! picks the sizes; `LANGCRAWL_BENCH_MEMORY_LIMIT` passes `--memory-limit`
//! to both steps; `LANGCRAWL_BENCH_DIR` holds the webs (default: a temp
//! folder; 10M pages write about 3 GB), each removed after its row.

mod common;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context};

const GB: f64 = 1e9;
/// The aims at the largest size: seconds for both steps, and peak bytes.
const AIM_SECONDS: f64 = 45.0 * 60.0;
const AIM_PEAK: f64 = 8.0 * GB;

/// One step's time and peak memory.
struct Step {
    seconds: f64,
    peak: u64,
}

fn main() -> anyhow::Result<()> {
    let sizes: Vec<usize> = std::env::var("LANGCRAWL_BENCH_REPLAY_PAGES")
        .unwrap_or_else(|_| "1000000,3000000,10000000".into())
        .split(',')
        .map(|s| s.trim().replace('_', "").parse())
        .collect::<Result<_, _>>()
        .context("LANGCRAWL_BENCH_REPLAY_PAGES: page counts, comma-separated")?;
    let memory_limit = std::env::var("LANGCRAWL_BENCH_MEMORY_LIMIT").ok();
    let temp = tempfile::tempdir()?;
    let dir =
        std::env::var_os("LANGCRAWL_BENCH_DIR").map_or(temp.path().to_path_buf(), PathBuf::from);
    println!(
        "Out-of-core replay (release, {} cores, memory limit {}): generate a calibrated Thai web, \
         replay server-conservative until its queue is empty\n",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        memory_limit.as_deref().unwrap_or("none")
    );
    println!(
        "| pages | links | generate s | generate peak GB | round size | rounds | pages fetched | \
         coverage | simulate s | simulate peak GB | total s |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut last = None;
    for &pages in &sizes {
        let web = dir.join(format!("web-{pages}"));
        let sim = dir.join(format!("sim-{pages}"));
        let _ = std::fs::remove_dir_all(&web);
        let _ = std::fs::remove_dir_all(&sim);
        let round_size = (pages / 50).max(1_000);
        let generate = step(
            &dir,
            &["websim", "generate", "--lang", "th", "--seed", "1"],
            &[
                ("--pages", pages.to_string()),
                ("-o", web.display().to_string()),
            ],
            &memory_limit,
        )?;
        let simulate = step(
            &dir,
            &["simulate", "--strategy", "server-conservative"],
            &[
                ("--web", web.display().to_string()),
                ("--round-size", round_size.to_string()),
                ("-o", sim.display().to_string()),
            ],
            &memory_limit,
        )?;
        let links = web_links(&web)?;
        let (rounds, fetched, coverage) = last_metrics(&sim)?;
        let total = generate.seconds + simulate.seconds;
        println!(
            "| {pages} | {links} | {:.0} | {:.2} | {round_size} | {rounds} | {fetched} | {coverage:.3} | \
             {:.0} | {:.2} | {total:.0} |",
            generate.seconds,
            generate.peak as f64 / GB,
            simulate.seconds,
            simulate.peak as f64 / GB,
        );
        last = Some((pages, total, generate.peak.max(simulate.peak)));
        std::fs::remove_dir_all(&web).ok();
        std::fs::remove_dir_all(&sim).ok();
    }
    if let Some((pages, total, peak)) = last {
        let met = total < AIM_SECONDS && (peak as f64) < AIM_PEAK;
        println!(
            "\nAt {pages} pages: {total:.0} s and {:.2} GB peak (aim: {AIM_SECONDS:.0} s, {:.0} GB): {}",
            peak as f64 / GB,
            AIM_PEAK / GB,
            if met { "met" } else { "not met" }
        );
    }
    Ok(())
}

/// Runs `langcrawl args options... -q` and measures it; a failure stops
/// the benchmark with the step's log.
fn step(
    dir: &Path,
    args: &[&str],
    options: &[(&str, String)],
    memory_limit: &Option<String>,
) -> anyhow::Result<Step> {
    let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    for (name, value) in options {
        all.extend([name.to_string(), value.clone()]);
    }
    if let Some(limit) = memory_limit {
        all.extend(["--memory-limit".into(), limit.clone()]);
    }
    all.push("--quiet".into());
    let log = dir.join("step.log");
    let started = Instant::now();
    let (code, peak) = common::run_langcrawl(&all, &log)?;
    if code != 0 {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        bail!("langcrawl {} exited with {code}: {text}", all.join(" "));
    }
    Ok(Step {
        seconds: started.elapsed().as_secs_f64(),
        peak,
    })
}

/// The links of a web, as its web.json counts them.
fn web_links(web: &Path) -> anyhow::Result<u64> {
    let text = std::fs::read_to_string(web.join("web.json"))?;
    let json: serde_json::Value = serde_json::from_str(&text)?;
    json["links"].as_u64().context("web.json: no links count")
}

/// Rounds, pages fetched and coverage in the last row of a simulation's
/// metrics.csv.
fn last_metrics(sim: &Path) -> anyhow::Result<(String, String, f64)> {
    let text = std::fs::read_to_string(sim.join("metrics.csv"))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines
        .next()
        .context("metrics.csv: empty")?
        .split(',')
        .collect();
    let last: Vec<&str> = lines
        .last()
        .context("metrics.csv: no rounds")?
        .split(',')
        .collect();
    let field = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .and_then(|i| last.get(i))
            .map(|v| v.to_string())
            .with_context(|| format!("metrics.csv: no column {name}"))
    };
    Ok((
        field("round")?,
        field("pages_fetched")?,
        field("coverage")?.parse()?,
    ))
}
