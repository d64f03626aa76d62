//! `adaptive` as a frontier, not a filter, on a web imported with `graph
//! import` from webgen's tab-separated form: every Thai page sits behind
//! three English pages no Thai page links to, among English dead ends, so
//! any rule that discards links on the way loses them. The crawl still
//! covers them all; its rounds spend the exploration share; it re-scores
//! queued URLs; and `--min-yield` stops it by itself, with the reason in
//! crawl.json.

use std::fmt::Write;
use std::path::Path;

use crate::simulation::csv_rows;
use crate::util::{langcrawl, sql_rows, succeeded};

/// Thai servers, each behind a chain of three English pages.
const TUNNELS: usize = 12;
/// English dead ends each English page links to.
const NOISE: usize = 4;
const THAI: &str = "ภาษาไทยเป็นภาษาราชการของประเทศไทย";

/// Writes the web in webgen's form into `dir`; returns its Thai pages.
fn tunnel_web(dir: &Path) -> usize {
    std::fs::create_dir_all(dir).unwrap();
    let mut truth = String::from("url\thost\ttrue_lang\tstatus\trobots_allowed\tlocation\n");
    let mut links = String::from("src\tdst\tanchor\tkind\n");
    let mut page = |url: &str, lang: &str| {
        let host = url.split('/').nth(2).unwrap();
        writeln!(truth, "{url}\t{host}\t{lang}\t200\t1\t").unwrap();
    };
    let mut thai = 0;
    page("http://hub.com/", "eng");
    for t in 0..TUNNELS {
        let chain: Vec<String> = ["", "a.html", "b.html"]
            .iter()
            .map(|p| format!("http://e{t}.com/{p}"))
            .collect();
        writeln!(links, "http://hub.com/\t{}\tsite {t}\ta", chain[0]).unwrap();
        for (i, url) in chain.iter().enumerate() {
            page(url, "eng");
            let next = chain
                .get(i + 1)
                .cloned()
                .unwrap_or(format!("http://t{t}.co.th/"));
            writeln!(links, "{url}\t{next}\tmore\ta").unwrap();
            for n in 0..NOISE {
                let noise = format!("http://n{t}x{i}x{n}.com/");
                page(&noise, "eng");
                writeln!(links, "{url}\t{noise}\tnews\ta").unwrap();
            }
        }
        for p in 0..4 {
            let url = format!(
                "http://t{t}.co.th/{}",
                if p == 0 {
                    String::new()
                } else {
                    format!("{p}.html")
                }
            );
            page(&url, "tha");
            thai += 1;
            let next = format!("http://t{t}.co.th/{}.html", (p + 1) % 4);
            writeln!(links, "{url}\t{next}\t{THAI}\ta").unwrap();
        }
    }
    std::fs::write(dir.join("truth.tsv"), truth).unwrap();
    std::fs::write(dir.join("links.tsv"), links).unwrap();
    std::fs::write(dir.join("seeds.txt"), "http://hub.com/\n").unwrap();
    std::fs::write(dir.join("stats.json"), r#"{"target_lang": "tha"}"#).unwrap();
    thai
}

/// Imports the tunnel web and replays `strategies` over it with `flags`.
fn replay(tmp: &Path, strategies: &str, flags: &[&str]) -> (std::path::PathBuf, usize) {
    let thai = tunnel_web(&tmp.join("tsv"));
    let (tsv, web, out) = (tmp.join("tsv"), tmp.join("web"), tmp.join("sim"));
    let import = [
        "graph",
        "import",
        "--from",
        tsv.to_str().unwrap(),
        "-o",
        web.to_str().unwrap(),
    ];
    let said = succeeded(langcrawl(&import), &import);
    let pages = format!("{} pages", said_pages(&tsv));
    assert!(said.contains(&pages), "{said}");
    let mut args = vec![
        "simulate",
        "--web",
        web.to_str().unwrap(),
        "--strategy",
        strategies,
        "--round-size",
        "20",
        "-o",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(flags);
    succeeded(langcrawl(&args), &args);
    (out, thai)
}

/// The pages truth.tsv lists (its lines less the header), as text.
fn said_pages(tsv: &Path) -> String {
    let lines = std::fs::read_to_string(tsv.join("truth.tsv"))
        .unwrap()
        .lines()
        .count();
    (lines - 1).to_string()
}

fn number(crawl: &Path, query: &str) -> i64 {
    sql_rows(crawl, query)[0][0].parse().unwrap()
}

#[test]
fn target_pages_behind_three_foreign_pages_are_all_covered_exploring_and_rescoring() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, thai) = replay(tmp.path(), "adaptive", &["--explore-share", "0.1"]);
    let crawl = out.join("adaptive");
    let found = number(
        &crawl,
        "SELECT count(*) FROM crawldb WHERE status = 'fetched' AND relevant",
    );
    assert_eq!(found as usize, thai);
    // The exploration share: 10% of every full round of 20 went to explore
    // (the first rounds are smaller: at most the pages fetched so far).
    let rounds = sql_rows(
        &crawl,
        "SELECT round, count(*), sum(CASE WHEN pick = 'explore' THEN 1 ELSE 0 END) \
         FROM fetchlist GROUP BY round ORDER BY round",
    );
    let full: Vec<&Vec<String>> = rounds.iter().filter(|r| r[1] == "20").collect();
    assert!(full.len() >= 3, "{rounds:?}");
    assert!(full.iter().all(|r| r[2] == "2"), "{rounds:?}");
    // Queued URLs are re-scored: some found early were ranked anew later.
    let changed = number(
        &crawl,
        "SELECT count(*) FROM crawldb c \
         JOIN decisions d ON d.url = c.url AND d.round = c.discovered_round AND d.accepted \
         WHERE c.fetched_round > c.discovered_round + 1 AND abs(c.priority - d.priority) > 1e-9",
    );
    assert!(changed > 0, "no queued URL was re-scored");
    rounds_hold_the_likeliest_urls(&crawl);
}

