//! Politeness beyond the host name, checked in the hostile server's own
//! log of request times: twenty names on one address, `--queue-by ip`,
//! are asked one at a time and never faster than the delay; a server that
//! answers in 500 ms is, with `--delay-factor 2`, asked no faster than
//! once a second after each answer.

use std::time::{Duration, Instant};

use crate::hostile::HostileCrawl;
use crate::hostile_server::SLOW_ANSWER;
use crate::util::{langcrawl, succeeded};

const NAMES: usize = 20;
const DELAY_MS: u64 = 100;

/// The gaps between consecutive requests the server saw on the hosts
/// `on` accepts, in arrival order.
fn gaps(crawl: &HostileCrawl, on: impl Fn(&str) -> bool) -> Vec<Duration> {
    let mut times: Vec<Instant> = crawl
        .web
        .requests()
        .into_iter()
        .filter(|(_, url)| on(url))
        .map(|(at, _)| at)
        .collect();
    times.sort();
    times.windows(2).map(|w| w[1] - w[0]).collect()
}

/// Twenty names pinned to the server's address, two pages each, fetched
/// straight (no proxy) with `--queue-by BY`; the gaps between requests.
fn twenty_names_on_one_address(by: &str) -> Vec<Duration> {
    let crawl = HostileCrawl::new();
    let port = crawl.web.port();
    let names: Vec<String> = (1..=NAMES).map(|i| format!("n{i}.shared.test")).collect();
    let urls: Vec<String> = names
        .iter()
        .flat_map(|n| {
            [
                format!("http://{n}:{port}/a"),
                format!("http://{n}:{port}/b"),
            ]
        })
        .collect();
    crawl.inject(&urls);
    crawl.ok(&["generate"]);
    // straight to the server: no --proxy, the names pinned to its address
    let dir = crawl.dir().display().to_string();
    let mut args: Vec<String> = [
        "fetch",
        "--crawl",
        &dir,
        "--allow-private",
        "--queue-by",
        by,
    ]
    .map(String::from)
    .to_vec();
    args.extend(["--delay-ms".into(), DELAY_MS.to_string()]);
    for name in &names {
        args.extend(["--resolve".into(), format!("{name}=127.0.0.1:{port}")]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    succeeded(langcrawl(&args), &args);
    let fetched = crawl.rows("SELECT count(*) FROM fetch WHERE status = 'fetched'");
    assert_eq!(fetched[0][0], (2 * NAMES).to_string(), "every page fetched");
    gaps(&crawl, |url| url.contains(".shared.test"))
}

#[test]
fn twenty_names_on_one_address_share_one_queue_with_queue_by_ip() {
    let gaps = twenty_names_on_one_address("ip");
    assert_eq!(gaps.len(), 3 * NAMES - 1, "robots.txt and two pages a name");
    let least = gaps.iter().min().unwrap();
    // a timer may fire a little early on a busy machine
    assert!(
        *least >= Duration::from_millis(DELAY_MS - 10),
        "closest requests {least:?} apart"
    );
    // by host, the names are asked side by side: the check above can fail
    let by_host = twenty_names_on_one_address("host");
    let close = by_host
        .iter()
        .filter(|g| **g < Duration::from_millis(DELAY_MS / 2))
        .count();
    assert!(
        close > NAMES / 2,
        "by host, {close} of {} gaps are short",
        by_host.len()
    );
}

/// Four pages of `slow.test` with `flags`; the gaps between its page requests.
fn slow_server(flags: &[&str]) -> Vec<Duration> {
    let crawl = HostileCrawl::new();
    let urls: Vec<String> = (0..4).map(|i| format!("http://slow.test/{i}")).collect();
    crawl.inject(&urls);
    crawl.ok(&["generate"]);
    let args: Vec<&str> = ["fetch", "--delay-ms", "0"]
        .iter()
        .chain(flags)
        .copied()
        .collect();
    crawl.ok(&args);
    gaps(&crawl, |url| {
        url.starts_with("http://slow.test/") && !url.ends_with("robots.txt")
    })
}

#[test]
fn a_slow_server_is_asked_less_often_with_a_delay_factor() {
    let stretched = slow_server(&["--delay-factor", "2"]);
    assert_eq!(stretched.len(), 3);
    // each request: the answer (500 ms), then 2 x 500 ms
    let least = *stretched.iter().min().unwrap();
    assert!(
        least >= SLOW_ANSWER * 3 - Duration::from_millis(100),
        "{stretched:?}"
    );
    let plain = slow_server(&[]);
    assert!(plain.iter().all(|g| *g < SLOW_ANSWER * 2), "{plain:?}");
}
