//! Bad input gets a one-line error and a non-zero exit, and loses nothing.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use crate::util::{langcrawl, stderr, Crawl};

/// The error is one line starting `langcrawl:` that mentions `needle`.
pub(crate) fn assert_one_line_error(out: &std::process::Output, needle: &str) {
    assert!(!out.status.success(), "expected failure: {out:?}");
    let err = stderr(out);
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("langcrawl:"))
        .collect();
    assert_eq!(lines.len(), 1, "one error line expected:\n{err}");
    assert!(
        lines[0].contains(needle),
        "{:?} should mention {needle:?}",
        lines[0]
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_missing_seeds_file() {
    let crawl = Crawl::new();
    let missing = crawl.tmp.path().join("no-such-seeds.txt");
    let out = crawl.run(&["inject", missing.to_str().unwrap(), "--lang", "ja"]);
    assert_one_line_error(&out, "no-such-seeds.txt");
    assert!(!crawl.dir().join("crawldb").exists(), "nothing is written");
}

#[test]
fn a_seeds_file_with_junk_lines() {
    let crawl = Crawl::new();
    let seeds = crawl.seeds_file(&[
        "# Japanese seeds".into(),
        String::new(),
        "HTTP://WWW.Example.JP:80/a#top".into(),
        "http://www.example.jp/a".into(),
        "ftp://example.jp/file".into(),
        "not a url".into(),
        "http://例え.jp/".into(),
    ]);
    let out = crawl.run(&["inject", seeds.to_str().unwrap(), "--lang", "ja"]);
    assert!(!out.status.success(), "junk lines make a non-zero exit");
    let err = stderr(&out);
    assert!(
        err.contains("seeds.txt:5:") && err.contains("seeds.txt:6:"),
        "line numbers named:\n{err}"
    );
    assert!(
        !err.contains("seeds.txt:3:") && !err.contains("seeds.txt:7:"),
        "{err}"
    );
    let urls = crawl.rows("SELECT url FROM crawldb ORDER BY url");
    assert_eq!(
        urls,
        vec![
            vec!["http://www.example.jp/a".to_string()],
            vec!["http://xn--r8jz45g.jp/".to_string()]
        ],
        "the good lines are normalized, de-duplicated and injected"
    );
}

#[test]
fn crawl_seeds_warns_of_a_bad_line_under_quiet_too() {
    let crawl = Crawl::new();
    let mut seeds = vec!["javascript:void(0)".to_string()];
    seeds.extend(crawl.web.web.seeds("jpn", 2));
    let seeds = crawl.seeds_file(&seeds);
    let seeds = seeds.to_str().unwrap();
    let out = crawl.run(&[
        "crawl", "--seeds", seeds, "--lang", "ja", "--rounds", "1", "-q",
    ]);
    assert!(out.status.success(), "{out:?}");
    let err = stderr(&out);
    assert!(err.contains(":1: skipped \"javascript:void(0)\""), "{err}");
    assert!(
        out.stdout.is_empty(),
        "quiet: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn an_unknown_strategy_is_refused_with_the_names_there_are() {
    let out = langcrawl(&["crawl", "--strategy", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert_one_line_error(&out, "possible values: bfs, tld-anchor");
    assert_one_line_error(&out, "adaptive");
    let out = langcrawl(&["updatedb", "--strategy", "adaptiv"]);
    assert_one_line_error(&out, "a similar value exists: 'adaptive'");
}

#[test]
fn an_unknown_language() {
    let crawl = Crawl::new();
    let seeds = crawl.japanese_seeds();
    let out = crawl.run(&["inject", seeds.to_str().unwrap(), "--lang", "klingon"]);
    assert_one_line_error(&out, "klingon");
    assert!(!crawl.dir().join("crawldb").exists());
    let out = crawl.run(&["inject", seeds.to_str().unwrap(), "--lang", "jp"]);
    assert_one_line_error(&out, "ja");
}

#[test]
fn a_directory_that_is_not_a_crawl() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("notes.txt"), "mine").unwrap();
    for command in [
        &["generate"][..],
        &["fetch"],
        &["parse"],
        &["updatedb"],
        &["report"],
        &["sql", "SELECT 1"],
    ] {
        let mut args: Vec<&str> = command.to_vec();
        args.extend(["--crawl", tmp.path().to_str().unwrap()]);
        let out = langcrawl(&args);
        assert_one_line_error(&out, "not a crawl directory");
        assert_eq!(out.status.code(), Some(2), "{command:?}");
    }
    let left: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert_eq!(left.len(), 1, "nothing was written into it");
}

#[test]
fn a_corrupt_parquet_file_in_a_segment() {
    let crawl = Crawl::parsed();
    let before = crawl.rows("SELECT url, status FROM crawldb ORDER BY url");
    let links = crate::util::parquet_files(&crawl.dir().join("00001/links"));
    std::fs::write(&links[0], b"PAR1 this is not parquet").unwrap();

    let out = crawl.run(&["updatedb"]);
    assert_one_line_error(&out, links[0].file_name().unwrap().to_str().unwrap());
    assert_eq!(out.status.code(), Some(2), "a corrupt segment is bad input");
    let after = crawl.rows("SELECT url, status FROM crawldb ORDER BY url");
    assert_eq!(before, after, "the crawldb is untouched");
    assert!(!crawl.dir().join("00001/decisions").exists());
}

#[test]
fn another_tables_file_in_a_segment_is_named_not_read_as_nulls() {
    let crawl = Crawl::parsed();
    let before = crawl.rows("SELECT url, status FROM crawldb ORDER BY url");
    // a links file put in the round's fetch segment
    let links = crate::util::parquet_files(&crawl.dir().join("00001/links"));
    let stray = crawl.dir().join("00001/fetch/part-stray.parquet");
    std::fs::copy(&links[0], &stray).unwrap();
    let out = crawl.run(&["updatedb"]);
    assert_bad_input(&out, "part-stray.parquet: not a file of this table");
    std::fs::remove_file(&stray).unwrap();
    crawl.ok(&["updatedb"]);
    assert_ne!(
        before,
        crawl.rows("SELECT url, status FROM crawldb ORDER BY url")
    );
}

#[test]
fn a_server_that_never_answers() {
    // A proxy that accepts connections and never says a word.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy = format!("http://{}", silent.local_addr().unwrap());
    let _keep = std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in silent.incoming().flatten() {
            held.push(stream);
        }
    });
    let crawl = Crawl::generated();
    let started = Instant::now();
    let out = langcrawl(&crawl.fetch_args(&proxy, &["--connect-timeout", "1", "--timeout", "2"]));
    let took = started.elapsed();
    assert!(
        took < Duration::from_secs(20),
        "fetch ended within its timeouts: {took:?}"
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        crawl.number(
            "SELECT count(*) FROM fetch WHERE status = 'deferred' AND error LIKE '%robots.txt%'"
        ),
        8
    );
    crawl.ok(&["parse"]);
    crawl.ok(&["updatedb"]);
    assert_eq!(
        crawl.number(
            "SELECT count(*) FROM crawldb WHERE status = 'unfetched' AND retries = 0 AND retry_round = 2"
        ),
        8,
        "the URLs wait for the next round and keep their retries"
    );
}

