//! Results held for several readers within one phase (the crawldb as the
//! round left it, the round's links, `adaptive`'s open links and scores):
//! a view would run its query again for each reader. Held in memory while
//! they fit one budget shared by all the results held at a time, else
//! written to scratch Parquet as they come, so a crawl of any size stays
//! within memory and a small one does not pay for encoding and decoding
//! what it reads back at once.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use datafusion::dataframe::DataFrame;
use datafusion::datasource::TableProvider;
use datafusion::physical_plan::SendableRecordBatchStream;
use futures::StreamExt;

use super::clock::Stage;
use super::run::{run_error, write_stream};
use super::{nullable, Engine};
use crate::error::{Error, Result};
use crate::store::segment::{conform, SegmentWriter, Staged};

/// The most the results held at a time keep in memory, all together (less
/// under a `--memory-limit`: an eighth of it, beside the SQL pool). A
/// round of a 200k-page web holds about 100 MiB at its peak (four
/// results); past the budget, a result's rows go to Parquet.
pub const STAGE_BYTES: usize = 128 << 20;

/// The budget under `memory_limit` (bytes, or `memory::UNLIMITED`).
pub(super) fn budget(memory_limit: usize) -> Arc<StageBudget> {
    let limit = test_budget().unwrap_or(STAGE_BYTES.min(memory_limit / 8));
    Arc::new(StageBudget::of(limit))
}

/// The tests' hook: `LANGCRAWL_HELD_BYTES=N` holds results in memory up to
/// N bytes in all whatever the memory limit (0 stages every one as
/// Parquet), so that a small crawl takes the path a large one does.
fn test_budget() -> Option<usize> {
    static BYTES: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    *BYTES.get_or_init(|| std::env::var("LANGCRAWL_HELD_BYTES").ok()?.parse().ok())
}

/// The bytes all held results may keep in memory, and those they keep.
/// A phase holds its results one after another (each `hold` is awaited
/// before the next starts), so the room read before a result and the
/// bytes reserved after it cannot interleave with another's.
#[derive(Debug)]
pub struct StageBudget {
    limit: usize,
    held: AtomicUsize,
}

impl StageBudget {
    /// A budget of `limit` bytes (0: every result to Parquet).
    pub(super) fn of(limit: usize) -> Self {
        StageBudget {
            limit,
            held: AtomicUsize::new(0),
        }
    }

    /// What is left of the budget.
    fn room(&self) -> usize {
        self.limit.saturating_sub(self.held.load(Ordering::Acquire))
    }

    fn reserve(self: &Arc<Self>, bytes: usize) -> Reservation {
        self.held.fetch_add(bytes, Ordering::AcqRel);
        Reservation {
            budget: Arc::clone(self),
            bytes,
        }
    }
}

/// The share of the budget a result held in memory keeps, given back when
/// dropped (with the table).
#[derive(Debug)]
pub struct Reservation {
    budget: Arc<StageBudget>,
    bytes: usize,
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.budget.held.fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

/// Where [`Engine::hold`] put a result's rows.
pub enum Held {
    /// In memory, registered as a table: the provider, to tell it from
    /// another registered later under the same name, and its share of the
    /// budget (keep it as long as the table).
    Memory(Arc<dyn TableProvider>, Reservation),
    /// Written to a scratch segment (not registered).
    Parquet(Staged),
}

impl Engine {
    /// Runs `df` and holds its rows, read as `schema` with every column
    /// nullable: in memory, registered as table `name`, while they fit
    /// what is left of the engine's budget; past it, they are written
    /// with the writer `scratch` makes, and the caller registers that
    /// segment.
    pub async fn hold(
        &self,
        name: &str,
        df: DataFrame,
        schema: &SchemaRef,
        scratch: impl FnOnce() -> Result<SegmentWriter>,
    ) -> Result<Held> {
        let schema = nullable(schema);
        let stream = self.start(df).await?;
        let started = std::time::Instant::now();
        let held = self.hold_rows(name, schema, stream, scratch).await;
        self.clock.since(None, Stage::Run, started);
        held
    }

    /// Holds the rows of `stream` as [`hold`](Self::hold) says.
    async fn hold_rows(
        &self,
        name: &str,
        schema: SchemaRef,
        mut stream: SendableRecordBatchStream,
        scratch: impl FnOnce() -> Result<SegmentWriter>,
    ) -> Result<Held> {
        let mut held = Vec::new();
        let mut bytes = 0;
        let room = self.stage.room();
        while let Some(batch) = stream.next().await {
            let batch = conformed(&batch.map_err(run_error)?, &schema, name)?;
            bytes += batch.get_array_memory_size();
            held.push(batch);
            if bytes > room {
                return Ok(Held::Parquet(write_stream(held, stream, scratch()?).await?));
            }
        }
        let reservation = self.stage.reserve(bytes);
        let table = self.register_memory(name, schema, held)?;
        Ok(Held::Memory(table, reservation))
    }
}

/// Drops table `name` from `ctx` if it is still `table` (not one
/// registered since under the same name), freeing the memory it holds.
pub fn release(
    ctx: &datafusion::execution::context::SessionContext,
    name: &str,
    table: &Arc<dyn TableProvider>,
) {
    if let Ok(Some(current)) = ctx.deregister_table(name) {
        if !Arc::ptr_eq(&current, table) {
            let _ = ctx.register_table(name, current);
        }
    }
}

fn conformed(batch: &RecordBatch, schema: &SchemaRef, name: &str) -> Result<RecordBatch> {
    conform(batch, schema)
        .map_err(|why| Error::arrow(format!("staging {name}"))(ArrowError::SchemaError(why)))
}
