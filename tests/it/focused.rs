//! Focused crawls of the synthetic web: every strategy of the papers
//! against bfs, and `refilter` over a finished crawl.

use std::collections::BTreeMap;
use std::path::Path;

use langcrawl::websim::{spawn_background, Web, WebSpec, Websim};

use crate::util::Crawl;

const ROUNDS: &str = "5";
const TOP_N: &str = "120";

/// An ontology of Japanese terms (the websim's pages are the UDHR): terms
/// with kana or Japanese-only forms, so Chinese pages score little.
const JAPANESE_IMPORTANCE: &str =
    "term,importance,class\nすべて,1.0,jpn\n権利,1.0,jpn\n及び,0.5,jpn\n自由,0.3,jpn\n";
const JAPANESE_RULES: &str = "from_class,to_class,probability\njpn,jpn,0.9\n";

/// Harvest rate (target pages / pages fetched), distinct servers fetched,
/// and distinct servers reached (fetched or queued).
fn harvest_and_servers(crawl: &Crawl) -> (f64, i64, i64) {
    let rows = crawl.rows(
        "SELECT CAST(SUM(CASE WHEN status = 'fetched' AND relevant THEN 1 ELSE 0 END) AS DOUBLE) \
                / SUM(CASE WHEN status = 'fetched' THEN 1 ELSE 0 END), \
         count(DISTINCT CASE WHEN status = 'fetched' THEN host END), \
         count(DISTINCT host) FROM crawldb",
    );
    (
        rows[0][0].parse().unwrap(),
        rows[0][1].parse().unwrap(),
        rows[0][2].parse().unwrap(),
    )
}

/// A web large enough that no strategy reaches every server in the rounds
/// crawled (pages are generated on request, so size costs nothing).
fn wide_web() -> Websim {
    let spec = WebSpec {
        seed: 11,
        hosts: 3_000,
        pages: 60_000,
        chrome: false,
        discovery: false,
        changes: false,
    };
    spawn_background(Web::generate(spec), 0).expect("synthetic web starts")
}

fn crawl_with(strategy: &str, extra: &[&str]) -> Crawl {
    let crawl = Crawl::on(wide_web());
    let seeds = crawl.japanese_seeds();
    let mut args = vec![
        "crawl",
        "--seeds",
        seeds.to_str().unwrap(),
        "--lang",
        "ja",
        "--rounds",
        ROUNDS,
        "--top-n",
        TOP_N,
        "--strategy",
        strategy,
    ];
    args.extend(extra);
    crawl.ok(&args);
    crawl
}

#[test]
fn every_focused_strategy_harvests_more_than_bfs() {
    let tables = tempfile::tempdir().unwrap();
    let importance = tables.path().join("importance.csv");
    let rules = tables.path().join("rules.csv");
    std::fs::write(&importance, JAPANESE_IMPORTANCE).unwrap();
    std::fs::write(&rules, JAPANESE_RULES).unwrap();
    let ontology_args = [
        "--importance",
        importance.to_str().unwrap(),
        "--class-rules",
        rules.to_str().unwrap(),
        "--min-ont-rel",
        "0.9",
        "--min-la-rel",
        "0.5",
    ];
    let mut results = BTreeMap::new();
    for strategy in [
        "bfs",
        "tld-anchor",
        "hard-focused",
        "soft-focused",
        "server-aggressive",
        "server-conservative",
        "dir-conservative",
        "ontology",
    ] {
        let extra: &[&str] = if strategy == "ontology" {
            &ontology_args
        } else {
            &[]
        };
        let crawl = crawl_with(strategy, extra);
        let config: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(crawl.dir().join("crawl.json")).unwrap())
                .unwrap();
        assert_eq!(
            config["strategy"], strategy,
            "crawl.json records the strategy"
        );
        results.insert(strategy, harvest_and_servers(&crawl));
    }
    println!("harvest rate, servers fetched and servers reached per strategy: {results:?}");
    let (bfs_harvest, _, _) = results["bfs"];
    for (strategy, (harvest, _, _)) in &results {
        if *strategy != "bfs" {
            assert!(
                *harvest > bfs_harvest,
                "{strategy} harvest {harvest:.3} not above bfs {bfs_harvest:.3}: {results:?}"
            );
        }
    }
    // Hard-focused drops the links of irrelevant pages, so it reaches fewer
    // servers. With --top-n capping every round, both fetch about as many
    // (links of relevant pages fill either fetch list), so the servers
    // reached, fetched or queued, are compared.
    let (_, _, hard_servers) = results["hard-focused"];
    let (_, _, aggressive_servers) = results["server-aggressive"];
    assert!(
        hard_servers < aggressive_servers,
        "hard-focused reached {hard_servers} servers, server-aggressive {aggressive_servers}: {results:?}"
    );
}

