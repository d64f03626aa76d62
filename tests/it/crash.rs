//! Crash safety at every rename. Every commit the crate makes is a rename,
//! so a crash can only leave the states between two renames: each phase of
//! a round (an `adaptive` round, which writes every kind of segment and
//! replaces the hosts table) is aborted — as SIGKILL would, no cleanup —
//! just before and just after each of its renames
//! (`LANGCRAWL_CRASH_AT_RENAME`), then run again. The crawl must then equal
//! the uninterrupted one, table by table and in `crawl.json` (its log of
//! runs apart), with nothing left behind.

use std::collections::BTreeSet;
use std::path::Path;

use langcrawl::websim::{spawn_background, Web, WebSpec};

use crate::util::{command, copy_dir, small_spec, sql_rows, Crawl};

const PHASES: [&str; 4] = ["generate", "fetch", "parse", "updatedb"];

/// What a user reads of a crawl, without the times of day and durations
/// that differ from run to run.
const TABLES: [&str; 12] = [
    "SELECT url, status, depth, round(priority, 9), lang, relevant, discovered_round, fetched_round, fetches FROM crawldb ORDER BY url",
    "SELECT host, robots_status, robots_body, robots_error FROM hosts ORDER BY host",
    "SELECT round, url, priority FROM fetchlist ORDER BY round, url",
    "SELECT round, url, status, http_status, content_length FROM fetch ORDER BY round, url",
    "SELECT round, url, lang, digest, outlinks FROM parse ORDER BY round, url",
    "SELECT round, src_url, dst_url, kind, anchor FROM links ORDER BY round, src_url, dst_url, kind, anchor",
    "SELECT round, src_url, url, accepted, reason FROM decisions ORDER BY round, src_url, url, reason",
    "SELECT round, feature, value, relevant, other, round(weight, 6) FROM model ORDER BY round, feature, value",
    "SELECT round, segment, anchor, tld, relevant, other FROM labels ORDER BY 1, 2, 3, 4, 5, 6",
    "SELECT round, count(*) FROM frontier GROUP BY round ORDER BY round",
    "SELECT round, host, sitemap, status, kind, url, dropped FROM sitemaps ORDER BY 1, 2, 3, 4, 5, 6",
    "SELECT host, sitemaps_round FROM hosts ORDER BY host",
];

/// The crawl's tables, its folders and its `crawl.json` but the log.
fn state(dir: &Path) -> Vec<String> {
    let mut state: Vec<String> = TABLES
        .iter()
        .map(|q| format!("{q}\n{:?}", sql_rows(dir, q)))
        .collect();
    let mut json = crawl_json(dir);
    json["log"].take();
    state.push(format!("crawl.json {json}"));
    state.push(format!("folders {:?}", folders(dir, dir)));
    state
}

fn crawl_json(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("crawl.json")).unwrap()).unwrap()
}

/// The phases and rounds `crawl.json`'s log says were run. The log is
/// history, written after a phase commits: a phase killed between the two
/// is not in it, one run again is in it twice.
fn logged_runs(dir: &Path) -> BTreeSet<String> {
    crawl_json(dir)["log"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| format!("{} {}", e["phase"], e["round"]))
        .collect()
}

/// Every folder under `dir`, relative to `root`; a table's version folder
/// as `vN` (a phase run again after its commit writes one more version:
/// what counts is that one version is left).
fn folders(root: &Path, dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().filter_map(|e| e.ok()) {
        if entry.file_type().unwrap().is_dir() {
            let path = entry.path();
            let name = path.strip_prefix(root).unwrap().display().to_string();
            let version = name
                .rsplit_once("/v")
                .filter(|(_, n)| n.parse::<u32>().is_ok());
            found.push(version.map_or(name.clone(), |(table, _)| format!("{table}/vN")));
            found.extend(folders(root, &path));
        }
    }
    found.sort();
    found
}

