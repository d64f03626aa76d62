//! The learning step of a strategy that learns (`adaptive`): a frontier,
//! not a filter. Every link whose destination is not fetched yet stays
//! open (the round's `frontier` segment) with the features it was found
//! with; when its destination is fetched it becomes a labelled example.
//! The labels are the last round's counts plus the links labelled this
//! round — no earlier link is read again — kept as the round's `labels`
//! segment; a logistic regression fitted on them (`fit.rs`) is the round's
//! `model` segment; it re-scores every open link each round (`url_scores`, which
//! the merge applies to the queue), and this round's links' scores are kept
//! as `scores`, so what was learned and why a link ranked as it did are
//! queries.

use std::path::Path;

use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, AsArray, Float64Array, Int64Array, RecordBatch, StringArray,
};
use datafusion::arrow::datatypes::{Float64Type, Int64Type, SchemaRef};
use datafusion::arrow::error::ArrowError;
use datafusion::dataframe::DataFrame;

use super::fit::{self, FitInputs, LabelRow, ModelRow};
use super::LinkSelection;
use crate::catalog::Scratch;
use crate::engine::{Engine, Params};
use crate::error::{Error, Result};
use crate::store::schema::{
    FRONTIER, LABELS, LINK_FEATURES, MODEL, OPEN_LINKS, SCORES, URL_SCORES,
};
use crate::store::segment::conform;
use crate::store::{CrawlDir, Phase, RoundId, SegmentWriter};

/// The tables a round of learning holds past [`LinkSelection::learn`],
/// each as long as its part lives: `url_scores` (a priority per open URL,
/// which the decisions and the merge read) and, where what was learned is
/// carried rather than kept (refilter), the frontier the next round starts
/// from (`frontier_carried`: keep it until that round has learned).
#[derive(Debug)]
pub struct Scored {
    pub url_scores: Scratch,
    pub carried_frontier: Option<Scratch>,
}

/// Where a learning strategy keeps what it learned in a round; `None`
/// carries it to the next round refiltered instead (the model and labels
/// in memory, the frontier held as [`Scored::carried_frontier`]).
#[derive(Debug, Clone, Copy)]
pub struct Learned<'a> {
    pub model: &'a Path,
    pub scores: &'a Path,
    pub frontier: &'a Path,
    pub labels: &'a Path,
}

impl LinkSelection {
    /// For a strategy that learns: adds the round's links to the frontier
    /// left by the last round (`sql/views/link_features.sql`,
    /// `open_links.sql`), counts the labels — the last round's and the
    /// links labelled now (`sql/steps/count_labels.sql`) —, fits the model
    /// on them (`fit.rs`) and scores every open link
    /// (`sql/views/feature_scores.sql`, `link_scores.sql`), registering `model`,
    /// `link_scores` and `url_scores`, and writing the model, this round's
    /// scores and the new frontier to `keep` if given. For other
    /// strategies it registers an empty `url_scores`. Call after
    /// [`register_inputs`](Self::register_inputs), and keep what it
    /// returns as long as [`Scored`] says.
    pub async fn learn(
        &self,
        engine: &Engine,
        crawl: &CrawlDir,
        round: RoundId,
        keep: Option<Learned<'_>>,
    ) -> Result<Option<Scored>> {
        if !self.strategy.learns {
            engine.register_empty("url_scores", URL_SCORES.clone())?;
            return Ok(None);
        }
        let recrawl = crate::store::CrawlConfig::load(crawl)?
            .recrawl
            .refetch_after_ms
            .is_some();
        let params = &self
            .sql_params()
            .set("round", round.0 as i32)
            .set("recrawl", recrawl);
        register_before(engine, crawl, round, keep.is_none()).await?;
        let features = engine.query_file("views/link_features.sql", params).await?;
        engine.register_view("link_features", features)?;
        // What the open links are made of (the last frontier and this
        // round's links), read twice to make them; then the open links,
        // described once (joins over the crawldb) and read three times: to
        // fit, to score and as the next frontier. Each held once
        // (`catalog::scratch`: in memory, or as scratch Parquet past the
        // engine's budget), the open links until this round's scores are
        // written.
        let at = |name| crate::catalog::scratch_at(crawl, round, name);
        let held = |name: &'static str, file: &'static str, schema| async move {
            let df = engine.query_file(file, params).await?;
            crate::catalog::scratch(engine, name, df, &at(name), schema).await
        };
        let candidates = held("open_candidates", "views/open_candidates.sql", &FRONTIER).await?;
        let _open = held("open_links", "views/open_links.sql", &OPEN_LINKS).await?;
        drop(candidates);
        fit_model(engine, &self.params.leave_out, params, keep).await?;
        let url_scores = held("url_scores", "views/url_scores.sql", &URL_SCORES).await?;
        let carried_frontier = write_scored(engine, params, keep, &at("frontier_carried")).await?;
        Ok(Some(Scored {
            url_scores,
            carried_frontier,
        }))
    }
}

