//! Sitemaps and language negotiation on the synthetic web with
//! `--discovery`: pages only sitemaps list are crawled through their
//! `sitemap` and `sitemap-alternate` links (the web's own list of them is
//! the independent count), and a site that negotiates answers the
//! target's language because the crawl asks for it — checked in the
//! server's log of request headers and in the crawldb.

use std::collections::BTreeSet;

use langcrawl::websim::corpus::LANGS;
use langcrawl::websim::discovery::{self, Role};
use langcrawl::websim::generator::RobotsKind;
use langcrawl::websim::{spawn_background, Web};

use crate::util::Crawl;

fn discovery_web() -> Web {
    Web::generate(discovery::small_spec())
}

/// Front pages of the hosts with `role` whose robots.txt answers.
fn fronts(web: &Web, role: Role) -> Vec<String> {
    (0..web.hosts.len())
        .filter(|&h| web.role(h) == role && web.hosts[h].robots != RobotsKind::Unavailable)
        .map(|h| format!("http://{}/", web.hosts[h].name))
        .collect()
}

fn set(rows: Vec<Vec<String>>) -> BTreeSet<String> {
    rows.into_iter().map(|r| r[0].clone()).collect()
}

#[test]
fn three_rounds_reach_every_target_page_only_sitemaps_list() {
    let web = discovery_web();
    let seeds = fronts(&web, Role::Sitemaps);
    let hosts: BTreeSet<String> = seeds
        .iter()
        .map(|s| s[7..s.len() - 1].to_string())
        .collect();
    let hidden: Vec<(String, &str)> = web
        .sitemap_only_pages()
        .into_iter()
        .filter(|(url, _)| {
            hosts
                .iter()
                .any(|h| url.starts_with(&format!("http://{h}/")))
        })
        .collect();
    // the sitemap sites whose alternates are Japanese
    let japanese_alternates: Vec<String> = (0..web.hosts.len())
        .filter(|&h| web.role(h) == Role::Sitemaps && LANGS[web.alternate_lang(h)].code == "jpn")
        .map(|h| format!("http://{}/", web.hosts[h].name))
        .collect();
    let crawl = Crawl::on(spawn_background(web, 0).unwrap());
    let seeds_file = crawl.seeds_file(&seeds);
    let flags = [
        "--guess-sitemap",
        "--top-n",
        "5000",
        "--max-per-host",
        "1000",
    ];
    crawl.crawl_seeds_with(&seeds_file, "ja", 3, &flags);

    let japanese: BTreeSet<String> = hidden
        .iter()
        .filter(|(_, l)| *l == "jpn")
        .map(|(u, _)| u.clone())
        .collect();
    assert!(
        japanese.len() >= 3,
        "the web has Japanese hidden pages: {japanese:?}"
    );
    let fetched = set(crawl.rows(
        "SELECT url FROM crawldb WHERE status = 'fetched' AND lang = 'jpn' AND url LIKE '%/hidden/%'",
    ));
    let missing: Vec<_> = japanese.difference(&fetched).collect();
    assert!(missing.is_empty(), "not reached: {missing:?}");
    let all_hidden: BTreeSet<String> = hidden.iter().map(|(u, _)| u.clone()).collect();
    let reached =
        set(crawl
            .rows("SELECT url FROM crawldb WHERE status = 'fetched' AND url LIKE '%/hidden/%'"));
    assert_eq!(
        reached, all_hidden,
        "every hidden page, whatever its language"
    );

    // Only sitemaps link them: no page's link leads there.
    let by_pages = crawl.number(
        "SELECT count(*) FROM links WHERE dst_url LIKE '%/hidden/%' \
         AND kind NOT IN ('sitemap', 'sitemap-alternate')",
    );
    assert_eq!(by_pages, 0);
    let alternates = set(crawl
        .rows("SELECT dst_url FROM links WHERE kind = 'sitemap-alternate' AND hreflang = 'jpn'"));
    assert!(japanese
        .iter()
        .all(|u| alternates.contains(u) || !u.contains("/ja/")));
    assert!(
        !alternates.is_empty(),
        "sitemap-alternate rows carry hreflang"
    );
    let kinds = set(crawl.rows("SELECT DISTINCT kind FROM links WHERE kind LIKE 'sitemap%'"));
    assert_eq!(
        kinds,
        ["sitemap", "sitemap-alternate"].map(String::from).into()
    );

    // The sitemaps segment: indexes, a gzipped urlset, guessed files.
    let formats = set(crawl.rows("SELECT DISTINCT format FROM sitemaps WHERE format IS NOT NULL"));
    assert_eq!(formats, ["index", "urlset"].map(String::from).into());
    let gz = crawl
        .number("SELECT count(*) FROM sitemaps WHERE sitemap LIKE '%.xml.gz' AND status = 'read'");
    assert!(gz > 0);

    // adaptive's model has learned weights for the new kinds.
    let learning = Crawl::on(spawn_background(discovery_web(), 0).unwrap());
    let seeds_file = learning.seeds_file(&japanese_alternates);
    learning.crawl_seeds_with(&seeds_file, "ja", 2, &["--strategy", "adaptive"]);
    let weights = set(learning.rows(
        "SELECT DISTINCT split_part(value, ':', 2) FROM model \
         WHERE feature = 'kind' AND value LIKE '%:sitemap%'",
    ));
    assert_eq!(
        weights,
        ["sitemap", "sitemap-alternate"].map(String::from).into()
    );
}

