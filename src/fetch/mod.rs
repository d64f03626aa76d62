//! The fetch phase: GET every URL of the round's fetch list, politely and
//! safely, concurrently across hosts, and write the `fetch` segment with
//! exactly one row per fetch-list URL.
//!
//! Each host has one queue (`host`): the address guard (`guard`), robots.txt
//! per RFC 9309 (`robots`, cached in the hosts table `hosts`), a delay
//! between its requests, and back-off (`backoff`): 429/503 defer the host
//! across rounds, a run of timeouts stops its queue, and a per-host time
//! budget and the phase's deadline bound the round. URLs not requested for
//! those reasons are `deferred` and stay unfetched.

pub mod backoff;
mod body;
pub mod client;
pub mod guard;
mod host;
pub mod hosts;
pub mod memory_budget;
pub mod politeness;
pub mod progress;
mod proxy_pool;
mod proxy_route;
mod reply;
pub mod robots;
pub mod rows;
pub mod sitemap;
pub mod sitemap_read;
pub mod sitemap_rows;

use std::collections::{BTreeMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use datafusion::arrow::array::StringArray;
use futures::FutureExt;
use tokio::sync::{mpsc, Semaphore};

use crate::error::{Error, Result};
use crate::store::activity::ActivityFile;
use crate::store::rows::{column, opt_str};
use crate::store::schema::{FETCH, FETCHLIST, SITEMAPS};
use crate::store::segment::conform;
use crate::store::{read_batches, CrawlConfig, CrawlDir, Phase, RoundId, SegmentWriter};
use client::{ClientOptions, Validators};
use host::{HostQueue, Queued, Shared};
use hosts::HostRecord;
pub use rows::{classify, FetchRow};

/// The most requests in flight (tokio's semaphore holds at most 2^61
/// permits; far fewer sockets are to be had).
pub const MAX_CONCURRENCY: usize = 65_536;

#[derive(Debug, Clone)]
pub struct FetchOptions {
    pub client: ClientOptions,
    /// Requests in flight across all hosts.
    /// Requests in flight, 1 to [`MAX_CONCURRENCY`].
    pub concurrency: usize,
    /// Pause between two requests to one host.
    pub delay: Duration,
    /// The most a robots.txt Crawl-delay may slow a host down (a host
    /// asking more is fetched at this delay).
    pub max_crawl_delay: Duration,
    /// Timeouts or connection errors in a row after which the rest of a
    /// host's queue waits for the next round.
    pub max_host_failures: u32,
    /// The longest one host's queue may take in a run.
    pub host_time_budget: Duration,
    /// When the phase stops requesting (what is left is `deferred`).
    pub max_fetch_time: Option<Duration>,
    /// What the rows that time left say: which limit it was.
    pub max_fetch_time_reason: &'static str,
    /// Lift the address guard (`crate::address`): fetch loopback and private hosts.
    pub allow_private: bool,
    /// Page bytes held in memory at once: each request reserves
    /// `--max-content-bytes` of it until its row is written.
    pub page_memory: usize,
    /// Read the sitemaps robots.txt names (`sitemap`).
    pub sitemaps: sitemap::SitemapOptions,
    /// What the hosts of one politeness queue share (`politeness`).
    pub queue_by: politeness::QueueBy,
    /// A host's delay is at least this many times its server's last
    /// response time (0: off), up to `max_crawl_delay`.
    pub delay_factor: f64,
    /// A stop request (SIGINT/SIGTERM): no new request, those in flight
    /// get [`crate::shutdown::GRACE`], the rest are `deferred`.
    pub stop: crate::shutdown::StopHandle,
    pub quiet: bool,
}

/// Why a URL left when `--max-fetch-time` ran out waits.
pub const FETCH_TIME_REACHED: &str = "the fetch time limit (--max-fetch-time) was reached";

impl Default for FetchOptions {
    /// The command line's defaults.
    fn default() -> Self {
        FetchOptions {
            client: ClientOptions::default(),
            concurrency: 32,
            delay: Duration::from_secs(1),
            max_crawl_delay: Duration::from_secs(10),
            max_host_failures: 5,
            host_time_budget: Duration::from_secs(300),
            max_fetch_time: None,
            max_fetch_time_reason: FETCH_TIME_REACHED,
            allow_private: false,
            page_memory: PAGE_MEMORY,
            sitemaps: sitemap::SitemapOptions::default(),
            queue_by: politeness::QueueBy::Host,
            delay_factor: 0.0,
            stop: crate::shutdown::StopHandle::default(),
            quiet: false,
        }
    }
}

#[derive(Debug, Default, Clone, PartialEq)]
pub struct FetchReport {
    pub round: u32,
    pub urls: usize,
    pub fetched: usize,
    /// Fetched before and answered 304 Not Modified to a conditional request.
    pub not_modified: usize,
    pub redirects: usize,
    pub gone: usize,
    pub errors: usize,
    pub robots_denied: usize,
    /// Not requested now (robots.txt unavailable, back-off, time limits): still unfetched.
    pub deferred: usize,
    /// Refused by the address guard or for their scheme.
    pub refused: usize,
    /// Deferred for the proxy: unreachable, or wanting credentials (in `deferred`).
    pub proxy_unreachable: usize,
    /// What the first of them said.
    pub proxy_error: Option<String>,
    pub bytes: u64,
    /// Sitemap files read (or skipped, each with its reason).
    pub sitemaps: usize,
    /// The phase was asked to stop (SIGINT/SIGTERM) and ended early.
    pub stopped: bool,
    pub seconds: f64,
}

impl FetchReport {
    /// The URLs a server answered (a deferred, refused or robots-denied
    /// one was not asked for).
    pub fn answered(&self) -> usize {
        self.fetched + self.not_modified + self.redirects + self.gone + self.errors
    }
}

impl std::fmt::Display for FetchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "fetch round {:05}: {} URLs in {:.1}s ({:.0} pages/s): {} fetched, {} redirects, {} gone, {} errors, {} denied by robots.txt, {} deferred, {} refused, {} KiB",
            self.round,
            self.urls,
            self.seconds,
            self.answered() as f64 / self.seconds.max(1e-3),
            self.fetched,
            self.redirects,
            self.gone,
            self.errors,
            self.robots_denied,
            self.deferred,
            self.refused,
            self.bytes / 1024
        )?;
        if self.not_modified > 0 {
            write!(f, ", {} not modified", self.not_modified)?;
        }
        if self.sitemaps > 0 {
            write!(f, ", {} sitemap files", self.sitemaps)?;
        }
        if self.proxy_unreachable > 0 {
            // else a failing proxy beside a working one defers its URLs unseen
            write!(
                f,
                "; {} deferred for their proxy (the first: {})",
                self.proxy_unreachable,
                self.proxy_error.as_deref().unwrap_or_default()
            )?;
        }
        if self.stopped {
            write!(
                f,
                "; stopped on request: the deferred URLs are fetched next time"
            )?;
        }
        Ok(())
    }
}

