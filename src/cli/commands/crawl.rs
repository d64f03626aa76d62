//! `crawl` (rounds of every phase), `refilter` (another strategy over old
//! links) and `demo` (a crawl of the built-in synthetic web).

use std::path::Path;

use super::super::args::{CrawlArgs, DemoArgs, RefilterArgs, DEFAULT_CRAWL};
use super::super::options::set;
use super::Context;
use crate::error::{Error, Result};
use crate::report::Format;
use crate::store::{CrawlConfig, CrawlDir};

pub(in crate::cli) async fn crawl(ctx: &Context, args: &CrawlArgs) -> Result<()> {
    let (engine, root, quiet) = (&ctx.engine, ctx.root.as_path(), ctx.quiet);
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
    if let Some(crawl) = &existing {
        config.keep_target(crawl, args.update.lang.as_deref())?;
    }
    set(&mut config.limits.max_retries, args.generate.max_retries);
    let update = args.update.resolve(&mut config)?;
    let fetch = args.fetch.resolve(&mut config, quiet)?;
    crate::shutdown::listen(fetch.stop.clone());
    let options = crate::crawl::CrawlOptions {
        seeds: args.seeds.clone(),
        rounds: args.rounds,
        generate: args.generate.options(),
        fetch,
        update,
        until: args.until,
    };
    let mut say = |line: String| ctx.say(line);
    let crawl = crate::crawl::run(engine, root, &options, config, &mut say).await?;
    if !quiet {
        println!("\n{}", crate::report::full_report(engine, &crawl).await?);
    }
    crate::shutdown::stopped_by_signal(&options.fetch.stop, crate::shutdown::PART_DONE)
}

pub(in crate::cli) async fn refilter(ctx: &Context, args: &RefilterArgs) -> Result<()> {
    // a set is written whole: a signal is answered after it
    let heard = crate::shutdown::heard();
    let engine = &ctx.engine;
    let crawl = CrawlDir::open(&ctx.root)?;
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
            ctx.say(format!(
                "refilter round {}: {} links decided, {} accepted -> {}",
                round.round,
                round.links,
                round.accepted,
                crawl.decision_set(round.round, &name).display()
            ));
        }
    }
    if args.compare {
        let table = crate::refilter::compare(engine, &crawl, &name).await?;
        println!(
            "Decision set {name:?} beside the crawl's own decisions:\n{}",
            crate::report::format(&table, Format::Table)?
        );
    }
    crate::shutdown::stopped_by_signal(&heard, crate::shutdown::ALL_DONE)
}

/// `demo` crawls into `segments/demo` unless `--crawl` says otherwise.
pub(in crate::cli) async fn demo(
    ctx: &Context,
    crawl: Option<&Path>,
    args: &DemoArgs,
) -> Result<()> {
    let default = Path::new(DEFAULT_CRAWL).join("demo");
    let root = crawl.unwrap_or(&default);
    crate::demo::run(&ctx.engine, root, args.max_pages, ctx.quiet).await
}
