//! Golden tests of the link-selection strategies on the papers' own
//! examples: the strategy SQL runs in-process over a handful of pages and
//! links, exactly as updatedb runs it over a round.

use crate::strategy_fixture::{
    decide, fetched, fixture, link, queued, selection, verdict, Decision, Page,
};
use langcrawl::store::StrategyParams;
use langcrawl::urls;

/// Chan & Yamana, Tables 2 and 3: the links of http://www.bsc.org.cn/ under
/// the rule "the destination's TLD is .cn, else the anchor is Chinese".
#[tokio::test]
async fn tld_anchor_decides_chan_and_yamana_table_3() {
    let src = "http://www.bsc.org.cn/";
    let links = [
        link(src, "http://www.cast.org.cn", "中国科学技术协会"),
        link(src, "http://www.ibp.ac.cn", "中国科学院生物物理研究所"),
        link(src, "http://www.iupab.org", "IUPAB"),
        link(src, "http://www.aba-bp.com", "Asian Biophysics Association"),
        link(src, "http://www.biophysics.org", "美国生物物理学会"),
        link(src, "http://www.protein-cell.org", "Protein and Cell"),
    ];
    let selection = selection("tld-anchor", "zh", StrategyParams::default());
    let decisions = decide(&selection, &[fetched(src, true)], &links, &[]).await;
    let expected = [
        ("http://www.cast.org.cn", true, "tld-match"),
        ("http://www.ibp.ac.cn", true, "tld-match"),
        ("http://www.iupab.org", false, "other-tld-and-anchor"),
        ("http://www.aba-bp.com", false, "other-tld-and-anchor"),
        // The paper's Table 3 marks this link "No", against its own stated
        // rule: the anchor 美国生物物理学会 is Chinese, so the rule follows it.
        ("http://www.biophysics.org", true, "anchor-lang"),
        ("http://www.protein-cell.org", false, "other-tld-and-anchor"),
    ];
    for (url, accepted, reason) in expected {
        let d = verdict(&decisions, url);
        assert_eq!((d.accepted, d.reason.as_str()), (accepted, reason), "{url}");
        assert_eq!(d.priority, 0.0, "no prioritization, as in the paper");
    }
}

/// `n` fetched irrelevant pages of `host` (and one relevant one if asked).
fn server_pages(host: &'static str, irrelevant: usize, relevant: bool) -> Vec<Page> {
    let mut pages: Vec<Page> = (0..irrelevant)
        .map(|k| fetched(format!("http://{host}/p{k}.html"), false))
        .collect();
    if relevant {
        pages.push(fetched(format!("http://{host}/ja.html"), true));
    }
    pages
}

/// Tamura §4.1 with T = 10: a server is undecided up to 10 irrelevant
/// pages, irrelevant from the 11th, relevant as soon as one page is.
#[tokio::test]
async fn server_states_follow_tamura_with_tolerance_10() {
    let selection = selection("server-aggressive", "th", StrategyParams::default());
    let probe = "http://probe.example/";
    for fetched_pages in [1, 5, 10, 11, 30] {
        let mut pages = server_pages("www.a.com", fetched_pages, false);
        pages.extend(server_pages("www.b.com", fetched_pages, true));
        pages.push(fetched(probe, false));
        let fixture = fixture(&selection, &pages, &[], &[]).await;
        let engine = &fixture.engine;
        let df = engine
            .query(
                "SELECT host, na, nr, state FROM servers ORDER BY host",
                &Default::default(),
            )
            .await
            .unwrap();
        let batches = engine.collect(df).await.unwrap();
        let table = langcrawl::report::format(&batches, langcrawl::report::Format::Csv).unwrap();
        let a_state = if fetched_pages <= 10 {
            "undecided"
        } else {
            "irrelevant"
        };
        for row in [
            format!("www.a.com,{fetched_pages},0,{a_state}"),
            format!("www.b.com,{},1,relevant", fetched_pages + 1),
        ] {
            assert!(table.lines().any(|l| l == row), "{row} in\n{table}");
        }
        let links = [
            link(probe, "http://www.a.com/next.html", "next"),
            link(probe, "http://www.b.com/next.html", "next"),
        ];
        let decisions = decide(&selection, &pages, &links, &[]).await;
        let a = verdict(&decisions, "http://www.a.com/next.html");
        let b = verdict(&decisions, "http://www.b.com/next.html");
        if fetched_pages <= 10 {
            assert!(
                a.accepted,
                "{fetched_pages} pages: undecided, followed: {a:?}"
            );
        } else {
            assert_eq!(
                (a.accepted, a.reason.as_str()),
                (false, "irrelevant-server"),
                "{fetched_pages} irrelevant pages with T = 10"
            );
        }
        assert!(
            b.accepted,
            "a server with a relevant page stays relevant: {b:?}"
        );
    }
}

