//! The calibrated synthetic web, replay with `simulate`, and the HTML
//! report: statistics near Tamura's measurements, a live crawl and its
//! replay fetching the same URLs, and the paper's qualitative findings.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use langcrawl::webgraph::WebDir;
use langcrawl::websim::graph_site::GraphSite;
use langcrawl::websim::spawn_background;

use crate::util::{csv_fields, langcrawl, sql_rows, succeeded, Crawl};

fn generate(dir: &Path, lang: &str, pages: u32, seed: u32) {
    let (pages, seed) = (pages.to_string(), seed.to_string());
    let args = [
        "websim",
        "generate",
        "--lang",
        lang,
        "--pages",
        &pages,
        "--seed",
        &seed,
        "-o",
        dir.to_str().unwrap(),
    ];
    succeeded(langcrawl(&args), &args);
}

/// The statistics `websim generate` measured on a 20k Thai web of `seed`,
/// in its order (two are named "of them inter-server").
fn generated_stats(dir: &Path, seed: u32) -> Vec<langcrawl::webgraph::Statistic> {
    let web = dir.join(format!("web-{seed}"));
    generate(&web, "th", 20_000, seed);
    let info = WebDir::open(&web).unwrap().info().unwrap();
    assert_eq!(info.seeds.len(), 3);
    info.stats
}

/// The achieved value of the statistic `name`.
fn achieved(stats: &[langcrawl::webgraph::Statistic], name: &str) -> f64 {
    stats
        .iter()
        .find(|s| s.name.trim() == name)
        .unwrap()
        .achieved
}

