//! One writer per crawl, read-only readers: a second `fetch` is refused
//! while the first runs, `sql` and `report` read a crawl being fetched
//! without touching it, a killed writer's lock is taken over, and `sql`
//! refuses to write.

use std::path::{Path, PathBuf};
use std::process::{Child, Output};
use std::time::{Duration, Instant};

use crate::util::{command, copy_dir, stderr, walk, Crawl};

/// A crawl one round in, with round 2's fetch list generated.
fn crawl_with_fetch_list() -> Crawl {
    let crawl = Crawl::new();
    crawl.crawl_japanese(1);
    crawl.ok(&["generate"]);
    crawl
}

/// `fetch` of `dir` through the crawl's web with `delay_ms` between two
/// requests to a host and two requests in flight.
fn fetch_args(crawl: &Crawl, dir: &Path, delay_ms: &str) -> Vec<String> {
    [
        "fetch",
        "--quiet",
        "--crawl",
        dir.to_str().unwrap(),
        "--proxy",
        &crawl.web.proxy_url(),
        "--delay-ms",
        delay_ms,
        "--concurrency",
        "2",
    ]
    .map(String::from)
    .to_vec()
}

/// Starts a fetch slow enough for other commands to run beside it, and
/// waits until it holds the crawl's lock.
fn start_slow_fetch(crawl: &Crawl) -> Child {
    let mut child = command(&fetch_args(crawl, &crawl.dir(), "200"))
        .spawn()
        .unwrap();
    let lock = crawl.dir().join(".lock");
    let started = Instant::now();
    loop {
        let holder = std::fs::read_to_string(&lock).unwrap_or_default();
        if holder.lines().next() == Some(&*child.id().to_string()) {
            return child;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("fetch ended ({status}) before it was seen holding the lock");
        }
        assert!(started.elapsed() < Duration::from_secs(60), "no lock taken");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The temp folders (`*.tmp-*`) of the crawl's rounds.
fn temp_folders(dir: &Path) -> Vec<PathBuf> {
    walk(dir)
        .into_iter()
        .map(|(path, _, _)| path)
        .filter(|p| p.to_string_lossy().contains(".tmp-"))
        .filter(|p| p.is_dir())
        .collect()
}

/// The rows of round 2's fetch segment of the crawl at `dir`.
fn fetched_rows(dir: &Path) -> String {
    let out = crate::util::langcrawl(&[
        "sql",
        "--crawl",
        dir.to_str().unwrap(),
        "--format",
        "csv",
        "SELECT url, status, http_status FROM fetch WHERE round = 2 ORDER BY url",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    String::from_utf8(out.stdout).unwrap()
}

fn one_line(out: &Output) -> String {
    let text = stderr(out);
    assert_eq!(text.trim_end().lines().count(), 1, "one line: {text}");
    text.trim_end().to_string()
}

#[test]
fn a_second_fetch_is_refused_naming_the_first_which_completes() {
    let crawl = crawl_with_fetch_list();
    let mut first = start_slow_fetch(&crawl);
    let second = command(&fetch_args(&crawl, &crawl.dir(), "0"))
        .output()
        .unwrap();
    let line = one_line(&second);
    assert_eq!(second.status.code(), Some(4), "{line}");
    assert!(
        line.contains(&format!(
            "is being written by process {} (fetch)",
            first.id()
        )),
        "{line}"
    );
    assert!(first.wait().unwrap().success(), "the first fetch completes");
    assert_eq!(
        crawl.number("SELECT count(*) FROM fetch WHERE round = 2"),
        crawl.number("SELECT count(*) FROM fetchlist WHERE round = 2"),
    );
}

#[test]
fn sql_and_report_during_a_fetch_leave_it_whole() {
    let crawl = crawl_with_fetch_list();
    let reference = crawl.tmp.path().join("reference");
    copy_dir(&crawl.dir(), &reference);
    let out = command(&fetch_args(&crawl, &reference, "0"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));

    let mut fetch = start_slow_fetch(&crawl);
    let mut reads_while_running = 0;
    while fetch.try_wait().unwrap().is_none() {
        let temp = temp_folders(&crawl.dir());
        crawl.ok(&["sql", "SELECT count(*) FROM crawldb"]);
        crawl.ok(&["report"]);
        if fetch.try_wait().unwrap().is_none() {
            reads_while_running += 1;
            // A temp folder may only be gone because the fetch renamed it
            // into place (it can still be running, saving the hosts table).
            for folder in &temp {
                let name = folder.file_name().unwrap().to_string_lossy();
                let committed = folder.with_file_name(name.split(".tmp-").next().unwrap());
                assert!(
                    folder.is_dir() || committed.is_dir(),
                    "{} was deleted",
                    folder.display()
                );
            }
        }
    }
    assert!(fetch.wait().unwrap().success());
    assert!(reads_while_running >= 2, "{reads_while_running} reads");
    assert_eq!(fetched_rows(&crawl.dir()), fetched_rows(&reference));
    assert!(fetched_rows(&reference).lines().count() > 10);
}

#[test]
fn a_killed_writers_lock_is_taken_over() {
    let crawl = crawl_with_fetch_list();
    let mut fetch = start_slow_fetch(&crawl);
    fetch.kill().unwrap(); // SIGKILL
    fetch.wait().unwrap();
    let lock = std::fs::read_to_string(crawl.dir().join(".lock")).unwrap();
    assert_eq!(lock.lines().next(), Some(&*fetch.id().to_string()));

    crawl.ok(&["fetch"]);
    assert!(
        temp_folders(&crawl.dir()).is_empty(),
        "the killed fetch's folder is gone"
    );
    assert_eq!(
        crawl.number("SELECT count(*) FROM fetch WHERE round = 2"),
        crawl.number("SELECT count(*) FROM fetchlist WHERE round = 2"),
    );
}

#[test]
fn sql_refuses_to_write_and_the_crawl_stays_readable() {
    let crawl = Crawl::new();
    crawl.crawl_japanese(1);
    let before = walk(&crawl.dir());
    let stray = crawl.dir().join("crawldb/x.parquet");
    let writes = [
        "INSERT INTO crawldb SELECT * FROM crawldb LIMIT 1".to_string(),
        format!("COPY (SELECT 1 AS x) TO '{}'", stray.display()),
        "CREATE TABLE t AS SELECT 1 AS x".into(),
        format!(
            "CREATE EXTERNAL TABLE t STORED AS PARQUET LOCATION '{}'",
            crawl.dir().join("crawldb").display()
        ),
        "DROP TABLE crawldb".into(),
        "DROP VIEW servers".into(),
    ];
    for sql in &writes {
        let out = crawl.run(&["sql", sql]);
        let line = one_line(&out);
        assert_eq!(out.status.code(), Some(2), "{sql}: {line}");
        assert!(line.contains("only reads the crawl"), "{sql}: {line}");
    }
    assert_eq!(walk(&crawl.dir()), before, "nothing written");
    assert!(crawl.ok(&["report"]).contains("Harvest rate"));
    crawl.ok(&["generate"]);
}
