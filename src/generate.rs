//! The generate phase: SQL over the crawldb (`sql/steps/generate.sql`) picks the
//! next round's fetch list — unfetched URLs by priority, then depth, at most
//! `max_per_host` per host and `top_n` in all; with a server or directory
//! strategy, an undecided server (directory) gets at most T + 1 - Na.

use std::time::Duration;

use datafusion::arrow::array::Int64Array;

use crate::engine::{Engine, Params};
use crate::error::{Error, Result};
use crate::schedule::ScheduleChange;
use crate::store::activity::ActivityFile;
use crate::store::schema::FETCHLIST;
use crate::store::{CrawlConfig, CrawlDir, Phase, RoundId, SegmentWriter};
use crate::strategy::Prune;

/// A learning strategy's round holds the new URLs at least this share as
/// likely as the best one: the rest wait for the next round's model,
/// which has learned from these (chosen on the family of webs of
/// `scripts/bench-focus`)…
const ROUND_CUT: f64 = 0.5;

/// … or as many as it takes to expect this many target pages, so that a
/// round of unlikely URLs (a crawl's tail) is not cut to a few; and never
/// fewer than the crawl's `--round-floor` share of the pages fetched so
/// far: rounds then grow geometrically and their number stays near the
/// logarithm of the crawl's size, since each round costs a pass over the
/// crawldb and the frontier.
const ROUND_EXPECT: f64 = 5.0;

#[derive(Debug, Clone)]
pub struct GenerateOptions {
    pub top_n: u64,
    pub max_per_host: u64,
    /// A URL that failed this many times is not tried again (saved in
    /// crawl.json; `None`: the crawl's).
    pub max_retries: Option<u32>,
    /// Split the fetch list into this many parts by host (1: one list).
    pub partitions: usize,
    /// The refetch settings given (saved in crawl.json).
    pub schedule: ScheduleChange,
    /// A page due within this time is fetched now.
    pub refetch_ahead: Duration,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            top_n: 50_000,
            max_per_host: 1_000,
            max_retries: None,
            partitions: 1,
            schedule: ScheduleChange::default(),
            refetch_ahead: Duration::ZERO,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct GenerateReport {
    pub round: u32,
    pub urls: usize,
    pub partitions: usize,
}

impl std::fmt::Display for GenerateReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "generate round {:05}: {} URLs in the fetch list",
            self.round, self.urls
        )?;
        if self.partitions > 1 {
            write!(
                f,
                ", split by host into {} parts (fetch and parse each with --partition I)",
                self.partitions
            )?;
        }
        Ok(())
    }
}

/// Registers `fetch_candidates` (`sql/views/fetch_candidates.sql`): a
/// view, or for a strategy that sizes its rounds (`read_twice`, read by
/// `round_size.sql` and `generate.sql`) held once, beside the crawldb.
async fn register_candidates(
    engine: &Engine,
    crawl: &CrawlDir,
    params: &Params,
    read_twice: bool,
) -> Result<Option<crate::catalog::Scratch>> {
    let candidates = engine
        .query_file("views/fetch_candidates.sql", params)
        .await?;
    if !read_twice {
        engine.register_view("fetch_candidates", candidates)?;
        return Ok(None);
    }
    let schema = std::sync::Arc::new(candidates.schema().as_arrow().clone());
    let at = crawl.root().join("fetch_candidates");
    let held = crate::catalog::scratch(engine, "fetch_candidates", candidates, &at, &schema);
    Ok(Some(held.await?))
}

/// Writes the fetch list of a new round.
pub async fn run(
    engine: &Engine,
    crawl: &CrawlDir,
    options: &GenerateOptions,
) -> Result<GenerateReport> {
    if !crawl.has_crawldb()? {
        return Err(Error::NothingToDo(format!(
            "{} has no crawldb; run `langcrawl inject` first",
            crawl.root().display()
        )));
    }
    let round = next_round(crawl)?;
    let _activity = ActivityFile::start(crawl.root(), "generate", round.0, None);
    crate::catalog::crawldb(engine, crawl).await?;
    let config = settle(crawl, options)?;
    let max_retries = config.limits.max_retries;
    let (cap_by, tolerance) = undecided_cap(&config);
    let top_n = within_max_pages(crawl, &config, options.top_n)?;
    crate::catalog::hosts(engine, crawl).await?;
    let now_ms = crate::fetch::backoff::now_ms();
    let params = Params::new()
        .set("cap_by", cap_by)
        .set("tolerance", tolerance as i64)
        .set("explore_share", explore_share(&config))
        .set("slow_start", learns(&config))
        .set("round_cut", ROUND_CUT)
        .set("round_expect", ROUND_EXPECT)
        .set("round_floor", config.params.round_floor)
        .set("top_n", top_n as i64)
        .set("max_per_host", options.max_per_host as i64)
        .set("max_retries", i64::from(max_retries))
        .set("round", round.0 as i32)
        .set("now", crate::engine::timestamp(now_ms));
    let params = config
        .recrawl
        .due_params(params, now_ms, options.refetch_ahead);
    let _candidates = register_candidates(engine, crawl, &params, learns(&config)).await?;
    let params = with_round_size(engine, params).await?;
    let df = engine.query_file("steps/generate.sql", &params).await?;
    let round_dir = crawl.round_dir(round);
    std::fs::create_dir_all(&round_dir).map_err(Error::io(&round_dir))?;
    let writer = SegmentWriter::create(&crawl.segment(round, Phase::Fetchlist), FETCHLIST.clone())?;
    let staged = engine.write(df, writer).await?;
    if staged.rows == 0 {
        std::fs::remove_dir_all(&round_dir).map_err(Error::io(&round_dir))?;
        let recrawl = match config.recrawl.refetch_after_ms {
            Some(_) => "; fetched pages come due again by their schedule (`langcrawl status` counts those due; --refetch-ahead DURATION takes them sooner)",
            None => "",
        };
        return Err(Error::NothingToDo(format!(
            "{}: no URLs left to fetch (all fetched, failed {} times, waiting for a later round, or none known){recrawl}",
            crawl.root().display(),
            max_retries
        )));
    }
    let report = GenerateReport {
        round: round.0,
        urls: staged.commit()?,
        partitions: options.partitions.max(1),
    };
    if report.partitions > 1 {
        crate::store::parts::split(crawl, round, report.partitions)?;
    }
    CrawlConfig::record(crawl, "generate", round.0, &report.to_string())?;
    Ok(report)
}

