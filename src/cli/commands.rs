//! The commands with more to them than one phase call: `crawl`,
//! `refilter`, `simulate`, `websim`, `detect`.

use std::path::Path;

use super::args::*;
use super::options::set;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::lang::TargetLang;
use crate::report::Format;
use crate::store::{CrawlConfig, CrawlDir};
use crate::strategy::LinkSelection;

pub(super) async fn run_crawl(
    engine: &Engine,
    root: &Path,
    args: &CrawlArgs,
    quiet: bool,
) -> Result<()> {
    let existing = match CrawlDir::open(root) {
        Ok(crawl) => Some(crawl),
        Err(e) if args.seeds.is_some() => {
            if root.join("crawl.json").exists() {
                return Err(e);
            }
            None
        }
        Err(e) => return Err(e),
    };
    let mut config = match &existing {
        Some(crawl) => CrawlConfig::load(crawl)?,
        None => CrawlConfig::default(),
    };
    set(&mut config.limits.max_retries, args.generate.max_retries);
    let update = args.update.resolve(&mut config)?;
    let options = crate::crawl::CrawlOptions {
        seeds: args.seeds.clone(),
        rounds: args.rounds,
        generate: args.generate.options(),
        fetch: crate::fetch::FetchOptions {
            allow_private: update.limits.allow_private,
            ..args.fetch.options(quiet)?
        },
        update,
    };
    let mut say = |line: String| {
        if !quiet {
            println!("{line}");
        }
    };
    let crawl = crate::crawl::run(engine, root, &options, config, &mut say).await?;
    if !quiet {
        println!("\n{}", crate::report::full_report(engine, &crawl).await?);
    }
    Ok(())
}

pub(super) async fn run_refilter(
    engine: &Engine,
    root: &Path,
    args: &RefilterArgs,
    quiet: bool,
) -> Result<()> {
    let crawl = CrawlDir::open(root)?;
    let name = match (&args.name, &args.update.strategy) {
        (Some(name), _) => name.clone(),
        (None, Some(strategy)) => strategy.clone(),
        (None, None) if args.compare => {
            return Err(Error::Usage(
                "--compare without --strategy compares an existing set: name it with --name".into(),
            ))
        }
        (None, None) => {
            return Err(Error::Usage(
                "--strategy is required: the strategy to re-run (e.g. server-conservative)".into(),
            ))
        }
    };
    if args.update.strategy.is_some() {
        // The crawl's settings are the base; nothing is saved back.
        let mut config = CrawlConfig::load(&crawl)?;
        let options = crate::refilter::RefilterOptions {
            selection: args.update.resolve(&mut config)?,
            name: name.clone(),
            rounds: args.rounds.unwrap_or_default(),
        };
        for round in crate::refilter::run(engine, &crawl, &options).await? {
            if !quiet {
                println!(
                    "refilter round {}: {} links decided, {} accepted -> {}",
                    round.round,
                    round.links,
                    round.accepted,
                    crawl.decision_set(round.round, &name).display()
                );
            }
        }
    }
    if args.compare {
        let table = crate::refilter::compare(engine, &crawl, &name).await?;
        println!(
            "Decision set {name:?} beside the crawl's own decisions:\n{}",
            crate::report::format(&table, Format::Table)?
        );
    }
    Ok(())
}

pub(super) async fn generate_web(engine: &Engine, args: &GenerateWebArgs) -> Result<()> {
    let target = TargetLang::parse(&args.lang)?;
    let Some(index) = crate::websim::corpus::lang_index(target.code()) else {
        let known: Vec<&str> = crate::websim::corpus::LANGS
            .iter()
            .map(|l| l.code)
            .collect();
        return Err(Error::Usage(format!(
            "--lang {}: the synthetic web has no text in {} (it has {})",
            args.lang,
            target.code(),
            known.join(", ")
        )));
    };
    if args.pages < 100 {
        return Err(Error::Usage(format!(
            "--pages {}: at least 100",
            args.pages
        )));
    }
    let spec = crate::websim::calibrated::CalibratedSpec {
        target: index,
        pages: args.pages,
        seed: args.seed,
    };
    let started = std::time::Instant::now();
    let info = crate::websim::web_stats::generate_into(engine, spec, &target, &args.out).await?;
    println!(
        "websim: wrote a web of {} pages and {} links for {} to {} in {:.1} s; seeds: {}\n",
        info.pages,
        info.links,
        target.code(),
        args.out.display(),
        started.elapsed().as_secs_f64(),
        info.seeds.join(" ")
    );
    print!("{}", crate::websim::web_stats::table(&info.stats));
    Ok(())
}

