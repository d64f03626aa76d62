//! `langcrawl demo`: generates a calibrated synthetic web where the target
//! language is a small share of the pages, as on the real web (Japanese,
//! about a tenth of the pages, most of them outside .jp), serves it
//! in-process on an ephemeral loopback port, and crawls it with the same
//! seeds and the same number of requests three times: `bfs` (the control
//! group), Tamura's server-conservative ([`BEST_PAPER`]) and the
//! recommended strategy ([`RECOMMENDED`]). It prints their harvest and
//! coverage side by side and the recommended crawl's language report.

use std::path::Path;

use crate::crawl::CrawlOptions;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::fetch::{client::ClientOptions, FetchOptions};
use crate::generate::GenerateOptions;
use crate::lang::TargetLang;
use crate::report::CrawlTotals;
use crate::store::CrawlDir;
use crate::strategy::LinkSelection;
use crate::webgraph::{Graph, WebDir};
use crate::websim::calibrated::{CalibratedSpec, Shape};
use crate::websim::graph_site::GraphSite;
use crate::websim::spawn_background;

/// The strategy the guides recommend (docs/adaptive.md, docs/strategies.md).
pub const RECOMMENDED: &str = "adaptive";
/// The papers' rule shown beside them: Tamura's server-conservative. On
/// the demo web, 1,500 requests from the demo's seeds fetch 689 Japanese
/// pages with it; the other rules 660 (hard-focused) to 698 (tld-anchor),
/// bfs 206, adaptive 859.
pub const BEST_PAPER: &str = "server-conservative";

/// The demo's target language.
const TARGET: &str = "ja";
/// The demo web: Japanese, this many pages, the family's shape of this
/// seed (920 of its 10,008 pages Japanese, 81% of those outside .jp).
const WEB_PAGES: usize = 10_000;
const WEB_SEED: u64 = 1;
const WEB_SHAPE_SEED: u64 = 1;
/// Front pages of servers without a Japanese page added to the web's own
/// seeds (Japanese sites), as a seed list from a portal mixes them in.
const OTHER_SEEDS: usize = 5;
/// The file that marks a folder as the demo's.
const DEMO_MARKER: &str = ".demo";
/// URLs per round, and the most rounds a crawl of the demo takes.
const DEMO_ROUND: u64 = 250;
const MAX_ROUNDS: u32 = 100;

/// Runs the demo into `root` (the recommended crawl; the others and the
/// web in folders inside it), each strategy making at most `requests`.
pub async fn run(engine: &Engine, root: &Path, requests: u64, quiet: bool) -> Result<()> {
    prepare_dir(root)?;
    crate::store::create_folder(root)?;
    // before anything else: a demo stopped before its last crawl began
    // (no crawl.json yet) is still the demo's to replace
    let marker = root.join(DEMO_MARKER);
    std::fs::write(&marker, "written by langcrawl demo\n").map_err(Error::io(&marker))?;
    let target = TargetLang::parse(TARGET)?;
    let web_dir = root.join("web");
    let info =
        crate::websim::web_stats::generate_into(engine, web_spec(&target)?, &target, &web_dir)
            .await?;
    let site = GraphSite::load(&WebDir::open(&web_dir)?)?;
    let graph = site.graph();
    let target_pages = (0..graph.pages.len() as u32)
        .filter(|&page| graph.is_target(page, target.code()))
        .count() as u64;
    let mut seeds = info.seeds.clone();
    seeds.extend(other_seeds(graph, target.code(), OTHER_SEEDS));
    let seeds_file = root.join("seeds.txt");
    std::fs::write(&seeds_file, seeds.join("\n") + "\n").map_err(Error::io(&seeds_file))?;
    println!(
        "demo: a synthetic web of {} pages, {target_pages} of them Japanese ({:.1}%), most outside .jp, as on the real web;\n\
         seeds: {} Japanese sites and {OTHER_SEEDS} in other languages; each strategy makes at most {requests} requests, {DEMO_ROUND} a round",
        graph.pages.len(),
        100.0 * target_pages as f64 / graph.pages.len().max(1) as f64,
        info.seeds.len(),
    );
    let websim = spawn_background(site, 0)?;
    println!(
        "(the web is served on {}, loopback only)",
        websim.proxy_url()
    );
    let mut log = |line: String| {
        if !quiet {
            println!("{line}");
        }
    };
    let proxy = websim.proxy_url();
    let mut crawls = Vec::new();
    for (strategy, dir) in [
        ("bfs", root.join("bfs")),
        (BEST_PAPER, root.join(BEST_PAPER)),
        (RECOMMENDED, root.to_path_buf()),
    ] {
        let options = crawl_options(strategy, &target, &seeds_file, &proxy, requests, quiet)?;
        let config = crate::store::CrawlConfig::for_lang(&target);
        let crawl = crate::crawl::run(engine, &dir, &options, config, &mut log).await?;
        let totals = crate::report::crawl_totals(engine, &crawl).await?;
        crawls.push((strategy, crawl, totals));
    }
    println!("\n{}", side_by_side(&crawls, target_pages));
    let (_, recommended, _) = &crawls[2];
    println!(
        "\n{}",
        crate::report::full_report(engine, recommended).await?
    );
    print_next_steps(root);
    Ok(())
}