#[test]
fn a_generated_web_is_near_tamuras_measurements() {
    // A 20k web has about 37 target servers, so one web's shares stray
    // from the aims by a few points (the target pages off the ccTLDs by
    // up to 5 over seeds 1-6): the mean of four webs is held to the aims,
    // each web to twice that.
    let tmp = tempfile::tempdir().unwrap();
    let webs: Vec<_> = (1..=4)
        .map(|seed| generated_stats(tmp.path(), seed))
        .collect();
    let mut checked = 0;
    for (i, stat) in webs[0].iter().enumerate() {
        let Some(aim) = stat.target.filter(|_| stat.unit == "%") else {
            continue;
        };
        let name = &stat.name;
        // A few points for the shares; the rare links (0.2%) to a tenth of a point.
        let tolerance = if aim < 0.01 { 0.002 } else { 0.03 };
        let achieved: Vec<f64> = webs.iter().map(|w| w[i].achieved).collect();
        let mean = achieved.iter().sum::<f64>() / achieved.len() as f64;
        assert!(
            (mean - aim).abs() <= tolerance,
            "{name}: {mean:.4} on average against {aim} ({achieved:.4?})"
        );
        for a in &achieved {
            assert!(
                (a - aim).abs() <= 2.0 * tolerance,
                "{name}: {a:.4} against {aim} ({achieved:.4?})"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 9, "{:?}", webs[0]);
    for stats in &webs {
        let one_hop = achieved(stats, "target pages 1 hop from the nearest other");
        assert!((0.85..1.0).contains(&one_hop), "mostly 1 hop: {one_hop}");
    }
    // about seven sites behind English chains a web, each chain's length
    // drawn: the longest of four webs is Tamura's farthest
    let farthest: Vec<f64> = webs
        .iter()
        .map(|w| achieved(w, "farthest nearest target page"))
        .collect();
    let longest = farthest.iter().copied().fold(0.0, f64::max);
    assert!(
        (6.0..=12.0).contains(&longest),
        "up to about 10 hops: {farthest:?}"
    );
}

/// The fetched URLs of a crawl directory.
fn fetched_urls(crawl: &Path) -> BTreeSet<String> {
    let query = "SELECT url FROM crawldb WHERE fetched_round IS NOT NULL";
    sql_rows(crawl, query).into_iter().flatten().collect()
}

#[test]
fn a_live_crawl_and_its_replay_fetch_the_same_urls() {
    let tmp = tempfile::tempdir().unwrap();
    let web = tmp.path().join("web");
    generate(&web, "th", 3_000, 5);
    let site = GraphSite::load(&WebDir::open(&web).unwrap()).unwrap();
    let seeds = site.info().seeds.clone();
    let live = Crawl::on(spawn_background(site, 0).unwrap());
    let seeds_file = live.seeds_file(&seeds);
    live.ok(&[
        "crawl",
        "--seeds",
        seeds_file.to_str().unwrap(),
        "--lang",
        "th",
        "--strategy",
        "server-conservative",
        "--rounds",
        "6",
        "--top-n",
        "100",
    ]);
    let out = tmp.path().join("sim");
    let args = [
        "simulate",
        "--web",
        web.to_str().unwrap(),
        "--strategy",
        "server-conservative",
        "--round-size",
        "100",
        "--rounds",
        "6",
        "-o",
        out.to_str().unwrap(),
    ];
    let started = std::time::Instant::now();
    succeeded(langcrawl(&args), &args);
    let elapsed = started.elapsed().as_secs_f64();
    let live_urls = fetched_urls(&live.dir());
    let replayed = fetched_urls(&out.join("server-conservative"));
    assert!(live_urls.len() > 300, "{} URLs fetched", live_urls.len());
    let only_live: Vec<_> = live_urls.difference(&replayed).take(5).collect();
    let only_replay: Vec<_> = replayed.difference(&live_urls).take(5).collect();
    assert!(
        only_live.is_empty() && only_replay.is_empty(),
        "live only: {only_live:?}; replay only: {only_replay:?}"
    );
    // round_times.csv: a row per replayed round, with its fetch list's
    // URLs and the seconds of each phase
    let times = csv_rows(&out.join("round_times.csv"));
    let lists = sql_rows(
        &out.join("server-conservative"),
        "SELECT round, count(*) FROM fetchlist GROUP BY round ORDER BY round",
    );
    assert_eq!(times.len(), 6, "{times:?}");
    assert_eq!(lists.len(), 6, "{lists:?}");
    for (row, list) in times.iter().zip(&lists) {
        assert_eq!(row["strategy"], "server-conservative");
        assert_eq!([&row["round"], &row["urls"]], [&list[0], &list[1]]);
        let seconds: Vec<f64> = ["generate_s", "look_up_s", "updatedb_s"]
            .iter()
            .map(|phase| row[*phase].parse().unwrap())
            .collect();
        assert!(seconds.iter().all(|&s| s > 0.0), "{row:?}");
        assert!(seconds.iter().sum::<f64>() < elapsed, "{row:?}");
    }
    // query_times.csv: within each round's phase, each SQL file's seconds,
    // which together take no longer than the phase did
    let queries = csv_rows(&out.join("query_times.csv"));
    let spent = |round: &str, phase: &str| -> f64 {
        let rows = queries
            .iter()
            .filter(|q| q["round"] == round && q["phase"] == phase);
        let stages = ["plan_s", "start_s", "run_s"];
        rows.flat_map(|q| stages.map(|c| q[c].parse::<f64>().unwrap()))
            .sum()
    };
    for row in &times {
        let round = &row["round"];
        for (phase, column) in [("generate", "generate_s"), ("updatedb", "updatedb_s")] {
            let took: f64 = row[column].parse().unwrap();
            let queries_took = spent(round, phase);
            assert!(
                queries_took > 0.0 && queries_took <= took,
                "round {round} {phase}: queries {queries_took} s of {took} s"
            );
        }
        let merged = queries.iter().find(|q| {
            &q["round"] == round
                && q["phase"] == "updatedb"
                && q["query"] == "steps/merge_crawldb.sql"
        });
        let merged = merged.unwrap_or_else(|| panic!("round {round}: no merge in {queries:?}"));
        assert_eq!(merged["runs"], "1", "{merged:?}");
    }
}

/// A simulation's CSV table as rows of named fields.
pub(crate) fn csv_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = csv_fields(lines.next().unwrap());
    lines
        .map(|line| header.iter().cloned().zip(csv_fields(line)).collect())
        .collect()
}

/// Per strategy: final harvest rate, final coverage, pages fetched when
/// coverage first reached 90%, and the share of reachable target pages missed.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Outcome {
    pub harvest: f64,
    pub coverage: f64,
    pub pages_to_90: f64,
    pub missed: f64,
}

pub(crate) fn outcomes(sim: &Path) -> BTreeMap<String, Outcome> {
    let number = |row: &BTreeMap<String, String>, key: &str| row[key].parse::<f64>().unwrap();
    let mut all: BTreeMap<String, Outcome> = BTreeMap::new();
    for row in csv_rows(&sim.join("metrics.csv")) {
        let o = all.entry(row["strategy"].clone()).or_default();
        o.harvest = number(&row, "harvest_rate");
        o.coverage = number(&row, "coverage");
        if o.pages_to_90 == 0.0 && o.coverage >= 0.9 {
            o.pages_to_90 = number(&row, "pages_fetched");
        }
    }
    let mut reachable: BTreeMap<String, f64> = BTreeMap::new();
    for row in csv_rows(&sim.join("miss_by_distance.csv")) {
        *reachable.entry(row["strategy"].clone()).or_default() += number(&row, "target_pages");
        all.get_mut(&row["strategy"]).unwrap().missed += number(&row, "missed");
    }
    for (strategy, o) in &mut all {
        o.missed /= reachable[strategy];
    }
    all
}

const STRATEGIES: [&str; 6] = [
    "bfs",
    "soft-focused",
    "hard-focused",
    "server-aggressive",
    "server-conservative",
    "perfect",
];

