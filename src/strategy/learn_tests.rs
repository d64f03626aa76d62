//! Tests of the learning step: the labels counted round by round, the
//! fitted model scoring the open links, the rules' prior, and the open
//! links' labels and judgements.

use datafusion::arrow::array::{AsArray, RecordBatch};
use datafusion::arrow::datatypes::Float64Type;

use super::fit::{ModelRow, RULE_WEIGHT};
use crate::engine::{Engine, Params};
use crate::store::schema::{FRONTIER, LABELS, MODEL};

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

/// What one round learns from `open` (rows of [`LINKS`]' columns), on top
/// of the last round's labels: the labels and the model, registered as
/// `labels` and `model`, and the open links scored as `link_scores`.
async fn learn(
    engine: &Engine,
    open: &str,
    labels_before: Vec<RecordBatch>,
    leave_out: &[&str],
) -> (Vec<RecordBatch>, Vec<ModelRow>) {
    let df = engine
        .query(&open_links(open), &Params::new())
        .await
        .unwrap();
    engine.register_view("open_links", df).unwrap();
    let labels_before = super::conformed(labels_before, &LABELS, "labels_before").unwrap();
    engine
        .register_batches("labels_before", LABELS.clone(), labels_before)
        .unwrap();
    engine
        .register_empty("model_before", MODEL.clone())
        .unwrap();
    let labels = engine
        .query_file("steps/count_labels.sql", &Params::new())
        .await
        .unwrap();
    let labels =
        super::conformed(engine.collect(labels).await.unwrap(), &LABELS, "labels").unwrap();
    let leave_out: Vec<String> = leave_out.iter().map(|s| s.to_string()).collect();
    let model = super::fit_labels(engine, &labels, &leave_out)
        .await
        .unwrap();
    let batch = super::model_batch(model.clone()).unwrap();
    engine
        .register_batches("model", MODEL.clone(), vec![batch])
        .unwrap();
    super::register_link_scores(engine, &Params::new())
        .await
        .unwrap();
    (labels, model)
}

/// The labels as text, one line per row, sorted.
fn label_lines(labels: &[RecordBatch]) -> Vec<String> {
    let text = crate::report::format(labels, crate::report::Format::Csv).unwrap();
    let mut lines: Vec<String> = text.lines().skip(1).map(String::from).collect();
    lines.sort();
    lines
}