/// Runs `phase` on the crawl `dir`, with `crash` as LANGCRAWL_CRASH_AT_RENAME.
fn run(crawl: &Crawl, dir: &Path, phase: &str, crash: Option<&str>) -> std::process::Output {
    let proxy = crawl.web.proxy_url();
    let mut args = vec![phase];
    if phase == "fetch" {
        args.extend(["--proxy", &proxy, "--delay-ms", "0"]);
    }
    run_args(dir, &args, crash)
}

/// The number of renames `phase` makes on a copy of `dir`.
fn renames(crawl: &Crawl, dir: &Path, phase: &str, scratch: &Path) -> usize {
    let copy = scratch.join(format!("count-{phase}"));
    copy_dir(dir, &copy);
    let out = run(crawl, &copy, phase, Some("list"));
    assert!(out.status.success(), "{phase}: {out:?}");
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("rename "))
        .count()
}

#[test]
fn a_round_killed_at_any_rename_resumes_to_the_uninterrupted_crawl() {
    // the small web, with sitemaps: fetch commits two segments
    let spec = WebSpec {
        discovery: true,
        ..small_spec()
    };
    let crawl = Crawl::on(spawn_background(Web::generate(spec), 0).unwrap());
    let seeds = crawl.japanese_seeds();
    crawl.crawl_seeds_with(&seeds, "ja", 1, &["--strategy", "adaptive"]);
    let scratch = tempfile::tempdir().unwrap();
    // The crawl before each phase of round 2, and after the last.
    let mut before = Vec::new();
    for (i, phase) in PHASES.iter().enumerate() {
        let snapshot = scratch.path().join(format!("before-{i}"));
        copy_dir(&crawl.dir(), &snapshot);
        before.push(snapshot);
        crawl.ok(&[phase]);
    }
    let read = sql_rows(
        &crawl.dir(),
        "SELECT count(*) FROM sitemaps WHERE round = 2",
    );
    assert!(read[0][0] != "0", "round 2 reads sitemaps: {read:?}");
    let mut checked = 0;
    for (i, phase) in PHASES.iter().enumerate() {
        let done = if i + 1 < PHASES.len() {
            before[i + 1].clone()
        } else {
            crawl.dir()
        };
        let (after, runs) = (state(&done), logged_runs(&done));
        let count = renames(&crawl, &before[i], phase, scratch.path());
        assert!(count >= 1, "{phase} renames nothing");
        eprintln!("{phase}: {count} renames, each crashed before and after");
        for n in 1..=count {
            for when in ["before", "after"] {
                let dir = scratch.path().join(format!("{phase}-{n}-{when}"));
                copy_dir(&before[i], &dir);
                let crashed = run(&crawl, &dir, phase, Some(&format!("{n}:{when}")));
                assert!(
                    !crashed.status.success(),
                    "{phase} did not crash at rename {n} {when}"
                );
                let again = run(&crawl, &dir, phase, None);
                // killed after its commit, the phase has nothing left to do (exit 3)
                assert!(
                    again.status.success() || again.status.code() == Some(3),
                    "{phase} after a crash at rename {n} {when}: {again:?}"
                );
                let got = state(&dir);
                for (a, b) in got.iter().zip(&after) {
                    assert_eq!(a, b, "{phase}, crash at rename {n} {when}");
                }
                assert!(
                    logged_runs(&dir).is_subset(&runs),
                    "{phase}, crash at rename {n} {when}"
                );
                std::fs::remove_dir_all(&dir).unwrap();
                checked += 1;
            }
        }
    }
    assert!(checked >= 16, "{checked} crashes checked");
}

