use std::cell::RefCell;

use proptest::prelude::*;

use super::*;

const TXT: &[u8] = b"User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n";

#[test]
fn disallow_is_obeyed_and_delay_read() {
    let robots = Robots::from_response("langcrawl", 200, TXT);
    assert!(!robots.allows("http://a.jp/private/1.html"));
    assert!(robots.allows("http://a.jp/p/1.html"));
    assert_eq!(robots.crawl_delay(), Some(Duration::from_secs(2)));
}

#[test]
fn status_codes() {
    assert!(Robots::from_response("x", 404, b"").allows("http://a.jp/private/"));
    assert!(!Robots::from_response("x", 503, b"").allows("http://a.jp/"));
    assert!(!Robots::from_response("x", 429, b"").allows("http://a.jp/"));
}

#[test]
fn crawl_delay_is_floored_and_capped() {
    let (one, ten) = (Duration::from_secs(1), Duration::from_secs(10));
    assert_eq!(host_delay(one, Some(Duration::from_secs(60)), ten), ten);
    assert_eq!(host_delay(one, Some(Duration::ZERO), ten), one);
    assert_eq!(agent_token("langcrawl/0.1 (+x)"), "langcrawl");
}

#[test]
fn any_crawl_delay_value_is_clamped_without_a_panic() {
    let (one, cap) = (Duration::from_secs(1), Duration::from_secs(10));
    for (value, expected) in [
        ("inf", cap),
        ("infinity", cap),
        ("1e30", cap),
        ("340282350000000000000000000000000000000", cap),
        ("NaN", one),
        ("-1", one),
        ("-inf", one),
        ("0", one),
        ("2.5", Duration::from_millis(2500)),
    ] {
        let body = format!("User-agent: *\nCrawl-delay: {value}\nDisallow: /x/\n");
        let robots = Robots::from_response("langcrawl", 200, body.as_bytes());
        assert_eq!(
            host_delay(one, robots.crawl_delay(), cap),
            expected,
            "Crawl-delay: {value}"
        );
    }
}

fn answer(status: u16, location: Option<&str>, body: &[u8]) -> Response {
    Response {
        http_status: Some(status),
        location: location.map(str::to_string),
        content: body.to_vec(),
        ..Response::default()
    }
}

/// Follows redirects over a canned web: each URL's answer, or a 404.
fn follow(
    web: &[(&str, Response)],
    start: &str,
    allow_private: bool,
) -> (RobotsAnswer, Vec<String>) {
    let asked = RefCell::new(Vec::new());
    let get = |url: url::Url| {
        asked.borrow_mut().push(url.to_string());
        let found = web.iter().find(|(u, _)| *u == url.as_str());
        let response = match found {
            Some((_, r)) => Response {
                http_status: r.http_status,
                location: r.location.clone(),
                content: r.content.clone(),
                ..Response::default()
            },
            None => answer(404, None, b""),
        };
        async move { response }
    };
    let start = url::Url::parse(start).unwrap();
    let got = futures::executor::block_on(fetch(start, allow_private, get));
    (got, asked.into_inner())
}

#[test]
fn redirects_are_followed_across_paths_hosts_and_schemes() {
    let web = [
        (
            "http://a.jp/robots.txt",
            answer(301, Some("/r/robots.txt"), b""),
        ),
        (
            "http://a.jp/r/robots.txt",
            answer(302, Some("https://www.a.jp/robots.txt"), b""),
        ),
        (
            "https://www.a.jp/robots.txt",
            answer(200, None, b"User-agent: *\nDisallow: /no/\n"),
        ),
    ];
    let (got, asked) = follow(&web, "http://a.jp/robots.txt", false);
    assert_eq!(asked.len(), 3, "{asked:?}");
    assert_eq!(got.status, Some(200));
    let robots = Robots::from_answer("langcrawl", &got);
    assert!(!robots.allows("http://a.jp/no/1.html"));
    assert!(robots.allows("http://a.jp/yes.html"));
    // the rules are http://a.jp's, wherever they were found
    assert_eq!(got.origin.as_deref(), Some("http://a.jp"));
    assert!(got.answers_for(&url::Url::parse("http://a.jp/x").unwrap()));
    assert!(!got.answers_for(&url::Url::parse("https://a.jp/x").unwrap()));
    assert!(!got.answers_for(&url::Url::parse("http://a.jp:8080/x").unwrap()));
}