/// A round above its floor (10 URLs, or the default --round-floor of the
/// pages fetched) holds, of the URLs it ranks, only those at least half as
/// likely as its best, or those before which its priorities sum to less
/// than five target pages; and some round was cut below the size it was
/// allowed.
fn rounds_hold_the_likeliest_urls(crawl: &Path) {
    let rounds = round_sizes(crawl);
    let last = rounds.last().unwrap()[0];
    let mut cut = 0;
    for &[round, size, fetched] in &rounds {
        // the default --round-floor, 0.02 of the pages fetched
        let floor = 10.max((fetched * 2 + 99) / 100);
        if size < 20.min(fetched) && round != last {
            cut += 1;
        }
        if size <= floor {
            continue;
        }
        let outside = number(
            crawl,
            &format!(
                "SELECT count(*) FROM (SELECT priority, max(priority) OVER () AS best, \
                        sum(priority) OVER (ORDER BY priority DESC, url \
                            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before \
                 FROM fetchlist WHERE round = {round} AND pick = 'rank') r \
                 WHERE r.priority < 0.5 * r.best AND coalesce(r.before, 0) >= 5"
            ),
        );
        assert_eq!(
            outside, 0,
            "round {round} of {size}: {outside} URLs below the cut"
        );
    }
    assert!(cut > 0, "no round was cut: {rounds:?}");
}

/// Each round's size and the pages fetched before it, rounds after the
/// first, in order.
fn round_sizes(crawl: &Path) -> Vec<[i64; 3]> {
    let mut rounds: Vec<[i64; 3]> = sql_rows(
        crawl,
        "WITH f AS (SELECT round, count(*) AS size FROM fetchlist GROUP BY round), \
              done AS (SELECT fetched_round AS round, count(*) AS pages FROM crawldb \
                       WHERE status = 'fetched' GROUP BY fetched_round) \
         SELECT f.round, f.size, coalesce(sum(d.pages), 0) \
         FROM f LEFT JOIN done d ON d.round < f.round \
         WHERE f.round > 1 GROUP BY f.round, f.size",
    )
    .iter()
    .map(|row| [0, 1, 2].map(|i| row[i].parse().unwrap()))
    .collect();
    rounds.sort();
    rounds
}

