//! A response as it arrives, from reqwest or over a pooled proxy
//! connection (`proxy_pool`), read into a [`Response`]: the status line and
//! headers, the payload up to the content cap (cut by the cap, the total
//! timeout or a disconnect), decoded by `body`.

use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use http_body_util::BodyExt;
use reqwest::header::{
    HeaderMap, HeaderName, HeaderValue, CONTENT_ENCODING, CONTENT_TYPE, ETAG, LAST_MODIFIED,
    LOCATION, RETRY_AFTER, VARY,
};

use super::body;
use super::client::{error_chain, Response};
use super::proxy_pool::{Connection, ProxyPool};

/// A response whose body is still to be read: from reqwest, or over a
/// pooled proxy connection (given back once the body is read whole).
pub(super) enum Reply {
    Reqwest(reqwest::Response),
    Pooled {
        response: hyper::Response<hyper::body::Incoming>,
        connection: Option<Connection>,
        pool: Arc<ProxyPool>,
        deadline: Instant,
    },
}

/// A body chunk that could not be read: a timeout, or why not.
struct ChunkError {
    timeout: bool,
    message: String,
}

impl Reply {
    fn headers(&self) -> &HeaderMap {
        match self {
            Reply::Reqwest(r) => r.headers(),
            Reply::Pooled { response, .. } => response.headers(),
        }
    }

    /// The status, the HTTP version and the remote address.
    fn status_line(&self) -> (u16, reqwest::Version, Option<std::net::SocketAddr>) {
        match self {
            Reply::Reqwest(r) => (r.status().as_u16(), r.version(), r.remote_addr()),
            Reply::Pooled {
                response,
                connection,
                ..
            } => (
                response.status().as_u16(),
                response.version(),
                connection.as_ref().map(|c| c.peer),
            ),
        }
    }

    fn content_length(&self) -> Option<u64> {
        match self {
            Reply::Reqwest(r) => r.content_length(),
            Reply::Pooled { response, .. } => hyper::body::Body::size_hint(response.body()).exact(),
        }
    }

    /// The next chunk of the body, `None` at its end.
    async fn chunk(&mut self) -> Result<Option<Bytes>, ChunkError> {
        match self {
            Reply::Reqwest(r) => r.chunk().await.map_err(|e| ChunkError {
                timeout: e.is_timeout(),
                message: error_chain(&e),
            }),
            Reply::Pooled {
                response,
                connection,
                pool,
                deadline,
            } => loop {
                let frame =
                    tokio::time::timeout_at((*deadline).into(), response.body_mut().frame());
                match frame.await {
                    Err(_) => {
                        return Err(ChunkError {
                            timeout: true,
                            message: "operation timed out".into(),
                        })
                    }
                    Ok(None) => {
                        if let Some(connection) = connection.take() {
                            pool.give_back(connection);
                        }
                        return Ok(None);
                    }
                    Ok(Some(Err(e))) => {
                        return Err(ChunkError {
                            timeout: false,
                            message: error_chain(&e),
                        })
                    }
                    Ok(Some(Ok(frame))) => {
                        if let Ok(data) = frame.into_data() {
                            return Ok(Some(data));
                        } // trailers: read on
                    }
                }
            },
        }
    }
}

/// Reads `reply` into a [`Response`], at most `cap` bytes of its payload.
pub(super) async fn read(mut reply: Reply, cap: usize) -> Response {
    let header = |name| {
        reply
            .headers()
            .get(name)
            .and_then(|v: &HeaderValue| v.to_str().ok())
            .map(str::to_string)
    };
    let (status, version, remote) = reply.status_line();
    let mut out = Response {
        http_status: Some(status),
        content_type: header(CONTENT_TYPE),
        location: header(LOCATION),
        retry_after: header(RETRY_AFTER),
        vary: all_values(reply.headers(), VARY),
        etag: header(ETAG),
        last_modified: header(LAST_MODIFIED),
        headers: Some(headers_text(reply.headers())),
        http_version: Some(format!("{version:?}")),
        remote_ip: remote.map(|a| a.ip().to_string()),
        ..Response::default()
    };
    let encoding = header(CONTENT_ENCODING);
    let mut payload = Vec::with_capacity(expected_length(reply.content_length(), cap));
    loop {
        match reply.chunk().await {
            Ok(Some(chunk)) => {
                let room = cap.saturating_sub(payload.len());
                if chunk.len() > room {
                    payload.extend_from_slice(&chunk[..room]);
                    out.payload_truncated = Some("length");
                    break;
                }
                payload.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) => {
                out.payload_truncated = Some(if e.timeout { "time" } else { "disconnect" });
                out.error = Some(format!("reading body: {}", e.message));
                break;
            }
        }
    }
    // A body without Content-Length (or shorter than it claimed) waits in
    // memory until its row is written: give back its spare room.
    crate::memory::fit(&mut payload);
    keep_body(&mut out, payload, encoding.as_deref(), cap);
    out
}

/// The bytes to make room for before the body arrives: its Content-Length,
/// never more than the cap or [`PRESIZE_MAX`] (a server may claim any
/// length). Growing a buffer chunk by chunk instead ends at up to twice
/// the body's size.
fn expected_length(content_length: Option<u64>, cap: usize) -> usize {
    let most = cap.min(PRESIZE_MAX) as u64;
    content_length.map_or(0, |length| length.min(most) as usize)
}

/// The most room made before a byte arrives, whatever the cap: a server
/// that claims a length and sends nothing must not make a crawl with a
/// huge `--max-content-bytes` allocate it (the buffer grows past this as
/// bytes come).
const PRESIZE_MAX: usize = 16 << 20;

/// Decodes the payload into the content; keeps the payload beside it only
/// when the bytes differ.
fn keep_body(out: &mut Response, payload: Vec<u8>, encoding: Option<&str>, cap: usize) {
    if body::is_identity(encoding) {
        out.truncated = out.payload_truncated.is_some();
        out.content = payload;
        return;
    }
    let decoded = body::decode(&payload, encoding, cap);
    out.truncated = decoded.capped || out.payload_truncated.is_some();
    out.content = decoded.content;
    if out.error.is_none() && out.payload_truncated.is_none() {
        out.error = decoded.error;
    }
    out.payload = Some(payload);
}

/// Every value of header `name`, joined with `, ` (`None` if absent).
fn all_values(headers: &HeaderMap, name: HeaderName) -> Option<String> {
    let values: Vec<String> = headers
        .get_all(name)
        .iter()
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .collect();
    (!values.is_empty()).then(|| values.join(", "))
}

fn headers_text(headers: &HeaderMap) -> String {
    headers
        .iter()
        .map(|(name, value)| format!("{name}: {}\n", String::from_utf8_lossy(value.as_bytes())))
        .collect()
}
