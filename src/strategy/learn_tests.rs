//! Tests of the learning step: the model's formula, incremental counts,
//! the rules' prior, and the open links' labels and judgements.

use datafusion::arrow::array::{Array, AsArray};
use datafusion::arrow::datatypes::{Float64Type, Int64Type};

use crate::engine::{Engine, Params};
use crate::store::schema::{FRONTIER, MODEL};

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

/// `rows` (of [`LINKS`]' columns) as open links.
fn open_links(rows: &str) -> String {
    format!(
        "SELECT round AS found_round, src_url, url, src_host, dst_host, 'd' AS dir, src_priority,
                true AS src_relevant, CAST(dst_relevant AS BOOLEAN) AS dst_relevant,
                kind, 'none' AS hreflang, 'none' AS url_lang, anchor, tld, '0' AS hops,
                '1' AS inlinks, 'relevant' AS src_server, 'relevant' AS dst_server,
                'relevant' AS dst_dir
         FROM ({rows})"
    )
}

/// An engine with the crawl's target ccTLDs (th).
fn engine() -> Engine {
    let engine = Engine::new(None);
    crate::strategy::register_target_tlds(&engine, &["th".to_string()]).unwrap();
    engine
}

async fn features() -> Engine {
    let engine = engine();
    let df = engine
        .query(&open_links(LINKS), &Params::new())
        .await
        .unwrap();
    engine.register_view("open_links", df).unwrap();
    engine
        .register_empty("model_before", MODEL.clone())
        .unwrap();
    engine
}

/// The formula's tests count the crawl's labels only (no rule prior).
fn params(leave_out: &str) -> Params {
    Params::new()
        .set("leave_out", leave_out)
        .set("round", 2i32)
        .set("rule_prior", 0.0)
}

type ModelRow = (String, String, i64, i64, f64);

/// The model's rows as (feature, value) → (relevant, other, weight).
async fn learn(engine: &Engine, leave_out: &str) -> Vec<ModelRow> {
    let df = engine
        .query_file("steps/learn_model.sql", &params(leave_out))
        .await
        .unwrap();
    let batches = engine.collect(df).await.unwrap();
    super::register_in_memory(engine, "model", &MODEL, batches.clone()).unwrap();
    let scores = engine
        .query_file("views/link_scores.sql", &params(leave_out))
        .await
        .unwrap();
    engine.register_view("link_scores", scores).unwrap();
    model_rows(&batches)
}

fn model_rows(batches: &[datafusion::arrow::array::RecordBatch]) -> Vec<ModelRow> {
    let mut rows = Vec::new();
    for b in batches {
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
    rows.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    rows
}

/// The row of `value` in the `known` segment (every test link leads
/// into a server already visited), or of the prior of that segment.
fn row<'a>(model: &'a [ModelRow], feature: &str, value: &str) -> Option<&'a ModelRow> {
    let keyed = match feature {
        "prior" => "known".to_string(),
        _ => format!("known:{value}"),
    };
    model.iter().find(|r| r.0 == feature && r.1 == keyed)
}

fn weight(model: &[ModelRow], feature: &str, value: &str) -> f64 {
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
        row(&model, "prior", "known").map(|r| (r.2, r.3)),
        Some((3, 2))
    );
    assert!(close(weight(&model, "prior", "known"), (4.0f64 / 3.0).ln()));
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
}

/// The link of round 2 (d6), scored.
async fn round_two_score(engine: &Engine) -> datafusion::arrow::array::RecordBatch {
    let df = engine
        .query("SELECT * FROM link_scores WHERE url = 'd6'", &Params::new())
        .await
        .unwrap();
    let batches = engine.collect(df).await.unwrap();
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 1);
    batches.into_iter().find(|b| b.num_rows() == 1).unwrap()
}

#[tokio::test]
async fn a_links_score_is_the_prior_plus_the_weight_of_each_value() {
    let engine = features().await;
    learn(&engine, "").await;
    let b = &round_two_score(&engine).await;
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
    // counted still (the next round adds to them), but weightless
    let left_out: Vec<&ModelRow> = model
        .iter()
        .filter(|r| (r.0 == "tld" || r.0 == "anchor") && r.1.starts_with("known:"))
        .collect();
    assert_eq!(left_out.len(), 5);
    assert!(left_out.iter().all(|r| r.4 == 0.0));
    assert!(row(&model, "kind", "a").is_some());
    let b = &round_two_score(&engine).await;
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
        ('http://h1/a', 'h1', 'http://h1/b', 'h1'),
        ('http://h1/a', 'h1', 'http://h3/d', 'h3'),
        ('http://h1/b', 'h1', 'http://h2/c', 'h2'),
        ('http://h1/b', 'h1', 'http://h3/d', 'h3'),
        ('http://h2/c', 'h2', 'http://h3/d', 'h3')
    ) AS t(src_url, src_host, dst_url, dst_host)";