#[test]
fn five_redirects_are_followed_and_a_sixth_is_no_answer() {
    let hop = |n: usize| format!("http://a.jp/{n}/robots.txt");
    let targets: Vec<String> = (0..=6).map(hop).collect();
    let chain = |len: usize| -> Vec<(&str, Response)> {
        (0..len)
            .map(|n| (targets[n].as_str(), answer(301, Some(&targets[n + 1]), b"")))
            .chain([(targets[len].as_str(), answer(200, None, b"Disallow: /x/\n"))])
            .collect()
    };
    let (got, asked) = follow(&chain(5), &hop(0), false);
    assert_eq!((got.status, asked.len()), (Some(200), 6));
    let (got, asked) = follow(&chain(6), &hop(0), false);
    assert_eq!(asked.len(), 6, "the sixth redirect is not followed");
    assert!(got.error.unwrap().contains("more than 5 redirects"));
    let robots = Robots::from_answer("x", &follow(&chain(6), &hop(0), false).0);
    assert!(matches!(robots, Robots::Unavailable(_)));
}

#[test]
fn a_redirect_to_a_blocked_address_is_not_followed() {
    let web = [(
        "http://a.jp/robots.txt",
        answer(302, Some("http://169.254.169.254/robots.txt"), b""),
    )];
    let (got, asked) = follow(&web, "http://a.jp/robots.txt", false);
    assert_eq!(asked, vec!["http://a.jp/robots.txt"]);
    assert!(got.error.unwrap().contains("private-address: link-local"));
    let (got, asked) = follow(&web, "http://a.jp/robots.txt", true);
    assert_eq!(
        (got.status, asked.len()),
        (Some(404), 2),
        "--allow-private follows it"
    );
    let ftp = [(
        "http://a.jp/robots.txt",
        answer(301, Some("ftp://a.jp/robots.txt"), b""),
    )];
    assert!(follow(&ftp, "http://a.jp/robots.txt", true)
        .0
        .error
        .unwrap()
        .contains("unsupported-scheme"));
}

#[test]
fn answers_are_reused_for_a_day_unless_they_failed() {
    let day = 24 * 3600 * 1000;
    let ok = RobotsAnswer {
        fetched_at_ms: 1_000,
        status: Some(200),
        ..RobotsAnswer::default()
    };
    assert!(ok.reusable(2_000, day));
    assert!(!ok.reusable(1_000 + day, day));
    let busy = RobotsAnswer {
        status: Some(429),
        ..ok.clone()
    };
    assert!(!busy.reusable(2_000, day));
    let down = RobotsAnswer {
        status: Some(503),
        ..ok
    };
    assert!(!down.reusable(2_000, day));
}

#[test]
fn a_huge_binary_robots_txt_is_read_quickly() {
    let body: Vec<u8> = (0..MAX_ROBOTS_BYTES)
        .map(|i| (i * 7919 % 251) as u8)
        .collect();
    let started = std::time::Instant::now();
    let robots = Robots::from_response("langcrawl", 200, &body);
    let _ = robots.allows("http://a.jp/x.html");
    let _ = robots.crawl_delay();
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::testing::cases(256)))]

    #[test]
    fn any_answer_is_interpreted_without_a_panic(
        status in 0u16..1000,
        body in proptest::collection::vec(any::<u8>(), 0..2048),
        lines in proptest::collection::vec(
            "(User-agent|Disallow|Allow|Crawl-delay|Sitemap): [ -~]{0,40}", 0..20),
        path in "/[ -~]{0,60}",
    ) {
        let text = lines.join("\n");
        for body in [&body[..], text.as_bytes()] {
            let robots = Robots::from_response("langcrawl", status, body);
            let _ = robots.allows(&format!("http://a.jp{path}"));
            let _ = host_delay(Duration::ZERO, robots.crawl_delay(), Duration::from_secs(10));
        }
    }
}
