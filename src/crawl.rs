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
    /// `--until`: no phase starts after this time (fetch stops requesting
    /// at it); the crawl ends cleanly.
    pub until: Option<std::time::SystemTime>,
}

/// Runs `options.rounds` rounds; each phase's one-line summary goes to `log`.
pub async fn run(
    engine: &Engine,
    root: &std::path::Path,
    options: &CrawlOptions,
    config: CrawlConfig,
    log: &mut dyn FnMut(String),
) -> Result<CrawlDir> {
    let fetch_settings = config.fetch.clone();
    let crawl = match &options.seeds {
        Some(seeds) => {
            let report = crate::inject::run(engine, root, seeds, Some(config)).await?;
            for line in &report.rejected {
                // a warning, not progress: shown under --quiet too
                eprintln!("{}", line.warning(seeds));
            }
            log(report.to_string());
            // inject's writer lock, kept through the last round
            report.crawl
        }
        None => CrawlDir::open(root)?,
    };
    save_settings(&crawl, &options.update, fetch_settings)?;
    if let Some(why) = stopped_already(engine, &crawl).await? {
        log(format!(
            "{}: stopped: {why}; change the stop rule (--min-yield, --max-pages) to go on",
            crawl.root().display()
        ));
        return Ok(crawl);
    }
    for _ in 0..options.rounds {
        if !finish_round(engine, &crawl, options, log).await? {
            if let Some(why) = stopping(options) {
                log(format!(
                    "crawl stopped: {why}; `langcrawl crawl` goes on from the last phase committed"
                ));
            }
            break;
        }
        if let Some(why) = crate::stop::after_round(engine, &crawl, Some(log)).await? {
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
    crate::stop::after_round(engine, crawl, None).await
}

/// Records the target, strategy, parameters and fetch settings in crawl.json.
fn save_settings(
    crawl: &CrawlDir,
    selection: &LinkSelection,
    fetch: crate::store::FetchSettings,
) -> Result<()> {
    let mut config = CrawlConfig::load(crawl)?;
    config.fetch = fetch;
    config.target_lang = Some(selection.target_lang.code().to_string());
    config.strategy = selection.strategy.name.to_string();
    config.params = selection.params.clone();
    config.limits = selection.limits.clone();
    config.save(crawl)
}

/// Why the crawl is to stop before its next phase: a stop request, or
/// `--until` passed.
fn stopping(options: &CrawlOptions) -> Option<&'static str> {
    if options.fetch.stop.is_requested() {
        return Some("asked to stop (SIGINT/SIGTERM)");
    }
    let passed = options
        .until
        .is_some_and(|t| std::time::SystemTime::now() >= t);
    passed.then_some("--until time reached")
}

/// The fetch options of a round: `--until` (`until`) bounds the fetch
/// phase where it comes before `--max-fetch-time`.
fn fetch_options(fetch: &FetchOptions, until: Option<std::time::SystemTime>) -> FetchOptions {
    let mut fetch = fetch.clone();
    let left = until.and_then(|t| t.duration_since(std::time::SystemTime::now()).ok());
    if let Some(left) = left.filter(|&left| fetch.max_fetch_time.is_none_or(|t| left < t)) {
        fetch.max_fetch_time = Some(left.max(std::time::Duration::from_millis(1)));
        fetch.max_fetch_time_reason = "the crawl's end time (--until) was reached";
    }
    fetch
}

/// Runs the phases the latest round still needs, generating a new round if
/// the last one is complete. Returns false when there is nothing to fetch.
async fn finish_round(
    engine: &Engine,
    crawl: &CrawlDir,
    options: &CrawlOptions,
    log: &mut dyn FnMut(String),
) -> Result<bool> {
    let stop = || stopping(options).is_some();
    let latest = crawl.latest_round()?;
    let complete = match latest {
        None => true,
        Some(round) => crawl.merged_round()? >= round,
    };
    if stop() {
        return Ok(false);
    }
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
        if stop() {
            return Ok(false);
        }
        log(
            crate::fetch::run(crawl, &fetch_options(&options.fetch, options.until))
                .await?
                .to_string(),
        );
    }
    if !crawl.has(round, Phase::Parse) {
        if stop() {
            return Ok(false);
        }
        log(crate::parse::run(crawl)?.to_string());
    }
    if stop() {
        return Ok(false);
    }
    log(crate::updatedb::run(engine, crawl, &options.update)
        .await?
        .to_string());
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, SystemTime};

    #[test]
    fn the_fetch_phase_ends_at_the_nearer_limit_and_says_which() {
        let hour = Duration::from_secs(3600);
        let until = Some(SystemTime::now() + hour);
        let bounded = fetch_options(&FetchOptions::default(), until);
        assert!(bounded.max_fetch_time.is_some_and(|t| t <= hour));
        assert!(bounded.max_fetch_time_reason.contains("--until"));
        let minute = FetchOptions {
            max_fetch_time: Some(Duration::from_secs(60)),
            ..FetchOptions::default()
        };
        let bounded = fetch_options(&minute, until);
        assert_eq!(bounded.max_fetch_time, Some(Duration::from_secs(60)));
        assert_eq!(
            bounded.max_fetch_time_reason,
            crate::fetch::FETCH_TIME_REACHED
        );
        assert_eq!(
            fetch_options(&minute, None).max_fetch_time,
            minute.max_fetch_time
        );
    }
}