#[tokio::test]
async fn open_links_label_links_by_their_destination_and_leave_it_out_of_its_server() {
    let engine = Engine::new(None);
    let params = Params::new()
        .set("target_lang", "tha")
        .set("han_matches", true)
        .set("tolerance", 10i64)
        .set("round", 3i32);
    let pages = format!("SELECT *, 0.0 AS priority FROM ({PAGES})");
    for (name, sql) in [
        ("crawldb_after_round", pages),
        ("page_links", PAGE_LINKS.into()),
    ] {
        let df = engine.query(&sql, &Params::new()).await.unwrap();
        engine.register_view(name, df).unwrap();
    }
    engine
        .register_empty("frontier_before", FRONTIER.clone())
        .unwrap();
    let tlds = engine
        .query("SELECT 'th' AS tld", &Params::new())
        .await
        .unwrap();
    engine.register_view("target_tlds", tlds).unwrap();
    let views = [
        ("servers", "views/server_stats.sql"),
        ("dirs", "views/dir_stats.sql"),
        ("link_features", "views/link_features.sql"),
    ];
    engine.register_query_views(&views, &params).await.unwrap();
    let df = engine
        .query_file("views/open_links.sql", &params)
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

/// Round 1's open links: d1, d2 labelled; d3, d4 not yet.
const ROUND_1: &str = "SELECT * FROM (VALUES
    (1, 's1', 'd1', 'h', 'h', 'a',    0.0, true,  'target', 'th'),
    (1, 's1', 'd2', 'h', 'x', 'a',    0.0, false, 'none',   'com'),
    (1, 's2', 'd3', 'h', 'y', 'area', 0.0, NULL,  'eng',    'com'),
    (1, 's2', 'd4', 'h', 'z', 'a',    0.0, NULL,  'target', 'th')
) AS t(round, src_url, url, src_host, dst_host, kind, src_priority, dst_relevant, anchor, tld)";

/// Round 2's: the frontier left by round 1 (d3 now labelled, d4 still
/// open) and round 2's own links (d1 fetched before, d5, d6).
const ROUND_2: &str = "SELECT * FROM (VALUES
    (1, 's2', 'd3', 'h', 'y', 'area', 0.0, false, 'eng',    'com'),
    (1, 's2', 'd4', 'h', 'z', 'a',    0.0, NULL,  'target', 'th'),
    (2, 's5', 'd1', 'h', 'h', 'a',    0.0, true,  'none',   'th'),
    (2, 's5', 'd5', 'h', 'h', 'a',    0.0, true,  'target', 'com'),
    (2, 's6', 'd6', 'h', 'w', 'iframe', 0.0, false, 'eng',  'jp')
) AS t(round, src_url, url, src_host, dst_host, kind, src_priority, dst_relevant, anchor, tld)";

/// The model learned from `open` on top of `before`'s counts.
async fn learn_on(engine: &Engine, open: &str, before: Vec<ModelRow>) -> Vec<ModelRow> {
    learn_with(engine, open, before, &params("")).await
}

async fn learn_with(
    engine: &Engine,
    open: &str,
    before: Vec<ModelRow>,
    params: &Params,
) -> Vec<ModelRow> {
    let df = engine
        .query(&open_links(open), &Params::new())
        .await
        .unwrap();
    engine.register_view("open_links", df).unwrap();
    let before: Vec<String> = before
        .iter()
        .map(|r| format!("('{}', '{}', {}, {}, {})", r.0, r.1, r.2, r.3, r.4))
        .collect();
    let sql = format!(
        "SELECT column1 AS feature, column2 AS value, column3 AS relevant, column4 AS other,
                column5 AS weight FROM (VALUES {})",
        before.join(", ")
    );
    if before.is_empty() {
        engine
            .register_empty("model_before", MODEL.clone())
            .unwrap();
    } else {
        let df = engine.query(&sql, &Params::new()).await.unwrap();
        engine.register_view("model_before", df).unwrap();
    }
    let df = engine
        .query_file("steps/learn_model.sql", params)
        .await
        .unwrap();
    model_rows(&engine.collect(df).await.unwrap())
}

#[tokio::test]
async fn a_rounds_model_is_the_last_ones_counts_plus_the_newly_labelled_links() {
    let engine = engine();
    let first = learn_on(&engine, ROUND_1, Vec::new()).await;
    assert_eq!(
        row(&first, "prior", "known").map(|r| (r.2, r.3)),
        Some((1, 1))
    );
    let incremental = learn_on(&engine, ROUND_2, first).await;
    // A full recount: every link labelled by round 2, each once.
    let all = format!(
        "SELECT * FROM ({ROUND_1}) WHERE dst_relevant IS NOT NULL
         UNION ALL SELECT * FROM ({ROUND_2}) WHERE dst_relevant IS NOT NULL"
    );
    let full = learn_on(&engine, &all, Vec::new()).await;
    assert_eq!(
        row(&full, "prior", "known").map(|r| (r.2, r.3)),
        Some((3, 3))
    );
    assert_eq!(incremental.len(), full.len());
    for (a, b) in incremental.iter().zip(&full) {
        assert_eq!((&a.0, &a.1, a.2, a.3), (&b.0, &b.1, b.2, b.3));
        assert!(close(a.4, b.4), "{a:?} {b:?}");
    }
}

#[tokio::test]
async fn the_papers_rules_weigh_before_any_label_and_in_each_segment() {
    let engine = engine();
    let none = "SELECT * FROM (VALUES (1, 's', 'd', 'h', 'h', 'a', 0.0, NULL, 'none', 'com'))
        AS t(round, src_url, url, src_host, dst_host, kind, src_priority, dst_relevant, anchor, tld)";
    let params = params("").set("rule_prior", 5.0);
    let model = learn_with(&engine, none, Vec::new(), &params).await;
    // No label yet: a target anchor, the target ccTLD and a relevant
    // source page each weigh ln((0 + 5 + 1) / 1) - ln(1 / 1), in both
    // segments; their counts stay the crawl's own (none).
    for segment in ["new", "known"] {
        for (feature, value) in [("anchor", "target"), ("tld", "th"), ("hops", "0")] {
            let keyed = format!("{segment}:{value}");
            let r = model
                .iter()
                .find(|r| r.0 == feature && r.1 == keyed)
                .unwrap();
            assert_eq!((r.2, r.3), (0, 0));
            assert!(close(r.4, 6.0f64.ln()), "{r:?}");
        }
    }
}
