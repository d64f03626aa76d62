//! `simulate` (replay strategies over a web graph) and `graph export` (a
//! finished crawl as a web graph).

use std::path::Path;

use super::super::args::SimulateArgs;
use super::Context;
use crate::error::{Error, Result};
use crate::lang::TargetLang;
use crate::report::Format;
use crate::store::CrawlDir;
use crate::strategy::LinkSelection;

pub(in crate::cli) async fn simulate(ctx: &Context, args: &SimulateArgs) -> Result<()> {
    let web = crate::webgraph::WebDir::open(&args.web)?;
    let info = web.info()?;
    let target = TargetLang::parse(&info.target_lang)?;
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
        // The ontology needs tables written for the crawl's topic (the
        // built-in ones are the university web's).
        let topic = args.params.importance.is_some() || info.target_class.is_some();
        crate::strategy::STRATEGIES
            .iter()
            .map(|s| s.name)
            .filter(|&name| !name.starts_with("ontology") || topic)
            .collect()
    } else {
        args.strategy.iter().map(String::as_str).collect()
    };
    if let Some(twice) = names
        .iter()
        .enumerate()
        .find_map(|(i, n)| names[..i].contains(n).then_some(n))
    {
        return Err(Error::Usage(format!(
            "--strategy {}: {twice} is named twice (each strategy is one crawl of the replay)",
            args.strategy.join(",")
        )));
    }
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
    let mut log = |line: String| ctx.say(line);
    crate::sim::run(&ctx.engine, &options, &mut log).await?;
    if ctx.quiet {
        return Ok(());
    }
    print_tables(ctx, &crate::sim::SimDir::new(&args.out)).await
}

/// Prints a simulation's final table and the pages each strategy needed
/// to reach 90% and 99% of bfs's coverage.
pub(in crate::cli) async fn print_tables(ctx: &Context, sim: &crate::sim::SimDir) -> Result<()> {
    let table = crate::sim::final_table(&ctx.engine, sim).await?;
    println!(
        "\nFinal table (details in {}: metrics.csv, miss_by_distance.csv, round_times.csv, query_times.csv, one crawl per strategy):\n{}",
        sim.root().display(),
        crate::report::format(&table, Format::Table)?
    );
    let goals = crate::sim::coverage_goals(&ctx.engine).await?;
    println!(
        "\nPages to reach 90% and 99% of the coverage bfs reaches, and the harvest rate there:\n{}",
        crate::report::format(&goals, Format::Table)?
    );
    Ok(())
}

pub(in crate::cli) fn import_graph(ctx: &Context, from: &Path, out: &Path) -> Result<()> {
    let imported = crate::webgraph::import::run(from, out)?;
    ctx.say(format!(
        "graph import: {} pages, {} links, {} seeds, target {} -> {}",
        imported.pages,
        imported.links,
        imported.seeds,
        imported.target_lang,
        out.display()
    ));
    Ok(())
}

pub(in crate::cli) async fn export_graph(ctx: &Context, out: &Path) -> Result<()> {
    crate::store::outside::refuse_inside_crawl(&ctx.root, out, "-o")?;
    let crawl = CrawlDir::open_read_only(&ctx.root)?;
    let exported = crate::sim::export::run(&ctx.engine, &crawl, out).await?;
    ctx.say(format!(
        "graph export: {} pages, {} links, {} seeds -> {}",
        exported.pages,
        exported.links,
        exported.seeds,
        out.display()
    ));
    Ok(())
}