/// `refilter` replaces each round's set whole, one round after another: a
/// kill part-way leaves some rounds refiltered and some still holding an
/// older set of the name. The set is marked unfinished from before its
/// first round is replaced until its last is, so `--compare` refuses it
/// rather than compare a mix (a refilter of fewer rounds does not lift the
/// mark), and the refilter run again writes the set the uninterrupted one
/// wrote.
#[test]
fn a_refilter_killed_at_any_rename_leaves_its_set_marked_until_run_again() {
    let crawl = Crawl::on(spawn_background(Web::generate(small_spec()), 0).unwrap());
    let seeds = crawl.japanese_seeds();
    crawl.crawl_seeds_with(&seeds, "ja", 3, &["--strategy", "bfs"]);
    // an older set of the name, by another strategy
    crawl.ok(&["refilter", "--strategy", "tld-anchor", "--name", "sc"]);
    let refilter = [
        "refilter",
        "--strategy",
        "server-conservative",
        "--name",
        "sc",
    ];
    let compare = ["refilter", "--compare", "--name", "sc"];
    let set = "SELECT round, src_url, url, accepted, reason FROM decision_sets \
               WHERE decision_set = 'sc' ORDER BY 1, 2, 3, 5";
    let older = sql_rows(&crawl.dir(), set);
    let scratch = tempfile::tempdir().unwrap();
    let whole = scratch.path().join("whole");
    copy_dir(&crawl.dir(), &whole);
    let listed = run_args(&whole, &refilter, Some("list"));
    assert!(listed.status.success(), "{listed:?}");
    let count = String::from_utf8_lossy(&listed.stderr)
        .lines()
        .filter(|l| l.starts_with("rename "))
        .count();
    assert!(
        count >= 4,
        "the mark and three rounds' sets: {count} renames"
    );
    let expected = sql_rows(&whole, set);
    assert_ne!(expected, older, "server-conservative decides otherwise");
    assert_eq!(folders(&whole, &whole), folders(&crawl.dir(), &crawl.dir()));
    for n in 1..=count {
        for when in ["before", "after"] {
            let dir = scratch.path().join(format!("refilter-{n}-{when}"));
            copy_dir(&crawl.dir(), &dir);
            let crashed = run_args(&dir, &refilter, Some(&format!("{n}:{when}")));
            assert!(!crashed.status.success(), "no crash at rename {n} {when}");
            let compared = run_args(&dir, &compare, None);
            if (n, when) == (1, "before") {
                // killed before the mark: nothing of the older set replaced
                assert!(compared.status.success(), "{compared:?}");
                assert_eq!(sql_rows(&dir, set), older);
            } else {
                let stderr = String::from_utf8_lossy(&compared.stderr);
                assert_eq!(
                    compared.status.code(),
                    Some(2),
                    "rename {n} {when}: {compared:?}"
                );
                assert!(stderr.contains("unfinished"), "rename {n} {when}: {stderr}");
                let fewer = run_args(
                    &dir,
                    &[
                        "refilter",
                        "--strategy",
                        "bfs",
                        "--name",
                        "sc",
                        "--rounds",
                        "1",
                    ],
                    None,
                );
                assert!(fewer.status.success(), "{fewer:?}");
                assert!(
                    !run_args(&dir, &compare, None).status.success(),
                    "rename {n} {when}: one round rewritten lifts the mark"
                );
            }
            let again = run_args(&dir, &refilter, None);
            assert!(again.status.success(), "rename {n} {when}: {again:?}");
            assert!(run_args(&dir, &compare, None).status.success());
            assert_eq!(sql_rows(&dir, set), expected, "rename {n} {when}");
            assert_eq!(
                folders(&dir, &dir),
                folders(&whole, &whole),
                "rename {n} {when}"
            );
            assert_eq!(root_files(&dir), root_files(&whole), "rename {n} {when}");
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
}

/// The names of the files in the crawl's root (`crawl.json`, a mark, a temp).
fn root_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Runs `langcrawl args --crawl dir`, with `crash` as LANGCRAWL_CRASH_AT_RENAME.
fn run_args(dir: &Path, args: &[&str], crash: Option<&str>) -> std::process::Output {
    let mut args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    args.extend(["--crawl".into(), dir.display().to_string()]);
    let mut cmd = command(&args);
    if let Some(crash) = crash {
        cmd.env("LANGCRAWL_CRASH_AT_RENAME", crash);
    }
    cmd.output().unwrap()
}
