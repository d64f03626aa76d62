//! The fetch phase: GET every URL of the round's fetch list, politely (one
//! queue per host, a delay between its requests, robots.txt obeyed) and
//! concurrently across hosts, and write the `fetch` segment.

pub mod client;
pub mod progress;
pub mod robots;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use datafusion::arrow::array::{
    BinaryArray, BooleanArray, Int32Array, Int64Array, RecordBatch, StringArray,
    TimestampMillisecondArray,
};
use reqwest::Client;
use tokio::sync::{mpsc, Semaphore};

use crate::error::{Error, Result};
use crate::store::rows::column;
use crate::store::schema::FETCH;
use crate::store::{read_batches, CrawlConfig, CrawlDir, Phase, RoundId, SegmentWriter};
use client::{ClientOptions, Response};
use robots::Robots;

/// Rows buffered before a batch is written.
const BATCH_ROWS: usize = 256;

#[derive(Debug, Clone)]
pub struct FetchOptions {
    pub client: ClientOptions,
    /// Requests in flight across all hosts.
    pub concurrency: usize,
    /// Pause between two requests to one host.
    pub delay: Duration,
    /// The most a robots.txt Crawl-delay may slow a host down.
    pub max_crawl_delay: Duration,
    /// Lift the address guard (`crate::address`): fetch loopback and private hosts.
    pub allow_private: bool,
    pub quiet: bool,
}

impl Default for FetchOptions {
    /// The command line's defaults.
    fn default() -> Self {
        FetchOptions {
            client: ClientOptions::default(),
            concurrency: 32,
            delay: Duration::from_secs(1),
            max_crawl_delay: Duration::from_secs(10),
            allow_private: false,
            quiet: false,
        }
    }
}

#[derive(Debug, Default, Clone, PartialEq)]
pub struct FetchReport {
    pub round: u32,
    pub urls: usize,
    pub fetched: usize,
    pub redirects: usize,
    pub gone: usize,
    pub errors: usize,
    pub robots_denied: usize,
    pub bytes: u64,
    pub seconds: f64,
}

impl std::fmt::Display for FetchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "fetch round {:05}: {} URLs in {:.1}s ({:.0} pages/s): {} fetched, {} redirects, {} gone, {} errors, {} denied by robots.txt, {} KiB",
            self.round,
            self.urls,
            self.seconds,
            self.urls as f64 / self.seconds.max(1e-3),
            self.fetched,
            self.redirects,
            self.gone,
            self.errors,
            self.robots_denied,
            self.bytes / 1024
        )
    }
}

/// One fetch-list URL's outcome: a row of the `fetch` segment.
#[derive(Debug)]
pub struct FetchRow {
    pub url: String,
    pub host: String,
    pub status: &'static str,
    pub response: Response,
    pub redirect_to: Option<String>,
}

/// Fetches the latest generated round of `crawl`.
pub async fn run(crawl: &CrawlDir, options: &FetchOptions) -> Result<FetchReport> {
    let round = crawl.round_needing(Phase::Fetchlist, Phase::Fetch, "parse")?;
    let queues = host_queues(crawl, round)?;
    let urls = queues.values().map(Vec::len).sum();
    let client = client::build(&options.client)?;
    let writer = SegmentWriter::create(&crawl.segment(round, Phase::Fetch), FETCH.clone())?;
    let started = Instant::now();

    let (tx, rx) = mpsc::channel::<FetchRow>(1024);
    let quiet = options.quiet;
    let write_thread = std::thread::spawn(move || write_rows(rx, writer, urls, quiet));
    let permits = Arc::new(Semaphore::new(options.concurrency.max(1)));
    let mut tasks = tokio::task::JoinSet::new();
    for (host, urls) in queues {
        let host_fetch = HostFetch {
            client: client.clone(),
            permits: permits.clone(),
            options: options.clone(),
            tx: tx.clone(),
        };
        tasks.spawn(async move { host_fetch.run(host, urls).await });
    }
    drop(tx);
    while tasks.join_next().await.is_some() {}
    let (staged, mut report) = write_thread
        .join()
        .map_err(|_| Error::Other("fetch writer thread panicked".into()))??;
    staged.commit()?;
    report.round = round.0;
    report.seconds = started.elapsed().as_secs_f64();
    CrawlConfig::record(crawl, "fetch", round.0, &report.to_string())?;
    Ok(report)
}

/// The round's fetch list grouped by host, in fetch-list order.
fn host_queues(crawl: &CrawlDir, round: RoundId) -> Result<BTreeMap<String, Vec<String>>> {
    let mut queues: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for batch in read_batches(&crawl.segment(round, Phase::Fetchlist), 8192)? {
        let batch = batch?;
        let urls = column::<StringArray>(&batch, "url")?;
        let hosts = column::<StringArray>(&batch, "host")?;
        for row in 0..batch.num_rows() {
            queues
                .entry(hosts.value(row).to_string())
                .or_default()
                .push(urls.value(row).to_string());
        }
    }
    Ok(queues)
}

/// Everything one host's queue needs.
struct HostFetch {
    client: Client,
    permits: Arc<Semaphore>,
    options: FetchOptions,
    tx: mpsc::Sender<FetchRow>,
}