/// Tamura §5: server-based filtering ends with a higher harvest rate than
/// soft-focused at the same coverage; hard-focused misses more target pages
/// than server-based filtering; perfect is above all; BFS is lowest. Then
/// the HTML report draws one line per strategy in each figure.
#[test]
fn a_simulation_shows_the_papers_findings_and_reports_them() {
    let tmp = tempfile::tempdir().unwrap();
    let web = tmp.path().join("web");
    generate(&web, "th", 20_000, 2);
    let sim = tmp.path().join("sim");
    let strategies = STRATEGIES.join(",");
    let args = [
        "simulate",
        "--web",
        web.to_str().unwrap(),
        "--strategy",
        &strategies,
        "--round-size",
        "1500",
        "-o",
        sim.to_str().unwrap(),
    ];
    let table = succeeded(langcrawl(&args), &args);
    let o = outcomes(&sim);
    let summary = format!("{o:#?}\n{table}");
    for server in ["server-aggressive", "server-conservative"] {
        assert!(
            o[server].coverage >= o["soft-focused"].coverage - 0.02,
            "{summary}"
        );
        assert!(
            o[server].harvest > o["soft-focused"].harvest,
            "{server}: {summary}"
        );
        assert!(
            o["hard-focused"].missed > o[server].missed,
            "{server}: {summary}"
        );
    }
    for other in STRATEGIES.iter().filter(|&&s| s != "perfect") {
        assert!(
            o["perfect"].harvest > o[*other].harvest,
            "{other}: {summary}"
        );
        if *other != "bfs" {
            assert!(
                o["bfs"].pages_to_90 > o[*other].pages_to_90,
                "{other}: {summary}"
            );
            assert!(o["bfs"].harvest <= o[*other].harvest, "{other}: {summary}");
        }
    }

    let html = tmp.path().join("report.html");
    let args = [
        "report",
        "--crawl",
        sim.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ];
    succeeded(langcrawl(&args), &args);
    let page = std::fs::read_to_string(&html).unwrap();
    let figures: Vec<&str> = page.split("<svg").skip(1).collect();
    assert_eq!(figures.len(), 4, "harvest, coverage, queue, servers");
    for figure in figures {
        let figure = &figure[..figure.find("</svg>").unwrap()];
        for strategy in STRATEGIES {
            let label = format!(">\n{strategy}\n</text>");
            assert!(figure.contains(&label), "{strategy} in a legend");
        }
        // One line per strategy (2 px wide), and one legend sample each.
        let lines = figure
            .split("<polyline")
            .filter(|p| p[..p.find('>').unwrap()].contains("stroke-width=\"2\""))
            .count();
        assert_eq!(lines, 2 * STRATEGIES.len());
    }
    assert!(page.contains("Final table"));
    for strategy in STRATEGIES {
        assert!(page.contains(&format!("Pages per language: {strategy} (target tha)")));
    }
}

/// Tamura's method: a bfs crawl exported as a web graph and replayed with
/// bfs, the same seeds and round sizes, fetches the same URLs and sees the
/// same page texts and link texts (what `ontology` scores).
#[test]
fn an_exported_crawl_replays_to_the_same_fetches() {
    let crawl = Crawl::new();
    let seeds = crawl.japanese_seeds();
    crawl.ok(&[
        "crawl",
        "--seeds",
        seeds.to_str().unwrap(),
        "--lang",
        "ja",
        "--rounds",
        "3",
        "--top-n",
        "150",
    ]);
    let web = crawl.tmp.path().join("web");
    let out = crawl.ok(&["graph", "export", "-o", web.to_str().unwrap()]);
    assert!(out.contains("graph export:"), "{out}");
    let info = WebDir::open(&web).unwrap().info().unwrap();
    assert_eq!(info.target_lang, "jpn");
    assert_eq!(info.seeds.len(), 8, "the injected seeds");
    let sim = crawl.tmp.path().join("sim");
    let args = [
        "simulate",
        "--web",
        web.to_str().unwrap(),
        "--strategy",
        "bfs",
        "--round-size",
        "150",
        "--rounds",
        "3",
        "-o",
        sim.to_str().unwrap(),
    ];
    succeeded(langcrawl(&args), &args);
    assert_eq!(fetched_urls(&crawl.dir()), fetched_urls(&sim.join("bfs")));
    let statuses = "SELECT status, count(*) FROM crawldb GROUP BY status ORDER BY status";
    assert_eq!(
        sql_rows(&crawl.dir(), statuses),
        sql_rows(&sim.join("bfs"), statuses)
    );
    // what `ontology` reads: each page's text, and every text of its links
    let sorted = |dir: &Path, query: &str| {
        let mut rows = sql_rows(dir, query);
        rows.sort();
        rows
    };
    for query in [
        "SELECT url, md5(text) FROM parse",
        "SELECT DISTINCT src_url, dst_url, anchor, context, heading FROM links WHERE kind <> 'redirect'",
    ] {
        let live = sorted(&crawl.dir(), query);
        assert!(live.len() > 100, "{query}: {} rows", live.len());
        assert_eq!(live, sorted(&sim.join("bfs"), query), "{query}");
    }
}
