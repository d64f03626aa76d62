//! The crawl's tables by name: the one place that registers them, for every
//! command. Each segment is read with its declared schema (`store::schema`)
//! with every column nullable, so a segment written before a column existed
//! reads it as NULL instead of failing.
//!
//! | table | what it is |
//! |---|---|
//! | `crawldb` | the stored crawldb: one row per known URL |
//! | `fetchlist`, `fetch`, `parse`, `links`, `decisions` | one round's segments; in `sql`, every round's, with a `round` column |
//! | `crawldb_after_round` | the crawldb as link selection sees it: round R fetched and parsed, its links not merged yet. updatedb: `apply_fetch.sql`; refilter: rebuilt for an old round by `crawldb_at_round.sql` (both held once per round, in memory or as scratch Parquet: `Scratch`); `sql`: the crawldb itself (after its last round) |
//! | `servers`, `dirs` | Tamura's Na, Nr and state per server and top-level directory, over `crawldb_after_round` |
//! | `hosts` | robots.txt answers and back-off per host (written by fetch) |
//! | `decision_sets` | (`sql`) the crawl's own decisions and every set `refilter` wrote |

use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::dataframe::DataFrame;
use datafusion::datasource::TableProvider;
use datafusion::execution::context::SessionContext;
use datafusion::prelude::{col, lit};

use crate::engine::{Engine, Held, Params};
use crate::error::{Error, Result};
use crate::store::schema::{CRAWLDB, HOSTS};
use crate::store::{CrawlConfig, CrawlDir, Phase, RoundId, CRAWL_DECISION_SET};

/// `crawldb`: the stored crawldb, or an empty one before the first inject.
pub async fn crawldb(engine: &Engine, crawl: &CrawlDir) -> Result<()> {
    if let Some(dir) = crawl.crawldb()? {
        segment(engine, "crawldb", &dir, &CRAWLDB).await
    } else {
        engine.register_empty("crawldb", CRAWLDB.clone())
    }
}

/// `hosts`: what fetch keeps per host (empty if no fetch wrote it yet).
pub async fn hosts(engine: &Engine, crawl: &CrawlDir) -> Result<()> {
    if let Some(dir) = crawl.hosts()? {
        segment(engine, "hosts", &dir, &HOSTS).await
    } else {
        engine.register_empty("hosts", HOSTS.clone())
    }
}

/// Each of `phases`' segments of `round` as a table named after the phase.
pub async fn round(
    engine: &Engine,
    crawl: &CrawlDir,
    round: RoundId,
    phases: &[Phase],
) -> Result<()> {
    for &phase in phases {
        let dir = crawl.segment(round, phase);
        segment(engine, phase.dir_name(), &dir, &phase.schema()).await?;
    }
    Ok(())
}

/// The segment folder `dir` as table `name`, read as `schema`.
pub async fn segment(
    engine: &Engine,
    name: &str,
    dir: &std::path::Path,
    schema: &SchemaRef,
) -> Result<()> {
    engine.register_segment_as(name, dir, schema).await
}

/// A query's rows held as a table for a phase that reads them several
/// times (a view runs its query again in each reader): in memory while
/// they fit what is left of the engine's budget, shared by every result
/// held at once (`engine::STAGE_BYTES` in all), else as scratch Parquet.
/// Never committed: the table is dropped and its temp folder removed when
/// this is dropped (a folder left by a killed phase is a leftover the
/// next phase's recovery removes).
#[derive(Debug)]
pub struct Scratch(Kept);

/// Where a [`Scratch`] table's rows are.
#[derive(Debug)]
enum Kept {
    Memory(HeldTable),
    /// The temp folder of its Parquet.
    Parquet(PathBuf),
}

/// A scratch table held in memory, the context it is registered in, and
/// its share of the engine's budget (given back after the table is
/// dropped).
struct HeldTable {
    ctx: SessionContext,
    name: String,
    provider: Arc<dyn TableProvider>,
    _reservation: crate::engine::Reservation,
}

impl std::fmt::Debug for HeldTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HeldTable({})", self.name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        match &self.0 {
            Kept::Memory(held) => crate::engine::release(&held.ctx, &held.name, &held.provider),
            Kept::Parquet(dir) => {
                // a folder left behind is a leftover the next phase's recovery removes
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }
}

/// Where round `round`'s scratch table `name` is staged: beside its
/// segments.
pub fn scratch_at(crawl: &CrawlDir, round: RoundId, name: &str) -> PathBuf {
    crawl.segment(round, Phase::Links).with_file_name(name)
}

