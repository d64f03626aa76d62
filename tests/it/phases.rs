//! Each phase on its own, then a 3-round crawl, against the synthetic web.

use std::collections::BTreeMap;

use arrow::array::{Array, AsArray};
use langcrawl::websim::generator::RobotsKind;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use crate::util::{command, parquet_files, stderr, table_version, Crawl};

#[test]
fn each_phase_on_its_own() {
    let crawl = Crawl::new();
    let seeds = crawl.japanese_seeds();
    let out = crawl.ok(&["inject", seeds.to_str().unwrap(), "--lang", "ja"]);
    assert!(out.contains("8 seed URLs, 8 new"), "{out}");
    assert_eq!(
        crawl.number("SELECT count(*) FROM crawldb WHERE status = 'unfetched' AND depth = 0"),
        8
    );

    crawl.ok(&["generate"]);
    assert_eq!(
        crawl.number("SELECT count(*) FROM fetchlist WHERE round = 1"),
        8
    );
    let again = crawl.run(&["generate"]);
    assert!(!again.status.success());
    assert!(
        stderr(&again).contains("run `langcrawl fetch` first"),
        "{}",
        stderr(&again)
    );

    crawl.ok(&["fetch"]);
    assert_eq!(crawl.number("SELECT count(*) FROM fetch"), 8);
    assert_eq!(
        crawl.number("SELECT count(*) FROM fetch WHERE status = 'fetched' AND http_status = 200"),
        8
    );
    let again = crawl.run(&["fetch"]);
    assert!(
        !again.status.success(),
        "a second fetch of the same round is refused"
    );
    assert!(
        stderr(&again).contains("already has a fetch segment"),
        "{}",
        stderr(&again)
    );

    crawl.ok(&["parse"]);
    assert_eq!(crawl.number("SELECT count(*) FROM parse WHERE parsed"), 8);
    assert_eq!(
        crawl.number("SELECT count(*) FROM parse WHERE lang = 'jpn'"),
        6
    );
    let links = crawl.number("SELECT count(*) FROM links");
    assert!(links > 8, "front pages link out: {links}");
    assert_eq!(
        crawl.number(
            "SELECT count(*) FROM (SELECT src_url, dst_url, anchor, context, heading FROM links GROUP BY 1, 2, 3, 4, 5)"
        ),
        links,
        "a page's link rows are one per destination and text"
    );
    assert_eq!(
        crawl.number(
            "SELECT count(*) FROM parse p
             JOIN (SELECT src_url, count(DISTINCT dst_url) AS n FROM links GROUP BY 1) l ON l.src_url = p.url
             WHERE p.outlinks <> l.n"
        ),
        0,
        "outlinks counts each page's destinations once"
    );

    crawl.ok(&["updatedb", "--strategy", "bfs"]);
    assert_eq!(
        crawl.number("SELECT count(*) FROM decisions"),
        crawl.number("SELECT count(*) FROM (SELECT DISTINCT src_url, dst_url FROM links)"),
        "one decision per page and destination"
    );
    assert_eq!(
        crawl.number("SELECT count(*) FROM crawldb WHERE status = 'fetched' AND fetched_round = 1"),
        8
    );
    assert_eq!(
        crawl.number("SELECT count(*) FROM crawldb WHERE status = 'fetched' AND relevant"),
        6
    );
    let new = crawl.number("SELECT count(*) FROM crawldb WHERE status = 'unfetched'");
    assert_eq!(
        new,
        crawl.number("SELECT count(DISTINCT dst_url) FROM links WHERE dst_url NOT IN (SELECT url FROM fetch)")
    );
    assert_eq!(
        crawl.number(
            "SELECT count(*) FROM crawldb c \
             JOIN (SELECT DISTINCT src_url, dst_url, anchor FROM links) l ON c.found_from = l.src_url AND c.url = l.dst_url \
             WHERE c.status = 'unfetched' AND c.depth = 1 AND c.discovered_round = 1 AND c.found_anchor = l.anchor"
        ),
        new,
        "every new URL records the page and anchor that found it"
    );
    let again = crawl.run(&["updatedb"]);
    assert!(!again.status.success());
    assert!(
        stderr(&again).contains("already in the crawldb"),
        "{}",
        stderr(&again)
    );
}

