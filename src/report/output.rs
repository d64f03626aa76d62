//! The user's query's rows written as they come: CSV and JSON lines stream
//! a batch at a time, so `sql --format csv` over every link of a large
//! crawl holds one batch, not the result; a text table, whose columns are
//! as wide as their widest cell, holds the rows it shows, at most a cap.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use futures::StreamExt;

use super::Format;
use crate::engine::Engine;
use crate::error::{Error, Result};

/// What was written: the rows, and whether the query had more than the cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    pub rows: usize,
    pub more: bool,
}

/// Runs the read-only query `sql` and writes its rows to `out` in
/// `format`, at most `max_rows` of them. A reader that closes the output
/// (`| head`) ends the query quietly.
pub async fn write_query(
    engine: &Engine,
    sql: &str,
    format: Format,
    max_rows: Option<usize>,
    out: impl Write,
) -> Result<Written> {
    let df = engine.query_read_only(sql).await?;
    let mut stream = engine.stream(df).await?;
    let closed = Arc::new(AtomicBool::new(false));
    let mut sink = Sink::new(format, UntilClosed::new(out, closed.clone()));
    let mut written = Written {
        rows: 0,
        more: false,
    };
    let cap = max_rows.unwrap_or(usize::MAX);
    while let Some(batch) = stream.next().await {
        let batch = batch.map_err(crate::engine::run_error)?;
        if batch.num_rows() == 0 {
            continue;
        }
        let take = batch.num_rows().min(cap - written.rows);
        written.more = take < batch.num_rows();
        if take > 0 {
            sink.write(&batch.slice(0, take))?;
        }
        written.rows += take;
        if closed.load(Ordering::Relaxed) || written.more {
            break;
        }
    }
    if written.rows == 0 {
        // a header for an empty result, not nothing (or a table's "++")
        sink.write(&RecordBatch::new_empty(stream.schema()))?;
    }
    sink.finish()?;
    Ok(written)
}

/// Where the rows go, in their format.
enum Sink<W: Write> {
    Table(Vec<RecordBatch>, W),
    Csv(Box<datafusion::arrow::csv::Writer<W>>),
    Json(datafusion::arrow::json::LineDelimitedWriter<W>),
}

impl<W: Write> Sink<W> {
    fn new(format: Format, out: W) -> Self {
        match format {
            Format::Table => Sink::Table(Vec::new(), out),
            Format::Csv => Sink::Csv(Box::new(
                datafusion::arrow::csv::WriterBuilder::new()
                    .with_header(true)
                    .build(out),
            )),
            Format::Json => Sink::Json(datafusion::arrow::json::LineDelimitedWriter::new(out)),
        }
    }

    fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        match self {
            Sink::Table(held, _) => {
                held.push(batch.clone());
                Ok(())
            }
            Sink::Csv(writer) => writer.write(batch).map_err(output_error),
            Sink::Json(writer) => writer.write(batch).map_err(output_error),
        }
    }

    fn finish(self) -> Result<()> {
        match self {
            Sink::Table(held, mut out) => {
                let table = match held.is_empty() {
                    true => super::NO_ROWS.to_string(),
                    false => datafusion::arrow::util::pretty::pretty_format_batches(&held)
                        .map_err(output_error)?
                        .to_string(),
                };
                writeln!(out, "{table}")
                    .and_then(|()| out.flush())
                    .map_err(stdout_error)
            }
            Sink::Csv(writer) => writer.into_inner().flush().map_err(stdout_error),
            Sink::Json(mut writer) => {
                writer.finish().map_err(output_error)?;
                writer.into_inner().flush().map_err(stdout_error)
            }
        }
    }
}

fn output_error(error: datafusion::arrow::error::ArrowError) -> Error {
    Error::arrow("writing the query's rows")(error)
}

fn stdout_error(source: std::io::Error) -> Error {
    Error::io("<standard output>")(source)
}

/// `out`, until its reader closes it: from then on every write is
/// dropped and `closed` is set, so the query stops at its next batch
/// instead of failing.
struct UntilClosed<W> {
    out: W,
    closed: Arc<AtomicBool>,
}

impl<W: Write> UntilClosed<W> {
    fn new(out: W, closed: Arc<AtomicBool>) -> Self {
        Self { out, closed }
    }

    fn closing<T>(&self, result: std::io::Result<T>, or: T) -> std::io::Result<T> {
        match result {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                self.closed.store(true, Ordering::Relaxed);
                Ok(or)
            }
            other => other,
        }
    }
}

impl<W: Write> Write for UntilClosed<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.closed.load(Ordering::Relaxed) {
            return Ok(buf.len());
        }
        let result = self.out.write(buf);
        self.closing(result, buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.closed.load(Ordering::Relaxed) {
            return Ok(());
        }
        let result = self.out.flush();
        self.closing(result, ())
    }
}

#[cfg(test)]
mod tests;
