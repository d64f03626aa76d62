//! `scripts/bench-ballista` (feature `ballista`): the updatedb of
//! `scripts/bench.sh` — 1,000,000 new links into a 40,000-URL crawldb —
//! on local DataFusion and on Ballista started in the process
//! (`--engine ballista`), over two copies of the same round. Prints a table.

mod common;

use std::path::Path;
use std::time::Instant;

use langcrawl::engine::{Engine, EngineKind};
use langcrawl::lang::TargetLang;
use langcrawl::store::CrawlDir;
use langcrawl::strategy::LinkSelection;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let tmp = tempfile::tempdir()?;
    let (websim, engine, crawl) = common::pipeline_round(tmp.path()).await?;
    langcrawl::fetch::run(&crawl, &common::local_fetch_options(&websim.proxy_url())).await?;
    langcrawl::parse::run(&crawl)?;
    common::replace_links(&crawl, common::NEW_LINKS)?;
    let copy = tmp.path().join("crawl-ballista");
    copy_dir(crawl.root(), &copy)?;

    let update = LinkSelection::new(langcrawl::strategy::find("bfs")?, TargetLang::parse("ja")?);
    println!("| updatedb, bfs | links | new URLs | crawldb URLs | seconds | links/s |");
    println!("|---|---:|---:|---:|---:|---:|");
    let ballista = Engine::open(
        None,
        langcrawl::memory::default_limit(),
        &EngineKind::InProcess,
    )
    .await?;
    for (name, engine, dir) in [
        ("--engine local", &engine, crawl),
        (
            "--engine ballista (in process)",
            &ballista,
            CrawlDir::open(&copy)?,
        ),
    ] {
        let started = Instant::now();
        let updated = langcrawl::updatedb::run(engine, &dir, &update).await?;
        let secs = started.elapsed().as_secs_f64();
        println!(
            "| {name} | {} | {} | {} | {secs:.2} | {:.0} |",
            updated.links,
            updated.new_urls,
            updated.crawldb_urls,
            updated.links as f64 / secs
        );
    }
    Ok(())
}

/// Copies the crawl directory `from` to `to`, files and folders.
fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}