#[test]
fn three_round_crawl() {
    let crawl = Crawl::new();
    crawl.crawl_japanese(3);
    let web = &crawl.web.web;

    // Statuses agree with what the web serves.
    let rows = crawl.rows("SELECT url, status, coalesce(http_status, 0), coalesce(lang, '') FROM crawldb WHERE status <> 'unfetched'");
    assert!(
        rows.len() > 200,
        "3 rounds fetch a few hundred pages: {}",
        rows.len()
    );
    let (mut agree, mut textless) = (0, 0);
    for row in &rows {
        let (url, status, http, lang) = (&row[0], row[1].as_str(), row[2].as_str(), &row[3]);
        match status {
            // A frameset or a refresh page: no text, so no language to agree on.
            "fetched" if web.no_text(url) => {
                assert_eq!((http, lang.as_str()), ("200", ""), "{url} has no text");
                textless += 1;
            }
            "fetched" => {
                let truth = web
                    .truth(url)
                    .unwrap_or_else(|| panic!("{url} fetched but the web has no page there"));
                assert_eq!(http, "200", "{url}");
                agree += usize::from(truth == lang);
            }
            "redirect" => assert!(url.contains("/old/") && http == "301", "{row:?}"),
            "gone" => assert_eq!(http, "404", "{row:?}"),
            "error" => {
                // A 500 page, or a host whose robots.txt answers 5xx (not fetched now).
                let host = url::Url::parse(url)
                    .unwrap()
                    .host_str()
                    .unwrap()
                    .to_string();
                let robots = web.host(&host).unwrap().1.robots;
                assert!(
                    http == "500" || robots == RobotsKind::Unavailable,
                    "{row:?}"
                );
            }
            "robots_denied" => assert!(url.contains("/private/"), "{row:?}"),
            other => panic!("unexpected status {other} in {row:?}"),
        }
    }
    let fetched = rows.iter().filter(|r| r[1] == "fetched").count() - textless;
    assert!(
        agree * 100 >= fetched * 97,
        "page language right for {agree} of {fetched}"
    );

    // robots.txt Disallow: /private/ is obeyed; the server never saw such a request.
    let denied = crawl.number("SELECT count(*) FROM crawldb WHERE status = 'robots_denied'");
    assert!(denied > 0, "the crawl met disallowed URLs");
    let private: Vec<String> = crawl
        .web
        .requested()
        .into_iter()
        .filter(|u| u.contains("/private/"))
        .collect();
    assert!(
        private.is_empty(),
        "disallowed URLs were requested: {private:?}"
    );

    // A redirect's target becomes a new URL, found from the redirecting one.
    let redirects = crawl.rows("SELECT url, redirect_to FROM fetch WHERE status = 'redirect'");
    assert!(!redirects.is_empty(), "the crawl met redirects");
    for row in &redirects {
        let (from, to) = (&row[0], &row[1]);
        let known = crawl.number(&format!("SELECT count(*) FROM crawldb WHERE url = '{to}'"));
        assert_eq!(known, 1, "redirect target {to} is in the crawldb");
        let decided = crawl.number(&format!(
            "SELECT count(*) FROM decisions WHERE src_url = '{from}' AND url = '{to}'"
        ));
        assert_eq!(
            decided, 1,
            "the redirect {from} -> {to} was decided as a link"
        );
    }
    // Each round fetched its own fetch list, and nothing twice but failures (retried).
    assert_eq!(
        crawl.number(
            "SELECT count(*) FROM fetch a JOIN fetch b ON a.url = b.url AND a.round < b.round WHERE a.status <> 'error'"
        ),
        0
    );
    assert_eq!(crawl.number("SELECT count(DISTINCT round) FROM fetch"), 3);
    assert_eq!(
        crawl.number("SELECT count(*) FROM fetch"),
        crawl.number("SELECT count(*) FROM fetchlist")
    );
}

#[test]
fn language_report_equals_an_independent_count() {
    let crawl = Crawl::new();
    crawl.crawl_japanese(2);

    // Count fetched pages per language straight from the crawldb's Parquet
    // files with the parquet crate's reader, not DataFusion.
    let mut expected: BTreeMap<String, i64> = BTreeMap::new();
    for file in parquet_files(&table_version(&crawl.dir(), "crawldb")) {
        let reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&file).unwrap())
            .unwrap()
            .build()
            .unwrap();
        for batch in reader {
            let batch = batch.unwrap();
            let status = batch
                .column_by_name("status")
                .unwrap()
                .as_string::<i32>()
                .clone();
            let lang = batch
                .column_by_name("lang")
                .unwrap()
                .as_string::<i32>()
                .clone();
            for i in 0..batch.num_rows() {
                if status.value(i) == "fetched" {
                    let lang = if lang.is_null(i) {
                        "und"
                    } else {
                        lang.value(i)
                    };
                    *expected.entry(lang.to_string()).or_default() += 1;
                }
            }
        }
    }
    let total: i64 = expected.values().sum();
    assert!(total > 50, "{expected:?}");

    let report = crawl.ok(&["report"]);
    let mut reported: BTreeMap<String, i64> = BTreeMap::new();
    let mut first = None;
    let languages = report.split("Harvest rate").next().unwrap();
    for line in languages
        .lines()
        .filter(|l| l.starts_with('|') && !l.contains("lang"))
    {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (lang, pages, percent) = (
            cells[1],
            cells[2].parse::<i64>().unwrap(),
            cells[3].parse::<f64>().unwrap(),
        );
        first.get_or_insert(lang.to_string());
        let share = 100.0 * pages as f64 / total as f64;
        assert!(
            (percent - share).abs() < 0.01,
            "{lang}: {percent} vs {share}"
        );
        reported.insert(lang.to_string(), pages);
    }
    assert_eq!(reported, expected, "{report}");
    assert_eq!(
        first.as_deref(),
        Some("jpn"),
        "the target language comes first:\n{report}"
    );
}

