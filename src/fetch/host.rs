//! One host's queue in a fetch run: the address guard for each URL, the
//! host's robots.txt (`robots_txt`: cached or fetched, per origin), the
//! politeness delay, and the
//! back-off rules (`backoff::HostPace`) that stop the queue early. Every URL
//! of the queue gets exactly one row, in order.

mod robots_txt;

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::client::Client;
use tokio::sync::{mpsc, Semaphore};

use super::backoff::{http_date, now_ms, HostPace};
use super::client::{self, Response, Validators};
use super::hosts::HostRecord;
use super::memory_budget::Reserved;
use super::politeness::{self, Turn};
use super::robots::Robots;
use super::rows::{classify, unfetched, FetchRow};
use super::sitemap;
use super::sitemap_read;
use super::sitemap_read::MAX_DECODED_BYTES;
use super::sitemap_rows::{SitemapRow, BATCH_ROWS};
use super::{guard, FetchOptions};
use crate::shutdown;

/// The most page memory reading a sitemap file reserves beside the file:
/// its decoded text and the rows it gives.
const SITEMAP_WORKING: usize = 96 << 20;

/// The most page memory one request of a fetch with `options` reserves at
/// once: a page at the content cap, or a sitemap file read.
pub(super) fn largest_reservation(options: &super::FetchOptions) -> usize {
    let page = options
        .client
        .max_content_bytes
        .min(super::rows::MAX_CONTENT_CAP);
    if options.sitemaps.read {
        page.max(MAX_DECODED_BYTES + SITEMAP_WORKING)
    } else {
        page
    }
}

/// What every host's queue shares.
pub struct Shared {
    pub client: Client,
    pub permits: Arc<Semaphore>,
    pub page_memory: super::memory_budget::PageMemory,
    pub options: FetchOptions,
    pub tx: mpsc::Sender<FetchRow>,
    /// The rows of the sitemaps read, a file's at a time.
    pub sitemap_tx: mpsc::Sender<Vec<SitemapRow>>,
    /// The round fetched.
    pub round: u32,
    /// When the whole phase stops (`--max-fetch-time`).
    pub phase_deadline: Option<Instant>,
}

/// A fetch-list URL, with its validators when it was fetched before.
#[derive(Debug, Clone, Default)]
pub struct Queued {
    pub url: String,
    pub validators: Validators,
}

/// A host's URLs in fetch-list order, and what the hosts table knew of it.
pub struct HostQueue {
    pub host: String,
    pub urls: Vec<Queued>,
    pub prior: Option<HostRecord>,
    /// The politeness queue it takes turns in (its own, or shared with
    /// the hosts of its domain or address).
    pub turn: Arc<Turn>,
}

/// The state of one host's queue while it runs.
struct HostRun<'a> {
    shared: &'a Shared,
    host: &'a str,
    pace: HostPace,
    record: HostRecord,
    robots: Option<Robots>,
    /// The rules of the host's other origins, fetched this run.
    other_robots: HashMap<String, Robots>,
    /// robots.txt was fetched now (not reused): its sitemaps are read.
    robots_fresh: bool,
    /// The delay robots.txt and `--delay-ms` give, and the delay now
    /// (`--delay-factor` stretches it after a slow answer).
    base_delay: Duration,
    delay: Duration,
    turn: &'a Turn,
    budget_started: bool,
}

impl Shared {
    /// Fetches `queue`, sending one row per URL (`sent` counts them), and
    /// returns the host's record for the hosts table.
    pub async fn run(&self, queue: &HostQueue, sent: &AtomicUsize) -> HostRecord {
        let mut run = HostRun::new(self, queue);
        for queued in &queue.urls {
            let row = run.outcome(&queued.url, &queued.validators).await;
            if self.tx.send(row).await.is_err() {
                break;
            }
            sent.fetch_add(1, Ordering::SeqCst);
        }
        run.finish()
    }
}

impl<'a> HostRun<'a> {
    fn new(shared: &'a Shared, queue: &'a HostQueue) -> Self {
        let record = queue.prior.clone().unwrap_or_else(|| HostRecord {
            host: queue.host.clone(),
            ..HostRecord::default()
        });
        let mut pace = HostPace::new(record.failures, shared.options.max_host_failures);
        if let Some(at) = shared.phase_deadline {
            pace.set_deadline(at, shared.options.max_fetch_time_reason.into());
        }
        if let Some(until) = record.deferred_until_ms.filter(|&t| t > now_ms()) {
            let why = record.deferred_reason.as_deref().unwrap_or("back-off");
            pace.stop(format!("host deferred until {}: {why}", http_date(until)));
        }
        HostRun {
            shared,
            host: &queue.host,
            pace,
            record,
            robots: None,
            other_robots: HashMap::new(),
            robots_fresh: false,
            base_delay: shared.options.delay,
            delay: shared.options.delay,
            turn: &queue.turn,
            budget_started: false,
        }
    }

