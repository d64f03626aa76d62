//! Replay, as Tamura evaluated strategies: crawl a recorded (or generated)
//! web graph round by round, the fetch replaced by a lookup in the graph
//! (`sql/sim/`) and every other phase the same code and SQL as a live
//! crawl — generate, updatedb, the strategy. Each strategy crawls into its
//! own crawl directory under the output folder; after each round the crawl
//! is measured (`sql/sim/metrics.sql`), and at the end the miss ratio
//! against distance from the seeds (`sql/sim/miss_by_distance.sql`).

pub mod export;
pub mod oracle;
mod round_times;

use std::path::{Path, PathBuf};
use std::time::Instant;

use datafusion::arrow::array::RecordBatch;

use crate::engine::{Engine, Params};
use crate::error::{Error, Result};
use crate::generate::GenerateOptions;
use crate::lang::TargetLang;
use crate::report::Format;
use crate::store::schema::{
    FETCH, LINKS, MISS_BY_DISTANCE, PARSE, QUERY_TIMES, ROUND_TIMES, SIM_METRICS, WEB_LINKS,
    WEB_PAGES,
};
use crate::store::segment::conform;
use crate::store::{CrawlConfig, CrawlDir, Phase, RoundId, SegmentWriter};
use crate::strategy::LinkSelection;
use crate::webgraph::WebDir;
use round_times::{PhaseTimes, RoundTime};

#[derive(Debug, Clone)]
pub struct SimulateOptions {
    pub web: PathBuf,
    /// One selection per strategy, all for the same target language.
    pub selections: Vec<LinkSelection>,
    /// Stop a strategy after this many fetch requests (None: when its queue is empty).
    pub pages: Option<u64>,
    /// URLs per round (generate's top-n).
    pub round_size: u64,
    /// Stop a strategy after this many rounds (None: no limit).
    pub rounds: Option<u32>,
    pub out: PathBuf,
}

/// Where each strategy's crawl and the tables of a simulation are.
pub struct SimDir {
    root: PathBuf,
}

impl SimDir {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        SimDir { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The crawl directory of one strategy.
    pub fn crawl(&self, strategy: &str) -> PathBuf {
        self.root.join(strategy)
    }

    pub fn metrics(&self) -> PathBuf {
        self.root.join("metrics")
    }

    pub fn miss_by_distance(&self) -> PathBuf {
        self.root.join("miss_by_distance")
    }

    /// The seconds each phase of each round took (`round_times.rs`).
    pub fn round_times(&self) -> PathBuf {
        self.root.join("round_times")
    }

    /// The seconds each query of each phase took (`round_times.rs`).
    pub fn query_times(&self) -> PathBuf {
        self.root.join("query_times")
    }

    /// The pages a perfect crawler follows links to (url, follow).
    pub fn oracle(&self) -> PathBuf {
        self.root.join("oracle")
    }

    /// The target pages the seeds reach, and how far (url, distance).
    pub fn target_distance(&self) -> PathBuf {
        self.root.join("target_distance")
    }

    fn seeds_file(&self) -> PathBuf {
        self.root.join("seeds.txt")
    }

    /// Marks the folder as a simulation's from its start, so that a
    /// simulation stopped half way is replaced by the next.
    fn marker(&self) -> PathBuf {
        self.root.join(".langcrawl-simulation")
    }

