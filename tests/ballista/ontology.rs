//! The `ontology` strategy on Ballista: its transcriptor (a materialized
//! table of joins, windows and unnests) decides as on local DataFusion.

use std::path::Path;

use crate::util::{langcrawl, sql_rows, succeeded, university_web};

/// Replays `ontology` for two rounds on `web` with `engine`, with a context
/// threshold low enough for contexts to decide; returns every decision,
/// sorted.
fn decisions(web: &Path, out: &Path, engine: &str) -> Vec<Vec<String>> {
    let (web, out) = (web.to_str().unwrap(), out.to_str().unwrap());
    let args = [
        "simulate",
        "--web",
        web,
        "--strategy",
        "ontology",
        "--round-size",
        "20",
        "--rounds",
        "2",
        "--min-ont-rel",
        "0.5",
        "--engine",
        engine,
        "-q",
        "-o",
        out,
    ];
    succeeded(langcrawl(&args), &args);
    let mut rows = sql_rows(&Path::new(out).join("ontology"), "SELECT * FROM decisions");
    rows.sort();
    rows
}

#[test]
fn the_ontology_strategy_on_ballista_decides_as_on_local() {
    let tmp = tempfile::tempdir().unwrap();
    let web = tmp.path().join("web");
    university_web(&web, 200);
    let local = decisions(&web, &tmp.path().join("local"), "local");
    let transcribed = sql_rows(
        &tmp.path().join("local/ontology"),
        "SELECT count(*) FROM decisions d JOIN links l \
         ON l.src_url = d.src_url AND l.dst_url = d.url \
         WHERE d.reason = 'ontology-relevance' AND regexp_like(l.context, '\\p{Devanagari}')",
    );
    assert_ne!(transcribed[0][0], "0", "no Hindi context followed");
    let on_ballista = decisions(&web, &tmp.path().join("ballista"), "ballista");
    assert_eq!(on_ballista.len(), local.len());
    assert_eq!(on_ballista, local);
}