/// Fetched rows queued for the writer thread (bounds fetch memory: with
/// pages of 1 MiB the writer is the slower, and the queue is full).
const ROWS_IN_FLIGHT: usize = 32;
/// Batches of sitemap rows queued for their writer.
const SITEMAP_BATCHES_IN_FLIGHT: usize = 4;
pub use memory_budget::PAGE_MEMORY;

/// Fetches the latest generated round of `crawl`.
pub async fn run(crawl: &CrawlDir, options: &FetchOptions) -> Result<FetchReport> {
    crate::store::parts::refuse_whole(crawl, "fetch")?;
    let round = crawl.round_needing(Phase::Fetchlist, Phase::Fetch)?;
    let started = Instant::now();
    let queues = host_queues(crawl, round, options).await?;
    let urls = queues.iter().map(|q| q.urls.len()).sum();
    let client = client::build(&options.client, options.allow_private)?;
    let sitemaps_dir = crawl.segment(round, Phase::Sitemaps);
    if sitemaps_dir.exists() {
        // Left by a fetch killed between its two renames.
        std::fs::remove_dir_all(&sitemaps_dir).map_err(Error::io(&sitemaps_dir))?;
    }
    let sitemap_writer = SegmentWriter::create(&sitemaps_dir, SITEMAPS.clone())?;
    let (sitemap_tx, sitemap_rx) = mpsc::channel(SITEMAP_BATCHES_IN_FLIGHT);
    let sitemap_thread =
        std::thread::spawn(move || sitemap_rows::write_rows(sitemap_rx, sitemap_writer));
    let writer = SegmentWriter::create(&crawl.segment(round, Phase::Fetch), FETCH.clone())?;

    // Rows waiting for the writer.
    let (tx, rx) = mpsc::channel::<FetchRow>(ROWS_IN_FLIGHT);
    let quiet = options.quiet;
    let activity = ActivityFile::start(crawl.root(), "fetch", round.0, Some(urls as u64));
    let page_memory = memory_budget::PageMemory::new(options.page_memory);
    let memory_room = page_memory.room_for_waiting_rows(host::largest_reservation(options));
    let write_thread = std::thread::spawn(move || {
        rows::write_rows(rx, writer, urls, memory_room, quiet, activity)
    });
    let shared = Arc::new(Shared {
        client,
        permits: Arc::new(Semaphore::new(
            options.concurrency.clamp(1, MAX_CONCURRENCY),
        )),
        page_memory,
        options: options.clone(),
        tx,
        sitemap_tx,
        round: round.0,
        phase_deadline: options.max_fetch_time.and_then(|t| started.checked_add(t)),
    });
    let mut tasks = tokio::task::JoinSet::new();
    for queue in queues {
        tasks.spawn(run_queue(shared.clone(), queue));
    }
    drop(shared);
    let mut records = Vec::new();
    let mut failed = None;
    while let Some(done) = tasks.join_next().await {
        match done {
            Ok(Some(record)) => records.push(record),
            Ok(None) => {}
            Err(e) => {
                failed = Some(format!("a fetch task failed: {e}"));
                // the other tasks end, and with them the writers' rows
                tasks.shutdown().await;
            }
        }
    }
    // both writers joined before any return: what they staged is removed
    // here if the fetch fails, not later by a thread left running
    let written = write_thread.join();
    let sitemaps_written = sitemap_thread.join();
    let failure = |message: String| Error::Fetch {
        round: round.0,
        message,
    };
    if let Some(message) = failed {
        return Err(failure(message));
    }
    let (staged, mut report) =
        written.map_err(|_| failure("the writer thread panicked".into()))??;
    if staged.rows != urls {
        return Err(failure(format!(
            "{} rows for {urls} fetch-list URLs",
            staged.rows
        )));
    }
    if let Some(message) = unreachable_proxy(&report, options) {
        return Err(failure(message));
    }
    let (sitemaps, files) =
        sitemaps_written.map_err(|_| failure("the sitemap writer thread panicked".into()))??;
    report.sitemaps = files;
    report.stopped = options.stop.is_requested();
    hosts::save(crawl, &records, backoff::now_ms())?;
    sitemaps.commit()?;
    staged.commit()?;
    report.round = round.0;
    report.seconds = started.elapsed().as_secs_f64();
    CrawlConfig::record(crawl, "fetch", round.0, &report.to_string())?;
    Ok(report)
}

