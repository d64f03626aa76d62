//! `langcrawl status`: where a crawl stands, read-only and at any time —
//! the process writing it and the phase it is in (with its progress, from
//! `store::activity`), the rounds done and the next step, the queue by
//! status (`sql/reports/queue_by_status.sql`), the last round's target
//! share (`harvest_by_round.sql`), a stop recorded in crawl.json, and the
//! disk the crawl uses. It takes no lock and writes nothing.

use std::path::Path;

use datafusion::arrow::array::{
    Array, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
};
use serde::Serialize;

use crate::engine::{Engine, Params};
use crate::error::Result;
use crate::store::activity::{self, Activity};
use crate::store::rows::column;
use crate::store::{CrawlConfig, CrawlDir};

/// What `status` says about a crawl.
#[derive(Debug, Serialize)]
pub struct Status {
    pub crawl: String,
    pub target: Option<String>,
    pub strategy: String,
    /// The live process holding the crawl's lock (`pid (task)`), if any.
    pub writer: Option<String>,
    /// What that process is doing, if it says.
    pub activity: Option<Activity>,
    pub rounds_merged: u32,
    pub latest_round: Option<u32>,
    pub next_step: String,
    /// URLs by crawldb status, most first.
    pub queue: Vec<(String, i64)>,
    /// The last round that fetched pages: round, pages, target pages, share.
    pub last_round: Option<(i32, i64, i64, f64)>,
    pub stopped: Option<String>,
    pub disk_bytes: u64,
}

/// Reads the status of the crawl at `root`.
pub async fn read(engine: &Engine, root: &Path) -> Result<Status> {
    let crawl = CrawlDir::open_read_only(root)?;
    let config = CrawlConfig::load(&crawl)?;
    crate::catalog::crawldb(engine, &crawl).await?;
    let writer = crate::store::lock::live_holder(root);
    let activity = activity::read(root).filter(|a| writer.as_ref().is_some_and(|w| w.0 == a.pid));
    let latest = crawl.latest_round()?;
    Ok(Status {
        crawl: root.display().to_string(),
        target: config.target_lang,
        strategy: config.strategy,
        writer: writer.map(|(pid, task)| format!("process {pid} ({task})")),
        activity,
        rounds_merged: crawl.merged_round()?.0,
        latest_round: latest.map(|r| r.0),
        next_step: match latest {
            Some(round) => crawl.next_step(round)?.to_string(),
            None => "generate".into(),
        },
        queue: queue(engine, config.recrawl.refetch_after_ms).await?,
        last_round: last_round(engine).await?,
        stopped: config
            .stopped
            .map(|s| format!("after round {}: {}", s.round, s.reason)),
        disk_bytes: disk_bytes(root),
    })
}

async fn run(engine: &Engine, file: &str, params: &Params) -> Result<Vec<RecordBatch>> {
    let df = engine.query_file(file, params).await?;
    engine.collect(df).await
}

/// URLs by status; with recrawl on (`--refetch-after`), pages due again as `due`.
async fn queue(engine: &Engine, refetch_after_ms: Option<u64>) -> Result<Vec<(String, i64)>> {
    let mut queue = Vec::new();
    let params = Params::new()
        .set("refetch", refetch_after_ms.is_some())
        .set("refetch_after_ms", refetch_after_ms.unwrap_or(0) as i64);
    for batch in run(engine, "reports/queue_by_status.sql", &params).await? {
        let status = column::<StringArray>(&batch, "status")?;
        let urls = column::<Int64Array>(&batch, "urls")?;
        queue.extend((0..batch.num_rows()).map(|i| (status.value(i).to_string(), urls.value(i))));
    }
    Ok(queue)
}

async fn last_round(engine: &Engine) -> Result<Option<(i32, i64, i64, f64)>> {
    let batches = run(engine, "reports/harvest_by_round.sql", &Params::new()).await?;
    let Some(batch) = batches.iter().rev().find(|b| b.num_rows() > 0) else {
        return Ok(None);
    };
    let i = batch.num_rows() - 1;
    let round = column::<Int32Array>(batch, "round")?;
    let fetched = column::<Int64Array>(batch, "fetched")?;
    let relevant = column::<Int64Array>(batch, "relevant")?;
    let share = column::<Float64Array>(batch, "harvest_rate")?;
    if round.is_null(i) {
        return Ok(None);
    }
    Ok(Some((
        round.value(i),
        fetched.value(i),
        relevant.value(i),
        share.value(i),
    )))
}

/// The bytes of every file under `dir` (what cannot be read counts 0).
fn disk_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let entries = entries.filter_map(|e| e.ok());
    entries
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => disk_bytes(&e.path()),
            Ok(_) => e.metadata().map_or(0, |m| m.len()),
            Err(_) => 0,
        })
        .sum()
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let target = self.target.as_deref().unwrap_or("(none yet)");
        writeln!(
            f,
            "crawl: {} (target {target}, strategy {})",
            self.crawl, self.strategy
        )?;
        match (&self.writer, &self.activity) {
            (Some(writer), Some(a)) => writeln!(f, "writer: {writer}: {}", describe(a))?,
            (Some(writer), None) => writeln!(f, "writer: {writer}")?,
            (None, _) => writeln!(f, "writer: none (no phase is running)")?,
        }
        let latest = self
            .latest_round
            .map_or("none".into(), |r| format!("{r:05}"));
        writeln!(
            f,
            "rounds: {} merged, latest {latest}; next step: {}",
            self.rounds_merged, self.next_step
        )?;
        let queue: Vec<String> = self.queue.iter().map(|(s, n)| format!("{s} {n}")).collect();
        writeln!(
            f,
            "urls: {}",
            if queue.is_empty() {
                "none".into()
            } else {
                queue.join(", ")
            }
        )?;
        if let Some((round, fetched, target, share)) = self.last_round {
            writeln!(f, "last round: {round:05}: {fetched} pages fetched, {target} in the target language (share {share:.3})")?;
        }
        if let Some(stopped) = &self.stopped {
            writeln!(f, "stopped: {stopped}")?;
        }
        write!(
            f,
            "disk: {:.1} MiB",
            self.disk_bytes as f64 / (1 << 20) as f64
        )
    }
}

/// `fetch round 00004: 512 of 2000 (25.6%), for 12 s`.
fn describe(a: &Activity) -> String {
    let seconds = (a.updated_at_ms - a.started_at_ms).max(0) / 1000;
    let done = match a.total {
        Some(total) if total > 0 => {
            format!(
                "{} of {total} ({:.1}%)",
                a.done,
                100.0 * a.done as f64 / total as f64
            )
        }
        _ => format!("{} done", a.done),
    };
    format!("{} round {:05}: {done}, for {seconds} s", a.phase, a.round)
}