/// Tamura §4.2: a page on a server without a relevant page may not open an
/// unvisited server, but may lead to a visited undecided one; a relevant
/// page may open new servers, with high priority.
#[tokio::test]
async fn the_conservative_rule_guards_unvisited_servers() {
    let undecided_page = "http://www.u.com/index.html";
    let relevant_page = "http://www.r.co.th/index.html";
    let mut pages = vec![fetched(undecided_page, false), fetched(relevant_page, true)];
    pages.extend(server_pages("www.v.com", 3, false));
    pages.extend(server_pages("www.i.com", 11, false));
    let links = [
        link(undecided_page, "http://www.new1.com/", "new"),
        link(undecided_page, "http://www.v.com/more.html", "more"),
        link(undecided_page, "http://www.i.com/more.html", "more"),
        link(relevant_page, "http://www.new2.com/", "new"),
    ];
    let conservative = decide(
        &selection("server-conservative", "th", StrategyParams::default()),
        &pages,
        &links,
        &[],
    )
    .await;
    let aggressive = decide(
        &selection("server-aggressive", "th", StrategyParams::default()),
        &pages,
        &links,
        &[],
    )
    .await;
    let expect = |decisions: &[Decision], url, accepted, reason: &str, priority| {
        let d = verdict(decisions, url);
        assert_eq!(
            (d.accepted, d.reason.as_str(), d.priority),
            (accepted, reason, priority),
            "{url}"
        );
    };
    expect(
        &conservative,
        "http://www.new1.com/",
        false,
        "unvisited-server-from-irrelevant",
        0.0,
    );
    expect(
        &aggressive,
        "http://www.new1.com/",
        true,
        "from-irrelevant-page",
        0.0,
    );
    for decisions in [&conservative, &aggressive] {
        expect(
            decisions,
            "http://www.v.com/more.html",
            true,
            "from-irrelevant-page",
            0.0,
        );
        expect(
            decisions,
            "http://www.i.com/more.html",
            false,
            "irrelevant-server",
            0.0,
        );
        expect(
            decisions,
            "http://www.new2.com/",
            true,
            "from-relevant-page",
            1.0,
        );
    }
}

/// Tamura §4.3: URLs map to top-level directories, and the conservative
/// rule holds per directory.
#[tokio::test]
async fn directories_map_and_the_conservative_rule_holds_per_directory() {
    for (url, dir) in [
        (
            "http://www.xsp.com/user1/whatsnew.html",
            "www.xsp.com/user1/",
        ),
        (
            "http://www.xsp.com/user2/diary/index.htm",
            "www.xsp.com/user2/",
        ),
        ("http://www.xsp.com/about.html", "www.xsp.com/"),
    ] {
        assert_eq!(urls::parts(&urls::normalize(url).unwrap()).dir, dir);
    }
    let user1 = "http://www.xsp.com/user1/whatsnew.html";
    let user3 = "http://www.xsp.com/user3/index.html";
    let pages = [fetched(user1, false), fetched(user3, true)];
    let links = [
        link(user1, "http://www.xsp.com/user2/diary/index.htm", "diary"),
        link(user3, "http://www.xsp.com/user4/index.html", "home"),
    ];
    let by_dir = decide(
        &selection("dir-conservative", "ja", StrategyParams::default()),
        &pages,
        &links,
        &[],
    )
    .await;
    let d = verdict(&by_dir, "http://www.xsp.com/user2/diary/index.htm");
    assert_eq!(
        (d.accepted, d.reason.as_str()),
        (false, "unvisited-dir-from-irrelevant")
    );
    assert!(verdict(&by_dir, "http://www.xsp.com/user4/index.html").accepted);
    // The same server is visited and relevant: per server, both are followed.
    let by_server = decide(
        &selection("server-conservative", "ja", StrategyParams::default()),
        &pages,
        &links,
        &[],
    )
    .await;
    assert!(by_server.iter().all(|d| d.accepted), "{by_server:#?}");
}

/// Tamura §4.1: URLs still queued for a server that turns irrelevant are
/// dropped from the queue, and the decision log says so.
#[tokio::test]
async fn queued_urls_of_a_server_turned_irrelevant_are_skipped() {
    let mut pages = server_pages("www.en.com", 11, false);
    pages.push(queued("http://www.en.com/waiting.html"));
    pages.push(queued("http://www.other.com/waiting.html"));
    let decisions = decide(
        &selection("server-aggressive", "ja", StrategyParams::default()),
        &pages,
        &[],
        &[],
    )
    .await;
    assert_eq!(decisions.len(), 1, "{decisions:#?}");
    let d = verdict(&decisions, "http://www.en.com/waiting.html");
    assert_eq!(
        (d.accepted, d.reason.as_str()),
        (false, "queued-on-irrelevant-server")
    );
    let bfs = decide(
        &selection("bfs", "ja", StrategyParams::default()),
        &pages,
        &[],
        &[],
    )
    .await;
    assert!(bfs.is_empty(), "bfs never prunes: {bfs:#?}");
}
