//! The learning step of a strategy that learns (`adaptive`): every link
//! whose destination has been fetched is a labelled example; a naive Bayes
//! model over the links' features is fitted in SQL, kept as the round's
//! `model` segment, and scores the round's links (`scores`), so what was
//! learned and why a link scored as it did are queries.

use std::path::Path;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use datafusion::dataframe::DataFrame;

use super::LinkSelection;
use crate::engine::{Engine, Params};
use crate::error::{Error, Result};
use crate::store::schema::{LINK_FEATURE_ROWS, MODEL, SCORES};
use crate::store::segment::conform;
use crate::store::{CrawlDir, Phase, RoundId, SegmentWriter};

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
        // The features of every link so far, described once (joins over
        // the whole crawldb) and read twice: to fit and to score. Never
        // committed: its temp folder is removed here, or as a killed
        // phase's leftover.
        let scratch = crawl
            .segment(round, Phase::Links)
            .with_file_name("link_features");
        let features = engine
            .query_file("views/link_features.sql", &params)
            .await?;
        let writer = SegmentWriter::create(&scratch, LINK_FEATURE_ROWS.clone())?;
        let staged = engine.write(features, writer).await?;
        let temp = staged.temp_dir.clone();
        let fitted = async {
            let schema = &LINK_FEATURE_ROWS;
            crate::catalog::segment(engine, "link_features", &temp, schema).await?;
            fit_and_score(engine, &params, keep).await
        }
        .await;
        std::fs::remove_dir_all(&temp).map_err(Error::io(&temp))?;
        fitted
    }
}

