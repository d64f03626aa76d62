//! The `crawl` loop: inject (optional), then rounds of generate, fetch,
//! parse and updatedb. An unfinished round is finished first, so a killed
//! crawl resumes where it stopped.

use std::path::PathBuf;

use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::fetch::FetchOptions;
use crate::generate::GenerateOptions;
use crate::store::{CrawlConfig, CrawlDir, Phase};
use crate::strategy::LinkSelection;

#[derive(Debug, Clone)]
pub struct CrawlOptions {
    pub seeds: Option<PathBuf>,
    pub rounds: u32,
    pub generate: GenerateOptions,
    pub fetch: FetchOptions,
    pub update: LinkSelection,
}

/// Runs `options.rounds` rounds; each phase's one-line summary goes to `log`.
pub async fn run(
    engine: &Engine,
    root: &std::path::Path,
    options: &CrawlOptions,
    config: CrawlConfig,
    log: &mut dyn FnMut(String),
) -> Result<CrawlDir> {
    let crawl = match &options.seeds {
        Some(seeds) => {
            let report = crate::inject::run(engine, root, seeds, Some(config)).await?;
            for line in &report.rejected {
                log(format!(
                    "{}:{}: skipped: {}",
                    seeds.display(),
                    line.line,
                    line.why
                ));
            }
            log(report.to_string());
            // inject's writer lock, kept through the last round
            report.crawl
        }
        None => CrawlDir::open(root)?,
    };
    save_selection(&crawl, &options.update)?;
    if let Some(why) = stopped_already(engine, &crawl).await? {
        log(format!(
            "{}: stopped: {why}; change the stop rule (--min-yield, --max-pages) to go on",
            crawl.root().display()
        ));
        return Ok(crawl);
    }
    for _ in 0..options.rounds {
        if !finish_round(engine, &crawl, options, log).await? {
            break;
        }
        if let Some(why) = crate::stop::after_round(engine, &crawl, log).await? {
            log(format!("crawl stopped: {why}"));
            break;
        }
    }
    Ok(crawl)
}

/// Why the crawl, its last round complete, is to stop before another
/// round under its current stop rule (recorded in crawl.json), if it is.
async fn stopped_already(engine: &Engine, crawl: &CrawlDir) -> Result<Option<String>> {
    let merged = crawl.merged_round()?;
    if merged.0 == 0 || crawl.latest_round()? != Some(merged) {
        return Ok(None);
    }
    crate::stop::after_round(engine, crawl, &mut |_| {}).await
}

/// Records the target, strategy and parameters in crawl.json.
fn save_selection(crawl: &CrawlDir, selection: &LinkSelection) -> Result<()> {
    let mut config = CrawlConfig::load(crawl)?;
    config.target_lang = Some(selection.target_lang.code().to_string());
    config.strategy = selection.strategy.name.to_string();
    config.params = selection.params.clone();
    config.limits = selection.limits.clone();
    config.save(crawl)
}

/// Runs the phases the latest round still needs, generating a new round if
/// the last one is complete. Returns false when there is nothing to fetch.
async fn finish_round(
    engine: &Engine,
    crawl: &CrawlDir,
    options: &CrawlOptions,
    log: &mut dyn FnMut(String),
) -> Result<bool> {
    let latest = crawl.latest_round()?;
    let complete = match latest {
        None => true,
        Some(round) => crawl.merged_round()? >= round,
    };
    if complete || latest.is_some_and(|r| !crawl.has(r, Phase::Fetchlist)) {
        match crate::generate::run(engine, crawl, &options.generate).await {
            Ok(report) => log(report.to_string()),
            Err(Error::NothingToDo(why)) => {
                log(why);
                return Ok(false);
            }
            Err(e) => return Err(e),
        }
    }
    let round = crawl.latest_round()?.expect("a round was generated");
    if !crawl.has(round, Phase::Fetch) {
        log(crate::fetch::run(crawl, &options.fetch).await?.to_string());
    }
    if !crawl.has(round, Phase::Parse) {
        log(crate::parse::run(crawl)?.to_string());
    }
    log(crate::updatedb::run(engine, crawl, &options.update)
        .await?
        .to_string());
    Ok(true)
}
