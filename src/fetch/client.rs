//! The HTTP client: reqwest with timeouts (the total one bounds a stalled
//! body too), a content-size cap counted after decompression, no inline
//! redirects, an optional proxy (`--proxy` or the `http_proxy` variable),
//! and the address guard's resolver (`guard`) unless private hosts are allowed.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use reqwest::header::{CONTENT_TYPE, LOCATION, RETRY_AFTER};
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
    pub retry_after: Option<String>,
    pub headers: Option<String>,
    pub content: Vec<u8>,
    pub truncated: bool,
    pub error: Option<String>,
    /// The address guard refused the connection (`error` says why).
    pub refused: bool,
    pub fetched_at_ms: i64,
    pub elapsed_ms: i64,
}

/// The client; with `allow_private` false, names that resolve only to
/// blocked addresses are refused (the proxies' names excepted).
pub fn build(options: &ClientOptions, allow_private: bool) -> Result<Client> {
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
    if !allow_private {
        let proxies = super::guard::proxies(options.proxy.as_deref());
        builder = builder.dns_resolver(super::guard::GuardedResolver::new(
            proxies.iter().map(String::as_str),
        ));
    }
    builder.build().map_err(|e| Error::HttpClient {
        message: error_chain(&e),
    })
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
            refused: super::guard::is_refusal(&e),
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
        retry_after: header(RETRY_AFTER),
        headers: Some(headers_text(response.headers())),
        ..Response::default()
    };
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let room = max_content_bytes.saturating_sub(out.content.len());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_name_of_a_blocked_address_is_never_connected() {
        if !super::super::guard::proxies(None).is_empty() {
            return; // a proxy from the environment resolves names itself
        }
        // A listener that would see the connection if the guard let it through.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let client = build(&ClientOptions::default(), false).unwrap();
        let response = get(&client, &format!("http://localhost:{port}/"), 1024).await;
        assert!(response.refused, "{response:?}");
        assert!(response
            .error
            .unwrap()
            .contains("private-address: loopback"));
        assert!(listener.accept().is_err(), "nothing connected");
        drop(listener);

        let open = build(&ClientOptions::default(), true).unwrap();
        let response = get(&open, &format!("http://localhost:{port}/"), 1024).await;
        assert!(!response.refused, "--allow-private connects: {response:?}");
        assert!(response
            .error
            .is_some_and(|e| !e.contains("private-address")));
    }
}
