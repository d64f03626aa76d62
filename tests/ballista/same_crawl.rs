//! A 3-round crawl with `--engine ballista` (a scheduler and executor in
//! the process) against the same crawl with `--engine local`.

use crate::util::Crawl;

/// The crawl's state and every link's fate, sorted, in full.
pub fn outcome(crawl: &Crawl) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let sorted = |query: &str| {
        let mut rows = crawl.rows(query);
        rows.sort();
        rows
    };
    (
        // every column but when each page was fetched (and so is due)
        sorted("SELECT * EXCLUDE (fetched_at, next_fetch) FROM crawldb"),
        sorted("SELECT * FROM decisions"),
    )
}

#[test]
fn a_crawl_on_ballista_decides_row_for_row_as_a_local_one() {
    let strategy = ["--strategy", "server-conservative"];
    let local = Crawl::new();
    let seeds = local.japanese_seeds();
    local.crawl_seeds_with(
        &seeds,
        "ja",
        3,
        &[&strategy[..], &["--engine", "local"]].concat(),
    );
    let ballista = Crawl::new();
    ballista.crawl_seeds_with(
        &seeds,
        "ja",
        3,
        &[&strategy[..], &["--engine", "ballista"]].concat(),
    );
    let (crawldb, decisions) = outcome(&local);
    assert!(crawldb.len() > 100, "{} URLs", crawldb.len());
    let rejected = decisions.iter().filter(|row| row.contains(&"false".into()));
    assert!(rejected.count() > 0, "the strategy rejected nothing");
    let on_ballista = outcome(&ballista);
    assert_eq!(on_ballista.0.len(), crawldb.len());
    assert_eq!(on_ballista.1.len(), decisions.len());
    assert_eq!(on_ballista, (crawldb, decisions));
}

#[test]
fn queries_on_ballista_are_distributed_plans() {
    let crawl = Crawl::new();
    crawl.crawl_japanese(1);
    let plan = crawl.ok(&[
        "sql",
        "EXPLAIN SELECT host, count(*) FROM crawldb GROUP BY host",
        "--engine",
        "ballista",
    ]);
    assert!(
        plan.contains("distributed_plan") && plan.contains("ShuffleWriterExec"),
        "{plan}"
    );
    let local = crawl.ok(&[
        "sql",
        "EXPLAIN SELECT host, count(*) FROM crawldb GROUP BY host",
    ]);
    assert!(!local.contains("distributed_plan"), "{local}");
}
