//! A crawl stopped on request: SIGTERM during a slow fetch of 2,000 URLs.
//! The fetch commits the pages that arrived — checked against the server's
//! own log of what it answered — marks the rest `deferred`, and the next
//! `crawl` goes on without asking for any fetched page again.

use std::collections::BTreeSet;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::util::{command, Crawl};

const URLS: usize = 2_000;

/// The page URLs the server was asked for (robots.txt left out).
fn served_pages(crawl: &Crawl) -> Vec<String> {
    let requested = crawl.web.requested();
    requested
        .into_iter()
        .filter(|u| !u.ends_with("/robots.txt"))
        .collect()
}

/// A crawl of the small web with [`URLS`] URLs in its first fetch list.
pub(crate) fn crawl_with_a_long_fetch_list() -> Crawl {
    let crawl = Crawl::new();
    let urls = crawl.web.web.fetchable_urls(URLS);
    assert_eq!(urls.len(), URLS);
    let seeds = crawl.seeds_file(&urls);
    crawl.ok(&["inject", seeds.to_str().unwrap(), "--lang", "ja"]);
    crawl.ok(&["generate", "--top-n", "5000", "--max-per-host", "1000"]);
    crawl
}

/// `fetch` at a slow politeness (300 ms a host), as a child process.
pub(crate) fn spawn_slow_fetch(crawl: &Crawl) -> Child {
    let dir = crawl.dir().display().to_string();
    let proxy = crawl.web.proxy_url();
    let args = [
        "fetch",
        "--crawl",
        &dir,
        "--proxy",
        &proxy,
        "--delay-ms",
        "300",
    ];
    command(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits until the server has answered `pages` pages.
pub(crate) fn wait_for_pages(crawl: &Crawl, pages: usize) {
    let waited = Instant::now();
    while served_pages(crawl).len() < pages {
        assert!(
            waited.elapsed() < Duration::from_secs(120),
            "the fetch never got going"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// SIGTERM to `child`; its output and how long it took to exit.
pub(crate) fn terminate(child: Child) -> (std::process::Output, Duration) {
    let pid = i32::try_from(child.id()).unwrap();
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let signalled = Instant::now();
    let out = child.wait_with_output().unwrap();
    (out, signalled.elapsed())
}

#[test]
fn sigterm_during_a_fetch_commits_what_arrived_and_the_next_crawl_goes_on() {
    let crawl = crawl_with_a_long_fetch_list();
    let child = spawn_slow_fetch(&crawl);
    wait_for_pages(&crawl, 100);
    let (out, exit_took) = terminate(child);
    let stdout = String::from_utf8_lossy(&out.stdout);
    // SIGTERM's status (128 + 15), so that a script running rounds stops
    // too, with the reason on stderr
    assert_eq!(out.status.signal(), Some(libc::SIGTERM), "{out:?}");
    assert!(stdout.contains("stopped on request"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("run the command again"), "{stderr}");
    assert!(
        exit_took < Duration::from_secs(20),
        "exit took {exit_took:?}"
    );

    // The rows against the server's log: every page it answered is a row
    // with an answer, every other fetch-list URL is deferred.
    let served: BTreeSet<String> = served_pages(&crawl).into_iter().collect();
    let answered: BTreeSet<String> = crawl
        .rows("SELECT url FROM fetch WHERE status <> 'deferred'")
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(
        answered, served,
        "rows with an answer = pages the server answered"
    );
    let deferred = crawl.number("SELECT count(*) FROM fetch WHERE status = 'deferred'");
    assert_eq!(answered.len() + deferred as usize, URLS);
    assert!(deferred > 1_000, "stopped early: {deferred} deferred");
    let reasons = crawl.number(
        "SELECT count(*) FROM fetch WHERE status = 'deferred' AND error LIKE '%asked to stop%'",
    );
    assert_eq!(reasons, deferred, "each deferred row says why");

    // The next crawl finishes the round and goes on with the deferred URLs.
    let before = crawl.web.requested().len();
    crawl.ok(&["crawl", "--rounds", "2", "--top-n", "500"]);
    let again: Vec<String> = crawl.web.requested()[before..]
        .iter()
        .filter(|u| !u.ends_with("/robots.txt"))
        .cloned()
        .collect();
    assert!(!again.is_empty(), "the next crawl fetches");
    let refetched: Vec<_> = again.iter().filter(|u| answered.contains(*u)).collect();
    assert!(refetched.is_empty(), "asked again: {refetched:?}");
}

#[test]
fn until_ends_a_crawl_cleanly_and_the_next_one_goes_on() {
    let crawl = Crawl::new();
    let seeds = crawl.japanese_seeds();
    let started = Instant::now();
    let seeds = seeds.to_str().unwrap();
    let out = crawl.ok(&[
        "crawl", "--seeds", seeds, "--lang", "ja", "--rounds", "1000", "--until", "3s",
    ]);
    assert!(out.contains("crawl stopped: --until time reached"), "{out}");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    let rounds = crawl.number("SELECT count(DISTINCT round) FROM fetch");
    assert!((1..1000).contains(&rounds), "{rounds} rounds");
    // a URL the end time left says so, not a limit that was not given
    let blamed = "SELECT count(*) FROM fetch WHERE error LIKE '%--max-fetch-time%'";
    assert_eq!(crawl.number(blamed), 0);
    crawl.ok(&["crawl", "--rounds", "1"]);
    let after = crawl.number("SELECT max(round) FROM decisions");
    assert!(
        after >= rounds,
        "the next crawl finished a round: {after} after {rounds}"
    );
}

/// A phase that cannot stop part-way (here parse) hears SIGTERM, runs to
/// its end, commits it and then exits 143, so a script running the phases
/// one by one stops there.
#[test]
fn sigterm_during_parse_lets_it_finish_and_exit_143() {
    let crawl = crawl_with_a_long_fetch_list();
    crawl.ok(&["fetch"]);
    let dir = crawl.dir().display().to_string();
    let child = command(&["parse", "--crawl", &dir])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // the lock names the writer's task once it holds the crawl
    let waited = Instant::now();
    let lock = crawl.dir().join(".lock");
    while !std::fs::read_to_string(&lock).is_ok_and(|held| held.contains("parse")) {
        assert!(
            waited.elapsed() < Duration::from_secs(60),
            "parse never started"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let (out, _) = terminate(child);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.signal(), Some(libc::SIGTERM), "{stderr}");
    assert!(
        stderr.contains("ran to its end and is committed"),
        "{stderr}"
    );
    let parsed = crawl.number("SELECT count(*) FROM parse");
    assert_eq!(
        parsed,
        crawl.number("SELECT count(*) FROM fetch WHERE status = 'fetched'")
    );
    crawl.ok(&["updatedb"]);
}
