//! `langcrawl demo`: starts the synthetic web in-process on an ephemeral
//! loopback port, crawls it for a few rounds for Japanese with the
//! recommended strategy ([`RECOMMENDED`]) and, into `bfs/` inside, with
//! `bfs`, and prints the language report, both harvest rates side by side
//! and where the crawl directories are.

use std::path::Path;

use crate::crawl::CrawlOptions;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::fetch::{client::ClientOptions, FetchOptions};
use crate::generate::GenerateOptions;
use crate::lang::TargetLang;
use crate::strategy::LinkSelection;
use crate::websim::{spawn_background, Web, WebSpec};

/// The strategy the README recommends (see its comparison tables).
pub const RECOMMENDED: &str = "adaptive";

/// Front pages of Japanese hosts used as seeds, plus a few others.
const JAPANESE_SEEDS: usize = 8;
const OTHER_SEEDS: usize = 2;

/// URLs fetched per round of the demo crawls.
const DEMO_ROUND: u64 = 200;

pub async fn run(engine: &Engine, root: &Path, rounds: u32, quiet: bool) -> Result<()> {
    prepare_dir(root)?;
    let websim = spawn_background(Web::generate(WebSpec::default()), 0)?;
    let mut seeds = websim.web.seeds("jpn", JAPANESE_SEEDS);
    seeds.extend(websim.web.seeds("eng", OTHER_SEEDS));
    std::fs::create_dir_all(root).map_err(Error::io(root))?;
    let seeds_file = root.join("seeds.txt");
    std::fs::write(&seeds_file, seeds.join("\n") + "\n").map_err(Error::io(&seeds_file))?;
    let say = |line: String| {
        if !quiet {
            println!("{line}");
        }
    };
    say(format!(
        "demo: synthetic web of {} hosts on {} (loopback only); crawling for Japanese with {RECOMMENDED}, and with bfs to compare, {rounds} rounds each",
        websim.web.hosts.len(),
        websim.proxy_url()
    ));
    let options = |strategy: &str| -> Result<CrawlOptions> {
        Ok(CrawlOptions {
            seeds: Some(seeds_file.clone()),
            rounds,
            // a budget per round, as a real crawl has: what a strategy
            // ranks first is what it fetches
            generate: GenerateOptions {
                top_n: DEMO_ROUND,
                ..GenerateOptions::default()
            },
            fetch: FetchOptions {
                client: ClientOptions {
                    proxy: Some(websim.proxy_url()),
                    connect_timeout: std::time::Duration::from_secs(5),
                    timeout: std::time::Duration::from_secs(10),
                    accept_language: Some(TargetLang::parse("ja")?.accept_language()),
                    ..ClientOptions::default()
                },
                delay: std::time::Duration::ZERO,
                max_crawl_delay: std::time::Duration::ZERO,
                quiet,
                ..FetchOptions::default()
            },
            update: LinkSelection::new(crate::strategy::find(strategy)?, TargetLang::parse("ja")?),
            until: None,
        })
    };
    let mut log = say;
    let config = crate::store::CrawlConfig::for_lang("ja")?;
    let crawl = crate::crawl::run(engine, root, &options(RECOMMENDED)?, config, &mut log).await?;
    let bfs_root = root.join("bfs");
    let config = crate::store::CrawlConfig::for_lang("ja")?;
    let bfs = crate::crawl::run(engine, &bfs_root, &options("bfs")?, config, &mut log).await?;
    let side_by_side =
        crate::report::harvest_side_by_side(engine, &[("bfs", &bfs), (RECOMMENDED, &crawl)])
            .await?;
    println!("\nThe same web, the same seeds, {rounds} rounds each:\n{side_by_side}");
    println!("\n{}", crate::report::full_report(engine, &crawl).await?);
    let dir = crawl.root().display();
    println!(
        "\nThe {RECOMMENDED} crawl is in {dir} (the bfs one in {}). Look inside with SQL, e.g.:",
        bfs_root.display()
    );
    println!("  langcrawl sql --crawl {dir} \"SELECT status, count(*) AS urls FROM crawldb GROUP BY status\"");
    println!("  langcrawl sql --crawl {dir} \"SELECT host, na, nr, state FROM servers ORDER BY nr DESC LIMIT 10\"");
    println!("  langcrawl sql --crawl {dir} \"SELECT feature, value, relevant, other, round(weight, 2) AS weight FROM model WHERE round = {rounds} ORDER BY abs(weight) DESC LIMIT 10\"");
    Ok(())
}

/// The demo starts afresh: it replaces an earlier demo crawl, but never a
/// folder that is not a crawl directory.
fn prepare_dir(root: &Path) -> Result<()> {
    if !root.exists() {
        return Ok(());
    }
    let is_crawl = root.join("crawl.json").is_file();
    let is_empty = std::fs::read_dir(root)
        .map_err(Error::io(root))?
        .next()
        .is_none();
    if is_crawl {
        // Not while another process writes it.
        let _writer = crate::store::lock::acquire(root)?;
        std::fs::remove_dir_all(root).map_err(Error::io(root))
    } else if is_empty {
        Ok(())
    } else {
        Err(Error::Usage(format!(
            "{} exists and is not a crawl directory; give the demo another --crawl DIR",
            root.display()
        )))
    }
}
