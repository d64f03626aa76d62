//! A round split by host (`generate --partitions 4`), its parts fetched and
//! parsed by four processes at once, gathered by updatedb: the same crawl
//! as one process makes.

use crate::util::{stderr, Crawl};

/// What a crawl fetched and knows, in a form two crawls can be compared by.
fn state(crawl: &Crawl) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
    let fetched =
        crawl.rows("SELECT round, url, status, http_status FROM fetch ORDER BY round, url");
    let crawldb = crawl.rows(
        "SELECT url, status, depth, http_status, lang, relevant, discovered_round, fetched_round, digest \
         FROM crawldb ORDER BY url",
    );
    (fetched, crawldb)
}

/// Runs `args` (plus `--partition I`) for the four parts at once.
fn in_four_processes(crawl: &Crawl, args: &[&str]) {
    let parts = ["0", "1", "2", "3"];
    std::thread::scope(|scope| {
        let runs: Vec<_> = parts
            .iter()
            .map(|part| {
                scope.spawn(move || {
                    let mut all = args.to_vec();
                    all.extend(["--partition", part]);
                    crawl.run(&all)
                })
            })
            .collect();
        for (part, run) in parts.iter().zip(runs) {
            let out = run.join().unwrap();
            assert!(out.status.success(), "part {part}: {}", stderr(&out));
        }
    });
}

#[test]
fn four_parts_fetched_at_once_make_the_same_crawl_as_one() {
    let whole = Crawl::new();
    let seeds = whole.japanese_seeds();
    whole.ok(&["inject", seeds.to_str().unwrap(), "--lang", "ja"]);
    let split = Crawl::new();
    split.ok(&["inject", seeds.to_str().unwrap(), "--lang", "ja"]);
    for _ in 0..3 {
        for step in [&["generate"][..], &["fetch"], &["parse"], &["updatedb"]] {
            whole.ok(step);
        }
        split.ok(&["generate", "--partitions", "4"]);
        let refused = split.run(&["fetch"]);
        assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
        assert!(stderr(&refused).contains("split into 4 parts"));
        in_four_processes(&split, &["fetch"]);
        let early = split.run(&["updatedb"]);
        assert!(
            stderr(&early).contains("part 0 has no parse segment yet"),
            "{}",
            stderr(&early)
        );
        in_four_processes(&split, &["parse"]);
        split.ok(&["updatedb"]);
    }
    let (fetched, crawldb) = state(&whole);
    assert!(fetched.len() > 100, "{} fetches", fetched.len());
    assert_eq!(state(&split), (fetched, crawldb));
    let parts_left = std::fs::read_dir(split.dir())
        .unwrap()
        .filter_map(|e| e.ok())
        .any(|e| e.path().join("parts").exists());
    assert!(!parts_left, "updatedb removes the parts");
}
