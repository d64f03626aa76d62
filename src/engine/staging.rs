//! Results held for several readers within one phase (the crawldb as the
//! round left it, the round's links, `adaptive`'s open links): a view
//! would run its query again for each reader. Held in memory while they
//! fit a budget, else written to scratch Parquet as they come, so a crawl
//! of any size stays within memory and a small one does not pay for
//! encoding and decoding what it reads back at once.

use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use datafusion::dataframe::DataFrame;
use datafusion::datasource::TableProvider;
use futures::StreamExt;

use super::{nullable, run_error, write_stream, Engine};
use crate::error::{Error, Result};
use crate::store::segment::{conform, SegmentWriter, Staged};

/// The most a held result keeps in memory (less under a `--memory-limit`:
/// an eighth of it). A round of a 200k-page web holds about 40 MiB at
/// most; past the budget, the rows go to Parquet.
pub const STAGE_BYTES: usize = 128 << 20;

/// The budget under `memory_limit` (bytes, or `memory::UNLIMITED`).
pub(super) fn budget(memory_limit: usize) -> usize {
    STAGE_BYTES.min(memory_limit / 8)
}

/// Where [`Engine::hold`] put a result's rows.
pub enum Held {
    /// In memory, registered as a table: the provider, to tell it from
    /// another registered later under the same name.
    Memory(Arc<dyn TableProvider>),
    /// Written to a scratch segment (not registered).
    Parquet(Staged),
}

impl Engine {
    /// Runs `df` and holds its rows, read as `schema` with every column
    /// nullable: in memory, registered as table `name`, while they fit
    /// the engine's budget; past it, they are written with the writer
    /// `scratch` makes, and the caller registers that segment.
    pub async fn hold(
        &self,
        name: &str,
        df: DataFrame,
        schema: &SchemaRef,
        scratch: impl FnOnce() -> Result<SegmentWriter>,
    ) -> Result<Held> {
        let schema = nullable(schema);
        let mut stream = df.execute_stream().await.map_err(run_error)?;
        let mut held = Vec::new();
        let mut bytes = 0;
        while let Some(batch) = stream.next().await {
            let batch = conformed(&batch.map_err(run_error)?, &schema, name)?;
            bytes += batch.get_array_memory_size();
            held.push(batch);
            if bytes > self.stage_bytes {
                return Ok(Held::Parquet(write_stream(held, stream, scratch()?).await?));
            }
        }
        Ok(Held::Memory(self.register_memory(name, schema, held)?))
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