/// Why the round is refused as a whole: a proxy none of its requests got
/// through (a crawl through it would only defer every URL, round after
/// round). The fetch list stays, to be fetched again.
fn unreachable_proxy(report: &FetchReport, options: &FetchOptions) -> Option<String> {
    let answered = report.answered() + report.robots_denied;
    (answered == 0 && report.proxy_unreachable > 0).then(|| {
        let proxy = options
            .client
            .proxy
            .as_deref()
            .map_or_else(|| "from the environment".to_string(), guard::shown_proxy);
        format!(
            "no request got through the proxy {proxy} ({} of {} URLs failed connecting to it: \
             {}); run fetch again once it answers",
            report.proxy_unreachable,
            report.urls,
            report.proxy_error.as_deref().unwrap_or_default()
        )
    })
}

/// Runs one host's queue. A panic inside it (a bug) still leaves one row
/// per URL: the URLs not yet written get an `error` row naming the panic,
/// and the host's previous record is kept.
async fn run_queue(shared: Arc<Shared>, queue: HostQueue) -> Option<HostRecord> {
    let sent = AtomicUsize::new(0);
    let outcome = AssertUnwindSafe(shared.run(&queue, &sent))
        .catch_unwind()
        .await;
    match outcome {
        Ok(record) => Some(record),
        Err(panic) => {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            let left = &queue.urls[sent.load(Ordering::SeqCst).min(queue.urls.len())..];
            for queued in left {
                let row = rows::unfetched(
                    &queued.url,
                    &queue.host,
                    "error",
                    format!("fetch task panicked (a bug): {why}"),
                );
                if shared.tx.send(row).await.is_err() {
                    break;
                }
            }
            queue.prior
        }
    }
}