    /// True if `root` holds a simulation's tables.
    pub fn is_simulation(root: &Path) -> bool {
        SimDir::new(root).metrics().is_dir()
    }
}

/// Runs every strategy of `options` over the web graph; returns the final
/// table (one row per strategy).
pub async fn run(
    engine: &Engine,
    options: &SimulateOptions,
    log: &mut dyn FnMut(String),
) -> Result<Vec<RecordBatch>> {
    let web = WebDir::open(&options.web)?;
    let info = web.info()?;
    TargetLang::parse(&info.target_lang)?;
    let walked = oracle::walk(&web, &info.seeds, info.target())?;
    log(format!(
        "simulate: {} pages, {} links, {} target pages reachable from {} seeds",
        walked.pages,
        walked.links,
        walked.reachable_targets(),
        info.seeds.len()
    ));
    let reachable_targets = walked.reachable_targets();
    let sim = prepare_out(&options.out, &info.seeds)?;
    oracle::register(engine, &web, walked, &sim).await?;
    // with the web schemas: a web written before a column existed reads it as NULL
    engine
        .register_lookup_segment("web_pages", &web.pages(), &WEB_PAGES)
        .await?;
    engine
        .register_lookup_segment("web_links", &web.links(), &WEB_LINKS)
        .await?;

    let mut metrics = Vec::new();
    let mut misses = Vec::new();
    let mut round_times = Vec::new();
    let mut query_times = Vec::new();
    for selection in &options.selections {
        let selection = &for_web(selection, &info);
        let name = selection.strategy.name;
        let started = Instant::now();
        let crawl = start_crawl(engine, &sim, selection).await?;
        let mut times = PhaseTimes::default();
        let rounds = crawl_rounds(
            engine,
            &crawl,
            selection,
            options,
            reachable_targets,
            &mut metrics,
            &mut times,
        )
        .await?;
        let params = Params::new().set("strategy", name);
        let df = engine
            .query_file("sim/miss_by_distance.sql", &params)
            .await?;
        misses.extend(engine.collect(df).await?);
        round_times.push(times.batch(name)?);
        query_times.push(times.query_batch(name)?);
        log(format!(
            "simulate {name}: {rounds} rounds in {:.1} s ({times})",
            started.elapsed().as_secs_f64()
        ));
    }
    write_table(&sim.metrics(), SIM_METRICS.clone(), metrics)?;
    write_table(&sim.miss_by_distance(), MISS_BY_DISTANCE.clone(), misses)?;
    write_table(&sim.round_times(), ROUND_TIMES.clone(), round_times)?;
    write_table(&sim.query_times(), QUERY_TIMES.clone(), query_times)?;
    final_table(engine, &sim).await
}

/// `selection` for a crawl of the web `info` describes: in a topic web the
/// pages of its class are the relevant ones, and the class the `ontology`
/// strategies seek unless `--target-class` names another.
fn for_web(selection: &LinkSelection, info: &crate::webgraph::WebInfo) -> LinkSelection {
    let mut selection = selection.clone();
    if let Some(class) = &info.target_class {
        let params = &mut selection.params;
        params.relevant_class = Some(class.clone());
        params.target_class.get_or_insert_with(|| class.clone());
    }
    selection
}

/// Makes the output folder (replacing an earlier simulation there, never
/// another folder) and writes the seeds file the crawls inject.
fn prepare_out(out: &Path, seeds: &[String]) -> Result<SimDir> {
    crate::store::refuse_a_file(out)?;
    if out.exists() {
        let empty = std::fs::read_dir(out)
            .map_err(Error::io(out))?
            .next()
            .is_none();
        // An unfinished simulation has its marker but no tables yet.
        let started = SimDir::new(out).marker().is_file();
        if !empty && !started && !SimDir::is_simulation(out) {
            return Err(Error::Usage(format!(
                "{} exists and is not a simulation; give another -o DIR",
                out.display()
            )));
        }
        std::fs::remove_dir_all(out).map_err(Error::io(out))?;
    }
    crate::store::create_folder(out)?;
    let sim = SimDir::new(out);
    std::fs::write(sim.marker(), "").map_err(Error::io(sim.marker()))?;
    let path = sim.seeds_file();
    std::fs::write(&path, seeds.join("\n") + "\n").map_err(Error::io(&path))?;
    Ok(sim)
}

async fn start_crawl(engine: &Engine, sim: &SimDir, selection: &LinkSelection) -> Result<CrawlDir> {
    let config = CrawlConfig {
        target_lang: Some(selection.target_lang.code().to_string()),
        strategy: selection.strategy.name.to_string(),
        params: selection.params.clone(),
        limits: selection.limits.clone(),
        ..CrawlConfig::default()
    };
    let root = sim.crawl(selection.strategy.name);
    crate::inject::run(engine, &root, &sim.seeds_file(), Some(config)).await?;
    CrawlDir::open(root)
}

/// Rounds of generate, lookup, updatedb until the queue is empty or the
/// budget spent; one metrics row per round, and the time of each phase
/// in `times`. Returns the rounds run.
async fn crawl_rounds(
    engine: &Engine,
    crawl: &CrawlDir,
    selection: &LinkSelection,
    options: &SimulateOptions,
    reachable_targets: usize,
    metrics: &mut Vec<RecordBatch>,
    times: &mut PhaseTimes,
) -> Result<u32> {
    let mut requested = 0u64;
    let mut rounds = 0;
    // the crawl's start is not a round's
    engine.clock().take();
    while options.rounds.is_none_or(|limit| rounds < limit) {
        let budget = options
            .pages
            .map_or(u64::MAX, |p| p.saturating_sub(requested));
        if budget == 0 {
            break;
        }
        let generate = GenerateOptions {
            top_n: options.round_size.min(budget),
            ..GenerateOptions::default()
        };
        let started = Instant::now();
        let report = match crate::generate::run(engine, crawl, &generate).await {
            Ok(report) => report,
            Err(Error::NothingToDo(_)) => break,
            Err(e) => return Err(e),
        };
        let mut time = RoundTime {
            round: report.round,
            urls: report.urls as u64,
            generate: started.elapsed(),
            ..RoundTime::default()
        };
        requested += report.urls as u64;
        let round = RoundId(report.round);
        times.queries(engine, round.0, "generate");
        let started = Instant::now();
        look_up_round(engine, crawl, round).await?;
        time.look_up = started.elapsed();
        times.queries(engine, round.0, "look-up");
        let started = Instant::now();
        crate::updatedb::run(engine, crawl, selection).await?;
        time.updatedb = started.elapsed();
        times.queries(engine, round.0, "updatedb");
        times.push(time);
        crate::catalog::crawldb(engine, crawl).await?;
        let params = Params::new()
            .set("strategy", selection.strategy.name)
            .set("round", round.0 as i32)
            .set("reachable_targets", reachable_targets as i64);
        let df = engine.query_file("sim/metrics.sql", &params).await?;
        metrics.extend(engine.collect(df).await?);
        rounds += 1;
        let stop_rule =
            selection.params.min_yield.is_some() || selection.params.max_pages.is_some();
        let stop = stop_rule
            && crate::stop::after_round(engine, crawl, None)
                .await?
                .is_some();
        // simulate's own: the round's metrics, the stop rule
        times.queries(engine, round.0, "report");
        if stop {
            break;
        }
    }
    Ok(rounds)
}

/// The fetch and parse phases of a round, looked up in the web graph
/// (`sql/sim/fetch.sql`, `links.sql`, `parse.sql`) into the same segments
/// a live crawl writes. Each reads the round's pages and links only, never
/// a table over the whole web.
async fn look_up_round(engine: &Engine, crawl: &CrawlDir, round: RoundId) -> Result<()> {
    let no_params = Params::new();
    let steps = [
        (
            &[Phase::Fetchlist][..],
            Phase::Fetch,
            "sim/fetch.sql",
            FETCH.clone(),
        ),
        (
            &[Phase::Fetch],
            Phase::Links,
            "sim/links.sql",
            LINKS.clone(),
        ),
        (
            &[Phase::Fetch, Phase::Links],
            Phase::Parse,
            "sim/parse.sql",
            PARSE.clone(),
        ),
    ];
    for (inputs, output, sql, schema) in steps {
        crate::catalog::round(engine, crawl, round, inputs).await?;
        let df = engine.query_file(sql, &no_params).await?;
        let writer = SegmentWriter::create(&crawl.segment(round, output), schema)?;
        engine.write(df, writer).await?.commit()?;
    }
    Ok(())
}

/// Writes `batches` as the Parquet segment `dir` and beside it as `dir.csv`,
/// both cast to `schema`.
fn write_table(
    dir: &Path,
    schema: datafusion::arrow::datatypes::SchemaRef,
    batches: Vec<RecordBatch>,
) -> Result<()> {
    let batches = batches
        .iter()
        .map(|b| {
            conform(b, &schema).map_err(|message| Error::SegmentWrite {
                path: dir.to_path_buf(),
                message,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let mut writer = SegmentWriter::create(dir, schema)?;
    for batch in &batches {
        writer.write(batch)?;
    }
    writer.finish()?.commit()?;
    let csv = dir.with_extension("csv");
    let temp = dir.with_extension("csv.tmp");
    std::fs::write(&temp, crate::report::format(&batches, Format::Csv)?)
        .map_err(Error::io(&temp))?;
    std::fs::rename(&temp, &csv).map_err(Error::io(&csv))
}

/// The pages each strategy needed to reach 90% and 99% of the coverage
/// `bfs` reached, and its harvest rate there (`sql/sim/coverage_goals.sql`).
/// Call after [`final_table`], which registers `sim_metrics`.
pub async fn coverage_goals(engine: &Engine) -> Result<Vec<RecordBatch>> {
    let df = engine
        .query_file("sim/coverage_goals.sql", &Params::new())
        .await?;
    engine.collect(df).await
}

/// The simulation's final table: each strategy's last round, with its miss
/// ratio over all distances (`sql/sim/final.sql`).
pub async fn final_table(engine: &Engine, sim: &SimDir) -> Result<Vec<RecordBatch>> {
    engine
        .register_segment("sim_metrics", &sim.metrics())
        .await?;
    engine
        .register_segment("sim_miss_by_distance", &sim.miss_by_distance())
        .await?;
    let df = engine.query_file("sim/final.sql", &Params::new()).await?;
    engine.collect(df).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_simulation_started_or_finished_is_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let seeds = ["http://a.th/".to_string()];
        // Someone's folder that happens to hold a seeds.txt stays as it is.
        let theirs = tmp.path().join("project");
        std::fs::create_dir_all(&theirs).unwrap();
        std::fs::write(theirs.join("seeds.txt"), "mine").unwrap();
        let refused = prepare_out(&theirs, &seeds).err().unwrap().to_string();
        assert!(refused.contains("is not a simulation"), "{refused}");
        assert_eq!(
            std::fs::read_to_string(theirs.join("seeds.txt")).unwrap(),
            "mine"
        );
        // A simulation stopped before its tables were written is replaced.
        let out = tmp.path().join("sim");
        let sim = prepare_out(&out, &seeds).unwrap();
        std::fs::create_dir_all(sim.crawl("bfs").join("00001")).unwrap();
        let again = prepare_out(&out, &seeds).unwrap();
        assert!(!again.crawl("bfs").exists());
        assert_eq!(
            std::fs::read_to_string(out.join("seeds.txt")).unwrap(),
            "http://a.th/\n"
        );
    }
}
