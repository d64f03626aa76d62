//! Limits every strategy obeys: the address guard on links and redirects,
//! crawler traps (a calendar, relative links that build `/a/b/a/b/...`),
//! the per-page, per-URL and per-chain limits, and Tamura's tolerance
//! within one round.

use std::collections::BTreeMap;

use langcrawl::websim::render::{redirect, SimResponse};
use langcrawl::websim::{spawn_background, Web, WebSpec};

use crate::util::{html, text, Crawl, Handmade};

/// The links of the guard test, as the crawl stores them (normalized).
const PRIVATE: [&str; 5] = [
    "http://127.0.0.1:22/",
    "http://localhost/",
    "http://[::1]/",
    "http://10.0.0.1/",
    "http://169.254.169.254/",
];
const METADATA: &str = "http://169.254.169.254/latest/meta-data/";

fn page(lang: &str, from: usize, links: &[String]) -> SimResponse {
    let anchors: String = links
        .iter()
        .map(|href| format!("<a href=\"{href}\">link</a>\n"))
        .collect();
    html(&format!(
        "<!DOCTYPE html>\n<html><head><title>p{from}</title></head><body>{}{anchors}</body></html>\n",
        text(lang, from, 3)
    ))
}

/// A Japanese front page linking to private addresses and to a page that
/// redirects to the cloud metadata address.
fn guard_web() -> Crawl<Handmade> {
    let mut links: Vec<String> = PRIVATE.iter().map(|s| s.to_string()).collect();
    links.push("/go.html".into());
    let mut pages = BTreeMap::new();
    pages.insert("http://www.start.jp/".into(), page("jpn", 0, &links));
    pages.insert(
        "http://www.start.jp/go.html".into(),
        redirect(METADATA.into()),
    );
    Crawl::on(spawn_background(Handmade(pages), 0).unwrap())
}

fn requested_hosts(crawl: &Crawl<Handmade>) -> Vec<String> {
    crawl
        .web
        .requested()
        .iter()
        .filter_map(|u| {
            u.strip_prefix("http://")?
                .split('/')
                .next()
                .map(str::to_string)
        })
        .collect()
}

#[test]
fn private_addresses_are_refused_unless_allowed() {
    let guarded = guard_web();
    let seeds = guarded.seeds_file(&["http://www.start.jp/".into()]);
    guarded.crawl_seeds(&seeds, "ja", 3);
    let hosts = requested_hosts(&guarded);
    assert!(hosts.iter().all(|h| h == "www.start.jp"), "{hosts:?}");
    let refused: Vec<String> = guarded
        .rows("SELECT url FROM decisions WHERE reason = 'private-address' ORDER BY url")
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    let mut expected: Vec<String> = PRIVATE.iter().map(|s| s.to_string()).collect();
    expected.push(METADATA.into());
    expected.sort();
    assert_eq!(refused, expected);
    let known = guarded.number("SELECT count(*) FROM crawldb WHERE host <> 'www.start.jp'");
    assert_eq!(known, 0);

    let allowed = guard_web();
    let seeds = allowed.seeds_file(&["http://www.start.jp/".into()]);
    allowed.crawl_seeds_with(&seeds, "ja", 3, &["--allow-private"]);
    let hosts = requested_hosts(&allowed);
    for host in [
        "127.0.0.1",
        "localhost",
        "[::1]",
        "10.0.0.1",
        "169.254.169.254",
    ] {
        assert!(
            hosts.iter().any(|h| h == host),
            "{host} not requested: {hosts:?}"
        );
    }
    let refused = allowed.number("SELECT count(*) FROM decisions WHERE reason = 'private-address'");
    assert_eq!(refused, 0);
}

/// The first web (by seed) with a trap host whose robots.txt answers.
fn web_with_traps() -> (Web, Vec<String>) {
    (1..100)
        .map(|seed| {
            Web::generate(WebSpec {
                seed,
                hosts: 60,
                pages: 600,
                chrome: false,
                discovery: false,
                changes: false,
            })
        })
        .find_map(|web| {
            let hosts: Vec<String> = web
                .hosts
                .iter()
                .filter(|h| {
                    h.trap && h.robots != langcrawl::websim::generator::RobotsKind::Unavailable
                })
                .map(|h| h.name.clone())
                .collect();
            (!hosts.is_empty()).then_some((web, hosts))
        })
        .expect("a seed gives a trap host")
}