/// A negotiating host of the web, and the language it offers besides English.
fn negotiating(web: &Web) -> (String, &'static str, &'static str) {
    let h = (0..web.hosts.len())
        .find(|&h| {
            web.role(h) == Role::Negotiates && web.hosts[h].robots != RobotsKind::Unavailable
        })
        .expect("a host negotiates");
    let lang = &LANGS[web.alternate_lang(h)];
    (
        format!("http://{}/", web.hosts[h].name),
        lang.code,
        lang.tag,
    )
}

#[test]
fn a_negotiating_site_answers_the_target_when_asked_and_english_when_not() {
    let web = discovery_web();
    let (front, code, tag) = negotiating(&web);
    for (flags, want_header, want_lang) in [
        (vec![], Some(format!("{tag}, en;q=0.5")), code),
        (vec!["--accept-language", "off"], None, "eng"),
    ] {
        let crawl = Crawl::on(spawn_background(discovery_web(), 0).unwrap());
        let seeds = crawl.seeds_file(std::slice::from_ref(&front));
        crawl.crawl_seeds_with(&seeds, code, 1, &flags);
        let served = crawl.web.served();
        let asked = served
            .iter()
            .find(|s| s.url == front)
            .expect("the front page was asked for");
        assert_eq!(asked.accept_language, want_header, "the server's log");
        let sent = match &want_header {
            Some(h) => format!("accept-language: {h}"),
            None => "accept-language".into(),
        };
        let row = crawl.rows(&format!(
            "SELECT c.lang, f.vary, strpos(f.request, '{sent}') > 0 \
             FROM crawldb c JOIN fetch f ON f.url = c.url WHERE c.url = '{front}'"
        ));
        assert_eq!(row[0][0], want_lang, "the crawldb: {row:?}");
        assert_eq!(row[0][1], "Accept-Language");
        let recorded = row[0][2] == "true";
        assert_eq!(
            recorded,
            want_header.is_some(),
            "the request as recorded for WARC"
        );
        let config = std::fs::read_to_string(crawl.dir().join("crawl.json")).unwrap();
        let saved = want_header.clone().unwrap_or_else(|| "off".into());
        assert!(
            config.contains(&format!("\"accept_language\": \"{saved}\"")),
            "{config}"
        );
    }
}
