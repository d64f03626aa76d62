//! A crawl's files are written by its phases alone: a command's output
//! inside the crawl is refused, and a changed SQL step that would lose the
//! crawl's URLs is stopped before it is taken.

use crate::errors::assert_bad_input;
use crate::util::Crawl;

#[test]
fn a_changed_step_that_would_lose_urls_or_a_strategy_without_its_columns_is_named() {
    let crawl = Crawl::parsed();
    let before = crawl.rows("SELECT url, status FROM crawldb ORDER BY url");
    let sql_dir = crawl.tmp.path().join("sql");
    std::fs::create_dir_all(sql_dir.join("strategies")).unwrap();
    std::fs::write(sql_dir.join("strategies/bfs.sql"), "SELECT 1 AS x").unwrap();
    let dir = sql_dir.to_str().unwrap();
    // the strategy's file is at fault, not decide.sql that reads it
    assert_bad_input(
        &crawl.run(&["updatedb", "--sql-dir", dir]),
        &format!("{dir}/strategies/bfs.sql: no column src_url, url, accepted, priority, reason"),
    );
    std::fs::remove_file(sql_dir.join("strategies/bfs.sql")).unwrap();
    std::fs::create_dir_all(sql_dir.join("steps")).unwrap();
    let merge = include_str!("../../sql/steps/merge_crawldb.sql");
    let dropping = format!("SELECT * FROM (\n{merge}\n) AS merged LIMIT 1");
    std::fs::write(sql_dir.join("steps/merge_crawldb.sql"), dropping).unwrap();
    assert_bad_input(
        &crawl.run(&["updatedb", "--sql-dir", dir]),
        &format!("{dir}/steps/merge_crawldb.sql: gave 1 URLs for a crawldb of"),
    );
    let after = crawl.rows("SELECT url, status FROM crawldb ORDER BY url");
    assert_eq!(before, after, "the crawldb is left as it was");
    crawl.ok(&["updatedb"]);
}

#[test]
fn an_output_inside_the_crawl_is_refused() {
    let crawl = Crawl::parsed();
    crawl.ok(&["updatedb"]);
    let json = crawl.dir().join("crawl.json");
    let kept = std::fs::read(&json).unwrap();
    let inside = |path: &str| crawl.dir().join(path).to_str().unwrap().to_string();
    for args in [
        vec!["report".to_string(), "--html".into(), inside("crawl.json")],
        vec![
            "export".into(),
            "text".into(),
            "-o".into(),
            inside("crawl.json"),
        ],
        vec![
            "export".into(),
            "warc".into(),
            "-o".into(),
            inside("00001/fetch"),
        ],
        vec![
            "graph".into(),
            "export".into(),
            "-o".into(),
            inside("00002"),
        ],
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_bad_input(&crawl.run(&args), "inside the crawl");
    }
    assert_eq!(std::fs::read(&json).unwrap(), kept, "crawl.json untouched");
    assert!(!crawl.dir().join("00002").exists(), "no round made up");
    let beside = crawl.tmp.path().join("text.jsonl.gz");
    crawl.ok(&["export", "text", "-o", beside.to_str().unwrap()]);
    assert!(beside.exists());
}

/// A file where a folder is asked for, or a folder that is not there, is
/// named as the user gave it: not "File exists", not our temp file.
#[test]
fn an_output_in_the_wrong_place_is_named_as_given() {
    let crawl = Crawl::parsed();
    let file = crawl.tmp.path().join("a-file");
    std::fs::write(&file, "kept").unwrap();
    let file_arg = file.to_str().unwrap();
    let seeds = crawl.japanese_seeds();
    let inject = [
        "inject",
        seeds.to_str().unwrap(),
        "--lang",
        "ja",
        "--crawl",
        file_arg,
    ];
    let not_a_folder = format!("{file_arg}: not a folder (a file is there)");
    assert_bad_input(&crate::util::langcrawl(&inject), &not_a_folder);
    for args in [["export", "warc", "-o"], ["graph", "export", "-o"]] {
        let args = [&args[..], &[file_arg]].concat();
        assert_bad_input(&crawl.run(&args), &not_a_folder);
    }
    let demo = crate::util::langcrawl(&["demo", "--crawl", file_arg]);
    assert_bad_input(&demo, &not_a_folder);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "kept");
    let missing = crawl.tmp.path().join("no-such-folder");
    let (html, text) = (missing.join("r.html"), missing.join("t.jsonl.gz"));
    let (html, text) = (html.to_str().unwrap(), text.to_str().unwrap());
    for args in [
        vec!["report", "--html", html],
        vec!["export", "text", "-o", text],
    ] {
        let asked = args.last().unwrap().to_string();
        let got = crawl.run(&args);
        let err = crate::util::stderr(&got);
        assert!(!got.status.success(), "{args:?}");
        assert!(err.contains(&format!("{asked}: No such file")), "{err}");
    }
}
