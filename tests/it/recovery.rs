//! SIGKILL in the middle of fetch or updatedb leaves the previous crawldb
//! readable, and re-running the phase completes the round.

use std::path::Path;
use std::time::Duration;

use crate::util::{command, copy_dir, table_version, Crawl};

/// A crawl two rounds in, with round 3 generated and (unless `fetch_list_only`) parsed.
fn crawl_at_round_three(fetch_list_only: bool) -> Crawl {
    let crawl = Crawl::new();
    crawl.crawl_japanese(2);
    crawl.ok(&["generate"]);
    if !fetch_list_only {
        crawl.ok(&["fetch"]);
        crawl.ok(&["parse"]);
    }
    crawl
}

fn crawldb_rows(crawl: &Crawl) -> Vec<Vec<String>> {
    crawl.rows("SELECT url, status, depth FROM crawldb ORDER BY url")
}

/// Starts `langcrawl args --crawl DIR`, kills it with SIGKILL after `after`;
/// true if it was still running when killed.
fn kill_after(dir: &Path, args: &[&str], after: Duration) -> bool {
    let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    all.extend([
        "--crawl".into(),
        dir.display().to_string(),
        "--quiet".into(),
    ]);
    let mut child = command(&all).spawn().unwrap();
    std::thread::sleep(after);
    let running = child.try_wait().unwrap().is_none();
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();
    running
}

#[test]
fn killing_fetch_midway_loses_nothing() {
    let crawl = crawl_at_round_three(true);
    let before = crawldb_rows(&crawl);
    let urls = crawl.number("SELECT count(*) FROM fetchlist WHERE round = 3");
    assert!(urls > 100, "a long enough fetch list: {urls}");
    let slow = [
        "fetch",
        "--proxy",
        &crawl.web.proxy_url(),
        "--delay-ms",
        "50",
        "--concurrency",
        "2",
    ];
    assert!(
        kill_after(&crawl.dir(), &slow, Duration::from_millis(700)),
        "fetch was killed midway"
    );

    assert_eq!(crawldb_rows(&crawl), before, "the crawldb is as it was");
    assert!(!crawl.dir().join("00003/fetch").exists(), "no half segment");
    crawl.ok(&["fetch"]);
    assert_eq!(
        crawl.number("SELECT count(*) FROM fetch WHERE round = 3"),
        urls
    );
    crawl.ok(&["parse"]);
    crawl.ok(&["updatedb"]);
    assert_eq!(
        crawl.number("SELECT count(*) FROM crawldb WHERE fetched_round = 3"),
        urls
    );
}

#[test]
fn killing_updatedb_midway_loses_nothing() {
    let crawl = crawl_at_round_three(false);
    let before = crawldb_rows(&crawl);

    // The same round merged without interruption, in a copy, is the reference.
    let reference = crawl.tmp.path().join("reference");
    copy_dir(&crawl.dir(), &reference);
    let reference_out = command(&[
        "updatedb",
        "--quiet",
        "--crawl",
        reference.to_str().unwrap(),
    ])
    .output()
    .unwrap();
    assert!(reference_out.status.success());

    let expected = crate::util::langcrawl(&[
        "sql",
        "SELECT url, status, depth FROM crawldb ORDER BY url",
        "--format",
        "csv",
        "--crawl",
        reference.to_str().unwrap(),
    ]);
    let expected: Vec<Vec<String>> = String::from_utf8_lossy(&expected.stdout)
        .lines()
        .skip(1)
        .map(crate::util::csv_fields)
        .collect();

    let mut killed = 0;
    for after_ms in [30, 80, 150, 250, 400, 600] {
        if !kill_after(&crawl.dir(), &["updatedb"], Duration::from_millis(after_ms)) {
            break;
        }
        killed += 1;
        let now = crawldb_rows(&crawl);
        // A kill that lands after the swap (while the phase log is written)
        // leaves the complete new crawldb; any earlier one, the previous.
        let merged =
            std::fs::read_to_string(table_version(&crawl.dir(), "crawldb").join("_merged_round"))
                .is_ok_and(|round| round.trim() == "3");
        if merged {
            assert_eq!(
                now, expected,
                "after a kill at {after_ms} ms, past the swap"
            );
            break;
        }
        assert_eq!(
            now, before,
            "after a kill at {after_ms} ms the crawldb is the previous one"
        );
    }
    assert!(
        killed > 0,
        "updatedb was killed at least once before it finished"
    );
    let rerun = command(&[
        "updatedb",
        "--quiet",
        "--crawl",
        crawl.dir().to_str().unwrap(),
    ])
    .output()
    .unwrap();
    let finished_by_itself =
        String::from_utf8_lossy(&rerun.stderr).contains("already in the crawldb");
    assert!(rerun.status.success() || finished_by_itself, "{rerun:?}");

    let merged = crawldb_rows(&crawl);
    assert_ne!(merged, before);
    assert_eq!(
        merged, expected,
        "re-running gives the same crawldb as an uninterrupted run"
    );
}