/// Runs `df` once and registers its rows as table `name`, read as
/// `schema`: in memory, or staged in a temp folder beside `at`. The table
/// lives as long as the returned [`Scratch`].
pub async fn scratch(
    engine: &Engine,
    name: &str,
    df: DataFrame,
    at: &std::path::Path,
    schema: &SchemaRef,
) -> Result<Scratch> {
    let writer = || crate::store::SegmentWriter::scratch(at, schema.clone());
    match engine.hold(name, df, schema, writer).await? {
        Held::Memory(provider, reservation) => Ok(Scratch(Kept::Memory(HeldTable {
            ctx: engine.context().clone(),
            name: name.to_string(),
            provider,
            _reservation: reservation,
        }))),
        Held::Parquet(staged) => {
            // made first, so the folder goes if registering it fails
            let dir = staged.hand_on();
            let scratch = Scratch(Kept::Parquet(dir.clone()));
            segment(engine, name, &dir, schema).await?;
            Ok(scratch)
        }
    }
}

/// How `crawldb_after_round` is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterRound {
    /// updatedb: the crawldb with the round's fetch and parse results
    /// applied (`round_pages.sql`, `apply_fetch.sql`; `$round`,
    /// `$target_lang`, `$max_retries`).
    Applied,
    /// refilter: rebuilt from today's crawldb as it was when the round was
    /// merged (`crawldb_at_round.sql`; `$round`).
    Rebuilt,
}

/// The tables link selection reads for round `round_id`: `crawldb`, the
/// round's `links` and `parse` (and `fetch` when applied), and
/// `crawldb_after_round` made as `how` says, with `params`, staged as
/// scratch Parquet that lives as long as the returned [`Scratch`].
pub async fn crawldb_after_round(
    engine: &Engine,
    crawl: &CrawlDir,
    round_id: RoundId,
    how: AfterRound,
    params: &Params,
) -> Result<Scratch> {
    crawldb(engine, crawl).await?;
    let sql = match how {
        AfterRound::Applied => {
            round(
                engine,
                crawl,
                round_id,
                &[Phase::Fetch, Phase::Parse, Phase::Links],
            )
            .await?;
            let pages = [("round_pages", "views/round_pages.sql")];
            engine.register_query_views(&pages, params).await?;
            "views/apply_fetch.sql"
        }
        AfterRound::Rebuilt => {
            round(engine, crawl, round_id, &[Phase::Links, Phase::Parse]).await?;
            "views/crawldb_at_round.sql"
        }
    };
    // read by most steps of the round (servers, links, decisions, merge):
    // staged once, not a join of the whole crawldb with the round each time
    let df = engine.query_file(sql, params).await?;
    let at = scratch_at(crawl, round_id, "crawldb_after_round");
    scratch(engine, "crawldb_after_round", df, &at, &CRAWLDB).await
}

/// Every table of the crawl, for `sql`, `report`, `graph export` and the
/// refilter comparison: `crawldb` (also as `crawldb_after_round`),
/// `servers`, `dirs`, `hosts`, one table per phase over all rounds with a
/// `round` column, and `decision_sets` with a `decision_set` column.
/// `content` keeps the fetch bytes. A segment (or a `hosts` version) that
/// cannot be read is left out, with a warning on stderr, so the rest of the
/// crawl can still be inspected.
pub async fn whole_crawl(engine: &Engine, crawl: &CrawlDir, content: bool) -> Result<()> {
    let config = CrawlConfig::load(crawl)?;
    crawldb(engine, crawl).await?;
    let table = engine.context().table("crawldb").await;
    engine.register_view("crawldb_after_round", table.map_err(Error::sql("crawldb"))?)?;
    let params = Params::new().set("tolerance", config.params.tolerance as i64);
    let views = [
        ("servers", "views/server_stats.sql"),
        ("dirs", "views/dir_stats.sql"),
    ];
    engine.register_query_views(&views, &params).await?;
    if let Err(e) = hosts(engine, crawl).await {
        eprintln!("langcrawl: warning: table hosts left out: {e}");
        engine.register_empty("hosts", HOSTS.clone())?;
    }
    let rounds = crawl.rounds()?;
    for phase in Phase::ALL {
        let parts = phase_parts(crawl, &rounds, phase);
        register_union(engine, phase.dir_name(), &phase.schema(), parts, content).await?;
    }
    let sets = decision_set_parts(crawl, &rounds)?;
    let schema = Phase::Decisions.schema();
    register_union(engine, "decision_sets", &schema, sets, content).await
}

