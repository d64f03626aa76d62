//! The rows of the `fetch` segment: each fetch-list URL's outcome, how an
//! answer is named, and the writer thread that counts and writes them.
//!
//! Statuses: `fetched`, `not-modified` (304 to a conditional request: the
//! page is as last fetched), `redirect`, `gone` (4xx, or a redirect that
//! cannot be followed: no Location, or one not http(s)), `error` (5xx, network;
//! retried in a later round), `robots_denied`, `deferred` (not requested now:
//! robots.txt unavailable, 429/503 back-off, too many failures in a row, the
//! host's time budget or the phase's deadline; the URL keeps its retries),
//! `refused` (the address guard or an unsupported scheme; final).

use std::sync::Arc;

use datafusion::arrow::array::{
    BinaryArray, BinaryBuilder, BooleanArray, Int32Array, Int64Array, RecordBatch, StringArray,
    TimestampMillisecondArray,
};
use tokio::sync::mpsc;

use super::backoff::{asks_to_wait, now_ms};
use super::client::Response;
use super::progress::Progress;
use super::FetchReport;
use crate::error::Result;
use crate::store::activity::ActivityFile;
use crate::store::schema::FETCH;
use crate::store::segment::Staged;
use crate::store::SegmentWriter;

/// The largest `--max-content-bytes`: a batch's page bytes sit in one
/// Arrow column, whose 32-bit offsets hold under 2 GiB — up to
/// [`BATCH_BYTES`] of earlier rows plus one page at the cap.
pub const MAX_CONTENT_CAP: usize = 1 << 30;

/// Rows buffered before a batch is written ...
const BATCH_ROWS: usize = 256;
/// ... or page bytes, whichever comes first (pages may be 1 MiB each).
const BATCH_BYTES: usize = 32 << 20;

/// The request failed connecting to the proxy (or robots.txt's did).
fn never_reached_the_proxy(error: &str) -> bool {
    error.contains(super::proxy_pool::UNREACHABLE)
}

/// One fetch-list URL's outcome: a row of the `fetch` segment.
#[derive(Debug)]
pub struct FetchRow {
    pub url: String,
    pub host: String,
    pub status: &'static str,
    pub response: Response,
    pub redirect_to: Option<String>,
    /// The page memory its body holds until the row is written.
    pub memory: Option<super::memory_budget::Reserved>,
}

impl FetchReport {
    /// Counts one row.
    fn add(&mut self, row: &FetchRow) {
        self.bytes += row.response.content.len() as u64;
        if let Some(error) = row
            .response
            .error
            .as_deref()
            .filter(|e| never_reached_the_proxy(e))
        {
            self.proxy_unreachable += 1;
            self.proxy_error.get_or_insert_with(|| error.to_string());
        }
        match row.status {
            "fetched" => self.fetched += 1,
            "not-modified" => self.not_modified += 1,
            "redirect" => self.redirects += 1,
            "gone" => self.gone += 1,
            "robots_denied" => self.robots_denied += 1,
            "deferred" => self.deferred += 1,
            "refused" => self.refused += 1,
            _ => self.errors += 1,
        }
    }
}

impl FetchRow {
    /// The body as received when the `content` column does not hold it.
    fn payload(&self) -> Option<&[u8]> {
        let response = &self.response;
        match (&response.payload, self.status) {
            (Some(payload), _) => Some(payload),
            (None, "fetched") => None,
            (None, _) => response.http_status.map(|_| response.content.as_slice()),
        }
    }
}

/// A row for a URL that was not requested (or whose request was cut off).
pub fn unfetched(url: &str, host: &str, status: &'static str, error: String) -> FetchRow {
    FetchRow {
        url: url.to_string(),
        host: host.to_string(),
        status,
        response: Response {
            error: Some(error),
            fetched_at_ms: now_ms(),
            ..Response::default()
        },
        redirect_to: None,
        memory: None,
    }
}

/// Names the outcome of a GET: `fetched`, `redirect`, `gone`, `error`,
/// `deferred` (429 or 503: the host asked to wait) or `refused` (the
/// guard's resolver).
pub fn classify(url: String, host: String, mut response: Response) -> FetchRow {
    let mut redirect_to = None;
    let status = match (response.http_status, &response.error) {
        _ if response.refused => "refused",
        (status, None) if asks_to_wait(status) => "deferred",
        // the proxy, not the page, failed: the URL waits, its retries kept
        (_, Some(error)) if never_reached_the_proxy(error) => "deferred",
        (_, Some(_)) | (None, _) => "error",
        (Some(200..=299), None) => "fetched",
        (Some(304), None) if response.conditional => "not-modified",
        (Some(304), None) => {
            response.error = Some("304 Not Modified to a request without validators".into());
            "error"
        }
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
                // the server's answer, not a passing failure: asking again
                // brings the same (as a 4xx does)
                Some(Err(why)) => {
                    response.error = Some(format!("redirect Location: {why}"));
                    "gone"
                }
                None => {
                    response.error = Some("redirect without a Location header".into());
                    "gone"
                }
            }
        }
        (Some(400..=499), None) => "gone",
        (Some(status), None) => {
            // 5xx, or a code no answer to a GET has (101 Switching Protocols)
            response.error = Some(format!("answered HTTP {status}"));
            "error"
        }
    };
    FetchRow {
        url,
        host,
        status,
        response,
        redirect_to,
        memory: None,
    }
}

