//! The crawler against a hostile web (`hostile_server`): redirected
//! robots.txt, Crawl-delay: inf, 429 and 503 back-off, silent, stalling and
//! resetting servers, redirect loops and chains, a gzip bomb and an endless
//! body. Every round ends within its timeouts, nothing panics, and every
//! fetch-list URL gets exactly one fetch row.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use datafusion::arrow::array::{Array, StringArray, TimestampMillisecondArray};
use langcrawl::fetch::backoff::now_ms;
use langcrawl::store::rows::column;
use langcrawl::store::{read_batches, SegmentWriter};

use crate::hostile_server::Hostile;
use crate::util::{csv_fields, langcrawl, stderr, succeeded, table_version};

/// Short timeouts, so a round with every fault ends in seconds.
const FETCH_FLAGS: &str = "--delay-ms 0 --timeout 2 --connect-timeout 1 \
                           --max-crawl-delay-ms 300 --max-content-bytes 65536";

/// Command-line flags written as one line.
fn flags(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

/// A crawl directory and the hostile web it crawls.
pub(crate) struct HostileCrawl {
    tmp: tempfile::TempDir,
    pub(crate) web: Hostile,
}

impl HostileCrawl {
    pub(crate) fn new() -> Self {
        HostileCrawl {
            tmp: tempfile::tempdir().unwrap(),
            web: Hostile::start(),
        }
    }

    pub(crate) fn dir(&self) -> PathBuf {
        self.tmp.path().join("crawl")
    }

    /// `langcrawl <args> --crawl DIR` (fetch through the hostile proxy).
    pub(crate) fn run(&self, args: &[&str]) -> Output {
        let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        all.extend(["--crawl".into(), self.dir().display().to_string()]);
        if args.first() == Some(&"fetch") {
            all.extend(["--proxy".into(), self.web.proxy_url()]);
        }
        let out = langcrawl(&all);
        assert!(
            !stderr(&out).contains("panicked"),
            "{args:?}:\n{}",
            stderr(&out)
        );
        out
    }

    pub(crate) fn ok(&self, args: &[&str]) -> String {
        succeeded(self.run(args), args)
    }

    pub(crate) fn inject(&self, urls: &[String]) {
        let seeds = self.tmp.path().join("seeds.txt");
        std::fs::write(&seeds, urls.join("\n") + "\n").unwrap();
        self.ok(&["inject", seeds.to_str().unwrap(), "--lang", "ja"]);
    }

    /// Runs fetch with `flags`; returns how long it took.
    fn fetch(&self, flags: &[&str]) -> Duration {
        let started = Instant::now();
        let args: Vec<&str> = ["fetch"].iter().chain(flags).copied().collect();
        self.ok(&args);
        started.elapsed()
    }

    pub(crate) fn rows(&self, query: &str) -> Vec<Vec<String>> {
        let out = self.ok(&["sql", query, "--format", "csv"]);
        out.lines().skip(1).map(csv_fields).collect()
    }

    fn number(&self, query: &str) -> i64 {
        let rows = self.rows(query);
        rows[0][0]
            .parse()
            .unwrap_or_else(|_| panic!("{query}: {rows:?}"))
    }

    /// `(url, status)` of the crawldb rows on `host`, sorted.
    fn statuses(&self, host: &str) -> Vec<(String, String, String)> {
        self.rows(&format!(
            "SELECT url, status, CAST(retries AS VARCHAR) FROM crawldb WHERE host = '{host}' ORDER BY url"
        ))
        .into_iter()
        .map(|r| (r[0].clone(), r[1].clone(), r[2].clone()))
        .collect()
    }
}

fn urls_of(host: &str, paths: &[&str]) -> Vec<String> {
    paths.iter().map(|p| format!("http://{host}{p}")).collect()
}

/// The `url` column of every Parquet file of a segment folder, sorted,
/// read straight from the files.
fn segment_urls(dir: &Path) -> Vec<String> {
    let mut urls: Vec<String> = read_batches(dir, 1024)
        .unwrap()
        .flat_map(|batch| {
            let batch = batch.unwrap();
            let column = column::<StringArray>(&batch, "url").unwrap();
            column
                .iter()
                .map(|u| u.unwrap().to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    urls.sort();
    urls
}

/// The host's `deferred_until` in the crawl's hosts table, in ms.
fn deferred_until(crawl: &Path, host: &str) -> i64 {
    for batch in read_batches(&table_version(crawl, "hosts"), 1024).unwrap() {
        let batch = batch.unwrap();
        let hosts = column::<StringArray>(&batch, "host").unwrap();
        let until = column::<TimestampMillisecondArray>(&batch, "deferred_until").unwrap();
        if let Some(row) = (0..batch.num_rows()).find(|&r| hosts.value(r) == host) {
            assert!(!until.is_null(row), "{host} is not deferred");
            return until.value(row);
        }
    }
    panic!("{host} is not in the hosts table");
}

fn seeds() -> Vec<String> {
    [
        urls_of("normal.test", &["/", "/p/1.html"]),
        urls_of("robots-redirect.test", &["/open.html", "/secret/1.html"]),
        urls_of("crawl-delay-inf.test", &["/1.html", "/2.html", "/3.html"]),
        urls_of("busy-429.test", &["/1.html", "/2.html", "/3.html"]),
        urls_of("unavailable-503.test", &["/1.html", "/2.html"]),
        urls_of("robots-503.test", &["/1.html", "/2.html"]),
        urls_of("silent.test", &["/1.html"]),
        urls_of("stall-body.test", &["/1.html", "/2.html"]),
        urls_of("reset.test", &["/1.html", "/2.html"]),
        urls_of("loop.test", &["/a"]),
        urls_of("chain.test", &["/hop/0"]),
        urls_of("bomb.test", &["/bomb.html"]),
        urls_of("endless.test", &["/endless.html"]),
        urls_of("gzip.test", &["/page.html"]),
        urls_of("deep.test", &["/deep.html"]),
    ]
    .concat()
}

#[test]
fn five_rounds_on_a_hostile_web() {
    let crawl = HostileCrawl::new();
    crawl.inject(&seeds());
    let mut rounds = 0;
    for round in 1..=5 {
        let generated = crawl.run(&["generate"]);
        if generated.status.code() == Some(3) {
            break;
        }
        assert!(generated.status.success(), "{}", stderr(&generated));
        let took = crawl.fetch(&flags(FETCH_FLAGS));
        // Slowest host: stall-body, two 2-second timeouts in a row.
        assert!(
            took < Duration::from_secs(15),
            "round {round} fetch took {took:?}"
        );
        crawl.ok(&["parse"]);
        crawl.ok(&["updatedb"]);
        let round_dir = crawl.dir().join(format!("{round:05}"));
        assert_eq!(
            segment_urls(&round_dir.join("fetch")),
            segment_urls(&round_dir.join("fetchlist")),
            "round {round}: one fetch row per fetch-list URL"
        );
        rounds = round;
    }
    assert!(rounds >= 3, "the crawl went on for {rounds} rounds");
    let web = &crawl.web;

    // robots.txt redirected twice, to another path and another host, is obeyed.
    let asked = web.requested_on("robots-redirect.test");
    assert!(asked.iter().all(|u| !u.contains("/secret/")), "{asked:?}");
    assert!(asked.contains(&"http://robots-redirect.test/moved/robots.txt".to_string()));
    assert!(web
        .requested_on("robots-store.test")
        .contains(&"http://robots-store.test/site-a.txt".into()));
    let secret = crawl.statuses("robots-redirect.test");
    assert_eq!(secret[0].1, "fetched", "{secret:?}");
    assert_eq!(secret[1].1, "robots_denied", "{secret:?}");
    // robots.txt comes once: later rounds reuse the hosts table.
    // The deep page is parsed within its nesting bound, says so, and its
    // link at the bottom is followed.
    let deep =
        crawl.rows("SELECT limits, outlinks FROM parse WHERE url = 'http://deep.test/deep.html'");
    assert_eq!(deep, [["nesting", "1"]]);
    assert!(web
        .requested_on("deep.test")
        .contains(&"http://deep.test/after.html".to_string()));

    let asked = web.requested_on("stall-body.test");
    let robots_asked = asked.iter().filter(|u| u.ends_with("/robots.txt")).count();
    assert_eq!(robots_asked, 1, "{asked:?}");

    // Crawl-delay: inf is fetched at the cap (300 ms), and nothing panicked.
    let delayed: Vec<Instant> = web
        .requests()
        .into_iter()
        .filter(|(_, u)| u.starts_with("http://crawl-delay-inf.test/") && u.ends_with(".html"))
        .map(|(at, _)| at)
        .collect();
    assert_eq!(delayed.len(), 3);
    for pair in delayed.windows(2) {
        let gap = pair[1] - pair[0];
        assert!(
            gap >= Duration::from_millis(280) && gap < Duration::from_secs(3),
            "{gap:?}"
        );
    }
    assert!(crawl
        .statuses("crawl-delay-inf.test")
        .iter()
        .all(|r| r.1 == "fetched"));

    // 429 and 503: a request or two, then the host is left alone; its URLs
    // stay unfetched with their retries.
    for host in ["busy-429.test", "unavailable-503.test"] {
        let asked = web.requested_on(host);
        assert!(asked.len() <= 3, "{host}: {asked:?}");
        for (url, status, retries) in crawl.statuses(host) {
            assert_eq!(
                (status.as_str(), retries.as_str()),
                ("unfetched", "0"),
                "{url}"
            );
        }
    }
    let deferred = crawl.number(
        "SELECT count(*) FROM fetch WHERE host = 'busy-429.test' AND status = 'deferred' \
         AND http_status = 429 AND error LIKE 'HTTP 429: host deferred until%'",
    );
    assert_eq!(deferred, 1);
    let wait = deferred_until(&crawl.dir(), "busy-429.test") - now_ms();
    assert!(
        (3_500_000..=3_600_000).contains(&wait),
        "deferred for {wait} ms"
    );

    // robots.txt 503 (the host is left alone for an hour) or no answer (it
    // is asked again next round): the pages are never asked for and keep
    // their retries.
    for (host, robots_asked) in [("robots-503.test", 1), ("silent.test", rounds)] {
        let asked = web.requested_on(host);
        assert!(
            asked.iter().all(|u| u.ends_with("/robots.txt")),
            "{asked:?}"
        );
        assert_eq!(asked.len(), robots_asked, "{host}: {asked:?}");
        for (url, status, retries) in crawl.statuses(host) {
            assert_eq!(
                (status.as_str(), retries.as_str()),
                ("unfetched", "0"),
                "{url}"
            );
        }
    }

    // Stalled bodies and resets are errors, retried with growing gaps
    // (after 1, then 2 rounds), and gone after the third failure.
    let gone = crawl.number(
        "SELECT count(*) FROM crawldb WHERE host IN ('stall-body.test', 'reset.test') AND status = 'gone'",
    );
    assert!(gone > 0, "no URL failed three times in {rounds} rounds");
    for host in ["stall-body.test", "reset.test"] {
        for (url, status, retries) in crawl.statuses(host) {
            let retries: i32 = retries.parse().unwrap();
            match status.as_str() {
                "error" => assert!((1..=2).contains(&retries), "{url}: {retries}"),
                "gone" => assert_eq!(retries, 3, "{url}"),
                other => panic!("{url}: {other}"),
            }
        }
        let asked = web.requested_on(host).len();
        assert!(
            asked < 2 * rounds + 2,
            "{host}: {asked} requests in {rounds} rounds"
        );
    }

    // The redirect loop and the chain make rows and end.
    assert_eq!(
        crawl.number("SELECT count(*) FROM crawldb WHERE host = 'loop.test'"),
        2
    );
    let hops = crawl
        .number("SELECT count(*) FROM fetch WHERE host = 'chain.test' AND status = 'redirect'");
    assert!((1..=5).contains(&hops), "{hops} chain hops fetched");

    // The gzip bomb and the endless body stop at the content cap.
    for host in ["bomb.test", "endless.test"] {
        let row = crawl.rows(&format!(
            "SELECT status, content_length, truncated FROM fetch WHERE host = '{host}'"
        ));
        assert_eq!(
            row,
            vec![vec!["fetched".to_string(), "65536".into(), "true".into()]],
            "{host}"
        );
    }
    // What they sent is kept for WARC: cut at the cap, or compressed as sent.
    crate::export::hostile_answers_are_archived_as_sent(&crawl.dir());
}

/// `n` pages of the host whose pages never answer.
fn stalled_urls(n: u32) -> Vec<String> {
    (1..=n)
        .map(|n| format!("http://stall-all.test/{n}.html"))
        .collect()
}

/// Replaces a round's fetch list with `urls` (as a generate that let them
/// through would have written it).
fn write_fetchlist(dir: &Path, urls: &[String]) {
    use datafusion::arrow::array::{Float64Array, Int32Array, RecordBatch};
    use std::sync::Arc;
    std::fs::remove_dir_all(dir).unwrap();
    let hosts: Vec<String> = urls
        .iter()
        .map(|u| url::Url::parse(u).unwrap().host_str().unwrap().to_string())
        .collect();
    let schema = langcrawl::store::schema::FETCHLIST.clone();
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(StringArray::from_iter_values(urls)),
            Arc::new(StringArray::from_iter_values(&hosts)),
            Arc::new(Int32Array::from(vec![0; urls.len()])),
            Arc::new(Float64Array::from(vec![1.0; urls.len()])),
            Arc::new(StringArray::from_iter_values(urls.iter().map(|_| "rank"))),
            // no validators: first fetches
            Arc::new(StringArray::new_null(urls.len())),
            Arc::new(StringArray::new_null(urls.len())),
        ],
    )
    .unwrap();
    let mut writer = SegmentWriter::create(dir, schema).unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap().commit().unwrap();
}

#[test]
fn private_addresses_are_refused_at_fetch_time() {
    let crawl = HostileCrawl::new();
    crawl.inject(&urls_of("normal.test", &["/"]));
    crawl.ok(&["generate"]);
    let private = vec![
        format!("http://127.0.0.1:{}/x", crawl.web.port()),
        "http://169.254.169.254/latest/meta-data/".to_string(),
        "http://localhost/".into(),
        "http://[::1]/".into(),
        "http://10.0.0.1/".into(),
    ];
    let fetchlist = crawl.dir().join("00001/fetchlist");
    write_fetchlist(
        &fetchlist,
        &[private.clone(), urls_of("normal.test", &["/"])].concat(),
    );
    crawl.fetch(&flags(FETCH_FLAGS));
    let refused = crawl.rows("SELECT url, error FROM fetch WHERE status = 'refused' ORDER BY url");
    assert_eq!(refused.len(), private.len(), "{refused:?}");
    for row in &refused {
        assert!(row[1].starts_with("private-address: "), "{row:?}");
    }
    let asked: Vec<String> = crawl.web.requests().into_iter().map(|(_, u)| u).collect();
    assert_eq!(
        asked,
        urls_of("normal.test", &["/robots.txt", "/"]),
        "only the public host"
    );

    // --allow-private lifts the guard: the same fetch list is requested.
    std::fs::remove_dir_all(crawl.dir().join("00001/fetch")).unwrap();
    crawl.fetch(&flags(&format!("{FETCH_FLAGS} --allow-private")));
    assert_eq!(
        crawl.number("SELECT count(*) FROM fetch WHERE status = 'refused'"),
        0
    );
    let asked: Vec<String> = crawl.web.requests().into_iter().map(|(_, u)| u).collect();
    assert!(
        asked
            .iter()
            .any(|u| u.starts_with("http://169.254.169.254/")),
        "{asked:?}"
    );
    assert!(
        asked.iter().any(|u| u.starts_with("http://10.0.0.1/")),
        "{asked:?}"
    );
}

/// Acceptance 7: one host whose 20 URLs all stall holds the round no longer
/// than its time budget; the other hosts are fetched in full and the
/// stalled host's URLs stay unfetched.
#[test]
fn a_stalling_host_is_held_to_its_time_budget() {
    let crawl = HostileCrawl::new();
    let stalled = stalled_urls(20);
    let pages = ["/p/1.html", "/p/2.html", "/p/3.html", "/p/4.html"];
    let others = [
        urls_of("normal.test", &pages),
        urls_of("www.normal.test", &pages),
    ]
    .concat();
    crawl.inject(&[stalled, others.clone()].concat());
    crawl.ok(&["generate"]);
    let took = crawl.fetch(&flags(
        "--delay-ms 0 --host-time-budget 5 --timeout 3 --connect-timeout 1 --max-host-failures 100",
    ));
    assert!(took < Duration::from_secs(9), "the round took {took:?}");
    let fetched = crawl
        .number("SELECT count(*) FROM fetch WHERE host <> 'stall-all.test' AND status = 'fetched'");
    assert_eq!(
        fetched,
        others.len() as i64,
        "the other hosts are fully fetched"
    );
    let stall = crawl.rows(
        "SELECT status, count(*) FROM fetch WHERE host = 'stall-all.test' GROUP BY status ORDER BY status",
    );
    assert_eq!(
        stall,
        vec![
            vec!["deferred".to_string(), "19".into()],
            vec!["error".into(), "1".into()]
        ]
    );
    let budget = crawl.number(
        "SELECT count(*) FROM fetch WHERE status = 'deferred' AND error LIKE '%time budget of 5s%'",
    );
    assert_eq!(budget, 19);
    crawl.ok(&["parse"]);
    crawl.ok(&["updatedb"]);
    let waiting = crawl.number(
        "SELECT count(*) FROM crawldb WHERE host = 'stall-all.test' AND status = 'unfetched' AND retries = 0",
    );
    assert_eq!(waiting, 19, "the stalled host's URLs stay unfetched");
}

#[test]
fn the_fetch_phase_ends_on_time() {
    let crawl = HostileCrawl::new();
    let stalled = stalled_urls(10);
    crawl.inject(&[stalled, urls_of("normal.test", &["/p/1.html"])].concat());
    crawl.ok(&["generate"]);

    let out = crawl.run(&["fetch", "--delay-ms", "18446744073709551615"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("--delay-ms 18446744073709551615: must be at most 60000"),
        "{err}"
    );

    let took = crawl.fetch(&flags("--delay-ms 0 --max-fetch-time 2 --timeout 30"));
    assert!(took < Duration::from_secs(6), "fetch took {took:?}");
    let late = crawl.number(
        "SELECT count(*) FROM fetch WHERE host = 'stall-all.test' AND status = 'deferred' \
         AND error LIKE '%fetch time limit%'",
    );
    assert_eq!(late, 10);
    assert_eq!(
        crawl.number("SELECT count(*) FROM fetch WHERE status = 'fetched'"),
        1
    );
}