/// The round's fetch list grouped by host, in fetch-list order, with what
/// the hosts table knows about each host and its politeness queue.
async fn host_queues(
    crawl: &CrawlDir,
    round: RoundId,
    options: &FetchOptions,
) -> Result<Vec<HostQueue>> {
    let mut queues: BTreeMap<String, Vec<Queued>> = BTreeMap::new();
    let fetchlist = crawl.segment(round, Phase::Fetchlist);
    for batch in read_batches(&fetchlist, 8192)? {
        let batch = conform(&batch?, &FETCHLIST).map_err(|message| Error::SegmentRead {
            path: fetchlist.clone(),
            message,
        })?;
        let urls = column::<StringArray>(&batch, "url")?;
        let hosts = column::<StringArray>(&batch, "host")?;
        let etags = column::<StringArray>(&batch, "etag")?;
        let last_modified = column::<StringArray>(&batch, "last_modified")?;
        for row in 0..batch.num_rows() {
            let validators = Validators {
                etag: opt_str(etags, row).map(str::to_string),
                last_modified: opt_str(last_modified, row).map(str::to_string),
            };
            queues
                .entry(hosts.value(row).to_string())
                .or_default()
                .push(Queued {
                    url: urls.value(row).to_string(),
                    validators,
                });
        }
    }
    let names: HashSet<&str> = queues.keys().map(String::as_str).collect();
    let mut known = hosts::load(crawl, &names)?;
    let hosts: Vec<String> = queues.keys().cloned().collect();
    let proxied = !guard::proxies(options.client.proxy.as_deref()).is_empty();
    let pinned = &options.client.resolve;
    let mut turns = politeness::turns(&hosts, options.queue_by, pinned, proxied).await;
    Ok(queues
        .into_iter()
        .map(|(host, urls)| HostQueue {
            prior: known.remove(&host),
            turn: turns.remove(&host).unwrap_or_default(),
            host,
            urls,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_counts_the_urls_asked_for_not_those_left_waiting() {
        let report = FetchReport {
            urls: 1000,
            fetched: 360,
            errors: 8,
            deferred: 632,
            seconds: 4.0,
            ..FetchReport::default()
        };
        assert!(
            report.to_string().contains("in 4.0s (92 pages/s)"),
            "{report}"
        );
    }

    #[test]
    fn urls_deferred_for_their_proxy_are_named_in_the_round_line() {
        let report = FetchReport {
            urls: 10,
            fetched: 6,
            deferred: 4,
            proxy_unreachable: 4,
            proxy_error: Some("proxy connection refused".into()),
            ..FetchReport::default()
        };
        assert!(
            report
                .to_string()
                .ends_with("; 4 deferred for their proxy (the first: proxy connection refused)"),
            "{report}"
        );
        let fetched = FetchReport {
            fetched: 6,
            ..FetchReport::default()
        };
        assert!(!fetched.to_string().contains("proxy"), "{fetched}");
    }

    #[tokio::test]
    async fn a_panicking_host_task_still_gives_every_url_a_row() {
        let (tx, mut rx) = mpsc::channel(16);
        let (sitemap_tx, _sitemap_rx) = mpsc::channel(16);
        let options = FetchOptions::default();
        let shared = Arc::new(Shared {
            client: client::build(&options.client, false).unwrap(),
            permits: Arc::new(Semaphore::new(1)),
            page_memory: memory_budget::PageMemory::new(PAGE_MEMORY),
            options,
            tx,
            sitemap_tx,
            round: 1,
            phase_deadline: None,
        });
        let urls: Vec<String> = [
            "http://10.0.0.1/a",
            "http://10.0.0.1/panic-in-test",
            "http://10.0.0.1/c",
        ]
        .map(String::from)
        .to_vec();
        let queue = HostQueue {
            host: "10.0.0.1".into(),
            urls: urls
                .iter()
                .map(|url| Queued {
                    url: url.clone(),
                    ..Queued::default()
                })
                .collect(),
            prior: None,
            turn: Default::default(),
        };
        let record = tokio::spawn(run_queue(shared, queue)).await.unwrap();
        assert_eq!(record, None, "the host's previous record is kept");
        let mut rows = Vec::new();
        while let Some(row) = rx.recv().await {
            rows.push(row);
        }
        let got: Vec<(&str, &str)> = rows.iter().map(|r| (r.url.as_str(), r.status)).collect();
        assert_eq!(
            got,
            vec![
                (urls[0].as_str(), "refused"),
                (&urls[1], "error"),
                (&urls[2], "error")
            ]
        );
        let error = rows[2].response.error.as_deref().unwrap();
        assert!(
            error.contains("panicked") && error.contains("a test asked for a panic"),
            "{error}"
        );
    }
}
