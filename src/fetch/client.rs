//! The HTTP client: reqwest with timeouts, a content-size cap, no inline
//! redirects, and an optional proxy (`--proxy` or the `http_proxy` variable).

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use reqwest::header::{CONTENT_TYPE, LOCATION};
use reqwest::{redirect, Client, Proxy};

use crate::error::{Error, Result};

/// How the client connects and how much it reads.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    pub user_agent: String,
    pub proxy: Option<String>,
    pub connect_timeout: Duration,
    pub timeout: Duration,
    pub max_content_bytes: usize,
}

impl Default for ClientOptions {
    /// The command line's defaults, without a proxy.
    fn default() -> Self {
        ClientOptions {
            user_agent: concat!("langcrawl/", env!("CARGO_PKG_VERSION")).into(),
            proxy: None,
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(30),
            max_content_bytes: 1 << 20,
        }
    }
}

/// The result of one GET, before it is classified.
#[derive(Debug, Default)]
pub struct Response {
    pub http_status: Option<u16>,
    pub content_type: Option<String>,
    pub location: Option<String>,
    pub headers: Option<String>,
    pub content: Vec<u8>,
    pub truncated: bool,
    pub error: Option<String>,
    pub fetched_at_ms: i64,
    pub elapsed_ms: i64,
}

pub fn build(options: &ClientOptions) -> Result<Client> {
    let mut builder = Client::builder()
        .user_agent(&options.user_agent)
        .redirect(redirect::Policy::none())
        .connect_timeout(options.connect_timeout)
        .timeout(options.timeout)
        .pool_max_idle_per_host(64);
    if let Some(proxy) = &options.proxy {
        let proxy = Proxy::all(proxy)
            .map_err(|e| Error::Usage(format!("--proxy {proxy}: {}", error_chain(&e))))?;
        builder = builder.proxy(proxy);
    }
    builder
        .build()
        .map_err(|e| Error::Other(format!("building the HTTP client: {}", error_chain(&e))))
}

/// GETs `url`, reading at most `max_content_bytes` of the body.
pub async fn get(client: &Client, url: &str, max_content_bytes: usize) -> Response {
    let started = Instant::now();
    let fetched_at_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let mut response = match client.get(url).send().await {
        Ok(response) => read(response, max_content_bytes).await,
        Err(e) => Response {
            error: Some(error_chain(&e)),
            ..Response::default()
        },
    };
    response.fetched_at_ms = fetched_at_ms;
    response.elapsed_ms = started.elapsed().as_millis() as i64;
    response
}

async fn read(mut response: reqwest::Response, max_content_bytes: usize) -> Response {
    let header = |name| {
        response
            .headers()
            .get(name)
            .and_then(|v: &reqwest::header::HeaderValue| v.to_str().ok())
            .map(str::to_string)
    };
    let mut out = Response {
        http_status: Some(response.status().as_u16()),
        content_type: header(CONTENT_TYPE),
        location: header(LOCATION),
        headers: Some(headers_text(response.headers())),
        ..Response::default()
    };
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = max_content_bytes - out.content.len();
                if chunk.len() > room {
                    out.content.extend_from_slice(&chunk[..room]);
                    out.truncated = true;
                    break;
                }
                out.content.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) => {
                out.error = Some(format!("reading body: {}", error_chain(&e)));
                break;
            }
        }
    }
    out
}

fn headers_text(headers: &reqwest::header::HeaderMap) -> String {
    headers
        .iter()
        .map(|(name, value)| format!("{name}: {}\n", String::from_utf8_lossy(value.as_bytes())))
        .collect()
}

/// An error and its causes on one line (`error sending request: connection refused`).
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}
