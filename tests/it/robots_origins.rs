//! robots.txt holds per origin (RFC 9309 §2.3): two ports of one host
//! name are two robots.txt files, each obeyed for its own URLs only; the
//! answer the hosts table keeps is reused a day for its own origin, the
//! other origin's robots.txt is fetched again each run.

use crate::hostile::HostileCrawl;

const FETCH: [&str; 5] = ["fetch", "--delay-ms", "0", "--timeout", "2"];
const ORIGINS: [&str; 2] = ["http://ports.test", "http://ports.test:8080"];

fn robots_requests(crawl: &HostileCrawl, origin: &str) -> usize {
    let host = origin.trim_start_matches("http://");
    let asked = crawl.web.requested_on(host);
    asked.iter().filter(|u| u.ends_with("/robots.txt")).count()
}

/// Injects `urls`, generates round `round` and fetches it: its
/// `(url, status)` fetch rows, sorted.
fn fetch_round(crawl: &HostileCrawl, round: u32, urls: &[&str]) -> Vec<Vec<String>> {
    crawl.inject(&urls.iter().map(|u| u.to_string()).collect::<Vec<_>>());
    crawl.ok(&["generate"]);
    crawl.ok(&FETCH);
    let query = format!("SELECT url, status FROM fetch WHERE round = {round} ORDER BY url");
    crawl.rows(&query)
}

#[test]
fn each_port_of_a_host_obeys_its_own_robots_txt() {
    let crawl = HostileCrawl::new();
    let urls = [
        "http://ports.test/private/1.html",
        "http://ports.test:8080/private/1.html",
        "http://ports.test:8080/open.html",
    ];
    let expected = [
        [urls[0], "fetched"],
        [urls[2], "fetched"],
        [urls[1], "robots_denied"],
    ];
    assert_eq!(fetch_round(&crawl, 1, &urls), expected);
    assert_eq!(robots_requests(&crawl, ORIGINS[0]), 1);
    assert_eq!(robots_requests(&crawl, ORIGINS[1]), 1);
    let kept = crawl.rows("SELECT robots_origin FROM hosts WHERE host = 'ports.test'");
    assert_eq!(kept.len(), 1, "{kept:?}");
    let kept = kept[0][0].as_str();
    assert!(ORIGINS.contains(&kept), "{kept}");

    // A second run: the kept origin's answer is reused, the other's fetched again.
    crawl.ok(&["parse"]);
    crawl.ok(&["updatedb"]);
    let urls = [
        "http://ports.test/private/2.html",
        "http://ports.test:8080/private/2.html",
    ];
    let expected = [[urls[0], "fetched"], [urls[1], "robots_denied"]];
    assert_eq!(fetch_round(&crawl, 2, &urls), expected);
    for origin in ORIGINS {
        let times = if origin == kept { 1 } else { 2 };
        assert_eq!(robots_requests(&crawl, origin), times, "{origin}");
    }
}
