//! The phases one by one: `inject`, `generate`, `fetch`, `parse`,
//! `updatedb`. Flags given to a phase are saved in the crawl's settings
//! (`crawl.json`) for the later ones.

use std::path::Path;

use super::super::args::{FetchCommandArgs, GenerateArgs, PartitionArg, UpdateArgs};
use super::super::options::set;
use super::Context;
use crate::error::{Error, Result};
use crate::lang::TargetLang;
use crate::store::{CrawlConfig, CrawlDir};

pub(in crate::cli) async fn inject(ctx: &Context, seeds: &Path, lang: Option<&str>) -> Result<()> {
    let config = lang
        .map(|lang| TargetLang::parse(lang).map(|lang| CrawlConfig::for_lang(&lang)))
        .transpose()?;
    let report = crate::inject::run(&ctx.engine, &ctx.root, seeds, config).await?;
    for line in &report.rejected {
        eprintln!("{}", line.warning(seeds));
    }
    ctx.say(&report);
    if report.rejected.is_empty() {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "{}: {} lines are not http(s) URLs; the other URLs were injected",
        seeds.display(),
        report.rejected.len()
    )))
}

pub(in crate::cli) async fn generate(ctx: &Context, args: &GenerateArgs) -> Result<()> {
    let heard = crate::shutdown::heard();
    let crawl = CrawlDir::open(&ctx.root)?;
    let report = crate::generate::run(&ctx.engine, &crawl, &args.options()).await?;
    ctx.say(report);
    crate::shutdown::stopped_by_signal(&heard, crate::shutdown::ALL_DONE)
}

/// The crawl a phase writes: the crawl, or one part of its latest round.
fn crawl_or_part(ctx: &Context, part: &PartitionArg) -> Result<CrawlDir> {
    match part.partition {
        Some(i) => Ok(crate::store::parts::open_part(&ctx.root, i)?.0),
        None => CrawlDir::open(&ctx.root),
    }
}

pub(in crate::cli) async fn fetch(ctx: &Context, args: &FetchCommandArgs) -> Result<()> {
    let crawl = crawl_or_part(ctx, &args.part)?;
    let mut config = CrawlConfig::load(&crawl)?;
    set(&mut config.limits.allow_private, args.guard.allow_private);
    let options = args.fetch.resolve(&mut config, ctx.quiet)?;
    config.save(&crawl)?;
    crate::shutdown::listen(options.stop.clone());
    ctx.say(crate::fetch::run(&crawl, &options).await?);
    crate::shutdown::stopped_by_signal(&options.stop, crate::shutdown::PART_DONE)
}

pub(in crate::cli) fn parse(ctx: &Context, part: &PartitionArg) -> Result<()> {
    let heard = crate::shutdown::heard();
    let crawl = crawl_or_part(ctx, part)?;
    ctx.say(crate::parse::run(&crawl)?);
    crate::shutdown::stopped_by_signal(&heard, crate::shutdown::ALL_DONE)
}

pub(in crate::cli) async fn updatedb(ctx: &Context, args: &UpdateArgs) -> Result<()> {
    let heard = crate::shutdown::heard();
    let crawl = CrawlDir::open(&ctx.root)?;
    let mut config = CrawlConfig::load(&crawl)?;
    config.keep_target(&crawl, args.lang.as_deref())?;
    let selection = args.resolve(&mut config)?;
    config.save(&crawl)?;
    ctx.say(crate::updatedb::run(&ctx.engine, &crawl, &selection).await?);
    crate::shutdown::stopped_by_signal(&heard, crate::shutdown::ALL_DONE)
}
