//! Golden tests of Kumar & Vig's `ontology` strategy on the paper's own
//! tables: OBRS over Table 1's terms (contexts with headings, Hindi phrases
//! transcribed), LARS over Table 3's rules chained, a page that links one
//! URL with two texts; and their experiment replayed on the university web.

use crate::simulation::{csv_rows, outcomes};
use crate::strategy_fixture::{decide, fetched, link, selection, verdict, Link};
use crate::util::{langcrawl, succeeded, university_web};
use langcrawl::store::StrategyParams;

fn ontology(min_ont_rel: f64, min_la_rel: f64) -> StrategyParams {
    StrategyParams {
        min_ont_rel,
        min_la_rel,
        ..StrategyParams::default()
    }
}

/// Kumar & Vig, Table 1: OBRS = Σ count(term in context) × importance.
#[tokio::test]
async fn obrs_sums_the_importance_of_table_1_terms() {
    let src = "http://dept.example.edu/";
    let cases = [
        // comp sc and engg 1.0 + comp sc 0.8 + information tech 0.5
        // + computer 0.4 + engineering 0.3 (terms counted as they occur)
        (
            "http://dept.example.edu/cse.html",
            "Department of Computer Science and Engineering: Comp. Sc. And Engg. courses, Information Tech. labs",
            3.0,
        ),
        ("http://dept.example.edu/ce.html", "Comp. Engg. and Computer Engineering", 1.6),
        ("http://dept.example.edu/it.html", "Information Tech. Information Tech.", 1.0),
        ("http://dept.example.edu/news.html", "campus news", 0.0),
    ];
    let links: Vec<Link> = cases
        .iter()
        .map(|&(dst, context, _)| Link {
            src,
            dst,
            anchor: "link",
            context,
            heading: "",
        })
        .collect();
    let selection = selection("ontology", "en", ontology(0.9, 1.0));
    let decisions = decide(&selection, &[fetched(src, true)], &links, &[]).await;
    for (url, _, obrs) in cases {
        let d = verdict(&decisions, url);
        assert!(
            (d.priority - obrs).abs() < 1e-9,
            "{url}: OBRS {} not {obrs}",
            d.priority
        );
        let expected = if obrs > 0.9 {
            "ontology-relevance"
        } else {
            "below-threshold"
        };
        assert_eq!(
            (d.accepted, d.reason.as_str()),
            (obrs > 0.9, expected),
            "{url}"
        );
    }
}

/// Kumar & Vig, Table 3: a link with no relevant context is still followed
/// when the rule from its page's class to the class sought (CSE, the class
/// of the most important term) is likely enough.
#[tokio::test]
async fn lars_follows_the_class_rules_of_table_3() {
    let it_page = "http://it.example.edu/";
    let engg_page = "http://engg.example.edu/";
    let comp_page = "http://comp.example.edu/";
    let pages = [
        fetched(it_page, true),
        fetched(engg_page, true),
        fetched(comp_page, true),
    ];
    let links = [
        link(it_page, "http://it.example.edu/contact.html", "contact"),
        link(engg_page, "http://engg.example.edu/contact.html", "contact"),
        link(comp_page, "http://comp.example.edu/contact.html", "contact"),
    ];
    let texts = [
        (it_page, "Department of Information Tech."),
        (engg_page, "Faculty of Engineering"),
        (comp_page, "Computer centre"),
    ];
    // IT → CSE 0.2, ENGG → CSE 0.3, COMP → CSE: no rule.
    for (min_la_rel, it, engg) in [(0.1, true, true), (0.25, false, true), (0.3, false, false)] {
        let selection = selection("ontology", "en", ontology(5.0, min_la_rel));
        let decisions = decide(&selection, &pages, &links, &texts).await;
        let it_link = verdict(&decisions, "http://it.example.edu/contact.html");
        let engg_link = verdict(&decisions, "http://engg.example.edu/contact.html");
        let comp_link = verdict(&decisions, "http://comp.example.edu/contact.html");
        assert_eq!(it_link.accepted, it, "IT → CSE (0.2) > {min_la_rel}");
        assert_eq!(engg_link.accepted, engg, "ENGG → CSE (0.3) > {min_la_rel}");
        assert!(!comp_link.accepted, "no COMP → CSE rule");
        if it {
            assert_eq!(it_link.reason, "look-ahead");
        }
    }
}

