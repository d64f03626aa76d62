//! `export warc` and `export text`: what archivists and corpus builders
//! take home from a crawl.

use super::super::export_args::{ExportCommand, TextArgs, WarcArgs};
use super::Context;
use crate::error::Result;
use crate::export::{text, warc};
use crate::lang::TargetLang;
use crate::store::CrawlDir;

pub(in crate::cli) async fn export(ctx: &Context, command: &ExportCommand) -> Result<()> {
    let out = match command {
        ExportCommand::Warc(args) => &args.out,
        ExportCommand::Text(args) => &args.out,
    };
    crate::store::outside::refuse_inside_crawl(&ctx.root, out, "-o")?;
    let crawl = CrawlDir::open_read_only(&ctx.root)?;
    match command {
        ExportCommand::Warc(args) => export_warc(ctx, &crawl, args).await,
        ExportCommand::Text(args) => export_text(ctx, &crawl, args).await,
    }
}

async fn export_warc(ctx: &Context, crawl: &CrawlDir, args: &WarcArgs) -> Result<()> {
    let options = warc::WarcOptions {
        out: args.out.clone(),
        rounds: args.rounds.unwrap_or_default(),
        only_target: args.only_target,
        max_file_bytes: args.max_file_size as u64,
    };
    let report = warc::export(&ctx.engine, crawl, &options).await?;
    ctx.say(format!(
        "export warc: {} requests and responses ({} revisits: a payload already stored or a 304; {} truncated) in {} file(s), {} bytes -> {}",
        report.exchanges,
        report.revisits,
        report.truncated,
        report.files.len(),
        report.bytes,
        args.out.display()
    ));
    if report.exchanges == 0 {
        ctx.say("export warc: no answered request with its request kept (a simulated crawl, or segments fetched before langcrawl kept requests)");
    }
    Ok(())
}

async fn export_text(ctx: &Context, crawl: &CrawlDir, args: &TextArgs) -> Result<()> {
    let lang = args
        .lang
        .as_deref()
        .map(TargetLang::parse)
        .transpose()?
        .map(|l| l.code().to_string());
    let options = text::TextOptions {
        out: args.out.clone(),
        lang,
        rounds: args.rounds.unwrap_or_default(),
        min_chars: args.min_chars,
        dedup: args.dedup,
        near_bits: args.near_bits,
        site_boilerplate_pages: args.site_boilerplate,
    };
    let r = text::export(&ctx.engine, crawl, &options).await?;
    let versions = match r.later_versions {
        0 => String::new(),
        n => format!(" ({n} later fetches of them not exported)"),
    };
    ctx.say(format!(
        "export text: {} pages in {}{versions}; {} repeated site lines removed; left out: {} without main text, {} under {} chars, {} exact and {} near duplicates; {} written -> {}",
        r.pages,
        r.lang,
        r.boilerplate_lines,
        r.no_main_text,
        r.too_short,
        args.min_chars,
        r.exact_duplicates,
        r.near_duplicates,
        r.written,
        args.out.display()
    ));
    Ok(())
}
