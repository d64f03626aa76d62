//! The command line: clap structs (`args`, their doc comments are the
//! `--help` text), flags turned into the phases' options (`options`), and
//! the dispatch from a subcommand to its phase (here and `commands`).

mod args;
mod commands;
mod options;

use std::path::Path;

pub use args::*;
use commands::*;
use options::set;

use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::lang::TargetLang;
use crate::store::{CrawlConfig, CrawlDir};

/// Runs the parsed command line; `say` prints one line of progress.
pub async fn run(cli: Cli) -> Result<()> {
    crate::store::lock::set_task(cli.command.name());
    let memory_limit = cli
        .memory_limit
        .unwrap_or_else(crate::memory::default_limit);
    let engine = Engine::with_memory_limit(cli.sql_dir.clone(), memory_limit);
    let quiet = cli.quiet;
    let say = |line: String| {
        if !quiet {
            println!("{line}");
        }
    };
    let root = cli.crawl_dir();
    match &cli.command {
        Command::Inject { seeds, lang } => {
            let config = lang.as_deref().map(new_config).transpose()?;
            let report = crate::inject::run(&engine, &root, seeds, config).await?;
            for line in &report.rejected {
                eprintln!(
                    "langcrawl: {}:{}: skipped {:?}: {}",
                    seeds.display(),
                    line.line,
                    line.text,
                    line.why
                );
            }
            say(report.to_string());
            if !report.rejected.is_empty() {
                return Err(Error::Usage(format!(
                    "{}: {} lines are not http(s) URLs; the other URLs were injected",
                    seeds.display(),
                    report.rejected.len()
                )));
            }
        }
        Command::Generate(args) => {
            let crawl = CrawlDir::open(&root)?;
            say(crate::generate::run(&engine, &crawl, &args.options())
                .await?
                .to_string());
        }
        Command::Fetch(args) => {
            let crawl = CrawlDir::open(&root)?;
            let mut config = CrawlConfig::load(&crawl)?;
            set(&mut config.limits.allow_private, args.guard.allow_private);
            config.save(&crawl)?;
            let mut options = args.fetch.options(quiet)?;
            options.allow_private = config.limits.allow_private;
            say(crate::fetch::run(&crawl, &options).await?.to_string());
        }
        Command::Parse => {
            let crawl = CrawlDir::open(&root)?;
            say(crate::parse::run(&crawl)?.to_string());
        }
        Command::Updatedb(args) => {
            let crawl = CrawlDir::open(&root)?;
            let mut config = CrawlConfig::load(&crawl)?;
            let selection = args.resolve(&mut config)?;
            config.save(&crawl)?;
            say(crate::updatedb::run(&engine, &crawl, &selection)
                .await?
                .to_string());
        }
        Command::Refilter(args) => run_refilter(&engine, &root, args, quiet).await?,
        Command::Crawl(args) => run_crawl(&engine, &root, args, quiet).await?,
        Command::Sql(args) => {
            let crawl = CrawlDir::open_read_only(&root)?;
            crate::catalog::whole_crawl(&engine, &crawl, args.content).await?;
            let batches = crate::report::query(&engine, &args.query).await?;
            print!(
                "{}",
                with_newline(crate::report::format(&batches, args.format)?)
            );
        }
        Command::Report(args) => {
            if let Some(out) = &args.html {
                let figures = crate::report::html::write(&engine, &root, out).await?;
                say(format!("report: {figures} figures -> {}", out.display()));
            }
            if !crate::sim::SimDir::is_simulation(&root) {
                let crawl = CrawlDir::open_read_only(&root)?;
                println!("{}", crate::report::full_report(&engine, &crawl).await?);
            }
        }
        Command::Websim {
            command: WebsimCommand::Serve(args),
        } => serve_websim(args).await?,
        Command::Websim {
            command: WebsimCommand::Generate(args),
        } => generate_web(&engine, args).await?,
        Command::Detect(args) => print!("{}", detect(args)?),
        Command::Simulate(args) => simulate(&engine, args, quiet).await?,
        Command::Graph {
            command: GraphCommand::Export { out },
        } => {
            let crawl = CrawlDir::open_read_only(&root)?;
            let exported = crate::sim::export::run(&engine, &crawl, out).await?;
            say(format!(
                "graph export: {} pages, {} links, {} seeds -> {}",
                exported.pages,
                exported.links,
                exported.seeds,
                out.display()
            ));
        }
        Command::Demo(args) => {
            let root = cli
                .crawl
                .clone()
                .unwrap_or_else(|| Path::new(DEFAULT_CRAWL).join("demo"));
            crate::demo::run(&engine, &root, args.rounds, quiet).await?;
        }
    }
    Ok(())
}

fn with_newline(mut text: String) -> String {
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// A crawl.json for a new crawl in `lang`.
pub fn new_config(lang: &str) -> Result<CrawlConfig> {
    let lang = TargetLang::parse(lang)?;
    let mut config = CrawlConfig {
        target_lang: Some(lang.code().to_string()),
        ..CrawlConfig::default()
    };
    config.params.target_tlds = lang.default_tlds();
    Ok(config)
}