/// Kumar & Vig's transcriptor: a Hindi context scores nothing on an English
/// ontology until the bilingual dictionary transcribes it.
#[tokio::test]
async fn a_hindi_context_transcribed_through_the_dictionary_is_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty.csv");
    std::fs::write(&empty, "source_term,target_term\n").unwrap();
    let small = tmp.path().join("hindi.csv");
    std::fs::write(
        &small,
        "source_term,target_term\nकंप्यूटर,computer\nइंजीनियरिंग,engineering\n",
    )
    .unwrap();
    let src = "http://mixed.example.in/";
    let dst = "http://mixed.example.in/cse.html";
    let links = [Link {
        src,
        dst,
        anchor: "विभाग",
        context: "हमारा कंप्यूटर इंजीनियरिंग विभाग",
        heading: "",
    }];
    let mut outcome = Vec::new();
    for dictionary in [empty, small] {
        let params = StrategyParams {
            dictionary: Some(dictionary),
            ..ontology(0.5, 1.0)
        };
        let decisions = decide(
            &selection("ontology", "hi", params),
            &[fetched(src, true)],
            &links,
            &[],
        )
        .await;
        let d = verdict(&decisions, dst).clone();
        outcome.push((d.accepted, d.reason, d.priority));
    }
    assert_eq!(outcome[0], (false, "below-threshold".to_string(), 0.0));
    // computer 0.4 + engineering 0.3
    assert!(
        outcome[1].0 && outcome[1].1 == "ontology-relevance",
        "{outcome:?}"
    );
    assert!((outcome[1].2 - 0.7).abs() < 1e-9, "{outcome:?}");
}

fn context(dst: &'static str, context: &'static str, heading: &'static str) -> Link {
    Link {
        src: "http://mixed.example.in/",
        dst,
        anchor: "link",
        context,
        heading,
    }
}

/// OBRS over Table 1 with the paper's context: the text around the link
/// and the heading it appears under. The Hindi phrase "कंप्यूटर विज्ञान और
/// अभियांत्रिकी" (noise words और and के dropped) becomes "Comp. Sc. and
/// Engg." once, though the dictionary spells it with and without और; a
/// two-word phrase wins over its words (longest match first); English
/// parts are left as written; without the dictionary only the English
/// heading scores. A heading the window around the link already holds (a
/// heading just above its link, as on most real pages) is counted once.
#[tokio::test]
async fn obrs_of_a_heading_and_a_transcribed_hindi_phrase() {
    let src = "http://mixed.example.in/";
    let links = [
        // comp sc and engg 1.0 + comp sc 0.8 (context) + comp engg 0.9 (heading)
        context(
            "http://mixed.example.in/cse.html",
            "हमारे कंप्यूटर विज्ञान और अभियांत्रिकी विभाग के पाठ्यक्रम",
            "Comp. Engg. Programmes",
        ),
        // comp engg 0.9, not computer 0.4 + engineering 0.3
        context("http://mixed.example.in/ce.html", "कंप्यूटर अभियांत्रिकी", ""),
        // English: Information Tech. 0.5, the Devanagari word left alone
        context(
            "http://mixed.example.in/it.html",
            "Information Tech. प्रयोगशाला",
            "",
        ),
        // a heading just above its link is in the window too: counted once
        context(
            "http://mixed.example.in/programmes.html",
            "Comp. Engg. Programmes Admissions are open",
            "Comp. Engg. Programmes",
        ),
    ];
    let mut scores = Vec::new();
    for strategy in ["ontology", "ontology-monolingual"] {
        let decisions = decide(
            &selection(strategy, "hi", ontology(2.0, 1.0)),
            &[fetched(src, true)],
            &links,
            &[],
        )
        .await;
        let obrs: Vec<(f64, bool)> = links
            .iter()
            .map(|l| verdict(&decisions, l.dst))
            .map(|d| ((d.priority * 1e6).round() / 1e6, d.accepted))
            .collect();
        scores.push(obrs);
    }
    assert_eq!(
        scores[0],
        [(2.7, true), (0.9, false), (0.5, false), (0.9, false)],
        "with the dictionary"
    );
    assert_eq!(
        scores[1],
        [(0.9, false), (0.0, false), (0.5, false), (0.9, false)],
        "without it"
    );
}

