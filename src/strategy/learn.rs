//! The learning step of a strategy that learns (`adaptive`): a frontier,
//! not a filter. Every link whose destination is not fetched yet stays
//! open (the round's `frontier` segment) with the features it was found
//! with; when its destination is fetched it becomes a labelled example.
//! The naive Bayes model is the last round's counts plus the links labelled
//! this round — no earlier link is read again — kept as the round's `model`
//! segment; it re-scores every open link each round (`url_scores`, which
//! the merge applies to the queue), and this round's links' scores are kept
//! as `scores`, so what was learned and why a link ranked as it did are
//! queries.

use std::path::Path;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use datafusion::dataframe::DataFrame;

use super::LinkSelection;
use crate::engine::{Engine, Params};
use crate::error::{Error, Result};
use crate::store::schema::{FRONTIER, MODEL, OPEN_LINKS, SCORES, URL_SCORES};
use crate::store::segment::conform;
use crate::store::{CrawlDir, Phase, RoundId, SegmentWriter};

/// Where a learning strategy keeps what it learned in a round; `None`
/// keeps it in memory only (refilter), carried to the next round refiltered.
#[derive(Debug, Clone, Copy)]
pub struct Learned<'a> {
    pub model: &'a Path,
    pub scores: &'a Path,
    pub frontier: &'a Path,
}

impl LinkSelection {
    /// For a strategy that learns: adds the round's links to the frontier
    /// left by the last round (`sql/views/link_features.sql`,
    /// `open_links.sql`), fits the model on the last round's counts and
    /// the links labelled now (`sql/steps/learn_model.sql`) and scores every
    /// open link (`sql/views/link_scores.sql`), registering `model`,
    /// `link_scores` and `url_scores`, and writing the model, this round's
    /// scores and the new frontier to `keep` if given. For other
    /// strategies it registers an empty `url_scores`. Call after
    /// [`register_inputs`](Self::register_inputs).
    pub async fn learn(
        &self,
        engine: &Engine,
        crawl: &CrawlDir,
        round: RoundId,
        keep: Option<Learned<'_>>,
    ) -> Result<()> {
        if !self.strategy.learns {
            return engine.register_empty("url_scores", URL_SCORES.clone());
        }
        let params = self.sql_params().set("round", round.0 as i32);
        register_before(engine, crawl, round, keep.is_none()).await?;
        let features = engine
            .query_file("views/link_features.sql", &params)
            .await?;
        engine.register_view("link_features", features)?;
        // The open links, described once (joins over the crawldb) and read
        // three times: to fit, to score and as the next frontier. Never
        // committed: its temp folder is removed here, or as a killed
        // phase's leftover.
        let scratch = crawl
            .segment(round, Phase::Links)
            .with_file_name("open_links");
        let open = engine.query_file("views/open_links.sql", &params).await?;
        let writer = SegmentWriter::create(&scratch, OPEN_LINKS.clone())?;
        let staged = engine.write(open, writer).await?;
        let temp = staged.temp_dir.clone();
        let fitted = async {
            crate::catalog::segment(engine, "open_links", &temp, &OPEN_LINKS).await?;
            fit_and_score(engine, &params, keep).await
        }
        .await;
        std::fs::remove_dir_all(&temp).map_err(Error::io(&temp))?;
        fitted
    }
}

/// Registers `model_before` and `frontier_before`: what a refilter carried
/// from its last round (`carried`), else the segments of the latest
/// earlier round that has them, else empty tables.
async fn register_before(
    engine: &Engine,
    crawl: &CrawlDir,
    round: RoundId,
    carried: bool,
) -> Result<()> {
    let context = engine.context();
    if carried && context.table_exist("model_carried").unwrap_or(false) {
        for (table, from) in [
            ("model_before", "model_carried"),
            ("frontier_before", "frontier_carried"),
        ] {
            let df = context.table(from).await.map_err(Error::sql(from))?;
            engine.register_view(table, df)?;
        }
        return Ok(());
    }
    let earlier = crawl
        .rounds()?
        .into_iter()
        .rfind(|&r| r < round && crawl.has(r, Phase::Model) && crawl.has(r, Phase::Frontier));
    let Some(earlier) = earlier else {
        engine.register_empty("model_before", MODEL.clone())?;
        return engine.register_empty("frontier_before", FRONTIER.clone());
    };
    for (table, phase) in [
        ("model_before", Phase::Model),
        ("frontier_before", Phase::Frontier),
    ] {
        crate::catalog::segment(
            engine,
            table,
            &crawl.segment(earlier, phase),
            &phase.schema(),
        )
        .await?;
    }
    Ok(())
}

/// Fits the model on `open_links` and scores the open links: registers
/// `model`, `link_scores` and `url_scores`, keeps the model, the round's
/// scores and the frontier in `keep`'s segments, or carries the model and
/// frontier in memory.
async fn fit_and_score(engine: &Engine, params: &Params, keep: Option<Learned<'_>>) -> Result<()> {
    let model = engine.query_file("steps/learn_model.sql", params).await?;
    match keep {
        Some(keep) => {
            write_segment(engine, model, keep.model, &MODEL).await?;
            crate::catalog::segment(engine, "model", keep.model, &MODEL).await?;
        }
        None => {
            let batches = engine.collect(model).await?;
            register_in_memory(engine, "model_carried", &MODEL, batches.clone())?;
            register_in_memory(engine, "model", &MODEL, batches)?;
        }
    }
    let scores = engine.query_file("views/link_scores.sql", params).await?;
    engine.register_view("link_scores", scores)?;
    let best = engine.query_file("views/url_scores.sql", params).await?;
    register_in_memory(
        engine,
        "url_scores",
        &URL_SCORES,
        engine.collect(best).await?,
    )?;
    let frontier = engine
        .query(
            "SELECT * FROM open_links WHERE dst_relevant IS NULL",
            params,
        )
        .await?;
    let Some(keep) = keep else {
        let frontier = engine.collect(frontier).await?;
        return register_in_memory(engine, "frontier_carried", &FRONTIER, frontier);
    };
    let round_scores = engine
        .query(
            "SELECT * FROM link_scores WHERE found_round = $round",
            params,
        )
        .await?;
    write_segment(engine, round_scores, keep.scores, &SCORES).await?;
    write_segment(engine, frontier, keep.frontier, &FRONTIER).await
}

/// Registers `batches` as table `name` of `schema`, in memory.
fn register_in_memory(
    engine: &Engine,
    name: &str,
    schema: &SchemaRef,
    batches: Vec<RecordBatch>,
) -> Result<()> {
    let batches = batches
        .iter()
        .map(|b| {
            conform(b, schema).map_err(|message| {
                Error::arrow(format!("table {name}"))(ArrowError::SchemaError(message))
            })
        })
        .collect::<Result<Vec<_>>>()?;
    engine.register_batches(name, schema.clone(), batches)
}

/// Writes `df` as the segment `dir`, replacing one a killed run left.
async fn write_segment(
    engine: &Engine,
    df: DataFrame,
    dir: &Path,
    schema: &SchemaRef,
) -> Result<()> {
    let writer = SegmentWriter::create(dir, schema.clone())?;
    engine.write(df, writer).await?.replace().map(|_| ())
}

#[cfg(test)]
#[path = "learn_tests.rs"]
mod tests;
