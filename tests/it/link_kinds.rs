//! Links that are not `<a>`: a hand-made web whose Japanese pages are
//! reachable only through a frameset, an iframe, meta refreshes and an
//! image map, and a page naming its translations as hreflang alternates
//! in `<link>` elements, an HTTP `Link:` header and `<a hreflang>`.

use std::collections::BTreeMap;

use langcrawl::websim::render::SimResponse;
use langcrawl::websim::spawn_background;

use crate::util::{html, text, Crawl, Handmade};

/// A Japanese page with text, and `body` after it.
fn japanese(from: usize, body: &str) -> SimResponse {
    html(&format!(
        "<!DOCTYPE html>\n<html lang=\"ja\"><head><title>ページ {from}</title></head>\n<body>{}{body}</body></html>\n",
        text("jpn", from, 3)
    ))
}

const HUB: &str = "http://www.hub.jp/";
const FRAMESET: &str = "http://www.hub.jp/frames.html";
const EMBED: &str = "http://www.hub.jp/embed.html";
const MOVED: &str = "http://www.hub.jp/moved.html";
const MOVED_QUOTED: &str = "http://www.hub.jp/moved2.html";
const MAP: &str = "http://www.hub.jp/map.html";
const MENU: &str = "http://www.hub.jp/menu.html";
const MAIN: &str = "http://kanko.jp/main.html";
const PLAYER: &str = "http://video.jp/player.html";
const SHINISE: &str = "http://shinise.jp/";
const NEW_HOME: &str = "http://www.hub.jp/new/index.html";
const TOKYO: &str = "http://chizu.jp/tokyo.html";
const OSAKA: &str = "http://chizu.jp/osaka.html";

/// The hub links (with `<a>`, one an image link with no text) to five
/// pages; the Japanese pages behind them are linked by nothing but a
/// frame, an iframe, a refresh or an area.
fn hidden_web() -> Handmade {
    let pages = [
        (
            HUB,
            japanese(
                0,
                &format!(
                    "<p><a href=\"{FRAMESET}\">フレーム</a> <a href=\"embed.html\"><span><b>動画</b>の紹介</span></a> \
                     <a href=\"{MOVED}\">老舗</a> <a href=\"/moved2.html\">新しいページ</a> \
                     <a href=\"{MAP}\"><img src=\"/map-thumb.png\" alt=\"\"></a></p>\n"
                ),
            ),
        ),
        (
            FRAMESET,
            html(&format!(
                "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01 Frameset//EN\">\n\
                 <html lang=\"ja\"><head><title>観光案内</title></head>\n\
                 <frameset cols=\"25%,*\"><frame src=\"menu.html\" name=\"menu\"><frame src=\"{MAIN}\" name=\"main\"></frameset>\n</html>\n"
            )),
        ),
        (
            EMBED,
            japanese(
                3,
                &format!("<iframe src=\"{PLAYER}\" width=\"480\" height=\"270\"></iframe>\n"),
            ),
        ),
        (
            MOVED,
            html(&format!(
                "<html lang=\"ja\"><head><meta http-equiv=\"refresh\" content=\"0; url={SHINISE}\"></head><body></body></html>\n"
            )),
        ),
        (
            MOVED_QUOTED,
            html("<html><head><meta http-equiv=\"Refresh\" content=\"0;URL='/new/index.html'\"></head><body></body></html>\n"),
        ),
        (
            MAP,
            japanese(
                6,
                &format!(
                    "<p><img src=\"/japan.png\" usemap=\"#japan\" alt=\"\"></p><map name=\"japan\">\
                     <area shape=\"rect\" coords=\"0,0,99,99\" href=\"{TOKYO}\" alt=\"東京\">\
                     <area shape=\"rect\" coords=\"100,0,199,99\" href=\"{OSAKA}\" alt=\"\">\
                     <area shape=\"default\" nohref alt=\"\"></map>\n"
                ),
            ),
        ),
        (MENU, japanese(9, "")),
        (MAIN, japanese(12, "")),
        (PLAYER, japanese(15, "")),
        (SHINISE, japanese(18, "")),
        (NEW_HOME, japanese(21, "")),
        (TOKYO, japanese(24, "")),
        (OSAKA, japanese(27, "")),
    ];
    Handmade(
        pages
            .into_iter()
            .map(|(url, answer)| (url.to_string(), answer))
            .collect(),
    )
}

