//! Running a planned query: into a segment, as a stream, collected, or
//! counted — each on the engine's clock ([`QueryClock`](super::QueryClock)).

use std::time::Instant;

use datafusion::arrow::array::RecordBatch;
use datafusion::dataframe::DataFrame;
use datafusion::error::DataFusionError;
use datafusion::physical_plan::SendableRecordBatchStream;
use futures::StreamExt;

use super::clock::Stage;
use super::Engine;
use crate::error::{Error, Result};
use crate::store::segment::{SegmentWriter, Staged};

impl Engine {
    /// Counts the rows of a registered table; with `where_true`, only the
    /// rows where that boolean column is true.
    pub async fn count_rows(&self, table: &str, where_true: Option<&str>) -> Result<usize> {
        let mut df = self.ctx.table(table).await.map_err(Error::sql(table))?;
        if let Some(column) = where_true {
            df = df
                .filter(datafusion::prelude::col(column))
                .map_err(Error::sql(table))?;
        }
        let started = Instant::now();
        let rows = df
            .count()
            .await
            .map_err(Error::sql(format!("counting {table}")))?;
        self.clock.since(Some(table), Stage::Run, started);
        Ok(rows)
    }

    /// Runs `df` and streams its rows into `writer`'s segment.
    pub async fn write(&self, df: DataFrame, writer: SegmentWriter) -> Result<Staged> {
        let stream = self.start(df).await?;
        let started = Instant::now();
        let staged = write_stream(Vec::new(), stream, writer).await;
        self.clock.since(None, Stage::Run, started);
        staged
    }

    /// Makes `df`'s physical plan and starts it, on the clock.
    pub(super) async fn start(&self, df: DataFrame) -> Result<SendableRecordBatchStream> {
        let started = Instant::now();
        let stream = df.execute_stream().await.map_err(run_error)?;
        self.clock.since(None, Stage::Start, started);
        Ok(stream)
    }

    /// Runs `df`, its rows a batch at a time.
    pub async fn stream(&self, df: DataFrame) -> Result<SendableRecordBatchStream> {
        let stream = self.start(df).await?;
        // its rows are read by the caller, on the caller's time
        self.clock
            .spent(None, Stage::Run, std::time::Duration::ZERO);
        Ok(stream)
    }

    /// Runs `df` and collects its rows.
    pub async fn collect(&self, df: DataFrame) -> Result<Vec<RecordBatch>> {
        let stream = self.start(df).await?;
        let started = Instant::now();
        let rows = datafusion::physical_plan::common::collect(stream)
            .await
            .map_err(run_error);
        self.clock.since(None, Stage::Run, started);
        rows
    }
}

/// `held`'s rows, then the rest of `stream`'s, into `writer`'s segment.
pub(super) async fn write_stream(
    held: Vec<RecordBatch>,
    mut stream: SendableRecordBatchStream,
    mut writer: SegmentWriter,
) -> Result<Staged> {
    for batch in &held {
        writer.write(batch)?;
    }
    drop(held);
    while let Some(batch) = stream.next().await {
        writer.write(&batch.map_err(run_error)?)?;
    }
    writer.finish()
}

/// A query's failure; running out of the memory pool says what to do.
pub(crate) fn run_error(error: DataFusionError) -> Error {
    if let DataFusionError::ResourcesExhausted(what) = error.find_root() {
        let what = what.lines().next().unwrap_or_default();
        return Error::OutOfMemory {
            pool: what.to_string(),
        };
    }
    Error::sql("running query")(error)
}