/// The whole of stderr is one line, and the exit status 2 (bad input).
pub(crate) fn assert_bad_input(out: &std::process::Output, needle: &str) {
    assert_one_line_error(out, needle);
    assert_eq!(stderr(out).lines().count(), 1, "{}", stderr(out));
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn bad_arguments_are_one_line_and_exit_2() {
    let out = langcrawl(&["generate", "--top-n", "x"]);
    assert_bad_input(&out, "--top-n");
    let out = langcrawl(&["generate", "--partitions", "100000000"]);
    assert_bad_input(&out, "at most 4096");
    let out = langcrawl(&["sql", "SELECT 1", "--sql-dir", "/nonexistent-sql-dir"]);
    assert_bad_input(&out, "/nonexistent-sql-dir");
    let out = langcrawl(&["no-such-command"]);
    assert_bad_input(&out, "no-such-command");
    // what is missing is named, and how to give it
    let out = langcrawl(&["sql", "--crawl", "."]);
    assert_bad_input(&out, "not provided: <QUERY>");
    let out = langcrawl(&["inject"]);
    assert_bad_input(&out, "<SEEDS>");
}

#[test]
fn a_bad_query_a_broken_sql_file_and_a_garbage_crawl_json_exit_2() {
    let crawl = Crawl::new();
    let seeds = crawl.japanese_seeds();
    crawl.ok(&["inject", seeds.to_str().unwrap(), "--lang", "ja"]);
    // the parser's words, not its Debug form
    let parse_error = "SQL error: Expected: an SQL statement, found: SELEC";
    assert_bad_input(&crawl.run(&["sql", "SELEC url FROM crawldb"]), parse_error);
    assert_bad_input(&crawl.run(&["sql", "SELECT nope FROM crawldb"]), "nope");
    // values the query cannot compute are its fault too, said on one line
    let cast = "SELECT CAST('x' AS INT) FROM crawldb";
    assert_bad_input(&crawl.run(&["sql", cast]), "Cannot cast string 'x'");
    assert_bad_input(&crawl.run(&["sql", "SELECT 1/0"]), "Divide by zero");
    let sql_dir = crawl.tmp.path().join("sql");
    std::fs::create_dir_all(sql_dir.join("steps")).unwrap();
    std::fs::write(sql_dir.join("steps/generate.sql"), "SELEC broken").unwrap();
    let sql_dir = sql_dir.to_str().unwrap();
    // the file at fault is named where it is, not as the built-in one
    assert_bad_input(
        &crawl.run(&["generate", "--sql-dir", sql_dir]),
        &format!("running {sql_dir}/steps/generate.sql"),
    );
    std::fs::write(crawl.dir().join("crawl.json"), "{ not json").unwrap();
    assert_bad_input(&crawl.run(&["sql", "SELECT 1"]), "crawl.json");
    let file = crawl.tmp.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let (seeds, file) = (seeds.to_str().unwrap(), file.to_str().unwrap());
    let out = langcrawl(&["inject", seeds, "--lang", "ja", "--crawl", file]);
    assert_bad_input(&out, "a-file");
}

#[test]
fn endless_or_huge_inputs_are_refused_within_their_bounds() {
    let crawl = Crawl::new();
    crawl.crawl_japanese(1);
    let started = Instant::now();
    let out = langcrawl(&["detect", "/dev/zero"]);
    assert_bad_input(&out, "larger than 8 MiB");
    let out = crawl.run(&["inject", "/dev/zero"]);
    assert_bad_input(&out, "larger than 128 MiB");
    // a query of 1 MB, and one of 10,000 operators (a plan as deep)
    let big = crawl.tmp.path().join("big.sql");
    std::fs::write(&big, format!("SELECT {}", "1+".repeat(500_000) + "1")).unwrap();
    let out = crawl.run(&["sql", "--file", big.to_str().unwrap()]);
    assert_bad_input(&out, "larger than 64 KiB");
    let deep = format!("SELECT {}", "1+".repeat(10_000) + "1");
    let out = crawl.run(&["sql", &deep]);
    assert_bad_input(&out, "operators");
    let out = crawl.run(&["sql", "SELEKT 1"]);
    assert_bad_input(&out, "planning the query");
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    // a long chain under the bound plans on the big stack
    let chain = format!("SELECT {} AS n", "1+".repeat(4_000) + "1");
    assert_eq!(crawl.rows(&chain), vec![vec!["4001".to_string()]]);
}

#[test]
fn rounds_without_a_crawldb_are_damage_not_a_new_crawl() {
    let crawl = Crawl::new();
    crawl.crawl_japanese(1);
    std::fs::remove_dir_all(crawl.dir().join("crawldb")).unwrap();
    let out = crawl.run(&["generate"]);
    assert_bad_input(&out, "damaged");
    assert!(crawl.dir().join("00001").is_dir(), "nothing is removed");
    // readers say so too, rather than showing an empty crawl
    let out = crawl.run(&["sql", "SELECT count(*) FROM crawldb"]);
    assert_bad_input(&out, "damaged");
}

#[test]
fn after_a_merged_round_fetch_and_parse_say_to_generate() {
    let crawl = Crawl::new();
    crawl.crawl_japanese(1);
    for phase in ["fetch", "parse"] {
        let out = crawl.run(&[phase]);
        assert_eq!(out.status.code(), Some(3), "{out:?}");
        assert!(
            stderr(&out).contains("`langcrawl generate`"),
            "{}",
            stderr(&out)
        );
    }
}

/// `langcrawl sql ... | head -1`: the reader closes the pipe after a line;
/// the command ends quietly with status 0 (a `set -o pipefail` script
/// goes on), not with a panic.
#[test]
fn output_to_a_reader_that_stops_reading_ends_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    let crawl = Crawl::injected();
    let dir = crawl.dir();
    let query = "SELECT * FROM generate_series(1, 1000000)";
    let args = [
        "sql",
        "--crawl",
        dir.to_str().unwrap(),
        "--format",
        "csv",
        query,
    ];
    let mut child = crate::util::command(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    let stdout = child.stdout.take().unwrap();
    BufReader::new(stdout).read_line(&mut first).unwrap();
    assert_eq!(first, "value\n");
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
}

/// A table is laid out once its rows are in, so it shows 10,000 at most
/// and says there are more; csv streams every row.
#[test]
fn a_large_result_is_capped_as_a_table_and_streamed_as_csv() {
    let crawl = Crawl::injected();
    let query = "SELECT value FROM generate_series(1, 25000) ORDER BY value";
    let sql = |extra: &[&str]| {
        let mut args = vec!["sql", query];
        args.extend_from_slice(extra);
        crawl.run(&args)
    };
    let table = sql(&[]);
    assert!(table.status.success(), "{}", stderr(&table));
    let shown = String::from_utf8_lossy(&table.stdout);
    assert!(shown.contains("| 10000 |") && !shown.contains("| 10001 |"));
    assert!(stderr(&table).contains("the first 10000 rows are shown"));
    let csv = sql(&["--format", "csv"]);
    assert_eq!(String::from_utf8_lossy(&csv.stdout).lines().count(), 25_001);
    assert_eq!(stderr(&csv), "");
    let few = sql(&["--format", "csv", "--max-rows", "3"]);
    assert_eq!(String::from_utf8_lossy(&few.stdout), "value\n1\n2\n3\n");
}

#[test]
fn the_demo_replaces_only_a_crawl_it_made() {
    let crawl = Crawl::injected();
    let urls = crawl.number("SELECT count(*) FROM crawldb");
    let out = langcrawl(&["demo", "--crawl", crawl.dir().to_str().unwrap()]);
    assert_one_line_error(&out, "the demo did not make");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        crawl.number("SELECT count(*) FROM crawldb"),
        urls,
        "the crawl is kept"
    );
}