fn web_spec(target: &TargetLang) -> Result<CalibratedSpec> {
    let target = crate::websim::corpus::lang_index(target.code())
        .ok_or_else(|| Error::Usage("the synthetic web has no Japanese text".into()))?;
    Ok(CalibratedSpec {
        target,
        pages: WEB_PAGES,
        seed: WEB_SEED,
        shape: Shape::drawn(WEB_SHAPE_SEED),
        shape_seed: Some(WEB_SHAPE_SEED),
    })
}

/// The front pages of the first `n` servers (by name) without a page in
/// `code`.
fn other_seeds(graph: &Graph, code: &str, n: usize) -> Vec<String> {
    let mut has_target = vec![false; graph.hosts.len()];
    for (id, page) in graph.pages.iter().enumerate() {
        if graph.is_target(id as u32, code) {
            has_target[page.host as usize] = true;
        }
    }
    let is_front = |url: &str| url::Url::parse(url).is_ok_and(|u| u.path() == "/");
    let mut fronts: Vec<&str> = graph
        .pages
        .iter()
        .filter(|p| p.is_content() && !has_target[p.host as usize] && is_front(&p.url))
        .map(|p| p.url.as_str())
        .collect();
    fronts.sort_unstable();
    fronts.into_iter().take(n).map(str::to_string).collect()
}

fn crawl_options(
    strategy: &str,
    target: &TargetLang,
    seeds: &Path,
    proxy: &str,
    requests: u64,
    quiet: bool,
) -> Result<CrawlOptions> {
    let mut update = LinkSelection::new(crate::strategy::find(strategy)?, target.clone());
    update.params.max_pages = Some(requests);
    Ok(CrawlOptions {
        seeds: Some(seeds.to_path_buf()),
        rounds: MAX_ROUNDS,
        // a budget per round, as a real crawl has: what a strategy ranks
        // first is what it fetches
        generate: GenerateOptions {
            top_n: DEMO_ROUND,
            ..GenerateOptions::default()
        },
        fetch: FetchOptions {
            client: ClientOptions {
                proxy: Some(proxy.to_string()),
                connect_timeout: std::time::Duration::from_secs(5),
                timeout: std::time::Duration::from_secs(10),
                accept_language: Some(target.accept_language()),
                ..ClientOptions::default()
            },
            delay: std::time::Duration::ZERO,
            max_crawl_delay: std::time::Duration::ZERO,
            quiet,
            ..FetchOptions::default()
        },
        update,
        until: None,
    })
}

/// The three crawls' harvest and coverage, and what the difference means.
fn side_by_side(crawls: &[(&str, CrawlDir, CrawlTotals)], target_pages: u64) -> String {
    let mut out = String::from(
        "| strategy | requests | pages fetched | Japanese pages | harvest | coverage |\n\
         |---|---:|---:|---:|---:|---:|\n",
    );
    for (strategy, _, t) in crawls {
        out += &format!(
            "| {strategy} | {} | {} | {} | {:.3} | {:.3} |\n",
            t.requests,
            t.pages,
            t.target,
            t.harvest,
            t.target as f64 / target_pages.max(1) as f64
        );
    }
    let [(_, _, bfs), (_, _, paper), (_, _, best)] = crawls else {
        return out;
    };
    let times = |other: &CrawlTotals| best.target as f64 / other.target.max(1) as f64;
    out += &format!(
        "\nHarvest: the share of the pages fetched that are Japanese; coverage: the share of the web's \
         {target_pages} Japanese pages fetched.\nWith the same requests, {RECOMMENDED} fetched {:.1}x the \
         Japanese pages of bfs and {:.1}x those of {BEST_PAPER}: bfs would download most of this web to find them.",
        times(bfs),
        times(paper)
    );
    out
}

fn print_next_steps(root: &Path) {
    let dir = root.display();
    println!(
        "\nThe {RECOMMENDED} crawl is in {dir} (bfs's in {dir}/bfs, {BEST_PAPER}'s in {dir}/{BEST_PAPER}, the web in {dir}/web). Look inside with SQL, or replay the web, e.g.:"
    );
    println!("  langcrawl sql --crawl {dir} \"SELECT status, count(*) AS urls FROM crawldb GROUP BY status\"");
    println!("  langcrawl sql --crawl {dir} \"SELECT host, na, nr, state FROM servers ORDER BY nr DESC LIMIT 10\"");
    println!("  langcrawl sql --crawl {dir} \"SELECT feature, value, relevant, other, round(weight, 2) AS weight FROM model ORDER BY round DESC, abs(weight) DESC LIMIT 10\"");
    println!("  langcrawl simulate --web {dir}/web --strategy all -o {dir}/replay");
}

/// The demo starts afresh: it replaces an earlier demo (finished or
/// stopped), or a crawl directory, but never another folder.
fn prepare_dir(root: &Path) -> Result<()> {
    crate::store::refuse_a_file(root)?;
    if !root.exists() {
        return Ok(());
    }
    let is_empty = std::fs::read_dir(root)
        .map_err(Error::io(root))?
        .next()
        .is_none();
    if root.join(DEMO_MARKER).is_file() {
        // Not while another process writes it.
        let _writer = crate::store::lock::acquire(root)?;
        std::fs::remove_dir_all(root).map_err(Error::io(root))
    } else if is_empty {
        Ok(())
    } else if root.join("crawl.json").is_file() {
        // a crawl of the user's: the demo replaces only its own folder
        Err(Error::Usage(format!(
            "{} holds a crawl the demo did not make and would replace; give the demo another --crawl DIR",
            root.display()
        )))
    } else {
        Err(Error::Usage(format!(
            "{} exists and is not a crawl directory; give the demo another --crawl DIR",
            root.display()
        )))
    }
}