fn list(urls: &[&str]) -> String {
    urls.iter()
        .map(|u| format!("'{u}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn frames_iframes_refreshes_and_areas_are_followed() {
    let crawl = Crawl::on(spawn_background(hidden_web(), 0).expect("synthetic web starts"));
    let seeds = crawl.seeds_file(&[HUB.to_string()]);
    crawl.crawl_seeds(&seeds, "ja", 4);

    let targets = [MENU, MAIN, PLAYER, SHINISE, NEW_HOME, TOKYO, OSAKA];
    let requested = crawl.web.requested();
    for target in targets {
        assert!(
            requested.iter().any(|r| r == target),
            "{target} never requested: {requested:?}"
        );
    }
    let mut expected: Vec<Vec<String>> = targets
        .iter()
        .map(|t| vec![t.to_string(), "fetched".into(), "jpn".into()])
        .collect();
    expected.sort();
    assert_eq!(
        crawl.rows(&format!(
            "SELECT url, status, coalesce(lang, '') FROM crawldb WHERE url IN ({}) ORDER BY url",
            list(&targets)
        )),
        expected
    );

    let row = |src: &str, dst: &str, kind: &str| vec![src.to_string(), dst.into(), kind.into()];
    let mut kinds = vec![
        row(FRAMESET, MENU, "frame"),
        row(FRAMESET, MAIN, "frame"),
        row(EMBED, PLAYER, "iframe"),
        row(MOVED, SHINISE, "refresh"),
        row(MOVED_QUOTED, NEW_HOME, "refresh"),
        row(MAP, TOKYO, "area"),
        row(MAP, OSAKA, "area"),
    ];
    kinds.sort();
    assert_eq!(
        crawl.rows("SELECT src_url, dst_url, kind FROM links WHERE kind <> 'a' ORDER BY 1, 2"),
        kinds
    );
    let mut from_hub = [FRAMESET, EMBED, MOVED, MOVED_QUOTED, MAP];
    from_hub.sort();
    let from_hub: Vec<Vec<String>> = from_hub.iter().map(|u| vec![u.to_string()]).collect();
    assert_eq!(
        crawl.rows(&format!(
            "SELECT dst_url FROM links WHERE src_url = '{HUB}' AND kind = 'a' ORDER BY 1"
        )),
        from_hub,
        "the hub's <a> links, the image link without text among them"
    );

    // A frameset or a refresh has no text: no language, whatever <html lang> says.
    let textless = [FRAMESET, MOVED, MOVED_QUOTED];
    let mut expected: Vec<Vec<String>> = textless
        .iter()
        .map(|u| vec![u.to_string(), String::new(), "no-text".into()])
        .collect();
    expected.sort();
    assert_eq!(
        crawl.rows(&format!(
            "SELECT url, coalesce(lang, ''), lang_source FROM parse WHERE url IN ({}) ORDER BY url",
            list(&textless)
        )),
        expected
    );
    // The language report lists them as pages without text, not as `und`,
    // and the crawl's parse lines report no failure.
    let report = crawl.ok(&["report"]);
    let languages = report.split("Harvest rate").next().unwrap();
    assert!(
        languages
            .lines()
            .any(|l| l.starts_with("| (no text)") && l.contains("| 3 ")),
        "{languages}"
    );
    assert!(!languages.contains("| und"), "{languages}");
    let log = std::fs::read_to_string(crawl.dir().join("crawl.json")).unwrap();
    let failed: Vec<&str> = log
        .split("not HTML, ")
        .skip(1)
        .map(|rest| rest.split(" failed").next().unwrap())
        .collect();
    assert!(
        !failed.is_empty() && failed.iter().all(|n| *n == "0"),
        "{log}"
    );
}

const MULTI: &str = "http://multi.example.com/";

/// A Thai page naming its translations: `<link rel=alternate>` (one with
/// a region, one `x-default`), an HTTP `Link:` header, `<a hreflang>`, and
/// `<link>`s that are no links to follow (icon, stylesheet).
fn multilingual_web() -> Handmade {
    let mut page = html(&format!(
        "<!DOCTYPE html>\n<html lang=\"th\"><head><title>หน้าแรก</title>\
         <link rel=\"stylesheet\" href=\"/style.css\"><link rel=\"icon\" href=\"/favicon.ico\">\
         <link rel=\"canonical\" href=\"{MULTI}home.html\">\
         <link rel=\"alternate\" hreflang=\"th\" href=\"{MULTI}th/\">\
         <link rel=\"alternate\" hreflang=\"ja-JP\" href=\"/ja/\">\
         <link rel=\"alternate\" hreflang=\"x-default\" href=\"{MULTI}intl/\">\
         </head>\n<body>{}<p><a href=\"/ko/\" hreflang=\"ko\">한국어</a> <a href=\"/about.html\">เกี่ยวกับเรา</a></p>\n</body></html>\n",
        text("tha", 0, 3)
    ));
    page.headers.push((
        "Link".into(),
        format!("<{MULTI}en/>; rel=\"alternate\"; hreflang=\"en\""),
    ));
    Handmade(BTreeMap::from([(MULTI.to_string(), page)]))
}

#[test]
fn hreflang_alternates_from_link_elements_headers_and_anchors() {
    let crawl = Crawl::on(spawn_background(multilingual_web(), 0).expect("synthetic web starts"));
    let seeds = crawl.seeds_file(&[MULTI.to_string()]);
    crawl.crawl_seeds(&seeds, "th", 1);
    assert_eq!(
        crawl.number(&format!(
            "SELECT count(*) FROM fetch WHERE url = '{MULTI}' AND lower(headers) LIKE '%link: <%'"
        )),
        1,
        "the fetch segment records the Link header"
    );

    let row = |path: &str, kind: &str, hreflang: &str| {
        vec![format!("{MULTI}{path}"), kind.to_string(), hreflang.into()]
    };
    let mut expected = vec![
        row("about.html", "a", ""),
        row("en/", "header-alternate", "eng"),
        row("home.html", "canonical", ""),
        row("intl/", "alternate", "x-default"),
        row("ja/", "alternate", "jpn"),
        row("ko/", "a", "kor"),
        row("th/", "alternate", "tha"),
    ];
    expected.sort();
    assert_eq!(
        crawl.rows(&format!(
            "SELECT dst_url, kind, coalesce(hreflang, '') FROM links WHERE src_url = '{MULTI}' ORDER BY 1"
        )),
        expected,
        "one row per link, icon and stylesheet excluded"
    );
}