/// A crawl that has judged pages for one language is not silently turned
/// to another, and one whose crawl.json is lost is damaged, not new.
#[test]
fn a_crawl_keeps_its_target_language_and_its_settings() {
    let crawl = Crawl::new();
    crawl.crawl_japanese(1);
    let seeds = crawl.japanese_seeds();
    let seeds = seeds.to_str().unwrap();
    for command in [
        &["inject", seeds, "--lang", "ko"][..],
        &["updatedb", "--lang", "ko"],
        &["crawl", "--rounds", "1", "--lang", "ko"],
    ] {
        let out = crawl.run(command);
        assert_one_line_error(&out, "targets jpn");
        assert_eq!(out.status.code(), Some(2), "{command:?}");
    }
    let json = std::fs::read_to_string(crawl.dir().join("crawl.json")).unwrap();
    assert!(
        json.contains("\"jpn\"") && !json.contains("\"kor\""),
        "{json}"
    );
    // the same language, named another way, is no change
    crawl.ok(&["inject", seeds, "--lang", "jpn"]);

    std::fs::remove_file(crawl.dir().join("crawl.json")).unwrap();
    let out = crawl.run(&["inject", seeds, "--lang", "ja"]);
    assert_one_line_error(&out, "crawl.json");
    assert!(
        !crawl.dir().join("crawl.json").exists(),
        "no new settings made up"
    );
}

