//! Reports and inspection: runs the user's read-only queries over the
//! crawl's tables (registered by `crate::catalog`), prints results as a
//! table, CSV or JSON, and runs the language report; `html` draws the
//! figures of a crawl or a simulation.

pub mod html;

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

/// Formats batches as a text table, CSV with a header, or JSON lines.
pub fn format(batches: &[RecordBatch], format: Format) -> Result<String> {
    let arrow_error = |e| Error::arrow("formatting results")(e);
    match format {
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

/// Where each of `crawls` (named by its strategy) stands after its last
/// round, one row each (`sql/reports/crawl_metrics.sql`): pages fetched,
/// target pages, harvest rate, queue and servers.
pub async fn harvest_side_by_side(engine: &Engine, crawls: &[(&str, &CrawlDir)]) -> Result<String> {
    let mut rows = Vec::new();
    for (strategy, crawl) in crawls {
        crate::catalog::crawldb(engine, crawl).await?;
        let params = Params::new().set("strategy", *strategy);
        let progress = engine
            .query_file("reports/crawl_metrics.sql", &params)
            .await?;
        engine.register_view("crawl_progress", progress)?;
        let last = "SELECT strategy, round AS rounds, pages_fetched, target_fetched, \
                    round(harvest_rate, 3) AS harvest_rate, servers_accessed \
                    FROM crawl_progress ORDER BY round DESC LIMIT 1";
        let df = engine.query(last, &Params::new()).await?;
        rows.extend(engine.collect(df).await?);
    }
    format(&rows, Format::Table)
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