/// `fetchlists`: every round's fetch list with a `round` column — what the
/// stop rule and the yield per round read (`crate::stop`).
pub async fn fetchlists(engine: &Engine, crawl: &CrawlDir) -> Result<()> {
    let parts = phase_parts(crawl, &crawl.rounds()?, Phase::Fetchlist);
    let schema = Phase::Fetchlist.schema();
    register_union(engine, "fetchlists", &schema, parts, false).await
}

/// The segments of `phase` among `rounds`, those that have one.
fn phase_parts(crawl: &CrawlDir, rounds: &[RoundId], phase: Phase) -> Vec<Part> {
    rounds
        .iter()
        .filter(|&&round| crawl.has(round, phase))
        .map(|&round| Part::of(round, None, crawl.segment(round, phase)))
        .collect()
}

/// The crawl's own decisions and every refiltered set, round by round.
fn decision_set_parts(crawl: &CrawlDir, rounds: &[RoundId]) -> Result<Vec<Part>> {
    let mut sets = Vec::new();
    for &round in rounds {
        if crawl.has(round, Phase::Decisions) {
            let path = crawl.segment(round, Phase::Decisions);
            sets.push(Part::of(round, Some(CRAWL_DECISION_SET), path));
        }
        for name in crawl.decision_sets(round)? {
            let path = crawl.decision_set(round, &name);
            sets.push(Part::of(round, Some(&name), path));
        }
    }
    Ok(sets)
}

/// One segment of a table over many: its round, its decision set, its folder.
struct Part {
    round: RoundId,
    set: Option<String>,
    path: PathBuf,
}

impl Part {
    fn of(round: RoundId, set: Option<&str>, path: PathBuf) -> Self {
        Part {
            round,
            set: set.map(str::to_string),
            path,
        }
    }
}

/// The union of `parts` as table `table`, with a `round` column (and a
/// `decision_set` column where the parts name one); a part that cannot be
/// read is left out with a warning.
async fn register_union(
    engine: &Engine,
    table: &str,
    schema: &SchemaRef,
    parts: Vec<Part>,
    content: bool,
) -> Result<()> {
    let mut union: Option<DataFrame> = None;
    for (index, part) in parts.iter().enumerate() {
        let df = match union_part(engine, table, index, part, schema, content).await {
            Ok(df) => df,
            Err(e) => {
                eprintln!("langcrawl: warning: left out of table {table}: {e}");
                continue;
            }
        };
        union = Some(match union {
            None => df,
            Some(all) => all.union(df).map_err(Error::sql(table))?,
        });
    }
    match union {
        Some(df) => engine.register_view(table, df),
        None => engine.register_empty(table, empty_union(table, schema, content)),
    }
}

/// The schema of table `table` when no round has a segment of it: the
/// columns a part would give it, so queries over it still plan.
fn empty_union(table: &str, schema: &SchemaRef, content: bool) -> SchemaRef {
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    let mut fields = vec![Field::new("round", DataType::Int32, false)];
    if table == "decision_sets" {
        fields.push(Field::new("decision_set", DataType::Utf8, false));
    }
    fields.extend(
        schema
            .fields()
            .iter()
            .filter(|f| content || !is_bytes(f.name()))
            .map(|f| f.as_ref().clone().with_nullable(true)),
    );
    std::sync::Arc::new(Schema::new(fields))
}

/// Part `index` of table `table`: its segment with a `round` column (and
/// `decision_set`), without `content` unless asked.
async fn union_part(
    engine: &Engine,
    table: &str,
    index: usize,
    part: &Part,
    schema: &SchemaRef,
    content: bool,
) -> Result<DataFrame> {
    let name = format!("{table}_{index}");
    segment(engine, &name, &part.path, schema).await?;
    let df = engine
        .context()
        .table(&name)
        .await
        .map_err(Error::sql(&name))?;
    let mut columns = vec![lit(part.round.0 as i32).alias("round")];
    if let Some(set) = &part.set {
        columns.push(lit(set.clone()).alias("decision_set"));
    }
    columns.extend(
        df.schema()
            .fields()
            .iter()
            .filter(|f| content || !is_bytes(f.name()))
            .map(|f| col(format!("\"{}\"", f.name()))),
    );
    df.select(columns).map_err(Error::sql(&name))
}

/// The columns of page bytes (`fetch.content`, `fetch.payload`), left
/// out of `sql`'s tables unless asked for.
fn is_bytes(column: &str) -> bool {
    matches!(column, "content" | "payload")
}

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