    /// The row of one URL (a conditional request when it has validators).
    async fn outcome(&mut self, url: &str, validators: &Validators) -> FetchRow {
        #[cfg(test)]
        if url.ends_with("/panic-in-test") {
            panic!("a test asked for a panic at {url}");
        }
        let parsed = match url::Url::parse(url) {
            Ok(parsed) => parsed,
            Err(e) => return self.row(url, "refused", format!("invalid URL: {e}")),
        };
        if let Some(why) = guard::refusal(&parsed, self.shared.options.allow_private) {
            return self.row(url, "refused", why);
        }
        if self.shared.options.stop.is_requested() {
            self.pace.stop(shutdown::STOPPED.into());
        }
        if self.pace.stopped.is_none() && self.robots.is_none() {
            self.load_robots(&parsed).await;
            self.read_sitemaps(&parsed).await;
        }
        if let Some(why) = &self.pace.stopped {
            return self.row(url, "deferred", why.clone());
        }
        match self.robots_allow(&parsed).await {
            Ok(true) => {}
            Ok(false) => return self.row(url, "robots_denied", "disallowed by robots.txt".into()),
            Err(why) => return self.row(url, "deferred", why),
        }
        // the command line refuses a larger cap; a library caller gets it cut
        let max_bytes = self
            .shared
            .options
            .client
            .max_content_bytes
            .min(super::rows::MAX_CONTENT_CAP);
        let Some((response, memory)) = self.polite_get(url, max_bytes, validators).await else {
            return self.deferred(url);
        };
        let mut row = classify(url.to_string(), self.host.to_string(), response);
        row.memory = Some(memory);
        if row.status == "deferred" && row.response.error.is_none() {
            row.response.error = self.pace.stopped.clone();
        }
        row
    }

    fn row(&self, url: &str, status: &'static str, why: String) -> FetchRow {
        unfetched(url, self.host, status, why)
    }

    fn deferred(&self, url: &str) -> FetchRow {
        let why = self.pace.stopped.clone().unwrap_or_default();
        self.row(url, "deferred", why)
    }

    /// Reads the host's sitemaps when its robots.txt was fetched now (or
    /// this round's fetch read them before it was cut short), within a
    /// quarter of the host's time budget, sending their rows in batches.
    async fn read_sitemaps(&mut self, any_url: &url::Url) {
        let (options, round) = (self.shared.options.sitemaps, self.shared.round);
        let due = self.robots_fresh || self.record.sitemaps_round == Some(round);
        if !options.read || !due || self.pace.stopped.is_some() {
            return;
        }
        self.record.sitemaps_round = Some(round);
        let named = self
            .robots
            .as_ref()
            .map(Robots::sitemaps)
            .unwrap_or_default();
        let mut walk = sitemap::Walk::new(
            self.host,
            sitemap::first_files(named, any_url, options.guess),
        );
        let share = self.shared.options.host_time_budget / 4;
        let started = Instant::now();
        let mut rows = Vec::new();
        while let Some((file, url)) = walk.next_file(&mut rows) {
            let _memory = if started.elapsed() > share {
                let why =
                    "the host's time for sitemaps (a quarter of --host-time-budget) is used up";
                rows.push(walk.file_row(&file, "skipped", Some(why.into())));
                None
            } else {
                self.read_sitemap(&mut walk, &file, &url, &mut rows).await
            };
            for batch in rows.chunks(BATCH_ROWS) {
                if self.shared.sitemap_tx.send(batch.to_vec()).await.is_err() {
                    return;
                }
            }
            rows.clear();
        }
        if !rows.is_empty() {
            let _ = self.shared.sitemap_tx.send(rows).await;
        }
    }

    /// Reads one sitemap file into `rows` (the XML read off the runtime's
    /// threads); the page memory it holds until its rows are sent.
    async fn read_sitemap(
        &mut self,
        walk: &mut sitemap::Walk,
        file: &sitemap::File,
        url: &url::Url,
        rows: &mut Vec<SitemapRow>,
    ) -> Option<Reserved> {
        let (mut response, memory) = match self.sitemap_get(url).await {
            Ok(got) => got,
            Err(why) => {
                rows.push(walk.file_row(file, "skipped", Some(why)));
                return None;
            }
        };
        if let Some(row) = walk.failed(file, url, &response) {
            rows.push(row);
            return Some(memory);
        }
        // the reader's buffers and the rows, about: what the file decodes
        // to is not known yet. Reserved with the file's bytes in one go, the
        // file's own reservation given back first: waiting for more while
        // holding some could wait for ever on a budget smaller than both.
        let content = std::mem::take(&mut response.content);
        let working = (8 * content.len()).clamp(1 << 20, SITEMAP_WORKING);
        drop(memory);
        let working = self
            .shared
            .page_memory
            .reserve(working + content.len())
            .await;
        let read = tokio::task::spawn_blocking(move || (sitemap_read::read(&content), content));
        match read.await {
            Ok((sitemap, content)) => {
                // back for the rows, which say where a cut file ends
                response.content = content;
                rows.extend(walk.rows(file, url, &response, sitemap))
            }
            Err(e) => rows.push(walk.file_row(file, "failed", Some(format!("reading: {e}")))),
        }
        Some(working)
    }