/// A proxy that refuses every connection, however it is written (with
/// credentials, without a scheme, as https): the round is not fetched,
/// the error names the proxy (not its password), and no URL is counted as
/// failed — fetched again through a proxy that answers, every URL is there.
#[test]
fn a_proxy_that_refuses_every_connection_loses_no_url() {
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = closed.local_addr().unwrap();
    drop(closed);
    let crawl = Crawl::generated();
    for (proxy, shown) in [
        (format!("http://{addr}"), format!("http://{addr}")),
        (
            format!("http://u:secret@{addr}"),
            format!("http://u:***@{addr}"),
        ),
        (addr.to_string(), addr.to_string()),
        (format!("https://{addr}"), format!("https://{addr}")),
    ] {
        let out = langcrawl(&crawl.fetch_args(&proxy, &["--connect-timeout", "1"]));
        assert_one_line_error(&out, &format!("no request got through the proxy {shown}"));
        assert!(!stderr(&out).contains("secret"), "{}", stderr(&out));
        assert_eq!(
            crawl.number("SELECT count(*) FROM fetch"),
            0,
            "{proxy}: nothing written"
        );
    }
    let listed = crawl.number("SELECT count(*) FROM fetchlist");
    crawl.ok(&["fetch"]);
    assert_eq!(
        crawl.number("SELECT count(*) FROM fetch WHERE status = 'fetched'"),
        listed
    );
}

#[test]
fn a_damaged_hosts_version_leaves_the_rest_of_the_crawl_readable() {
    let crawl = Crawl::parsed();
    crawl.ok(&["updatedb"]);
    let before = crawl.rows("SELECT count(*) FROM crawldb");
    let versions = crawl.dir().join("hosts");
    let newest = std::fs::read_dir(&versions)
        .unwrap()
        .map(|e| e.unwrap().path())
        .max()
        .expect("fetch wrote a hosts version");
    let parts = crate::util::parquet_files(&newest);
    std::fs::write(&parts[0], b"PAR1 this is not parquet").unwrap();

    let out = crawl.run(&["sql", "SELECT count(*) AS n FROM crawldb"]);
    assert!(out.status.success(), "{out:?}");
    let err = stderr(&out);
    let name = parts[0].file_name().unwrap().to_str().unwrap();
    assert!(
        err.contains("table hosts left out") && err.contains(name),
        "{err}"
    );
    assert_eq!(crawl.rows("SELECT count(*) FROM crawldb"), before);
}