/// `--round-floor F`: a round holds at least F of the pages fetched so far
/// (within the round size and the slow start's pages fetched), so a larger
/// floor takes fewer rounds; a floor outside 0–1 is refused.
#[test]
fn a_round_holds_at_least_the_round_floor_of_the_pages_fetched() {
    let tmp = tempfile::tempdir().unwrap();
    let (half, _) = replay(
        &tmp.path().join("half"),
        "adaptive",
        &["--round-floor", "0.5"],
    );
    let (none, _) = replay(
        &tmp.path().join("none"),
        "adaptive",
        &["--round-floor", "0"],
    );
    // the URLs queued after each round (simulate's metrics.csv)
    let queued: std::collections::HashMap<i64, i64> = csv_rows(&half.join("metrics.csv"))
        .iter()
        .map(|row| {
            (
                row["round"].parse().unwrap(),
                row["queue_size"].parse().unwrap(),
            )
        })
        .collect();
    let half = round_sizes(&half.join("adaptive"));
    let none = round_sizes(&none.join("adaptive"));
    for &[round, size, fetched] in &half {
        let floor = 20.min(10.max((fetched + 1) / 2)).min(queued[&(round - 1)]);
        assert!(
            size >= floor,
            "round {round}: {size} URLs after {fetched} pages: {half:?}"
        );
    }
    assert!(
        half.len() < none.len(),
        "{} rounds against {}",
        half.len(),
        none.len()
    );
    let web = tmp.path().join("half/web");
    let out = tmp.path().join("refused");
    let out = langcrawl(&[
        "simulate",
        "--round-floor",
        "1.5",
        "--web",
        web.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("--round-floor: must be a share, 0 to 1"),
        "{said}"
    );
}

/// The first of the latest rounds up to `last` that hold `needed` fetch
/// requests together.
fn window_start(crawl: &Path, last: i64, needed: i64) -> i64 {
    let sizes: std::collections::HashMap<i64, i64> = sql_rows(
        crawl,
        "SELECT round, count(*) FROM fetchlist GROUP BY round",
    )
    .iter()
    .map(|row| (row[0].parse().unwrap(), row[1].parse().unwrap()))
    .collect();
    let mut held = 0;
    for round in (1..=last).rev() {
        held += sizes.get(&round).copied().unwrap_or(0);
        if held >= needed {
            return round;
        }
    }
    panic!("rounds 1-{last} hold {held} requests, fewer than {needed}")
}

#[test]
fn min_yield_stops_the_crawl_by_itself_and_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    let (out, _) = replay(tmp.path(), "adaptive", &["--min-yield", "0.3"]);
    let crawl = out.join("adaptive");
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(crawl.join("crawl.json")).unwrap()).unwrap();
    let stopped = &config["stopped"];
    let reason = stopped["reason"]
        .as_str()
        .unwrap_or_else(|| panic!("{config}"));
    assert!(reason.starts_with("min-yield"), "{reason}");
    // Independently: the latest rounds that hold 10 / 0.3 requests (34),
    // their target share, ranked and explored, below 0.3.
    let last = stopped["round"].as_i64().unwrap();
    let first = window_start(&crawl, last, 34);
    assert!(
        reason.contains(&format!("{first}-{last}'s"))
            || reason.contains(&format!("round {last}'s")),
        "{reason}, window {first}-{last}"
    );
    let shares = sql_rows(
        &crawl,
        &format!(
            "SELECT f.pick, CAST(sum(CASE WHEN c.relevant THEN 1 ELSE 0 END) AS DOUBLE) / count(*) \
             FROM fetchlist f JOIN crawldb c ON c.url = f.url \
             WHERE f.round >= {first} AND f.round <= {last} GROUP BY f.pick"
        ),
    );
    assert!(!shares.is_empty());
    for row in &shares {
        assert!(row[1].parse::<f64>().unwrap() < 0.3, "{shares:?}");
    }
    // ... and it stopped with URLs still queued.
    assert!(
        number(
            &crawl,
            "SELECT count(*) FROM crawldb WHERE status = 'unfetched'"
        ) > 0
    );
}

#[test]
fn max_pages_ends_the_crawl_at_exactly_that_many_requests() {
    let tmp = tempfile::tempdir().unwrap();
    // 57 is no multiple of the rounds' 20: the last round is cut to fit.
    let (out, _) = replay(tmp.path(), "bfs", &["--max-pages", "57"]);
    let crawl = out.join("bfs");
    assert_eq!(number(&crawl, "SELECT count(*) FROM fetchlist"), 57);
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(crawl.join("crawl.json")).unwrap()).unwrap();
    let reason = config["stopped"]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.starts_with("max-pages: 57 fetch requests"),
        "{config}"
    );
    let generate = ["generate", "--crawl", crawl.to_str().unwrap()];
    let output = langcrawl(&generate);
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{said}");
    assert!(said.contains("--max-pages 57 reached"), "{said}");
}
