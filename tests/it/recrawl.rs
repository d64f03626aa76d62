//! Recrawl on the synthetic web with `changes`: some pages change between
//! visits, hosts send ETag and Last-Modified (or one, or neither) and
//! answer 304 to matching validators. A crawl, then two recrawl passes:
//! the server's log shows the conditional requests, unchanged pages are
//! `not-modified` and not parsed again, changed pages come due sooner, and
//! `export warc` writes revisit records of both profiles, read back with
//! an independent reader (the `warc` crate).

use std::collections::{BTreeMap, BTreeSet};

use langcrawl::websim::revisions::Validation;
use langcrawl::websim::server::Served;
use langcrawl::websim::{spawn_background, Web, WebSpec};
use warc::{RecordType, WarcHeader, WarcReader};

use crate::util::Crawl;

const SERVER_NOT_MODIFIED: &str = "http://netpreserve.org/warc/1.1/revisit/server-not-modified";
const IDENTICAL_PAYLOAD: &str = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";

/// What a page's fetches found, page by page.
const PAGES: &str = "SELECT url, status, lang, relevant FROM crawldb \
                     WHERE fetches > 0 ORDER BY url";

fn changing_web() -> Web {
    Web::generate(WebSpec {
        seed: 5,
        hosts: 12,
        pages: 180,
        changes: true,
        ..WebSpec::default()
    })
}

fn validation(web: &Web, url: &str) -> Validation {
    web.validation_of(url).0
}

/// The page requests (not robots.txt) of `served`.
fn page_requests(served: &[Served]) -> Vec<&Served> {
    served
        .iter()
        .filter(|s| !s.url.ends_with("/robots.txt"))
        .collect()
}

fn statuses(crawl: &Crawl, round: &str) -> BTreeMap<String, String> {
    crawl
        .rows(&format!(
            "SELECT url, status FROM fetch WHERE round = '{round}'"
        ))
        .into_iter()
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect()
}

fn latest_round(crawl: &Crawl) -> String {
    crawl.rows("SELECT max(round) FROM fetch")[0][0].clone()
}

#[test]
fn a_recrawl_asks_conditionally_keeps_unchanged_pages_and_archives_revisits() {
    let web = changing_web();
    let seeds: Vec<String> = (0..web.hosts.len())
        .map(|h| format!("http://{}/", web.hosts[h].name))
        .collect();
    let crawl = Crawl::on(spawn_background(web, 0).unwrap());
    let seeds_file = crawl.seeds_file(&seeds);
    crawl.crawl_seeds_with(&seeds_file, "ja", 30, &["--refetch-after", "1d"]);
    let known: BTreeSet<String> = crawl
        .rows("SELECT url FROM crawldb WHERE status = 'fetched'")
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert!(known.len() > 100, "{} pages fetched", known.len());
    let pages_before = crawl.rows(PAGES);
    let due = crawl.number("SELECT count(*) FROM crawldb WHERE next_fetch <= now()");
    assert_eq!(due, 0, "nothing is due a day early");

    // pass 2: every page counts as due (as Nutch's generate -adddays)
    let before = crawl.web.served().len();
    crawl.ok(&["crawl", "--rounds", "1", "--refetch-ahead", "2d"]);
    let served = crawl.web.served()[before..].to_vec();
    let web = &crawl.web.web;
    let round = latest_round(&crawl);
    let pass2 = statuses(&crawl, &round);
    assert_eq!(
        pass2.keys().cloned().collect::<BTreeSet<_>>(),
        known,
        "pass 2 fetches the pages fetched before, and only them"
    );
    for asked in page_requests(&served) {
        let (etag, date) = (&asked.if_none_match, &asked.if_modified_since);
        match validation(web, &asked.url) {
            Validation::Both => assert!(etag.is_some() && date.is_some(), "{asked:?}"),
            Validation::LastModifiedOnly => {
                assert!(etag.is_none() && date.is_some(), "{asked:?}")
            }
            Validation::None => assert!(etag.is_none() && date.is_none(), "{asked:?}"),
        }
    }
    let parsed: BTreeSet<String> = crawl
        .rows(&format!("SELECT url FROM parse WHERE round = '{round}'"))
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    let (mut kept, mut changed, mut same_bytes) = (0, 0, 0);
    for (url, status) in &pass2 {
        let expected = match validation(web, url) {
            Validation::None => "fetched",
            _ if web.changes_between_visits(url) => "fetched",
            _ => "not-modified",
        };
        assert_eq!(status, expected, "{url}");
        assert_eq!(parsed.contains(url), status == "fetched", "{url}: parsed?");
        match (status.as_str(), web.changes_between_visits(url)) {
            ("not-modified", _) => kept += 1,
            (_, true) => changed += 1,
            _ => same_bytes += 1,
        }
    }
    assert!(
        kept > 10 && changed > 10 && same_bytes > 10,
        "{kept} {changed} {same_bytes}"
    );
    assert_eq!(
        crawl.rows(PAGES),
        pages_before,
        "a recrawl keeps each page's status, language and relevance"
    );

    // pass 3, then the schedule: changed pages come back sooner
    crawl.ok(&["crawl", "--rounds", "1", "--refetch-ahead", "3d"]);
    let schedule = crawl.rows(
        "SELECT url, changes, fetches, refetch_ms, CAST(next_fetch AS BIGINT) FROM crawldb WHERE fetches > 0",
    );
    let (mut soonest_unchanged, mut latest_changed) = (i64::MAX, i64::MIN);
    for row in &schedule {
        let url = &row[0];
        let (changes, fetches, interval, next): (i64, i64, i64, i64) = (
            row[1].parse().unwrap(),
            row[2].parse().unwrap(),
            row[3].parse().unwrap(),
            row[4].parse().unwrap(),
        );
        assert_eq!(fetches, 3, "{url}");
        // a day, then × 0.8 twice (changed) or × 1.4 twice (unchanged)
        let twice = |f: f64| ((86_400_000.0 * f).round() * f).round() as i64;
        if web.changes_between_visits(url) {
            assert_eq!((changes, interval), (2, twice(0.8)), "{url}");
            latest_changed = latest_changed.max(next);
        } else {
            assert_eq!((changes, interval), (0, twice(1.4)), "{url}");
            soonest_unchanged = soonest_unchanged.min(next);
        }
    }
    assert!(
        latest_changed < soonest_unchanged,
        "changed pages are due first"
    );

    let not_modified = crawl.number("SELECT count(*) FROM fetch WHERE status = 'not-modified'");
    check_revisits(&crawl, not_modified as usize);

    // the text corpus has each page once, however often it was fetched
    let text = crawl.tmp.path().join("text.jsonl.gz");
    crawl.ok(&[
        "export",
        "text",
        "-o",
        text.to_str().unwrap(),
        "--lang",
        "en",
    ]);
    let urls: Vec<String> = crate::export::corpus(&text)
        .iter()
        .map(|r| r["url"].as_str().unwrap().to_string())
        .collect();
    let once: BTreeSet<&String> = urls.iter().collect();
    assert!(urls.len() > 10, "{} English pages", urls.len());
    assert_eq!(once.len(), urls.len(), "a page is in the corpus once");

    // due pages and new URLs share a list: due ones take --refetch-share
    let new: Vec<String> = (0..10)
        .map(|i| format!("http://{}/new-{i}.html", web.hosts[0].name))
        .collect();
    let new_seeds = crawl.seeds_file(&new);
    crawl.ok(&["inject", new_seeds.to_str().unwrap()]);
    let generate = ["generate", "--top-n", "8", "--refetch-share", "0.25"];
    crawl.ok(&[&generate[..], &["--refetch-ahead", "30d"]].concat());
    let picks = crawl.rows(
        "SELECT pick, count(*) FROM fetchlist WHERE round = (SELECT max(round) FROM fetchlist) \
         GROUP BY pick ORDER BY pick",
    );
    assert_eq!(
        picks,
        [["rank", "6"], ["refetch", "2"]].map(|r| r.map(String::from).to_vec()),
        "two due pages and six new URLs"
    );
}