#[test]
fn legacy_charsets_decode() {
    let crawl = Crawl::new();
    let web = &crawl.web.web;
    let mut seeds = Vec::new();
    for encoding in [
        encoding_rs::EUC_KR,
        encoding_rs::SHIFT_JIS,
        encoding_rs::WINDOWS_874,
    ] {
        let hosts: Vec<String> = web
            .hosts
            .iter()
            .filter(|h| h.encoding == encoding && h.second.is_none())
            .filter(|h| h.robots != RobotsKind::Unavailable)
            .take(3)
            .map(|h| format!("http://{}/", h.name))
            .collect();
        assert!(!hosts.is_empty(), "the web has {} hosts", encoding.name());
        seeds.extend(hosts);
    }
    let seeds_file = crawl.seeds_file(&seeds);
    crawl.crawl_seeds(&seeds_file, "th", 1);

    let rows = crawl.rows("SELECT url, charset, lang, title FROM parse ORDER BY url");
    assert_eq!(rows.len(), seeds.len());
    for row in &rows {
        let (url, charset, lang, title) = (&row[0], &row[1], &row[2], &row[3]);
        let truth = web.truth(url).unwrap();
        assert_eq!(lang, truth, "{row:?}");
        assert!(
            !title.contains('\u{FFFD}'),
            "{url} decoded with replacement characters: {title}"
        );
        let script_ok = match truth {
            "kor" => title
                .chars()
                .any(|c| ('\u{AC00}'..='\u{D7A3}').contains(&c)),
            "jpn" => title.chars().any(|c| {
                ('\u{3040}'..='\u{30FF}').contains(&c) || ('\u{4E00}'..='\u{9FFF}').contains(&c)
            }),
            "tha" => title
                .chars()
                .any(|c| ('\u{0E00}'..='\u{0E7F}').contains(&c)),
            _ => false,
        };
        assert!(
            script_ok,
            "{url} ({charset}) title is not in the {truth} script: {title}"
        );
        let expected = match truth {
            "kor" => "EUC-KR",
            "jpn" => "Shift_JIS",
            _ => "windows-874",
        };
        assert_eq!(charset, expected, "{row:?}");
    }
}

#[test]
fn a_redirect_target_becomes_a_new_url() {
    let crawl = Crawl::new();
    let web = &crawl.web.web;
    let (h, host) = web
        .hosts
        .iter()
        .enumerate()
        .find(|(_, h)| h.pages > 3 && h.robots == RobotsKind::AllowAll)
        .unwrap();
    let old = format!("http://{}/old/3", host.name);
    let target = format!("http://{}{}", host.name, web.page_path(h, 3));
    let seeds = crawl.seeds_file(std::slice::from_ref(&old));
    crawl.crawl_seeds(&seeds, "ja", 1);
    assert_eq!(
        crawl.rows("SELECT status, http_status, redirect_to FROM crawldb WHERE fetched_round = 1"),
        vec![vec!["redirect".to_string(), "301".into(), target.clone()]]
    );
    assert_eq!(
        crawl.rows("SELECT url, status, found_from, discovered_round FROM crawldb WHERE status = 'unfetched'"),
        vec![vec![target.clone(), "unfetched".into(), old.clone(), "1".into()]],
        "the target is a new URL, found from the redirecting one"
    );
    crawl.ok(&["crawl", "--rounds", "1"]);
    assert_eq!(
        crawl.rows(&format!(
            "SELECT status, fetched_round FROM crawldb WHERE url = '{target}'"
        )),
        vec![vec!["fetched".to_string(), "2".into()]]
    );
}

/// A page memory no larger than the content cap fetches one page at a
/// time — and finishes: rows waiting for a batch give their room back.
#[test]
fn a_page_memory_below_the_content_cap_still_fetches_every_url() {
    let crawl = Crawl::generated();
    let args = crawl.fetch_args(&crawl.web.proxy_url(), &["--page-memory", "64KiB"]);
    let mut child = command(&args).spawn().unwrap();
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > std::time::Duration::from_secs(120) {
            child.kill().unwrap();
            panic!("fetch with --page-memory 64KiB stalled");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(status.success());
    let listed = crawl.number("SELECT count(*) FROM fetchlist");
    assert!(listed > 0);
    assert_eq!(crawl.number("SELECT count(*) FROM fetch"), listed);
}

#[test]
fn a_report_before_any_fetch_says_there_are_no_rows() {
    let crawl = Crawl::injected();
    let out = crawl.ok(&["report"]);
    assert_eq!(out.matches("(no rows)").count(), 2, "{out}");
    assert!(!out.contains("++"), "{out}");
}