/// What a round of a learning strategy starts from: the last round's
/// model (its weights start the fit), frontier and labels.
const BEFORE: [(&str, Phase); 3] = [
    ("model_before", Phase::Model),
    ("frontier_before", Phase::Frontier),
    ("labels_before", Phase::Labels),
];

/// Registers `model_before`, `frontier_before` and `labels_before`: what a refilter carried
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
            ("labels_before", "labels_carried"),
        ] {
            let df = context.table(from).await.map_err(Error::sql(from))?;
            engine.register_view(table, df)?;
        }
        return Ok(());
    }
    let earlier = crawl
        .rounds()?
        .into_iter()
        .rfind(|&r| r < round && BEFORE.iter().all(|&(_, phase)| crawl.has(r, phase)));
    let Some(earlier) = earlier else {
        for (table, phase) in BEFORE {
            engine.register_empty(table, phase.schema())?;
        }
        return Ok(());
    };
    for (table, phase) in BEFORE {
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

/// Counts the labels (`sql/steps/count_labels.sql`), fits the model on
/// them (`fit.rs`) and registers `model` and `link_scores` (the open links
/// scored); keeps the labels and the model in `keep`'s segments, or
/// carries them in memory.
async fn fit_model(
    engine: &Engine,
    leave_out: &[String],
    params: &Params,
    keep: Option<Learned<'_>>,
) -> Result<()> {
    let labels = engine.query_file("steps/count_labels.sql", params).await?;
    let labels = conformed(engine.collect(labels).await?, &LABELS, "labels")?;
    let model = model_batch(fit_labels(engine, &labels, leave_out).await?)?;
    let tables = [
        ("labels", &LABELS, labels, keep.map(|k| k.labels)),
        ("model", &MODEL, vec![model], keep.map(|k| k.model)),
    ];
    for (name, schema, batches, segment) in tables {
        // conformed already: labels above, the model built to its schema
        engine.register_batches(name, SchemaRef::clone(schema), batches.clone())?;
        match segment {
            Some(dir) => {
                let df = engine.table(name).await?;
                write_segment(engine, df, dir, schema).await?;
            }
            None => engine.register_batches(
                &format!("{name}_carried"),
                SchemaRef::clone(schema),
                batches,
            )?,
        }
    }
    register_link_scores(engine, params).await
}

/// The open links left for the next round (the frontier) and this round's
/// links' scores: written to `keep`'s segments, or the frontier held as
/// `frontier_carried` (staged at `carry_at` past the engine's budget).
async fn write_scored(
    engine: &Engine,
    params: &Params,
    keep: Option<Learned<'_>>,
    carry_at: &Path,
) -> Result<Option<Scratch>> {
    // each planned just before it runs: the engine's clock counts a run
    // against the query planned last
    let frontier = || {
        engine.query(
            "SELECT * FROM open_links WHERE dst_relevant IS NULL",
            params,
        )
    };
    let Some(keep) = keep else {
        let carried = crate::catalog::scratch(
            engine,
            "frontier_carried",
            frontier().await?,
            carry_at,
            &FRONTIER,
        );
        return Ok(Some(carried.await?));
    };
    let round_scores = engine
        .query(
            "SELECT * FROM link_scores WHERE found_round = $round",
            params,
        )
        .await?;
    write_segment(engine, round_scores, keep.scores, &SCORES).await?;
    write_segment(engine, frontier().await?, keep.frontier, &FRONTIER).await?;
    Ok(None)
}

/// Registers `feature_scores` (the open links' combinations of feature
/// values scored by `model`, computed once, in memory) and `link_scores`
/// (each open link with its combination's scores, a view).
async fn register_link_scores(engine: &Engine, params: &Params) -> Result<()> {
    let combinations = engine
        .query_file("views/feature_scores.sql", params)
        .await?;
    engine
        .register_result("feature_scores", combinations)
        .await?;
    let scores = engine.query_file("views/link_scores.sql", params).await?;
    engine.register_view("link_scores", scores)
}

/// The model fitted on `labels`, started from `model_before`'s weights,
/// with the rules' values (`sql/views/rule_values.sql`).
async fn fit_labels(
    engine: &Engine,
    labels: &[RecordBatch],
    leave_out: &[String],
) -> Result<Vec<ModelRow>> {
    let rule_values = engine
        .query_file("views/rule_values.sql", &Params::new())
        .await?;
    let mut rules = Vec::new();
    for b in engine.collect(rule_values).await? {
        for r in 0..b.num_rows() {
            rules.push((
                text(&b, 0).value(r).to_string(),
                text(&b, 1).value(r).to_string(),
            ));
        }
    }
    let before = engine
        .query("SELECT * FROM model_before", &Params::new())
        .await?;
    let before = conformed(engine.collect(before).await?, &MODEL, "model_before")?;
    let start = model_rows(&before)
        .into_iter()
        .map(|r| ((r.feature, r.value), r.weight))
        .collect();
    let inputs = FitInputs {
        features: &LINK_FEATURES,
        rules: &rules,
        leave_out,
        start: &start,
    };
    Ok(fit::fit(&label_rows(labels), &inputs))
}

/// `batches` conformed to `schema` (named `name` in errors).
fn conformed(
    batches: Vec<RecordBatch>,
    schema: &SchemaRef,
    name: &str,
) -> Result<Vec<RecordBatch>> {
    batches
        .iter()
        .map(|b| {
            conform(b, schema).map_err(|message| {
                Error::arrow(format!("table {name}"))(ArrowError::SchemaError(message))
            })
        })
        .collect()
}

/// Column `c` of `b`: strings (Utf8, as `conform` makes them).
fn text(b: &RecordBatch, c: usize) -> &StringArray {
    b.column(c).as_string::<i32>()
}

/// The rows of `labels` batches (schema [`LABELS`]: segment, the
/// features, relevant, other).
fn label_rows(batches: &[RecordBatch]) -> Vec<LabelRow> {
    let features = LINK_FEATURES.len();
    let mut labels = Vec::new();
    for b in batches {
        let relevant = b.column(features + 1).as_primitive::<Int64Type>();
        let other = b.column(features + 2).as_primitive::<Int64Type>();
        for r in 0..b.num_rows() {
            labels.push(LabelRow {
                segment: text(b, 0).value(r).to_string(),
                values: (1..=features)
                    .map(|c| text(b, c).value(r).to_string())
                    .collect(),
                relevant: relevant.value(r),
                other: other.value(r),
            });
        }
    }
    labels
}

/// The rows of `model` batches (schema [`MODEL`]).
fn model_rows(batches: &[RecordBatch]) -> Vec<ModelRow> {
    let mut model = Vec::new();
    for b in batches {
        let relevant = b.column(2).as_primitive::<Int64Type>();
        let other = b.column(3).as_primitive::<Int64Type>();
        let weight = b.column(4).as_primitive::<Float64Type>();
        for r in 0..b.num_rows() {
            model.push(ModelRow {
                feature: text(b, 0).value(r).to_string(),
                value: text(b, 1).value(r).to_string(),
                relevant: relevant.value(r),
                other: other.value(r),
                weight: weight.value(r),
            });
        }
    }
    model
}

/// `rows` as one batch of schema [`MODEL`].
fn model_batch(rows: Vec<ModelRow>) -> Result<RecordBatch> {
    let text = |f: fn(&ModelRow) -> &str| -> ArrayRef {
        Arc::new(StringArray::from_iter_values(rows.iter().map(f)))
    };
    let count = |f: fn(&ModelRow) -> i64| -> ArrayRef {
        Arc::new(Int64Array::from_iter_values(rows.iter().map(f)))
    };
    let columns = vec![
        text(|r| &r.feature),
        text(|r| &r.value),
        count(|r| r.relevant),
        count(|r| r.other),
        Arc::new(Float64Array::from_iter_values(
            rows.iter().map(|r| r.weight),
        )) as ArrayRef,
    ];
    RecordBatch::try_new(MODEL.clone(), columns).map_err(Error::arrow("table model".to_string()))
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