fn row<'a>(model: &'a [ModelRow], feature: &str, value: &str) -> &'a ModelRow {
    model
        .iter()
        .find(|r| r.feature == feature && r.value == value)
        .unwrap_or_else(|| panic!("no model row {feature}={value}: {model:?}"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[tokio::test]
async fn labels_count_the_labelled_links_by_segment_and_feature_values() {
    let engine = engine();
    let (labels, model) = learn(&engine, LINKS, Vec::new(), &[]).await;
    // The unlabelled links (d5, d6) count nowhere; d1 and d7 share every
    // value and are one row.
    let lines = label_lines(&labels);
    let want = [
        "known,a,none,none,eng,com,0,1,relevant,relevant,relevant,0,1",
        "known,a,none,none,none,com,0,1,relevant,relevant,relevant,1,0",
        "known,a,none,none,target,th,0,1,relevant,relevant,relevant,2,0",
        "known,area,none,none,none,com,0,1,relevant,relevant,relevant,0,1",
    ];
    assert_eq!(lines, want);
    let prior = row(&model, "prior", "known");
    assert_eq!((prior.relevant, prior.other), (3, 2));
    let a = row(&model, "kind", "known:a");
    assert_eq!((a.relevant, a.other), (3, 1));
    assert!(model.iter().all(|r| !r.value.ends_with(":iframe")));
}

#[tokio::test]
async fn a_rounds_labels_are_the_last_ones_plus_the_newly_labelled_links() {
    let engine = engine();
    let (first, _) = learn(&engine, ROUND_1, Vec::new(), &[]).await;
    let (incremental, by_rounds) = learn(&engine, ROUND_2, first, &[]).await;
    // A full recount: every link labelled by round 2, each once.
    let all = format!(
        "SELECT * FROM ({ROUND_1}) WHERE dst_relevant IS NOT NULL
         UNION ALL SELECT * FROM ({ROUND_2}) WHERE dst_relevant IS NOT NULL"
    );
    let (full, at_once) = learn(&engine, &all, Vec::new(), &[]).await;
    assert_eq!(label_lines(&incremental), label_lines(&full));
    assert_eq!(
        (
            row(&at_once, "prior", "known").relevant,
            row(&at_once, "prior", "known").other
        ),
        (3, 3)
    );
    assert_eq!(by_rounds.len(), at_once.len());
    for (a, b) in by_rounds.iter().zip(&at_once) {
        assert_eq!(
            (&a.feature, &a.value, a.relevant, a.other),
            (&b.feature, &b.value, b.relevant, b.other)
        );
        assert!((a.weight - b.weight).abs() < 1e-6, "{a:?} {b:?}");
    }
}

/// The link of round 2 (d6), scored.
async fn round_two_score(engine: &Engine) -> RecordBatch {
    let df = engine
        .query("SELECT * FROM link_scores WHERE url = 'd6'", &Params::new())
        .await
        .unwrap();
    let batches = engine.collect(df).await.unwrap();
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 1);
    batches.into_iter().find(|b| b.num_rows() == 1).unwrap()
}

fn float(b: &RecordBatch, name: &str) -> f64 {
    b.column_by_name(name)
        .unwrap()
        .as_primitive::<Float64Type>()
        .value(0)
}

#[tokio::test]
async fn a_links_score_is_the_prior_plus_the_weight_of_each_value() {
    let engine = engine();
    let (_, model) = learn(&engine, LINKS, Vec::new(), &[]).await;
    let b = &round_two_score(&engine).await;
    // d6: kind a, anchor eng, tld jp (never seen: weighs 0), the rest as
    // every labelled link.
    let w = |feature: &str, value: &str| row(&model, feature, value).weight;
    assert!(close(float(b, "w_prior"), w("prior", "known")));
    assert!(close(float(b, "w_kind"), w("kind", "known:a")));
    assert!(close(float(b, "w_anchor"), w("anchor", "known:eng")));
    assert!(close(float(b, "w_tld"), 0.0));
    let rest: f64 = ["hreflang:none", "url_lang:none", "hops:0", "inlinks:1"]
        .iter()
        .chain(&[
            "src_server:relevant",
            "dst_server:relevant",
            "dst_dir:relevant",
        ])
        .map(|fv| {
            let (f, v) = fv.split_once(':').unwrap();
            w(f, &format!("known:{v}"))
        })
        .sum();
    let score = w("prior", "known") + w("kind", "known:a") + w("anchor", "known:eng") + rest;
    assert!(
        close(float(b, "score"), score),
        "{} {score}",
        float(b, "score")
    );
    assert!(close(float(b, "probability"), 1.0 / (1.0 + (-score).exp())));
    // An English anchor led nowhere, a target one to target pages.
    assert!(w("anchor", "known:eng") < 0.0 && w("anchor", "known:target") > 0.0);
}

#[tokio::test]
async fn a_feature_left_out_has_no_weight() {
    let engine = engine();
    let (_, model) = learn(&engine, LINKS, Vec::new(), &["tld", "anchor"]).await;
    // counted still (the next round adds to them), but weightless
    let left_out: Vec<&ModelRow> = model
        .iter()
        .filter(|r| (r.feature == "tld" || r.feature == "anchor") && r.value.starts_with("known:"))
        .collect();
    assert_eq!(left_out.len(), 5);
    assert!(left_out
        .iter()
        .all(|r| r.weight == 0.0 && r.relevant + r.other > 0));
    let b = &round_two_score(&engine).await;
    assert!(close(float(b, "w_tld"), 0.0) && close(float(b, "w_anchor"), 0.0));
}

#[tokio::test]
async fn the_papers_rules_weigh_before_any_label_and_in_each_segment() {
    let engine = engine();
    let none = "SELECT * FROM (VALUES (1, 's', 'd', 'h', 'h', 'a', 0.0, NULL, 'none', 'com'))
        AS t(round, src_url, url, src_host, dst_host, kind, src_priority, dst_relevant, anchor, tld)";
    let (labels, model) = learn(&engine, none, Vec::new(), &[]).await;
    assert!(label_lines(&labels).is_empty());
    // No label yet: a target anchor, the target ccTLD and a relevant
    // source page each start at the rules' weight, in both segments;
    // their counts stay the crawl's own (none).
    for segment in ["new", "known"] {
        for (feature, value) in [("anchor", "target"), ("tld", "th"), ("hops", "0")] {
            let r = row(&model, feature, &format!("{segment}:{value}"));
            assert_eq!((r.relevant, r.other), (0, 0));
            assert!(close(r.weight, RULE_WEIGHT), "{r:?}");
        }
    }
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
           '' AS anchor, 'und' AS anchor_lang, CAST(NULL AS VARCHAR) AS anchor_source, 'com' AS dst_tld, dst_host || '/' AS dst_dir,
           CAST(NULL AS INT) AS position
    FROM (VALUES
        ('http://h1/a', 'h1', 'http://h1/b', 'h1'),
        ('http://h1/a', 'h1', 'http://h3/d', 'h3'),
        ('http://h1/b', 'h1', 'http://h2/c', 'h2'),
        ('http://h1/b', 'h1', 'http://h3/d', 'h3'),
        ('http://h2/c', 'h2', 'http://h3/d', 'h3')
    ) AS t(src_url, src_host, dst_url, dst_host)";

/// `open_links.sql` over PAGES and `page_links` (rows of the links
/// schema's columns that link selection reads), as CSV cells with their
/// header first, sorted by source and destination.
async fn open_link_rows(page_links: &str) -> Vec<Vec<String>> {
    let engine = Engine::new(None);
    let params = Params::new()
        .set("target_lang", "tha")
        .set("han_matches", true)
        .set("tolerance", 10i64)
        .set("round", 3i32)
        .set("recrawl", false);
    engine
        .register_empty("crawldb", crate::store::schema::CRAWLDB.clone())
        .unwrap();
    let pages = format!("SELECT *, 0.0 AS priority, 3 AS fetched_round FROM ({PAGES})");
    for (name, sql) in [
        ("crawldb_after_round", pages),
        ("page_links", page_links.into()),
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
        ("open_candidates", "views/open_candidates.sql"),
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
    text.lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

/// The cells `names` of every row after the header.
fn columns(rows: &[Vec<String>], names: &[&str]) -> Vec<Vec<String>> {
    let at = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    rows[1..]
        .iter()
        .map(|r| names.iter().map(|n| r[at(n)].clone()).collect())
        .collect()
}

#[tokio::test]
async fn open_links_label_links_by_their_destination_and_leave_it_out_of_its_server() {
    let rows = open_link_rows(PAGE_LINKS).await;
    let got = columns(
        &rows,
        &["url", "dst_relevant", "hops", "inlinks", "dst_server"],
    );
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
    assert_eq!(got, strings(&want));
}

/// Links with anchors in Thai (the target) and English, from text, from
/// an attribute, and unrecorded (a generated web's); into host roots
/// and one into a folder of h1 no page has been fetched from (`x/`).
const ANCHORED_LINKS: &str = "SELECT *, 'a' AS kind, CAST(NULL AS VARCHAR) AS hreflang,
           'com' AS dst_tld, dst_host || '/' || folder AS dst_dir, CAST(NULL AS INT) AS position
    FROM (VALUES
        ('http://h1/a', 'h1', 'http://h1/b',   'h1', 'ข่าว',  'tha', 'text', ''),
        ('http://h1/a', 'h1', 'http://h1/x/e', 'h1', 'ข่าว',  'tha', 'text', 'x/'),
        ('http://h1/a', 'h1', 'http://h3/d',   'h3', 'ภาพ',   'tha', 'alt', ''),
        ('http://h1/b', 'h1', 'http://h2/c',   'h2', 'Photo', 'eng', 'alt', ''),
        ('http://h1/b', 'h1', 'http://h3/d',   'h3', 'Home',  'eng', 'title', ''),
        ('http://h2/c', 'h2', 'http://h1/y',   'h1', 'ภาพ',   'tha', 'alt', ''),
        ('http://h2/c', 'h2', 'http://h3/d',   'h3', 'ข่าว',  'tha', CAST(NULL AS VARCHAR), '')
    ) AS t(src_url, src_host, dst_url, dst_host, anchor, anchor_lang, anchor_source, folder)";

/// `rows` as owned strings.
fn strings<const N: usize>(rows: &[[&str; N]]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|r| r.iter().map(|c| c.to_string()).collect())
        .collect()
}

/// An anchor that is an image's `alt` (or a link's `title`) is weighed
/// apart from anchor text: its own feature values. An anchor whose
/// source is not recorded (a generated web) counts as text.
#[tokio::test]
async fn an_anchor_from_an_attribute_is_its_own_feature_value() {
    let rows = open_link_rows(ANCHORED_LINKS).await;
    let got = columns(&rows, &["src_url", "url", "anchor"]);
    let want = [
        ["http://h1/a", "http://h1/b", "target"],
        ["http://h1/a", "http://h1/x/e", "target"],
        ["http://h1/a", "http://h3/d", "attribute-target"],
        ["http://h1/b", "http://h2/c", "attribute-other"],
        ["http://h1/b", "http://h3/d", "attribute-other"],
        ["http://h2/c", "http://h1/y", "attribute-target"],
        ["http://h2/c", "http://h3/d", "target"],
    ];
    assert_eq!(got, strings(&want));
}

/// A link whose anchor text is in the target language judges its
/// server (once visited) and directory apart (`/target-anchor`): into an
/// unjudged directory it says much, into a relevant one little.
#[tokio::test]
async fn a_target_anchor_is_judged_with_its_server_and_directory() {
    let rows = open_link_rows(ANCHORED_LINKS).await;
    let got = columns(&rows, &["src_url", "url", "dst_server", "dst_dir"]);
    let (relevant, unjudged) = ("relevant/target-anchor", "unvisited/target-anchor");
    let want = [
        // h1 and its root folder are relevant by a (b itself left out)
        ["http://h1/a", "http://h1/b", relevant, relevant],
        // a folder of a relevant server that no fetched page is in
        ["http://h1/a", "http://h1/x/e", relevant, unjudged],
        // an image's Thai alt is not anchor text
        ["http://h1/a", "http://h3/d", "unvisited", "unvisited"],
        ["http://h1/b", "http://h2/c", "unvisited", "unvisited"],
        ["http://h1/b", "http://h3/d", "unvisited", "unvisited"],
        ["http://h2/c", "http://h1/y", "relevant", "relevant"],
        // an unvisited server stays `unvisited`: the `new` segment
        ["http://h2/c", "http://h3/d", "unvisited", unjudged],
    ];
    assert_eq!(got, strings(&want));
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