/// The writer thread: rows from the host queues into the `fetch` segment,
/// in batches; a batch is written early once its rows hold
/// `memory_room` bytes of page memory
/// ([`PageMemory::room_for_waiting_rows`](super::memory_budget::PageMemory::room_for_waiting_rows)).
pub fn write_rows(
    mut rx: mpsc::Receiver<FetchRow>,
    mut writer: SegmentWriter,
    total: usize,
    memory_room: usize,
    quiet: bool,
    mut activity: ActivityFile,
) -> Result<(Staged, FetchReport)> {
    let mut report = FetchReport {
        urls: total,
        ..FetchReport::default()
    };
    let mut progress = Progress::new(total as u64, quiet);
    let mut buffer = Vec::with_capacity(BATCH_ROWS);
    let (mut bytes, mut held) = (0, 0);
    while let Some(row) = rx.blocking_recv() {
        report.add(&row);
        progress.record(row.response.content.len(), row.status == "error");
        activity.update(progress.done());
        bytes += row.response.content.len();
        held += row.memory.as_ref().map_or(0, |m| m.bytes());
        buffer.push(row);
        if buffer.len() >= BATCH_ROWS || bytes >= BATCH_BYTES || held >= memory_room {
            writer.write(&to_batch(&buffer))?;
            buffer.clear();
            (bytes, held) = (0, 0);
        }
    }
    writer.write(&to_batch(&buffer))?;
    progress.finish();
    Ok((writer.finish()?, report))
}

/// A column of page bytes, its buffer sized once (collecting grows it to
/// up to twice the bytes, and a batch holds up to `BATCH_BYTES`).
fn binary(rows: &[FetchRow], bytes: fn(&FetchRow) -> Option<&[u8]>) -> Arc<BinaryArray> {
    let total = rows.iter().filter_map(bytes).map(<[u8]>::len).sum();
    let mut column = BinaryBuilder::with_capacity(rows.len(), total);
    for row in rows {
        column.append_option(bytes(row));
    }
    Arc::new(column.finish())
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
        binary(rows, |r| {
            (r.status == "fetched").then_some(r.response.content.as_slice())
        }),
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
        strings(|r| r.response.request.as_deref()),
        strings(|r| r.response.http_version.as_deref()),
        strings(|r| r.response.remote_ip.as_deref()),
        binary(rows, FetchRow::payload),
        strings(|r| r.response.payload_truncated),
        strings(|r| r.response.vary.as_deref()),
        strings(|r| r.response.etag.as_deref()),
        strings(|r| r.response.last_modified.as_deref()),
    ];
    RecordBatch::try_new(FETCH.clone(), columns).expect("fetch rows match the fetch schema")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answered(status: u16) -> Response {
        Response {
            http_status: Some(status),
            ..Response::default()
        }
    }

    fn status_of(response: Response) -> &'static str {
        classify("http://a.jp/x".into(), "a.jp".into(), response).status
    }

    #[test]
    fn answers_are_named() {
        assert_eq!(status_of(answered(200)), "fetched");
        assert_eq!(status_of(answered(304)), "error", "not asked conditionally");
        let conditional = Response {
            conditional: true,
            ..answered(304)
        };
        assert_eq!(status_of(conditional), "not-modified");
        assert_eq!(status_of(answered(404)), "gone");
        assert_eq!(status_of(answered(410)), "gone");
        assert_eq!(status_of(answered(429)), "deferred");
        assert_eq!(status_of(answered(503)), "deferred");
        assert_eq!(status_of(answered(500)), "error");
        assert_eq!(status_of(answered(301)), "gone", "no Location");
        for location in ["ftp://a.jp/y", "javascript:void(0)", "http://a.jp:99999/"] {
            let row = classify(
                "http://a.jp/x".into(),
                "a.jp".into(),
                Response {
                    location: Some(location.into()),
                    ..answered(302)
                },
            );
            assert_eq!(row.status, "gone", "{location}: final, not retried");
            assert!(row
                .response
                .error
                .is_some_and(|e| e.starts_with("redirect Location")));
        }
        let switching = classify("http://a.jp/x".into(), "a.jp".into(), answered(101));
        assert_eq!(switching.status, "error");
        assert_eq!(
            switching.response.error.as_deref(),
            Some("answered HTTP 101")
        );
        let mut moved = answered(301);
        moved.location = Some("/y".into());
        let row = classify("http://a.jp/x".into(), "a.jp".into(), moved);
        assert_eq!(
            (row.status, row.redirect_to.as_deref()),
            ("redirect", Some("http://a.jp/y"))
        );
        let refused = Response {
            refused: true,
            error: Some("private-address: loopback".into()),
            ..Response::default()
        };
        assert_eq!(status_of(refused), "refused");
        let proxy_down = Response {
            error: Some("connecting to the proxy 127.0.0.1:1: Connection refused".into()),
            ..Response::default()
        };
        assert_eq!(status_of(proxy_down), "deferred", "not the page's failure");
    }
}