/// `export warc`: a server-not-modified revisit for each 304, referring to
/// a response record of the same URL; identical-payload revisits for the
/// pages that came back with the same bytes.
fn check_revisits(crawl: &Crawl, not_modified: usize) {
    let out = crawl.tmp.path().join("warc");
    crawl.ok(&["export", "warc", "-o", out.to_str().unwrap()]);
    let mut responses = BTreeMap::new();
    let mut revisits = Vec::new();
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().ends_with(".warc.gz") {
            continue;
        }
        for record in WarcReader::from_path_gzip(&path).unwrap().iter_records() {
            let record = record.unwrap();
            let get = |name: WarcHeader| record.header(name).map(|v| v.to_string());
            let uri = get(WarcHeader::TargetURI).unwrap_or_default();
            match record.warc_type() {
                RecordType::Response => {
                    responses.insert(record.warc_id().to_string(), uri);
                }
                RecordType::Revisit => revisits.push((
                    uri,
                    get(WarcHeader::Profile).unwrap_or_default(),
                    get(WarcHeader::RefersTo).unwrap_or_default(),
                )),
                _ => {}
            }
        }
    }
    let (mut by_server, mut by_digest) = (0, 0);
    for (uri, profile, refers_to) in &revisits {
        let original = responses.get(refers_to);
        assert!(original.is_some(), "{uri}: refers to a response record");
        if profile == SERVER_NOT_MODIFIED {
            assert_eq!(original, Some(uri), "a 304 refers to its own URL");
            by_server += 1;
        } else {
            assert_eq!(profile, IDENTICAL_PAYLOAD, "{uri}");
            by_digest += 1;
        }
    }
    assert_eq!(by_server, not_modified, "one revisit per 304");
    assert!(
        by_digest > 10,
        "pages served twice with the same bytes: {by_digest}"
    );
}

/// A crawl that turns recrawl on later: its pages are due a refetch
/// interval after their fetch, not at once (they were never scheduled).
#[test]
fn recrawl_turned_on_later_waits_a_pages_interval_from_its_fetch() {
    let crawl = Crawl::parsed();
    crawl.ok(&["updatedb"]);
    let fetched = crawl.number("SELECT count(*) FROM crawldb WHERE status = 'fetched'");
    assert!(fetched > 0);
    crawl.ok(&["generate", "--refetch-after", "30d"]);
    let again = crawl.number(
        "SELECT count(*) FROM fetchlist f JOIN crawldb c ON c.url = f.url \
         WHERE f.round = 2 AND c.status = 'fetched'",
    );
    assert_eq!(again, 0, "no page fetched minutes ago is due");
    let status = crawl.ok(&["status"]);
    assert!(!status.contains("due"), "{status}");
}
