//! The learning step of a strategy that learns (`adaptive`): every link
//! whose destination has been fetched is a labelled example; a naive Bayes
//! model over the links' features is fitted in SQL, kept as the round's
//! `model` segment, and scores the round's links (`scores`), so what was
//! learned and why a link scored as it did are queries.

use std::path::Path;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::dataframe::DataFrame;

use super::LinkSelection;
use crate::engine::Engine;
use crate::error::Result;
use crate::store::schema::{MODEL, SCORES};
use crate::store::{CrawlDir, RoundId, SegmentWriter};

/// Where a learning strategy keeps what it learned in a round; `None`
/// keeps it in memory only (refilter).
#[derive(Debug, Clone, Copy)]
pub struct Learned<'a> {
    pub model: &'a Path,
    pub scores: &'a Path,
}

impl LinkSelection {
    /// For a strategy that learns: fits its model on every labelled link of
    /// rounds up to `round` (`sql/views/link_features.sql`,
    /// `sql/steps/learn_model.sql`) and scores the round's links
    /// (`sql/views/link_scores.sql`), registering `model` and
    /// `link_scores`, and writing them to `keep` if given. Call after
    /// [`register_inputs`](Self::register_inputs); does nothing for other
    /// strategies.
    pub async fn learn(
        &self,
        engine: &Engine,
        crawl: &CrawlDir,
        round: RoundId,
        keep: Option<Learned<'_>>,
    ) -> Result<()> {
        if !self.strategy.learns {
            return Ok(());
        }
        let params = self.sql_params().set("round", round.0 as i32);
        crate::catalog::links_through(engine, crawl, round).await?;
        let features = [("link_features", "views/link_features.sql")];
        engine.register_query_views(&features, &params).await?;
        let model = engine.query_file("steps/learn_model.sql", &params).await?;
        let Some(keep) = keep else {
            let batches = engine.collect(model).await?;
            engine.register_batches("model", MODEL.clone(), batches)?;
            let scores = [("link_scores", "views/link_scores.sql")];
            return engine.register_query_views(&scores, &params).await;
        };
        write_segment(engine, model, keep.model, &MODEL).await?;
        crate::catalog::segment(engine, "model", keep.model, &MODEL).await?;
        let scores = engine.query_file("views/link_scores.sql", &params).await?;
        write_segment(engine, scores, keep.scores, &SCORES).await?;
        crate::catalog::segment(engine, "link_scores", keep.scores, &SCORES).await
    }
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