    /// GETs a sitemap file as the queue GETs a page (the guard, the
    /// host's robots.txt, delay and deadline, back-off on its answer);
    /// `Err` says why it was not requested.
    async fn sitemap_get(&mut self, url: &url::Url) -> Result<(Response, Reserved), String> {
        if let Some(why) = guard::refusal(url, self.shared.options.allow_private) {
            return Err(why);
        }
        if url.host_str() == Some(self.host) && !self.robots_allow(url).await? {
            return Err("disallowed by robots.txt".into());
        }
        let got = self
            .polite_get(url.as_str(), MAX_DECODED_BYTES, &Validators::default())
            .await;
        got.ok_or_else(|| self.pace.stopped.clone().unwrap_or_default())
    }

    /// GETs `url` in the host's turn of its politeness queue, the host's
    /// delay after the queue's last request, holding `max_bytes` of page
    /// memory until the body is in (then what it takes); the answer counts
    /// for the host's back-off and, with `--delay-factor`, its delay.
    /// `None`, the queue stopped, when the deadline or a stop request
    /// comes first.
    async fn polite_get(
        &mut self,
        url: &str,
        max_bytes: usize,
        validators: &Validators,
    ) -> Option<(Response, Reserved)> {
        let turn = self.turn;
        let mut last = turn.take().await;
        let wait = politeness::wait(&last, self.delay);
        if !self.pace.may_continue(wait) || !self.pause(wait).await {
            return None;
        }
        let mut memory = self.shared.page_memory.reserve(max_bytes).await;
        let response = self.get(url, max_bytes, validators).await?;
        memory.shrink_to(response.content.len() + response.payload.as_ref().map_or(0, Vec::len));
        *last = Some(Instant::now());
        self.pace.record(&response);
        let options = &self.shared.options;
        let elapsed = Duration::from_millis(u64::try_from(response.elapsed_ms).unwrap_or(0));
        self.delay = politeness::stretched(
            self.base_delay,
            options.delay_factor,
            elapsed,
            options.max_crawl_delay,
        );
        Some((response, memory))
    }
    /// Starts the host's time budget when it first gets a connection slot.
    async fn start_budget(&mut self) {
        if self.budget_started {
            return;
        }
        // Waiting for a slot does not use up the host's budget.
        let _slot = within(self.pace.deadline(), self.shared.permits.acquire()).await;
        self.budget_started = true;
        let budget = self.shared.options.host_time_budget;
        if let Some(at) = Instant::now().checked_add(budget) {
            self.pace.set_deadline(
                at,
                format!(
                    "the host's time budget of {}s (--host-time-budget) was used up",
                    budget.as_secs_f64()
                ),
            );
        }
    }

    /// Waits `wait` (the politeness delay); false, and the queue stopped,
    /// if a stop is requested meanwhile.
    async fn pause(&mut self, wait: Duration) -> bool {
        let stop = &self.shared.options.stop;
        tokio::select! {
            _ = politeness::sleep(wait) => true,
            _ = stop.requested() => {
                self.pace.stop(shutdown::STOPPED.into());
                false
            }
        }
    }

    /// GETs `url` within the host's deadline; `None` (and the queue
    /// stopped) if the deadline came first, or the grace after a stop
    /// request.
    async fn get(
        &mut self,
        url: &str,
        max_bytes: usize,
        validators: &Validators,
    ) -> Option<Response> {
        self.start_budget().await;
        let stop = &self.shared.options.stop;
        let got = tokio::select! {
            got = within(self.pace.deadline(), self.shared.get(url, max_bytes, validators)) => got,
            _ = stop.grace_over() => {
                self.pace.stop(shutdown::STOPPED.into());
                None
            }
        };
        if got.is_none() {
            self.pace.may_continue(Duration::ZERO);
        }
        got
    }

    fn finish(mut self) -> HostRecord {
        self.record.failures = self.pace.failures();
        if let Some(until) = self.pace.deferred_until_ms {
            self.record.deferred_until_ms = Some(until);
            self.record.deferred_reason = self.pace.stopped.take();
        }
        self.record
    }
}

impl Shared {
    /// One GET, holding a connection slot.
    async fn get(&self, url: &str, max_bytes: usize, validators: &Validators) -> Response {
        let _permit = self.permits.acquire().await;
        client::get_if(&self.client, url, max_bytes, validators).await
    }
}

/// `future`'s output, or `None` if `deadline` comes first.
async fn within<F: Future>(deadline: Option<Instant>, future: F) -> Option<F::Output> {
    match deadline {
        Some(at) => tokio::time::timeout_at(at.into(), future).await.ok(),
        None => Some(future.await),
    }
}