/// Table 3 chained once: no rule leads from CSE to CSE, but CSE → IT (0.8)
/// and IT → CSE (0.2) do, so at depth 2 a CSE page's links look ahead with
/// 0.16; IT keeps its direct 0.2 (more than IT → ENGG → CSE, 0.12); COMP
/// never reaches CSE.
#[tokio::test]
async fn lars_chains_table_3_one_transitive_step() {
    let pages = [
        (
            "http://cse.example.edu/",
            "Department of Comp. Sc. And Engg.",
        ),
        ("http://it.example.edu/", "Department of Information Tech."),
        ("http://comp.example.edu/", "Computer centre"),
    ];
    let links: Vec<Link> = [
        (
            "http://cse.example.edu/",
            "http://cse.example.edu/contact.html",
        ),
        (
            "http://it.example.edu/",
            "http://it.example.edu/contact.html",
        ),
        (
            "http://comp.example.edu/",
            "http://comp.example.edu/contact.html",
        ),
    ]
    .into_iter()
    .map(|(src, dst)| link(src, dst, "contact"))
    .collect();
    let fetched_pages: Vec<_> = pages.iter().map(|(url, _)| fetched(*url, true)).collect();
    let mut followed = Vec::new();
    for (rule_depth, min_la_rel) in [(1, 0.15), (2, 0.15), (2, 0.17), (2, 0.19), (2, 0.21)] {
        let params = StrategyParams {
            rule_depth,
            ..ontology(5.0, min_la_rel)
        };
        let decisions = decide(
            &selection("ontology", "en", params),
            &fetched_pages,
            &links,
            &pages,
        )
        .await;
        let accepted: Vec<bool> = links
            .iter()
            .map(|l| verdict(&decisions, l.dst).accepted)
            .collect();
        followed.push((rule_depth, min_la_rel, accepted));
    }
    let expected = [
        (1, 0.15, vec![false, true, false]),
        (2, 0.15, vec![true, true, false]),
        (2, 0.17, vec![false, true, false]),
        (2, 0.19, vec![false, true, false]),
        (2, 0.21, vec![false, false, false]),
    ];
    assert_eq!(followed, expected);
}

/// A page that links one URL twice has two contexts, scored apart (the
/// link's OBRS is the better one): were the words of both merged in page
/// order, "comp" and "sc" would no longer be next to each other.
#[tokio::test]
async fn a_url_linked_twice_keeps_two_contexts() {
    let src = "http://dept.example.edu/";
    let dst = "http://dept.example.edu/cse.html";
    let links = [
        Link {
            src,
            dst,
            anchor: "Comp. Sc.",
            context: "Comp. Sc. notes",
            heading: "",
        },
        Link {
            src,
            dst,
            anchor: "Engineering",
            context: "Engineering news",
            heading: "",
        },
    ];
    let decisions = decide(
        &selection("ontology", "en", ontology(0.5, 1.0)),
        &[fetched(src, true)],
        &links,
        &[],
    )
    .await;
    let rows: Vec<_> = decisions.iter().filter(|d| d.url == dst).collect();
    assert_eq!(rows.len(), 1, "one decision per link: {decisions:#?}");
    assert!((rows[0].priority - 0.8).abs() < 1e-9, "{rows:#?}");
    assert_eq!(rows[0].reason, "ontology-relevance");
}

/// Kumar & Vig's Fig. 3 on their test web (1,000 pages, a fifth mixed
/// Hindi–English, some CSE pages linked only from mixed pages), with the
/// default thresholds: the baseline focused crawler (hard-focused on class
/// CSE) finds fewer CSE pages than the ontology crawler without the
/// dictionary, which finds fewer than the one with it — at a lower harvest
/// rate each; the report draws the three.
#[test]
fn the_multilingual_crawler_tunnels_through_mixed_pages() {
    let tmp = tempfile::tempdir().unwrap();
    let web = tmp.path().join("web");
    let web_arg = web.to_str().unwrap();
    university_web(&web, 1000);
    let sim = tmp.path().join("sim");
    let sim_arg = sim.to_str().unwrap();
    let strategies = "hard-focused,ontology-monolingual,ontology";
    let args = [
        "simulate",
        "--web",
        web_arg,
        "--strategy",
        strategies,
        "--round-size",
        "50",
        "-o",
        sim_arg,
    ];
    succeeded(langcrawl(&args), &args);
    let found = |strategy: &str| {
        let rows = csv_rows(&sim.join("metrics.csv"));
        let last = rows
            .iter()
            .rev()
            .find(|r| r["strategy"] == strategy)
            .unwrap();
        last["target_fetched"].parse::<u32>().unwrap()
    };
    let outcome = outcomes(&sim);
    let (baseline, mono, multi) = (
        outcome["hard-focused"],
        outcome["ontology-monolingual"],
        outcome["ontology"],
    );
    let counts = [
        found("hard-focused"),
        found("ontology-monolingual"),
        found("ontology"),
    ];
    assert!(
        counts[0] < counts[1] && counts[1] < counts[2],
        "CSE pages found: {counts:?}"
    );
    assert!(
        baseline.harvest < mono.harvest && mono.harvest < multi.harvest,
        "harvest rates: {baseline:?} {mono:?} {multi:?}"
    );
    assert!(
        multi.coverage > 0.95 && mono.coverage < 0.8,
        "{mono:?} {multi:?}"
    );
    let html = tmp.path().join("report.html");
    let args = [
        "report",
        "--crawl",
        sim_arg,
        "--html",
        html.to_str().unwrap(),
    ];
    succeeded(langcrawl(&args), &args);
    let html = std::fs::read_to_string(html).unwrap();
    for strategy in ["hard-focused", "ontology-monolingual", "ontology"] {
        assert!(html.contains(strategy), "{strategy} not in the report");
    }
}
