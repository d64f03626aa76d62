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

/// The pages only sitemaps list on the hosts of `seeds`, with their language.
fn hidden_pages(web: &Web, seeds: &[String]) -> Vec<(String, &'static str)> {
    web.sitemap_only_pages()
        .into_iter()
        .filter(|(url, _)| seeds.iter().any(|s| url.starts_with(s.as_str())))
        .collect()
}

fn urls_in(pages: &[(String, &str)], lang: Option<&str>) -> BTreeSet<String> {
    let wanted = |l: &str| lang.is_none_or(|lang| lang == l);
    pages
        .iter()
        .filter(|(_, l)| wanted(l))
        .map(|(u, _)| u.clone())
        .collect()
}

#[test]
fn three_rounds_reach_every_target_page_only_sitemaps_list() {
    let web = discovery_web();
    let seeds = fronts(&web, Role::Sitemaps);
    let hidden = hidden_pages(&web, &seeds);
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

    let japanese = urls_in(&hidden, Some("jpn"));
    assert!(
        japanese.len() >= 3,
        "the web has Japanese hidden pages: {japanese:?}"
    );
    let fetched = set(crawl.rows(
        "SELECT url FROM crawldb WHERE status = 'fetched' AND lang = 'jpn' AND url LIKE '%/hidden/%'",
    ));
    let missing: Vec<_> = japanese.difference(&fetched).collect();
    assert!(missing.is_empty(), "not reached: {missing:?}");
    let reached =
        set(crawl
            .rows("SELECT url FROM crawldb WHERE status = 'fetched' AND url LIKE '%/hidden/%'"));
    assert_eq!(
        reached,
        urls_in(&hidden, None),
        "every hidden page, whatever its language"
    );
    only_sitemaps_link_them(&crawl, &japanese);
    the_sitemaps_segment_records_each_kind_of_file(&crawl);
}

/// No page's link leads to a hidden page; the Japanese alternates are
/// links with their hreflang.
fn only_sitemaps_link_them(crawl: &Crawl, japanese: &BTreeSet<String>) {
    let by_pages = crawl.number(
        "SELECT count(*) FROM links WHERE dst_url LIKE '%/hidden/%' \
         AND kind NOT IN ('sitemap', 'sitemap-alternate')",
    );
    assert_eq!(by_pages, 0);
    let alternates = set(crawl
        .rows("SELECT dst_url FROM links WHERE kind = 'sitemap-alternate' AND hreflang = 'jpn'"));
    assert!(
        !alternates.is_empty(),
        "sitemap-alternate rows carry hreflang"
    );
    let in_ja = japanese.iter().filter(|u| u.contains("/ja/"));
    assert!(
        in_ja.clone().all(|u| alternates.contains(u)),
        "{alternates:?}"
    );
    let kinds = set(crawl.rows("SELECT DISTINCT kind FROM links WHERE kind LIKE 'sitemap%'"));
    assert_eq!(
        kinds,
        ["sitemap", "sitemap-alternate"].map(String::from).into()
    );
}

/// Indexes, gzipped urlsets, and files found by guessing.
fn the_sitemaps_segment_records_each_kind_of_file(crawl: &Crawl) {
    let formats = set(crawl.rows("SELECT DISTINCT format FROM sitemaps WHERE format IS NOT NULL"));
    assert_eq!(formats, ["index", "urlset"].map(String::from).into());
    let gz = crawl
        .number("SELECT count(*) FROM sitemaps WHERE sitemap LIKE '%.xml.gz' AND status = 'read'");
    assert!(gz > 0);
    let guessed =
        crawl.number("SELECT count(*) FROM sitemaps WHERE found_by = 'guess' AND status = 'read'");
    assert!(
        guessed > 0,
        "a host without robots.txt lists its pages at /sitemap.xml"
    );
}

#[test]
fn adaptive_learns_a_weight_for_each_sitemap_kind() {
    let web = discovery_web();
    // the sitemap sites whose alternates are Japanese
    let seeds: Vec<String> = (0..web.hosts.len())
        .filter(|&h| web.role(h) == Role::Sitemaps && LANGS[web.alternate_lang(h)].code == "jpn")
        .map(|h| format!("http://{}/", web.hosts[h].name))
        .collect();
    let crawl = Crawl::on(spawn_background(web, 0).unwrap());
    let seeds_file = crawl.seeds_file(&seeds);
    crawl.crawl_seeds_with(&seeds_file, "ja", 2, &["--strategy", "adaptive"]);
    let weights = set(crawl.rows(
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
