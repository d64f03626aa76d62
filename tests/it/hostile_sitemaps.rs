//! Hostile sitemaps (`hostile_server`'s `sitemap-*` hosts): a 60 MB file,
//! a gzip bomb, 1,000,000 URLs, malformed XML, an index that lists itself,
//! and a sitemap on another host listing a third host's URL. One fetch
//! reads them all within the reader's bounds, records each file's status
//! and reason in the `sitemaps` segment, and neither panics nor fails;
//! parse makes links of the URLs kept, none of the one dropped.

use std::time::{Duration, Instant};

use langcrawl::fetch::sitemap_read::{MAX_DECODED_BYTES, MAX_URLS};

use crate::hostile::HostileCrawl;
use crate::hostile_sitemap_files::{MILLION, SITEMAP_HOSTS};

/// Timeouts long enough for a 50 MiB body in a debug build.
const FETCH_FLAGS: [&str; 6] = [
    "--delay-ms",
    "0",
    "--timeout",
    "60",
    "--connect-timeout",
    "5",
];

/// The bound on the fetch run (it takes a few seconds; debug builds vary).
const FETCH_BOUND: Duration = Duration::from_secs(120);

/// One sitemap file's rows, read (not skipped): the status, error and
/// bytes they share, and the URLs they list (sorted).
#[derive(Debug)]
struct File {
    status: String,
    error: String,
    bytes: i64,
    urls: Vec<String>,
}

fn column(crawl: &HostileCrawl, query: &str) -> Vec<String> {
    crawl
        .rows(query)
        .into_iter()
        .map(|r| r[0].clone())
        .collect()
}

/// The rows of `sitemap` that are not `skipped`.
fn file(crawl: &HostileCrawl, sitemap: &str) -> File {
    let rows = crawl.rows(&format!(
        "SELECT status, coalesce(error, ''), coalesce(bytes, -1), coalesce(url, '') \
             FROM sitemaps WHERE sitemap = '{sitemap}' AND status <> 'skipped' ORDER BY url"
    ));
    assert!(!rows.is_empty(), "{sitemap} has no row");
    let head = &rows[0];
    assert!(
        rows.iter().all(|r| r[..3] == head[..3]),
        "{sitemap}: one status"
    );
    let urls = rows.iter().map(|r| r[3].clone()).filter(|u| !u.is_empty());
    File {
        status: head[0].clone(),
        error: head[1].clone(),
        bytes: head[2].parse().unwrap(),
        urls: urls.collect(),
    }
}

#[test]
fn hostile_sitemaps_are_bounded_and_recorded() {
    let crawl = HostileCrawl::new();
    let fronts: Vec<String> = SITEMAP_HOSTS
        .iter()
        .map(|(host, _)| format!("http://{host}/"))
        .collect();
    crawl.inject(&fronts);
    crawl.ok(&["generate"]);
    let started = Instant::now();
    let args: Vec<&str> = ["fetch"].iter().chain(&FETCH_FLAGS).copied().collect();
    crawl.ok(&args);
    let took = started.elapsed();
    eprintln!("fetch of the hostile sitemaps took {took:?}");
    assert!(took < FETCH_BOUND, "fetch took {took:?}");
    crawl.ok(&["parse"]);

    fronts_are_fetched(&crawl, &fronts);
    a_gzip_bomb_is_cut(&crawl);
    a_million_urls_are_cut_at_the_limit(&crawl);
    malformed_xml_keeps_what_came_before(&crawl);
    an_index_listing_itself_is_read_once(&crawl);
    another_hosts_sitemap_drops_a_third_hosts_urls(&crawl);
    a_60_mb_sitemap_is_cut(&crawl);
}

fn fronts_are_fetched(crawl: &HostileCrawl, fronts: &[String]) {
    let fetched = column(
        crawl,
        "SELECT url FROM fetch WHERE status = 'fetched' ORDER BY url",
    );
    let mut expected = fronts.to_vec();
    expected.sort();
    assert_eq!(fetched, expected);
}

fn a_60_mb_sitemap_is_cut(crawl: &HostileCrawl) {
    let big = file(crawl, "http://sitemap-big.test/big.xml");
    assert_eq!(big.status, "cut", "{big:?}");
    // where the file was cut, in bytes: its cut content (it said 0 once)
    let cut_at = big
        .error
        .strip_prefix("too-large: cut at ")
        .and_then(|rest| rest.split(' ').next()?.parse::<u64>().ok());
    assert!(cut_at.is_some_and(|n| n > 1 << 20), "{big:?}");
    assert_eq!(big.urls, ["http://sitemap-big.test/first"]);
    assert!(big.bytes <= MAX_DECODED_BYTES as i64 + 1, "{big:?}");
}