pub(super) async fn simulate(engine: &Engine, args: &SimulateArgs, quiet: bool) -> Result<()> {
    let web = crate::webgraph::WebDir::open(&args.web)?;
    let target = TargetLang::parse(&web.info()?.target_lang)?;
    if let Some(lang) = &args.lang {
        let asked = TargetLang::parse(lang)?;
        if asked != target {
            return Err(Error::Usage(format!(
                "--lang {lang}: the web {} is for {}",
                args.web.display(),
                target.code()
            )));
        }
    }
    let names: Vec<&str> = if args.strategy.iter().any(|s| s == "all") {
        // The ontology needs tables written for the crawl's topic.
        crate::strategy::STRATEGIES
            .iter()
            .map(|s| s.name)
            .filter(|&name| name != "ontology" || args.params.importance.is_some())
            .collect()
    } else {
        args.strategy.iter().map(String::as_str).collect()
    };
    let mut selections = Vec::new();
    for name in names {
        let mut selection = LinkSelection::new(crate::strategy::find(name)?, target.clone());
        args.params.apply(&mut selection.params)?;
        selections.push(selection);
    }
    let options = crate::sim::SimulateOptions {
        web: args.web.clone(),
        selections,
        pages: args.pages,
        round_size: args.round_size,
        rounds: args.rounds,
        out: args.out.clone(),
    };
    let mut log = |line: String| {
        if !quiet {
            println!("{line}");
        }
    };
    let table = crate::sim::run(engine, &options, &mut log).await?;
    println!(
        "\nFinal table (details in {}: metrics.csv, miss_by_distance.csv, one crawl per strategy):\n{}",
        args.out.display(),
        crate::report::format(&table, Format::Table)?
    );
    Ok(())
}

pub(super) async fn serve_websim(args: &WebsimArgs) -> Result<()> {
    if let Some(dir) = &args.web {
        return serve_graph(args, dir).await;
    }
    let web = crate::websim::Web::generate(crate::websim::WebSpec {
        seed: args.seed,
        hosts: args.hosts.max(1),
        pages: args.pages.max(1),
    });
    let listener = crate::websim::server::bind(args.listen)?;
    let addr = listener.local_addr().map_err(Error::io("listener"))?;
    println!(
        "websim: {} hosts, {} pages (seed {}) on http://{addr}; crawl it with --proxy http://{addr}",
        web.hosts.len(),
        web.hosts.iter().map(|h| h.pages as usize).sum::<usize>(),
        args.seed
    );
    println!(
        "seeds (Japanese front pages): {}",
        web.seeds("jpn", 3).join(" ")
    );
    crate::websim::server::serve_std(std::sync::Arc::new(web), listener, None).await
}

pub(super) async fn serve_graph(args: &WebsimArgs, dir: &Path) -> Result<()> {
    let web = crate::webgraph::WebDir::open(dir)?;
    let site = crate::websim::graph_site::GraphSite::load(&web)?;
    let listener = crate::websim::server::bind(args.listen)?;
    let addr = listener.local_addr().map_err(Error::io("listener"))?;
    println!(
        "websim: the web graph {} ({} pages) on http://{addr}; crawl it with --proxy http://{addr}",
        dir.display(),
        site.graph().pages.len()
    );
    println!("seeds: {}", site.info().seeds.join(" "));
    crate::websim::server::serve_std(std::sync::Arc::new(site), listener, None).await
}

pub(super) fn detect(args: &DetectArgs) -> Result<String> {
    let target = args.lang.as_deref().map(TargetLang::parse).transpose()?;
    let bytes = crate::detect::read_input(&args.input)?;
    let found = if args.anchor {
        crate::detect::anchor(&bytes)
    } else {
        crate::detect::page(&bytes, target.as_ref())
    };
    if args.json {
        let json = serde_json::to_string(&found)
            .map_err(|e| Error::Other(format!("writing JSON: {e}")))?;
        Ok(json + "\n")
    } else {
        Ok(found.to_lines())
    }
}
