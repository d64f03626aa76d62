//! `langcrawl ballista scheduler` and two `langcrawl ballista executor`
//! processes on 127.0.0.1; `updatedb --engine df://…` against them decides
//! as a local updatedb of a copy of the same round.

use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::same_crawl::outcome;
use crate::util::{command, copy_dir, Crawl};

/// Child processes, killed when the test ends (passing or not).
struct Cluster(Vec<Child>);

impl Drop for Cluster {
    fn drop(&mut self) {
        for child in &mut self.0 {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Cluster {
    fn start(&mut self, args: &[String]) {
        let child = command(args)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("langcrawl starts");
        self.0.push(child);
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits until something listens on `port`.
fn listening(port: u16) {
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "nothing on port {port}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn files_under(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .filter_map(|e| e.ok())
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => files_under(&e.path()),
            _ => 1,
        })
        .sum()
}

#[test]
fn updatedb_on_a_scheduler_and_two_executors_decides_as_a_local_one() {
    let local = Crawl::new();
    let seeds = local.japanese_seeds();
    local.crawl_seeds_with(&seeds, "ja", 1, &["--strategy", "tld-anchor"]);
    for step in ["generate", "fetch", "parse"] {
        local.ok(&[step]);
    }
    let remote = Crawl::new();
    copy_dir(&local.dir(), &remote.dir());

    let mut cluster = Cluster(Vec::new());
    let scheduler = free_port();
    cluster.start(&[
        "ballista".into(),
        "scheduler".into(),
        "--port".into(),
        scheduler.to_string(),
    ]);
    listening(scheduler);
    let work = tempfile::tempdir().unwrap();
    let mut work_dirs = Vec::new();
    for executor in ["a", "b"] {
        let (port, grpc_port) = (free_port(), free_port());
        let work_dir = work.path().join(executor);
        std::fs::create_dir_all(&work_dir).unwrap();
        cluster.start(&[
            "ballista".into(),
            "executor".into(),
            "--scheduler".into(),
            format!("127.0.0.1:{scheduler}"),
            "--port".into(),
            port.to_string(),
            "--grpc-port".into(),
            grpc_port.to_string(),
            "--concurrent-tasks".into(),
            "1".into(),
            "--work-dir".into(),
            work_dir.display().to_string(),
        ]);
        listening(port);
        work_dirs.push(work_dir);
    }

    local.ok(&["updatedb"]);
    let engine = format!("df://127.0.0.1:{scheduler}");
    remote.ok(&["updatedb", "--engine", &engine]);
    let ran: Vec<usize> = work_dirs.iter().map(|d| files_under(d)).collect();
    assert!(
        ran.iter().all(|&files| files > 0),
        "each executor ran tasks (shuffle files per executor: {ran:?})"
    );
    let expected = outcome(&local);
    assert!(expected.1.len() > 100, "{} decisions", expected.1.len());
    assert_eq!(outcome(&remote), expected);

    drop(cluster);
    let gone = remote.run(&["updatedb", "--engine", &engine]);
    let said = String::from_utf8_lossy(&gone.stderr).to_string();
    assert_eq!(gone.status.code(), Some(2), "{said}");
    assert!(said.contains("no Ballista scheduler at"), "{said}");
    assert_eq!(said.trim().lines().count(), 1, "{said}");
}