fn a_gzip_bomb_is_cut(crawl: &HostileCrawl) {
    let bomb = file(crawl, "http://sitemap-bomb.test/bomb.xml.gz");
    assert_eq!(bomb.status, "cut", "{bomb:?}");
    assert_eq!(bomb.error, "too-large", "{bomb:?}");
    assert_eq!(bomb.urls, ["http://sitemap-bomb.test/first"]);
    // The reader reads one byte past the limit to see that there is more.
    assert_eq!(bomb.bytes, MAX_DECODED_BYTES as i64 + 1, "{bomb:?}");
}

fn a_million_urls_are_cut_at_the_limit(crawl: &HostileCrawl) {
    let million = file(crawl, "http://sitemap-million.test/million.txt");
    assert_eq!(million.status, "cut");
    assert_eq!(million.error, "too-many-urls");
    assert_eq!(million.urls.len(), MAX_URLS);
    const { assert!(MILLION > MAX_URLS) };
    let first = "http://sitemap-million.test/p/0".to_string();
    let last = format!("http://sitemap-million.test/p/{}", MAX_URLS - 1);
    assert!(million.urls.binary_search(&first).is_ok());
    assert!(million.urls.binary_search(&last).is_ok());
}

fn malformed_xml_keeps_what_came_before(crawl: &HostileCrawl) {
    let bad = file(crawl, "http://sitemap-malformed.test/bad.xml");
    assert_eq!(bad.status, "cut", "{bad:?}");
    assert!(bad.error.starts_with("malformed"), "{bad:?}");
    let kept = [
        "http://sitemap-malformed.test/1",
        "http://sitemap-malformed.test/2",
    ];
    assert_eq!(bad.urls, kept);
}

fn an_index_listing_itself_is_read_once(crawl: &HostileCrawl) {
    let index = "http://sitemap-self.test/index.xml";
    let read = file(crawl, index);
    assert_eq!((read.status.as_str(), read.error.as_str()), ("read", ""));
    assert_eq!(read.urls, ["http://sitemap-self.test/child.xml", index]);
    let skipped = crawl.rows(&format!(
        "SELECT error, level FROM sitemaps WHERE sitemap = '{index}' AND status = 'skipped'"
    ));
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert!(skipped[0][0].contains("listed again"), "{skipped:?}");
    let asked = crawl.web.requested_on("sitemap-self.test");
    assert_eq!(asked.iter().filter(|u| *u == index).count(), 1, "{asked:?}");
    let child = file(crawl, "http://sitemap-self.test/child.xml");
    assert_eq!(child.status, "read");
    assert_eq!(
        child.urls,
        [
            "http://sitemap-self.test/c/1",
            "http://sitemap-self.test/c/2"
        ]
    );
}

fn another_hosts_sitemap_drops_a_third_hosts_urls(crawl: &HostileCrawl) {
    let sitemap = "http://sitemap-store.test/cross.xml";
    let rows = crawl.rows(&format!(
        "SELECT url, coalesce(dropped, '') FROM sitemaps WHERE sitemap = '{sitemap}' \
         AND host = 'sitemap-cross.test' AND status = 'read' ORDER BY url"
    ));
    let expected = [
        ["http://sitemap-cross.test/listed", ""],
        ["http://sitemap-store.test/own", ""],
        ["http://third-party.test/elsewhere", "other-host"],
    ];
    assert_eq!(rows, expected.map(|r| r.map(String::from).to_vec()));
    let links = crawl.rows(&format!(
        "SELECT dst_url, kind FROM links WHERE src_url = '{sitemap}' ORDER BY dst_url"
    ));
    let expected = [
        ["http://sitemap-cross.test/listed", "sitemap"],
        ["http://sitemap-store.test/own", "sitemap"],
    ];
    assert_eq!(links, expected.map(|r| r.map(String::from).to_vec()));
    let third = column(
        crawl,
        "SELECT count(*) FROM links WHERE dst_host = 'third-party.test'",
    );
    assert_eq!(third, ["0"]);
}