/// Every file of the crawl but the refiltered decision sets, with its bytes.
fn crawl_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() && !name.starts_with("decisions-") {
                stack.push(path);
            } else if path.is_file() {
                files.insert(path.display().to_string(), std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// The body rows of a printed table, as trimmed cells.
fn table_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| l.starts_with("| ") && l[2..].starts_with(|c: char| c.is_ascii_digit()))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn refilter_writes_a_second_decision_set_and_compares_it() {
    let crawl = crawl_with("bfs", &[]);
    let before = crawl_files(&crawl.dir());
    let out = crawl.ok(&["refilter", "--strategy", "server-conservative", "--compare"]);
    assert_eq!(before, crawl_files(&crawl.dir()), "the crawl was modified");
    for round in ["00001", "00002", "00005"] {
        let set = crawl
            .dir()
            .join(round)
            .join("decisions-server-conservative");
        assert!(set.join("_strategy.json").is_file(), "{}", set.display());
    }
    let rows = table_rows(&out);
    assert_eq!(rows.len(), 5, "one row per round:\n{out}");
    let expected = crawl.rows(
        "SELECT r.round, count(*), \
                SUM(CASE WHEN o.accepted THEN 1 ELSE 0 END), \
                SUM(CASE WHEN r.accepted THEN 1 ELSE 0 END), \
                SUM(CASE WHEN o.accepted <> r.accepted THEN 1 ELSE 0 END) \
         FROM decision_sets r JOIN decision_sets o \
           ON o.round = r.round AND o.src_url = r.src_url AND o.url = r.url \
         WHERE r.decision_set = 'server-conservative' AND o.decision_set = 'crawl' \
         GROUP BY r.round ORDER BY r.round",
    );
    for (printed, counted) in rows.iter().zip(&expected) {
        assert_eq!(&printed[..5], &counted[..], "compare against SQL:\n{out}");
    }
    let differ: i64 = rows.iter().map(|r| r[4].parse::<i64>().unwrap()).sum();
    assert!(
        differ > 0,
        "server-conservative decides some bfs links otherwise:\n{out}"
    );

    // Re-running replaces the named set; the crawl's own set is never a name.
    crawl.ok(&[
        "refilter",
        "--strategy",
        "server-conservative",
        "--rounds",
        "2..3",
    ]);
    let out = crawl.run(&["refilter", "--strategy", "bfs", "--name", "crawl"]);
    assert_eq!(out.status.code(), Some(2), "{}", crate::util::stderr(&out));
}

/// With T = 0 a server is irrelevant after its first irrelevant page: the
/// URLs still queued on it are skipped, logged once, and never generated.
#[test]
fn queued_urls_on_servers_turned_irrelevant_are_never_fetched() {
    let crawl = crawl_with("server-aggressive", &["--tolerance", "0"]);
    let skipped = crawl.number("SELECT count(*) FROM crawldb WHERE status = 'skipped'");
    assert!(skipped > 0, "some queued URLs were skipped");
    let logged = crawl.number(
        "SELECT count(DISTINCT d.url) FROM decisions d JOIN crawldb c ON c.url = d.url \
         WHERE c.status = 'skipped' AND d.reason = 'queued-on-irrelevant-server'",
    );
    assert_eq!(logged, skipped, "every skipped URL has its decision");
    // and updatedb's reports (crawl.json's log) counted each once
    let json = std::fs::read_to_string(crawl.dir().join("crawl.json")).unwrap();
    let config: serde_json::Value = serde_json::from_str(&json).unwrap();
    let reported: i64 = config["log"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|entry| entry["phase"] == "updatedb")
        .map(|entry| {
            let summary = entry["summary"].as_str().unwrap();
            let (before, _) = summary.split_once(" queued URLs skipped").unwrap();
            before.rsplit(' ').next().unwrap().parse::<i64>().unwrap()
        })
        .sum();
    let decided =
        crawl.number("SELECT count(*) FROM decisions WHERE reason = 'queued-on-irrelevant-server'");
    assert_eq!(reported, decided, "{json}");
    let fetched_later = crawl.number(
        "SELECT count(*) FROM fetchlist f JOIN decisions d ON d.url = f.url \
         WHERE d.reason = 'queued-on-irrelevant-server' AND f.round > d.round",
    );
    assert_eq!(fetched_later, 0, "a skipped URL was generated again");
    let relevant_servers = crawl.number(
        "SELECT count(*) FROM crawldb c JOIN servers s ON s.host = c.host \
         WHERE c.status = 'skipped' AND s.state <> 'irrelevant'",
    );
    assert_eq!(relevant_servers, 0);
}