/// `params` with the next round's size (`sql/steps/round_size.sql`):
/// `$size`, `$fetched`, `$new_room` and `$explored`, computed once, not
/// in every part of the fetch list's query that needs them.
async fn with_round_size(engine: &Engine, params: Params) -> Result<Params> {
    let df = engine.query_file("steps/round_size.sql", &params).await?;
    let batches = engine.collect(df).await?;
    let row = batches
        .iter()
        .find(|b| b.num_rows() == 1)
        .ok_or_else(|| Error::Column {
            context: "sql/steps/round_size.sql".into(),
            column: "size".into(),
            message: "not one row".into(),
        })?;
    let mut params = params;
    for name in ["size", "fetched", "new_room", "explored"] {
        let column = crate::store::rows::column::<Int64Array>(row, name)?;
        params = params.set(name, column.value(0));
    }
    Ok(params)
}

/// `top_n`, or fewer if the crawl's `--max-pages` leaves fewer requests;
/// an error if it leaves none.
fn within_max_pages(crawl: &CrawlDir, config: &CrawlConfig, top_n: u64) -> Result<u64> {
    let Some(max) = config.params.max_pages else {
        return Ok(top_n);
    };
    let used = crate::stop::requests(crawl)?;
    match max.saturating_sub(used) {
        0 => Err(Error::NothingToDo(format!(
            "{}: {used} fetch requests made, --max-pages {max} reached",
            crawl.root().display()
        ))),
        left => Ok(top_n.min(left)),
    }
}

/// Whether the crawl's strategy learns (its rounds then explore and grow
/// with what it has fetched).
fn learns(config: &CrawlConfig) -> bool {
    crate::strategy::find(&config.strategy).is_ok_and(|s| s.learns)
}

/// The share of the fetch list spent exploring: the crawl's
/// `--explore-share` for a strategy that learns, else none.
fn explore_share(config: &CrawlConfig) -> f64 {
    if learns(config) {
        config.params.explore_share
    } else {
        0.0
    }
}

/// Whether the crawl's strategy judges servers or directories (then an
/// undecided one gets at most T + 1 - Na URLs a round), and its tolerance T.
fn undecided_cap(config: &CrawlConfig) -> (&'static str, u32) {
    let cap_by = match crate::strategy::find(&config.strategy).map(|s| s.prune) {
        Ok(Prune::Servers) => "server",
        Ok(Prune::Dirs) => "dir",
        _ => "none",
    };
    (cap_by, config.params.tolerance)
}

/// The crawl's settings, with `max_retries` and the refetch schedule
/// saved in them if given.
fn settle(crawl: &CrawlDir, options: &GenerateOptions) -> Result<CrawlConfig> {
    let mut config = CrawlConfig::load(crawl)?;
    let mut changed = config
        .recrawl
        .apply(&options.schedule)
        .map_err(Error::Usage)?;
    if let Some(n) = options
        .max_retries
        .filter(|&n| n != config.limits.max_retries)
    {
        config.limits.max_retries = n;
        changed = true;
    }
    if changed {
        config.save(crawl)?;
    }
    Ok(config)
}

/// The id of the round to generate: one past the latest, or the latest
/// itself if a killed generate left it without a fetch list.
fn next_round(crawl: &CrawlDir) -> Result<RoundId> {
    let Some(latest) = crawl.latest_round()? else {
        return Ok(RoundId(crawl.merged_round()?.0 + 1));
    };
    if !crawl.has(latest, Phase::Fetchlist) {
        return Ok(latest);
    }
    if crawl.merged_round()? < latest {
        let step = crawl.next_step(latest)?;
        return Err(Error::NothingToDo(format!(
            "round {latest} in {} is not finished; run `langcrawl {step}` first",
            crawl.root().display()
        )));
    }
    Ok(RoundId(latest.0 + 1))
}