/// Fits the model on `link_features` and scores the round's links:
/// registers `model` and `link_scores`, kept in `keep`'s segments or in
/// memory.
async fn fit_and_score(engine: &Engine, params: &Params, keep: Option<Learned<'_>>) -> Result<()> {
    let model = engine.query_file("steps/learn_model.sql", params).await?;
    let Some(keep) = keep else {
        register_in_memory(engine, "model", &MODEL, engine.collect(model).await?)?;
        let scores = engine.query_file("views/link_scores.sql", params).await?;
        let scores = engine.collect(scores).await?;
        return register_in_memory(engine, "link_scores", &SCORES, scores);
    };
    write_segment(engine, model, keep.model, &MODEL).await?;
    crate::catalog::segment(engine, "model", keep.model, &MODEL).await?;
    let scores = engine.query_file("views/link_scores.sql", params).await?;
    write_segment(engine, scores, keep.scores, &SCORES).await?;
    crate::catalog::segment(engine, "link_scores", keep.scores, &SCORES).await
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
mod tests {
    use datafusion::arrow::array::{Array, AsArray};
    use datafusion::arrow::datatypes::{Float64Type, Int64Type};

    use crate::engine::{Engine, Params};
    use crate::store::schema::MODEL;

    /// Five labelled links (three led to target pages, two did not), one
    /// not labelled yet, all of round 1; and one link of round 2 to score.
    /// The features not listed take one value on every row.
    const LINKS: &str = "SELECT * FROM (VALUES
        (1, 's1', 'd1', 'h', 'h', 'a',      0.0, true,  'target', 'th'),
        (1, 's1', 'd2', 'h', 'x', 'a',      0.0, true,  'none',   'com'),
        (1, 's3', 'd7', 'h', 'v', 'a',      0.0, true,  'target', 'th'),
        (1, 's2', 'd3', 'h', 'y', 'a',      0.0, false, 'eng',    'com'),
        (1, 's2', 'd4', 'h', 'z', 'area',   0.0, false, 'none',   'com'),
        (1, 's2', 'd5', 'h', 'z', 'iframe', 0.0, NULL,  'none',   'com'),
        (2, 's4', 'd6', 'h', 'w', 'a',      0.5, NULL,  'eng',    'jp')
    ) AS t(round, src_url, url, src_host, dst_host, kind, src_priority, dst_relevant, anchor, tld)";

    async fn features() -> Engine {
        let engine = Engine::new(None);
        let sql = format!(
            "SELECT round, src_url, url, src_host, dst_host, kind, src_priority,
                    CAST(dst_relevant AS BOOLEAN) AS dst_relevant,
                    'none' AS hreflang, 'none' AS url_lang, anchor, tld, '0' AS hops,
                    '1' AS inlinks, 'relevant' AS src_server, 'relevant' AS dst_server,
                    'relevant' AS dst_dir
             FROM ({LINKS})"
        );
        let df = engine.query(&sql, &Params::new()).await.unwrap();
        engine.register_view("link_features", df).unwrap();
        engine
    }

    fn params(leave_out: &str) -> Params {
        Params::new()
            .set("leave_out", leave_out)
            .set("min_probability", 0.1)
            .set("warmup", 5i64)
            .set("round", 2i32)
    }

    /// The model's rows as (feature, value) → (relevant, other, weight).
    async fn learn(engine: &Engine, leave_out: &str) -> Vec<(String, String, i64, i64, f64)> {
        let df = engine
            .query_file("steps/learn_model.sql", &params(leave_out))
            .await
            .unwrap();
        let batches = engine.collect(df).await.unwrap();
        super::register_in_memory(engine, "model", &MODEL, batches.clone()).unwrap();
        let mut rows = Vec::new();
        for b in &batches {
            let text = |i: usize| b.column(i).as_string::<i32>().clone();
            let (feature, value) = (text(0), text(1));
            let count = |i: usize| b.column(i).as_primitive::<Int64Type>().clone();
            let (relevant, other) = (count(2), count(3));
            let weight = b.column(4).as_primitive::<Float64Type>();
            for r in 0..b.num_rows() {
                rows.push((
                    feature.value(r).to_string(),
                    value.value(r).to_string(),
                    relevant.value(r),
                    other.value(r),
                    weight.value(r),
                ));
            }
        }
        rows
    }

    fn row<'a>(
        model: &'a [(String, String, i64, i64, f64)],
        feature: &str,
        value: &str,
    ) -> Option<&'a (String, String, i64, i64, f64)> {
        model.iter().find(|r| r.0 == feature && r.1 == value)
    }

    fn weight(model: &[(String, String, i64, i64, f64)], feature: &str, value: &str) -> f64 {
        row(model, feature, value)
            .unwrap_or_else(|| panic!("no model row {feature}={value}"))
            .4
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    #[tokio::test]
    async fn the_models_log_odds_are_the_smoothed_counts_of_the_labelled_links() {
        let engine = features().await;
        let model = learn(&engine, "").await;
        // R = 3 relevant, O = 2 other labelled links; the unlabelled
        // iframe link counts nowhere.
        assert_eq!(
            row(&model, "prior", "all").map(|r| (r.2, r.3)),
            Some((3, 2))
        );
        assert!(close(weight(&model, "prior", "all"), (4.0f64 / 3.0).ln()));
        assert!(row(&model, "kind", "iframe").is_none());
        // kind: a 3 relevant / 1 other, area 0 / 1; V = 2 values.
        assert_eq!(row(&model, "kind", "a").map(|r| (r.2, r.3)), Some((3, 1)));
        let a = (4.0f64 / 5.0).ln() - (2.0f64 / 4.0).ln();
        assert!(close(weight(&model, "kind", "a"), a), "{model:?}");
        let area = (1.0f64 / 5.0).ln() - (2.0f64 / 4.0).ln();
        assert!(close(weight(&model, "kind", "area"), area));
        // tld: th 2 / 0, com 1 / 2.
        let th = (3.0f64 / 5.0).ln() - (1.0f64 / 4.0).ln();
        assert!(close(weight(&model, "tld", "th"), th));
        let com = (2.0f64 / 5.0).ln() - (3.0f64 / 4.0).ln();
        assert!(close(weight(&model, "tld", "com"), com));
        // anchor: target 2 / 0, none 1 / 1, eng 0 / 1; V = 3.
        let target = (3.0f64 / 6.0).ln() - (1.0f64 / 5.0).ln();
        assert!(close(weight(&model, "anchor", "target"), target));
        let eng = (1.0f64 / 6.0).ln() - (2.0f64 / 5.0).ln();
        assert!(close(weight(&model, "anchor", "eng"), eng));
        // A value every labelled link shares says nothing: ln(4/4) - ln(3/3).
        assert!(close(weight(&model, "hreflang", "none"), 0.0));
        // The threshold: 0.1 × n / (n + warmup) with n = 5, warmup 5.
        assert!(close(weight(&model, "threshold", "probability"), 0.05));
    }

    #[tokio::test]
    async fn a_links_score_is_the_prior_plus_the_weight_of_each_value() {
        let engine = features().await;
        learn(&engine, "").await;
        let df = engine
            .query_file("views/link_scores.sql", &params(""))
            .await
            .unwrap();
        let batches = engine.collect(df).await.unwrap();
        let b = &batches[0];
        assert_eq!(b.num_rows(), 1, "round 2's one link only");
        let value = |name: &str| {
            b.column_by_name(name)
                .unwrap()
                .as_primitive::<Float64Type>()
                .value(0)
        };
        // kind a, anchor eng, tld jp (never seen: 0), the rest constant (0).
        let expected = (4.0f64 / 3.0).ln() + (1.6f64).ln() + (5.0f64 / 12.0).ln();
        assert!(close(expected, (8.0f64 / 9.0).ln()));
        assert!(close(value("w_prior"), (4.0f64 / 3.0).ln()));
        assert!(close(value("w_kind"), 1.6f64.ln()));
        assert!(close(value("w_anchor"), (5.0f64 / 12.0).ln()));
        assert!(close(value("w_tld"), 0.0));
        assert!(close(value("score"), expected));
        assert!(close(value("probability"), 8.0 / 17.0));
    }

    #[tokio::test]
    async fn a_feature_left_out_has_no_weight() {
        let engine = features().await;
        let model = learn(&engine, "tld,anchor").await;
        assert!(model.iter().all(|r| r.0 != "tld" && r.0 != "anchor"));
        assert!(row(&model, "kind", "a").is_some());
        let df = engine
            .query_file("views/link_scores.sql", &params("tld,anchor"))
            .await
            .unwrap();
        let b = &engine.collect(df).await.unwrap()[0];
        let score = b
            .column_by_name("score")
            .unwrap()
            .as_primitive::<Float64Type>()
            .value(0);
        assert!(close(score, (32.0f64 / 15.0).ln()), "{score}");
        assert!(b.column_by_name("w_tld").unwrap().null_count() == 0);
    }

    /// Four pages: a relevant one on h1 (a), an irrelevant one a found on
    /// h1 (b), one b found on h2 (c), one queued on h3 (d).
    const PAGES: &str = "SELECT * FROM (VALUES
        ('http://h1/a', 'h1', 'h1/', 'fetched',   true,  CAST(NULL AS VARCHAR)),
        ('http://h1/b', 'h1', 'h1/', 'fetched',   false, 'http://h1/a'),
        ('http://h2/c', 'h2', 'h2/', 'fetched',   false, 'http://h1/b'),
        ('http://h3/d', 'h3', 'h3/', 'unfetched', CAST(NULL AS BOOLEAN), 'http://h1/a')
    ) AS t(url, host, dir, status, relevant, found_from)";

    const PAGE_LINKS: &str = "SELECT *, 'a' AS kind, CAST(NULL AS VARCHAR) AS hreflang,
               '' AS anchor, 'und' AS anchor_lang, 'com' AS dst_tld, dst_host || '/' AS dst_dir,
               CAST(NULL AS INT) AS position
        FROM (VALUES
            (1, 'http://h1/a', 'h1', 'http://h1/b', 'h1'),
            (1, 'http://h1/a', 'h1', 'http://h3/d', 'h3'),
            (2, 'http://h1/b', 'h1', 'http://h2/c', 'h2'),
            (2, 'http://h1/b', 'h1', 'http://h3/d', 'h3'),
            (3, 'http://h2/c', 'h2', 'http://h3/d', 'h3')
        ) AS t(round, src_url, src_host, dst_url, dst_host)";

    #[tokio::test]
    async fn link_features_label_links_by_their_destination_and_leave_it_out_of_its_server() {
        let engine = Engine::new(None);
        let params = Params::new()
            .set("target_lang", "tha")
            .set("han_matches", true)
            .set("tolerance", 10i64);
        let pages = format!("SELECT *, 0.0 AS priority FROM ({PAGES})");
        for (name, sql) in [
            ("crawldb_after_round", pages),
            ("all_links", PAGE_LINKS.into()),
        ] {
            let df = engine.query(&sql, &Params::new()).await.unwrap();
            engine.register_view(name, df).unwrap();
        }
        let tlds = engine
            .query("SELECT 'th' AS tld", &Params::new())
            .await
            .unwrap();
        engine.register_view("target_tlds", tlds).unwrap();
        let views = [
            ("servers", "views/server_stats.sql"),
            ("dirs", "views/dir_stats.sql"),
        ];
        engine.register_query_views(&views, &params).await.unwrap();
        let df = engine
            .query_file("views/link_features.sql", &params)
            .await
            .unwrap();
        let df = df
            .sort(vec![
                datafusion::prelude::col("src_url").sort(true, false),
                datafusion::prelude::col("url").sort(true, false),
            ])
            .unwrap();
        let text = crate::report::format(
            &engine.collect(df).await.unwrap(),
            crate::report::Format::Csv,
        )
        .unwrap();
        let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
        let at = |name: &str| rows[0].iter().position(|h| *h == name).unwrap();
        let cells = |row: &[&str], names: &[&str]| -> Vec<String> {
            names.iter().map(|n| row[at(n)].to_string()).collect()
        };
        let names = ["url", "dst_relevant", "hops", "inlinks", "dst_server"];
        let got: Vec<Vec<String>> = rows[1..].iter().map(|r| cells(r, &names)).collect();
        let want = [
            // a is relevant: hops 0; b is on a's server, which a makes relevant.
            ["http://h1/b", "false", "0", "1", "relevant"],
            ["http://h3/d", "", "0", "1", "unvisited"],
            // b's finder is relevant: hops 1; c alone on h2: unvisited without it.
            ["http://h2/c", "false", "1", "0", "unvisited"],
            ["http://h3/d", "", "1", "1", "unvisited"],
            // c's finder b is not relevant: 2+.
            ["http://h3/d", "", "2+", "1", "unvisited"],
        ];
        let want: Vec<Vec<String>> = want
            .iter()
            .map(|r| r.iter().map(|c| c.to_string()).collect())
            .collect();
        assert_eq!(got, want);
    }
}
