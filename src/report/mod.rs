//! Reports and inspection: runs the user's read-only queries over the
//! crawl's tables (registered by `crate::catalog`), writes their rows as
//! a table, CSV or JSON (`output`), and runs the language report; `html` draws the
//! figures of a crawl or a simulation.

pub mod html;
mod output;

pub use output::{write_query, Written};

use std::str::FromStr;

use datafusion::arrow::array::RecordBatch;

use crate::engine::{Engine, Params};
use crate::error::{Error, Result};
use crate::store::{CrawlConfig, CrawlDir};

/// How query results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    #[default]
    Table,
    Csv,
    Json,
}

impl Format {
    /// True for CSV and JSON, written a row at a time as the query runs; a
    /// table is laid out once all its rows are in.
    pub fn streams(self) -> bool {
        !matches!(self, Format::Table)
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        <Format as clap::ValueEnum>::from_str(s, true)
    }
}

/// Runs the user's query over the registered crawl; a query that would
/// write (DDL, DML, COPY) is refused before anything runs.
pub async fn query(engine: &Engine, sql: &str) -> Result<Vec<RecordBatch>> {
    let df = engine.query_read_only(sql).await?;
    engine.collect(df).await
}

/// The language report (`sql/reports/language_report.sql`): lang, pages, percent.
pub async fn language_report(engine: &Engine, target_lang: &str) -> Result<Vec<RecordBatch>> {
    let params = Params::new().set("target_lang", target_lang);
    let df = engine
        .query_file("reports/language_report.sql", &params)
        .await?;
    engine.collect(df).await
}

/// The harvest rate per round (`sql/reports/harvest_by_round.sql`).
pub async fn harvest_by_round(engine: &Engine) -> Result<Vec<RecordBatch>> {
    let df = engine
        .query_file("reports/harvest_by_round.sql", &Params::new())
        .await?;
    engine.collect(df).await
}

/// What a text table of no rows prints.
pub const NO_ROWS: &str = "(no rows)";

/// Formats batches as a text table, CSV with a header, or JSON lines.
pub fn format(batches: &[RecordBatch], format: Format) -> Result<String> {
    let arrow_error = |e| Error::arrow("formatting results")(e);
    match format {
        // no batch, no schema: a table of nothing would print as `++`
        Format::Table if batches.is_empty() => Ok(NO_ROWS.to_string()),
        Format::Table => Ok(
            datafusion::arrow::util::pretty::pretty_format_batches(batches)
                .map_err(arrow_error)?
                .to_string(),
        ),
        Format::Csv => {
            let mut out = Vec::new();
            {
                let mut writer = arrow::csv::WriterBuilder::new()
                    .with_header(true)
                    .build(&mut out);
                for batch in batches {
                    writer.write(batch).map_err(arrow_error)?;
                }
            }
            Ok(String::from_utf8_lossy(&out).into_owned())
        }
        Format::Json => {
            let mut writer = arrow::json::LineDelimitedWriter::new(Vec::new());
            for batch in batches {
                writer.write(batch).map_err(arrow_error)?;
            }
            writer.finish().map_err(arrow_error)?;
            Ok(String::from_utf8_lossy(&writer.into_inner()).into_owned())
        }
    }
}

/// Where a crawl stands: its fetch requests, pages fetched, target pages
/// among them and their share, the harvest rate
/// (`reports/crawl_metrics.sql`'s last round).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CrawlTotals {
    pub requests: u64,
    pub pages: u64,
    pub target: u64,
    pub harvest: f64,
}

/// `crawl`'s totals after its last round.
pub async fn crawl_totals(engine: &Engine, crawl: &CrawlDir) -> Result<CrawlTotals> {
    use crate::store::rows::column;
    use datafusion::arrow::array::{Float64Array, Int64Array};
    crate::catalog::crawldb(engine, crawl).await?;
    let params = Params::new().set("strategy", "");
    let progress = engine
        .query_file("reports/crawl_metrics.sql", &params)
        .await?;
    engine.register_view("crawl_progress", progress)?;
    let last = "SELECT CAST(requests AS BIGINT) AS requests, \
                CAST(pages_fetched AS BIGINT) AS pages, CAST(target_fetched AS BIGINT) AS target, \
                harvest_rate FROM crawl_progress ORDER BY round DESC LIMIT 1";
    let df = engine.query(last, &Params::new()).await?;
    let batches = engine.collect(df).await?;
    let Some(batch) = batches.iter().find(|b| b.num_rows() > 0) else {
        return Ok(CrawlTotals::default());
    };
    let value = |name: &str| -> Result<u64> {
        Ok(column::<Int64Array>(batch, name)?.value(0).max(0) as u64)
    };
    Ok(CrawlTotals {
        requests: value("requests")?,
        pages: value("pages")?,
        target: value("target")?,
        harvest: column::<Float64Array>(batch, "harvest_rate")?.value(0),
    })
}

/// The full report for a crawl: languages, then harvest rate per round.
pub async fn full_report(engine: &Engine, crawl: &CrawlDir) -> Result<String> {
    let config = CrawlConfig::load(crawl)?;
    let target = config.target_lang.clone().unwrap_or_else(|| "und".into());
    crate::catalog::crawldb(engine, crawl).await?;
    let languages = language_report(engine, &target).await?;
    let harvest = harvest_by_round(engine).await?;
    Ok(format!(
        "Pages fetched per language (target {target}):\n{}\n\nHarvest rate per round:\n{}",
        format(&languages, Format::Table)?,
        format(&harvest, Format::Table)?
    ))
}
