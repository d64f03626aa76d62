//! `langcrawl status` during a fetch and after a crawl: the writer and its
//! progress while a phase runs, none after; the rounds and the URLs by
//! status against counts taken with `sql`.

use crate::graceful_stop::{
    crawl_with_a_long_fetch_list, spawn_slow_fetch, terminate, wait_for_pages,
};
use crate::util::Crawl;
use std::os::unix::process::ExitStatusExt;

fn status_json(crawl: &Crawl) -> serde_json::Value {
    serde_json::from_str(&crawl.ok(&["status", "--json"])).unwrap()
}

#[test]
fn status_names_the_writer_and_its_progress_while_fetch_runs() {
    let crawl = crawl_with_a_long_fetch_list();
    let child = spawn_slow_fetch(&crawl);
    let pid = child.id();
    wait_for_pages(&crawl, 50);
    // the progress is written once a second
    std::thread::sleep(std::time::Duration::from_millis(1_500));
    let during = status_json(&crawl);
    let lines = crawl.ok(&["status"]);
    let (out, _) = terminate(child);
    assert_eq!(
        out.status.signal(),
        Some(libc::SIGTERM),
        "stopped by SIGTERM: {out:?}"
    );
    assert_eq!(
        during["writer"],
        format!("process {pid} (fetch)"),
        "{during}"
    );
    let activity = &during["activity"];
    assert_eq!(
        (activity["phase"].as_str(), activity["round"].as_u64()),
        (Some("fetch"), Some(1))
    );
    assert_eq!(activity["total"].as_u64(), Some(2_000));
    assert!(activity["done"].as_u64().unwrap() > 0, "{during}");
    assert!(
        lines.contains(&format!(
            "writer: process {pid} (fetch): fetch round 00001: "
        )),
        "{lines}"
    );
    let after = status_json(&crawl);
    assert!(after["writer"].is_null(), "the fetch is over: {after}");
}

#[test]
fn status_after_a_crawl_agrees_with_the_crawl_tables() {
    let crawl = Crawl::new();
    crawl.crawl_japanese(2);
    let status = status_json(&crawl);
    assert!(status["writer"].is_null());
    assert_eq!(status["rounds_merged"].as_u64(), Some(2));
    assert_eq!(status["next_step"], "generate");
    let queue = status["queue"].as_array().unwrap();
    let counted =
        crawl.rows("SELECT status, count(*) FROM crawldb GROUP BY status ORDER BY status");
    let mut listed: Vec<Vec<String>> = queue
        .iter()
        .map(|q| vec![q[0].as_str().unwrap().to_string(), q[1].to_string()])
        .collect();
    listed.sort();
    assert_eq!(listed, counted);
    let last = crawl.rows(
        "SELECT count(*), sum(CASE WHEN relevant THEN 1 ELSE 0 END) FROM crawldb \
         WHERE status = 'fetched' AND fetched_round = 2",
    );
    let round = status["last_round"].as_array().unwrap();
    assert_eq!(
        (round[1].to_string(), round[2].to_string()),
        (last[0][0].clone(), last[0][1].clone())
    );
    assert!(status["disk_bytes"].as_u64().unwrap() > 100_000);
    let lines = crawl.ok(&["status"]);
    assert!(lines.contains("writer: none"), "{lines}");
    assert!(
        lines.contains("rounds: 2 merged, latest 00002; next step: generate"),
        "{lines}"
    );
}
