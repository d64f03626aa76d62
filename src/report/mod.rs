//! Reports and inspection: registers the whole crawl (crawldb, the server
//! view, every round's segments with a `round` column) for SQL, prints query
//! results as a table, CSV or JSON, and runs the language report; `html`
//! draws the figures of a crawl or a simulation.

pub mod html;

use std::path::PathBuf;
use std::str::FromStr;

use datafusion::arrow::array::RecordBatch;
use datafusion::dataframe::DataFrame;
use datafusion::prelude::{col, lit};

use crate::engine::{Engine, Params};
use crate::error::{Error, Result};
use crate::store::{CrawlConfig, CrawlDir, Phase, RoundId, CRAWL_DECISION_SET};

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

/// Registers `crawldb`, `servers`, `dirs` and, for each phase, a table over
/// all rounds with a `round` column; `decision_sets` holds the crawl's own
/// decisions (set `crawl`) and every set `refilter` wrote, with a
/// `decision_set` column. `content` keeps the fetch bytes. A segment that
/// cannot be read is left out, with a warning on stderr, so that the rest
/// of the crawl can still be inspected.
pub async fn register_crawl(engine: &Engine, crawl: &CrawlDir, content: bool) -> Result<()> {
    let config = CrawlConfig::load(crawl)?;
    crate::inject::register_crawldb(engine, crawl).await?;
    let params = Params::new().set("tolerance", config.params.tolerance as i64);
    engine.register_view(
        "pages",
        engine
            .context()
            .table("crawldb")
            .await
            .map_err(Error::sql("crawldb"))?,
    )?;
    let views = [("servers", "server_stats.sql"), ("dirs", "dir_stats.sql")];
    engine.register_query_views(&views, &params).await?;
    crate::fetch::hosts::register(engine, crawl).await?;
    let rounds = crawl.rounds()?;
    for phase in Phase::ALL {
        let parts = rounds
            .iter()
            .filter(|&&round| crawl.has(round, phase))
            .map(|&round| Part::of(round, None, crawl.segment(round, phase)))
            .collect();
        register_union(engine, phase.dir_name(), parts, content).await?;
    }
    let mut sets = Vec::new();
    for &round in &rounds {
        if crawl.has(round, Phase::Decisions) {
            let path = crawl.segment(round, Phase::Decisions);
            sets.push(Part::of(round, Some(CRAWL_DECISION_SET), path));
        }
        for name in crawl.decision_sets(round)? {
            let path = crawl.decision_set(round, &name);
            sets.push(Part::of(round, Some(&name), path));
        }
    }
    register_union(engine, "decision_sets", sets, content).await
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
/// `decision_set` column where the parts name one).
async fn register_union(
    engine: &Engine,
    table: &str,
    parts: Vec<Part>,
    content: bool,
) -> Result<()> {
    let mut union: Option<DataFrame> = None;
    for (index, part) in parts.iter().enumerate() {
        let name = format!("{table}_{index}");
        if let Err(e) = engine.register_segment(&name, &part.path).await {
            eprintln!("langcrawl: warning: left out of table {table}: {e}");
            continue;
        }
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
                .filter(|f| content || f.name() != "content")
                .map(|f| col(format!("\"{}\"", f.name()))),
        );
        let df = df.select(columns).map_err(Error::sql(&name))?;
        union = Some(match union {
            None => df,
            Some(all) => all.union(df).map_err(Error::sql(&name))?,
        });
    }
    match union {
        Some(df) => engine.register_view(table, df),
        None => Ok(()),
    }
}

/// Runs the user's query over the registered crawl; a query that would
/// write (DDL, DML, COPY) is refused before anything runs.
pub async fn query(engine: &Engine, sql: &str) -> Result<Vec<RecordBatch>> {
    let df = engine.query_read_only(sql).await?;
    engine.collect(df).await
}

/// The language report (`sql/language_report.sql`): lang, pages, percent.
pub async fn language_report(engine: &Engine, target_lang: &str) -> Result<Vec<RecordBatch>> {
    let params = Params::new().set("target_lang", target_lang);
    let df = engine.query_file("language_report.sql", &params).await?;
    engine.collect(df).await
}

/// The harvest rate per round (`sql/harvest_by_round.sql`).
pub async fn harvest_by_round(engine: &Engine) -> Result<Vec<RecordBatch>> {
    let df = engine
        .query_file("harvest_by_round.sql", &Params::new())
        .await?;
    engine.collect(df).await
}

/// Formats batches as a text table, CSV with a header, or JSON lines.
pub fn format(batches: &[RecordBatch], format: Format) -> Result<String> {
    let arrow_error =
        |e: datafusion::arrow::error::ArrowError| Error::Other(format!("formatting results: {e}"));
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

/// The full report for a crawl: languages, then harvest rate per round.
pub async fn full_report(engine: &Engine, crawl: &CrawlDir) -> Result<String> {
    let config = CrawlConfig::load(crawl)?;
    let target = config.target_lang.clone().unwrap_or_else(|| "und".into());
    crate::inject::register_crawldb(engine, crawl).await?;
    let languages = language_report(engine, &target).await?;
    let harvest = harvest_by_round(engine).await?;
    Ok(format!(
        "Pages fetched per language (target {target}):\n{}\n\nHarvest rate per round:\n{}",
        format(&languages, Format::Table)?,
        format(&harvest, Format::Table)?
    ))
}
