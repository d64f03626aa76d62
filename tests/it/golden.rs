//! The same crawl gives the same bytes: the demo's comparison, a 3-round focused
//! crawl and a simulation are compared with golden files under
//! `tests/golden/` (the language report, and every URL's status, depth and
//! priority). After a change meant to alter results, `LANGCRAWL_BLESS=1
//! cargo test --test it golden` rewrites them; the diff is then reviewed.

use std::path::Path;

use crate::util::{langcrawl, succeeded, Crawl};

const CRAWLDB_ROWS: &str = "SELECT url, status, depth, priority FROM crawldb ORDER BY url";

/// Compares `actual` with `tests/golden/<name>`, or writes it when blessing.
fn assert_golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    if std::env::var_os("LANGCRAWL_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (LANGCRAWL_BLESS=1 writes it)", path.display()));
    if expected != actual {
        let first = expected
            .lines()
            .zip(actual.lines())
            .position(|(e, a)| e != a)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{} differs from this run at line {}:\n  golden: {:?}\n  now:    {:?}\n({} golden lines, {} now)",
            path.display(),
            first + 1,
            expected.lines().nth(first),
            actual.lines().nth(first),
            expected.lines().count(),
            actual.lines().count()
        );
    }
}

/// `langcrawl <command> --crawl dir ...` must succeed; its stdout.
fn on_crawl(dir: &Path, command: &str, rest: &[&str]) -> String {
    let dir = dir.to_str().unwrap();
    let mut args = vec![command, "--crawl", dir];
    args.extend_from_slice(rest);
    succeeded(langcrawl(&args), &args)
}

fn crawldb_rows(dir: &Path) -> String {
    on_crawl(dir, "sql", &[CRAWLDB_ROWS, "--format", "csv"])
}

/// The URLs a crawl fetched (or tried to): what its strategy chose.
const FETCHED_ROWS: &str = "SELECT url, status, depth, priority FROM crawldb \
                            WHERE fetched_round IS NOT NULL ORDER BY url";

#[test]
fn the_demo_gives_the_golden_comparison_report_and_fetches() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    let printed = on_crawl(&dir, "demo", &["--quiet"]);
    // all it prints before the report, but the server's address
    let comparison: String = printed
        .lines()
        .take_while(|l| !l.starts_with("Pages fetched per language"))
        .filter(|l| !l.contains("http://127.0.0.1:"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_golden("demo_comparison.txt", &comparison);
    // what the demo shows: on a web where a tenth of the pages are in the
    // target language, breadth first harvests about that, focus far more
    let harvest = |strategy: &str| -> f64 {
        let row = format!("| {strategy} |");
        let line = comparison.lines().find(|l| l.starts_with(&row));
        let line = line.unwrap_or_else(|| panic!("no row {row}:\n{comparison}"));
        line.split('|').nth(5).unwrap().trim().parse().unwrap()
    };
    let (bfs, paper, adaptive) = (
        harvest("bfs"),
        harvest("server-conservative"),
        harvest("adaptive"),
    );
    assert!(bfs <= 0.15, "bfs harvests {bfs}");
    assert!(bfs < paper && paper < adaptive, "{comparison}");
    assert_golden("demo_report.txt", &on_crawl(&dir, "report", &[]));
    let fetched = on_crawl(&dir, "sql", &[FETCHED_ROWS, "--format", "csv"]);
    assert_golden("demo_crawldb.csv", &fetched);
}

#[test]
fn a_focused_crawl_gives_the_golden_report_and_crawldb() {
    let crawl = Crawl::new();
    let seeds = crawl.japanese_seeds();
    let flags = ["--strategy", "server-conservative", "--top-n", "150"];
    crawl.crawl_seeds_with(&seeds, "ja", 3, &flags);
    assert_golden("focused_report.txt", &crawl.ok(&["report"]));
    assert_golden("focused_crawldb.csv", &crawldb_rows(&crawl.dir()));
}

#[test]
fn a_simulation_gives_the_golden_final_table() {
    let tmp = tempfile::tempdir().unwrap();
    let web = tmp.path().join("web");
    let out = tmp.path().join("sim");
    let (web_arg, out_arg) = (web.to_str().unwrap(), out.to_str().unwrap());
    let generate = [
        "websim", "generate", "--lang", "th", "--pages", "3000", "-q", "-o", web_arg,
    ];
    succeeded(langcrawl(&generate), &generate);
    let simulate = [
        "simulate",
        "--web",
        web_arg,
        "--strategy",
        "soft-focused,server-conservative,tld-anchor",
        "--rounds",
        "4",
        "--round-size",
        "200",
        "-q",
        "-o",
        out_arg,
    ];
    succeeded(langcrawl(&simulate), &simulate);
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
    assert_golden("simulate_metrics.csv", &metrics);
    let replay = out.join("server-conservative");
    assert_golden("simulate_crawldb.csv", &crawldb_rows(&replay));
}