impl HostFetch {
    async fn run(self, host: String, urls: Vec<String>) {
        let robots = self.robots(&urls[0]).await;
        let delay = robots::host_delay(
            self.options.delay,
            robots.crawl_delay(),
            self.options.max_crawl_delay,
        );
        let mut first = true;
        for url in urls {
            let row = match &robots {
                Robots::Unavailable(why) => unfetched(&url, &host, "error", why.clone()),
                robots if !robots.allows(&url) => unfetched(
                    &url,
                    &host,
                    "robots_denied",
                    "disallowed by robots.txt".into(),
                ),
                _ => {
                    if !first && !delay.is_zero() {
                        tokio::time::sleep(delay).await;
                    }
                    first = false;
                    self.fetch(url, host.clone()).await
                }
            };
            if self.tx.send(row).await.is_err() {
                return;
            }
        }
    }

    async fn robots(&self, any_url: &str) -> Robots {
        let Some(robots_url) = url::Url::parse(any_url)
            .ok()
            .and_then(|u| u.join("/robots.txt").ok())
        else {
            return Robots::AllowAll;
        };
        let _permit = self.permits.acquire().await;
        let response = client::get(&self.client, robots_url.as_str(), 512 * 1024).await;
        match (response.http_status, response.error) {
            (_, Some(error)) => Robots::Unavailable(format!("robots.txt: {error}")),
            (Some(status), None) => Robots::from_response(
                robots::agent_token(&self.options.client.user_agent),
                status,
                &response.content,
            ),
            (None, None) => Robots::Unavailable("robots.txt: no answer".into()),
        }
    }

    async fn fetch(&self, url: String, host: String) -> FetchRow {
        let _permit = self.permits.acquire().await;
        let response = client::get(&self.client, &url, self.options.client.max_content_bytes).await;
        classify(url, host, response)
    }
}

fn unfetched(url: &str, host: &str, status: &'static str, error: String) -> FetchRow {
    FetchRow {
        url: url.to_string(),
        host: host.to_string(),
        status,
        response: Response {
            error: Some(error),
            fetched_at_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as i64),
            ..Response::default()
        },
        redirect_to: None,
    }
}

/// Names the outcome of a GET: `fetched`, `redirect`, `gone` or `error`.
pub fn classify(url: String, host: String, mut response: Response) -> FetchRow {
    let mut redirect_to = None;
    let status = match (response.http_status, &response.error) {
        (_, Some(_)) | (None, _) => "error",
        (Some(200..=299), None) => "fetched",
        (Some(300..=399), None) => {
            let base = url::Url::parse(&url).ok();
            match response
                .location
                .as_deref()
                .map(|l| crate::urls::resolve(base.as_ref(), l))
            {
                Some(Ok(target)) => {
                    redirect_to = Some(target.to_string());
                    "redirect"
                }
                Some(Err(why)) => {
                    response.error = Some(format!("redirect Location: {why}"));
                    "error"
                }
                None => {
                    response.error = Some("redirect without a Location header".into());
                    "error"
                }
            }
        }
        (Some(400..=499), None) => "gone",
        (Some(_), None) => "error",
    };
    FetchRow {
        url,
        host,
        status,
        response,
        redirect_to,
    }
}

/// The writer thread: rows from the host queues into the `fetch` segment.
fn write_rows(
    mut rx: mpsc::Receiver<FetchRow>,
    mut writer: SegmentWriter,
    total: usize,
    quiet: bool,
) -> Result<(crate::store::segment::Staged, FetchReport)> {
    let mut report = FetchReport {
        urls: total,
        ..FetchReport::default()
    };
    let mut progress = progress::Progress::new(total as u64, quiet);
    let mut buffer = Vec::with_capacity(BATCH_ROWS);
    while let Some(row) = rx.blocking_recv() {
        count(&mut report, &row);
        progress.record(row.response.content.len(), row.status == "error");
        buffer.push(row);
        if buffer.len() >= BATCH_ROWS {
            writer.write(&to_batch(&buffer))?;
            buffer.clear();
        }
    }
    writer.write(&to_batch(&buffer))?;
    progress.finish();
    Ok((writer.finish()?, report))
}

fn count(report: &mut FetchReport, row: &FetchRow) {
    report.bytes += row.response.content.len() as u64;
    match row.status {
        "fetched" => report.fetched += 1,
        "redirect" => report.redirects += 1,
        "gone" => report.gone += 1,
        "robots_denied" => report.robots_denied += 1,
        _ => report.errors += 1,
    }
}

fn to_batch(rows: &[FetchRow]) -> RecordBatch {
    let strings = |f: fn(&FetchRow) -> Option<&str>| -> Arc<StringArray> {
        Arc::new(rows.iter().map(f).collect::<StringArray>())
    };
    let fetched_at: TimestampMillisecondArray = rows
        .iter()
        .map(|r| Some(r.response.fetched_at_ms))
        .collect();
    let columns: Vec<Arc<dyn datafusion::arrow::array::Array>> = vec![
        strings(|r| Some(&r.url)),
        strings(|r| Some(&r.host)),
        strings(|r| Some(r.status)),
        Arc::new(
            rows.iter()
                .map(|r| r.response.http_status.map(i32::from))
                .collect::<Int32Array>(),
        ),
        strings(|r| r.redirect_to.as_deref()),
        strings(|r| r.response.content_type.as_deref()),
        strings(|r| r.response.headers.as_deref()),
        Arc::new(
            rows.iter()
                .map(|r| (r.status == "fetched").then_some(r.response.content.as_slice()))
                .collect::<BinaryArray>(),
        ),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.response.content.len() as i64))
                .collect::<Int64Array>(),
        ),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.response.truncated))
                .collect::<BooleanArray>(),
        ),
        Arc::new(fetched_at.with_timezone("UTC")),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.response.elapsed_ms))
                .collect::<Int64Array>(),
        ),
        strings(|r| r.response.error.as_deref()),
    ];
    RecordBatch::try_new(FETCH.clone(), columns).expect("fetch rows match the fetch schema")
}
