//! The pipeline benchmark run by `scripts/bench.sh`: fetch against the
//! in-process synthetic web (concurrency 64, delay 0), parse of what was
//! fetched, an updatedb that adds 1,000,000 new links to the crawldb, and
//! `simulate` of bfs over a generated 1,000,000-page calibrated web
//! (`LANGCRAWL_BENCH_SIM_PAGES` sets another size). Prints a table of
//! figures; the figures, not a pass/fail, are the result.

mod common;

use std::time::Instant;

use langcrawl::engine::Engine;
use langcrawl::lang::TargetLang;
use langcrawl::sim::SimulateOptions;
use langcrawl::strategy::LinkSelection;
use langcrawl::websim::calibrated::CalibratedSpec;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let tmp = tempfile::tempdir()?;
    let (websim, engine, crawl) = common::pipeline_round(tmp.path()).await?;

    let started = Instant::now();
    let fetched =
        langcrawl::fetch::run(&crawl, &common::local_fetch_options(&websim.proxy_url())).await?;
    let fetch_secs = started.elapsed().as_secs_f64();

    let started = Instant::now();
    let parsed = langcrawl::parse::run(&crawl)?;
    let parse_secs = started.elapsed().as_secs_f64();

    common::replace_links(&crawl, common::NEW_LINKS)?;
    let update = LinkSelection::new(langcrawl::strategy::find("bfs")?, TargetLang::parse("ja")?);
    let started = Instant::now();
    let updated = langcrawl::updatedb::run(&engine, &crawl, &update).await?;
    let update_secs = started.elapsed().as_secs_f64();

    println!("| step | work | seconds | rate | aim |");
    println!("|---|---|---:|---:|---|");
    println!(
        "| fetch (concurrency 64, delay 0) | {} pages, {} fetched | {fetch_secs:.2} | {:.0} pages/s | >= 2000 pages/s |",
        fetched.urls,
        fetched.fetched,
        fetched.urls as f64 / fetch_secs
    );
    println!(
        "| parse | {} pages, {} links | {parse_secs:.2} | {:.0} pages/s | >= 1000 pages/s |",
        parsed.pages,
        parsed.links,
        parsed.pages as f64 / parse_secs
    );
    println!(
        "| updatedb | {} links, {} new URLs, crawldb {} URLs | {update_secs:.2} | {:.0} links/s | - |",
        updated.links,
        updated.new_urls,
        updated.crawldb_urls,
        updated.links as f64 / update_secs
    );
    simulate(&engine, tmp.path()).await?;
    println!(
        "| peak memory of the benchmark process | | | {:.2} GB | < 8 GB |",
        peak_memory_gb()
    );
    Ok(())
}

/// Generates a calibrated Thai web and replays bfs over it, printing a row
/// for each.
async fn simulate(engine: &Engine, dir: &std::path::Path) -> anyhow::Result<()> {
    let pages = std::env::var("LANGCRAWL_BENCH_SIM_PAGES")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(1_000_000);
    let web_dir = dir.join("web");
    let target = TargetLang::parse("th")?;
    let spec = CalibratedSpec {
        target: langcrawl::websim::corpus::lang_index("tha").expect("Thai corpus"),
        pages,
        seed: 1,
        shape: langcrawl::websim::calibrated::Shape::TAMURA,
        shape_seed: None,
    };
    let started = Instant::now();
    let info = langcrawl::websim::web_stats::generate_into(engine, spec, &target, &web_dir).await?;
    println!(
        "| websim generate (calibrated, with statistics) | {} pages, {} links | {:.1} | {:.0} pages/s | - |",
        info.pages,
        info.links,
        started.elapsed().as_secs_f64(),
        info.pages as f64 / started.elapsed().as_secs_f64()
    );
    let options = SimulateOptions {
        web: web_dir,
        selections: vec![LinkSelection::new(
            langcrawl::strategy::find("bfs")?,
            target,
        )],
        pages: None,
        round_size: 20_000,
        rounds: None,
        out: dir.join("sim"),
    };
    let started = Instant::now();
    let table = langcrawl::sim::run(engine, &options, &mut |_| {}).await?;
    let fetched = table.first().and_then(|b| {
        b.column_by_name("pages_fetched")
            .and_then(|c| {
                c.as_any()
                    .downcast_ref::<datafusion::arrow::array::Int64Array>()
            })
            .map(|c| c.value(0))
    });
    let secs = started.elapsed().as_secs_f64();
    println!(
        "| simulate bfs (round size 20,000, until the queue is empty) | {} pages fetched | {secs:.1} | {:.0} pages/s | < 300 s |",
        fetched.unwrap_or(0),
        fetched.unwrap_or(0) as f64 / secs
    );
    Ok(())
}

/// The process's peak resident memory (VmHWM), in GB.
fn peak_memory_gb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1e6)
}