#[test]
fn traps_are_bounded_and_the_reasons_are_queryable() {
    let (web, trap_hosts) = web_with_traps();
    let crawl = Crawl::on(spawn_background(web, 0).unwrap());
    let seeds: Vec<String> = trap_hosts
        .iter()
        .flat_map(|h| {
            [
                format!("http://{h}/cal/2026-01/"),
                format!("http://{h}/loop/"),
            ]
        })
        .collect();
    let seeds = crawl.seeds_file(&seeds);
    crawl.crawl_seeds_with(
        &seeds,
        "ja",
        12,
        &["--max-depth", "10", "--host-budget", "200"],
    );
    for host in &trap_hosts {
        let urls = crawl.number(&format!(
            "SELECT count(*) FROM crawldb WHERE host = '{host}'"
        ));
        assert!(urls <= 200, "{host} holds {urls} URLs");
        let loop_urls = crawl.number(&format!(
            "SELECT count(*) FROM crawldb WHERE host = '{host}' AND url LIKE '%/loop/%'"
        ));
        // a and b at most twice each: paths of at most four folders.
        assert!(loop_urls <= 1 + 2 + 4 + 6 + 6, "{loop_urls} loop URLs");
    }
    let reasons: Vec<String> = crawl
        .rows("SELECT DISTINCT reason FROM decisions WHERE NOT accepted ORDER BY reason")
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert!(
        reasons.contains(&"repeated-path-segment".to_string()),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| r == "max-depth" || r == "host-budget"),
        "{reasons:?}"
    );
}

/// A Japanese page with 30 links, one URL of 3,000 characters, and a chain
/// of 8 redirects.
fn limits_web() -> Crawl<Handmade> {
    let mut pages = BTreeMap::new();
    let mut links: Vec<String> = (0..30).map(|k| format!("/p{k}.html")).collect();
    links.push(format!("/{}.html", "x".repeat(3_000)));
    links.push("/hop0.html".into());
    pages.insert("http://www.limits.jp/".into(), page("jpn", 0, &links));
    for k in 0..30 {
        pages.insert(
            format!("http://www.limits.jp/p{k}.html"),
            page("jpn", k, &[]),
        );
    }
    for hop in 0..8 {
        let next = format!("http://www.limits.jp/hop{}.html", hop + 1);
        pages.insert(
            format!("http://www.limits.jp/hop{hop}.html"),
            redirect(next),
        );
    }
    Crawl::on(spawn_background(Handmade(pages), 0).unwrap())
}

#[test]
fn outlinks_url_length_and_redirect_chains_are_limited() {
    let crawl = limits_web();
    let seeds = crawl.seeds_file(&["http://www.limits.jp/".into()]);
    crawl.crawl_seeds_with(&seeds, "ja", 10, &["--max-outlinks", "31"]);
    let count = |reason: &str| {
        crawl.number(&format!(
            "SELECT count(*) FROM decisions WHERE reason = '{reason}'"
        ))
    };
    // The page's links in order: 30 pages, the long URL, the chain: the
    // 32nd link (the chain) is past --max-outlinks 31.
    assert_eq!(count("max-outlinks"), 1);
    assert_eq!(count("max-url-length"), 1);
    assert_eq!(
        count("redirect-chain"),
        0,
        "the chain is not followed at all"
    );

    let chain = limits_web();
    let seeds = chain.seeds_file(&["http://www.limits.jp/hop0.html".into()]);
    chain.crawl_seeds(&seeds, "ja", 10);
    let hops = chain.number("SELECT count(*) FROM crawldb WHERE status = 'redirect'");
    assert_eq!(hops, 6, "the seed and five more redirects are fetched");
    let refused: Vec<Vec<String>> =
        chain.rows("SELECT url FROM decisions WHERE reason = 'redirect-chain'");
    assert_eq!(
        refused,
        vec![vec!["http://www.limits.jp/hop6.html".to_string()]]
    );
}

#[test]
fn an_undecided_server_gets_tolerance_plus_one_fetches_in_a_round() {
    let mut pages = BTreeMap::new();
    let urls: Vec<String> = (0..50)
        .map(|k| format!("http://www.english.com/{k}.html"))
        .collect();
    for (k, url) in urls.iter().enumerate() {
        pages.insert(url.clone(), page("eng", k, &[]));
    }
    let crawl = Crawl::on(spawn_background(Handmade(pages), 0).unwrap());
    let seeds = crawl.seeds_file(&urls);
    crawl.crawl_seeds_with(
        &seeds,
        "ja",
        1,
        &[
            "--strategy",
            "server-conservative",
            "--tolerance",
            "10",
            "--max-per-host",
            "1000",
        ],
    );
    let fetched = crawl
        .web
        .requested()
        .iter()
        .filter(|u| !u.ends_with("/robots.txt"))
        .count();
    assert_eq!(fetched, 11);
    let in_fetch_list = crawl.number("SELECT count(*) FROM fetchlist");
    assert_eq!(in_fetch_list, 11);
}
