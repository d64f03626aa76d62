//! The HTTP client: reqwest with timeouts (the total one bounds a stalled
//! body too), no inline redirects, an optional proxy (`--proxy`, or the
//! proxy variables as reqwest reads them; plain-http URLs share one pool
//! of connections to it, `proxy_pool`), and the address guard's
//! resolver (`guard`) unless private hosts are allowed. It keeps what a
//! WARC record needs: the request as sent, the status line and headers,
//! the remote address, and the payload as received (`reply` reads it,
//! `body` decodes it, both capped at the content cap).

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use http_body_util::Empty;
use hyper_util::client::proxy::matcher::Matcher;
use reqwest::header::{
    HeaderMap, HeaderValue, ACCEPT, ACCEPT_ENCODING, ACCEPT_LANGUAGE, HOST, IF_MODIFIED_SINCE,
    IF_NONE_MATCH, USER_AGENT,
};
use reqwest::{redirect, Proxy};

use super::body;
use super::proxy_pool::ProxyPool;
use super::proxy_route::{ProxyRoute, ProxyRules};
use super::reply::{read, Reply};

use crate::error::{Error, Result};

/// How the client connects and how much it reads.
#[derive(Debug, Clone)]
pub struct ClientOptions {
    pub user_agent: String,
    pub proxy: Option<String>,
    pub connect_timeout: Duration,
    pub timeout: Duration,
    pub max_content_bytes: usize,
    /// The `Accept-Language` header sent with every request (none if `None`).
    pub accept_language: Option<String>,
    /// Names pinned to addresses (`--resolve NAME=IP`), as curl's `--resolve`.
    pub resolve: Vec<(String, std::net::SocketAddr)>,
}

impl Default for ClientOptions {
    /// The command line's defaults, without a proxy.
    fn default() -> Self {
        ClientOptions {
            user_agent: concat!("langcrawl/", env!("CARGO_PKG_VERSION")).into(),
            proxy: None,
            connect_timeout: Duration::from_secs(10),
            timeout: Duration::from_secs(30),
            max_content_bytes: 8 << 20,
            accept_language: None,
            resolve: Vec::new(),
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
    /// The answer's `Vary` header (`Accept-Language` on a site that negotiates).
    pub vary: Option<String>,
    /// The answer's validators, sent back when the page is fetched again.
    pub etag: Option<String>,
    pub last_modified: Option<String>,
    /// The response headers as received, `name: value` per line.
    pub headers: Option<String>,
    /// The request head as sent (request line, headers, blank line; CRLF).
    pub request: Option<String>,
    /// `HTTP/1.1`, `HTTP/2.0`, ...
    pub http_version: Option<String>,
    pub remote_ip: Option<String>,
    /// The body decoded (what parse reads), at most the content cap.
    pub content: Vec<u8>,
    /// The content was cut at the cap (or where the payload was cut).
    pub truncated: bool,
    /// The body as received, when it is not the same bytes as `content`
    /// (a `Content-Encoding` was applied).
    pub payload: Option<Vec<u8>>,
    /// Why the payload as received is incomplete (WARC-Truncated):
    /// `length` (the cap), `time` (the timeout), `disconnect`.
    pub payload_truncated: Option<&'static str>,
    pub error: Option<String>,
    /// The address guard refused the connection (`error` says why).
    pub refused: bool,
    /// The request carried validators (If-None-Match, If-Modified-Since).
    pub conditional: bool,
    pub fetched_at_ms: i64,
    pub elapsed_ms: i64,
}

/// What a page's last answer said to send back when it is fetched again:
/// its `ETag` (as `If-None-Match`) and `Last-Modified` (as
/// `If-Modified-Since`); empty for a page never fetched.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Validators {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

impl Validators {
    /// The conditional request headers (a value that is not a valid
    /// header value is not sent).
    fn headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in [
            (IF_NONE_MATCH, &self.etag),
            (IF_MODIFIED_SINCE, &self.last_modified),
        ] {
            if let Some(value) = value.as_deref().and_then(|v| HeaderValue::from_str(v).ok()) {
                headers.insert(name, value);
            }
        }
        headers
    }
}

/// The longest total timeout of a request (the command line refuses
/// more; a library caller's longer one is cut to it over the proxy pool).
pub const MAX_TIMEOUT: Duration = Duration::from_secs(7 * 24 * 3600);

/// The HTTP client and the headers it sends with every request.
#[derive(Debug, Clone)]
pub struct Client {
    inner: reqwest::Client,
    headers: Arc<HeaderMap>,
    /// The connections to the proxy that plain-http URLs share.
    proxy_route: Option<ProxyRoute>,
    /// Which URLs go through a proxy (however they are carried).
    proxied: ProxyRules,
    timeout: Duration,
}

/// The client; with `allow_private` false, names that resolve only to
/// blocked addresses are refused (the proxies' names excepted).
pub fn build(options: &ClientOptions, allow_private: bool) -> Result<Client> {
    build_with_env(options, allow_private, Matcher::from_env())
}

/// [`build`], the environment's proxy rules given as `env` (reqwest reads
/// the same variables itself for the URLs the pool does not carry).
pub(super) fn build_with_env(
    options: &ClientOptions,
    allow_private: bool,
    env: Matcher,
) -> Result<Client> {
    let headers = request_headers(&options.user_agent, options.accept_language.as_deref())?;
    super::guard::check_proxy_schemes(options.proxy.as_deref()).map_err(Error::Usage)?;
    let mut builder = reqwest::Client::builder()
        .default_headers(headers.clone())
        .no_gzip()
        .no_brotli()
        .no_deflate()
        .redirect(redirect::Policy::none())
        .connect_timeout(options.connect_timeout)
        .timeout(options.timeout)
        .pool_max_idle_per_host(64);
    if let Some(proxy) = &options.proxy {
        let proxy = Proxy::all(proxy).map_err(|e| {
            let shown = super::guard::shown_proxy(proxy);
            Error::Usage(format!("--proxy {shown}: {}", error_chain(&e)))
        })?;
        builder = builder.proxy(proxy);
    }
    for (name, addr) in &options.resolve {
        builder = builder.resolve(name, *addr);
    }
    if !allow_private {
        let proxies = super::guard::proxies(options.proxy.as_deref());
        builder = builder.dns_resolver(super::guard::GuardedResolver::new(
            proxies.iter().map(String::as_str),
        ));
    }
    let inner = builder.build().map_err(|e| Error::HttpClient {
        message: error_chain(&e),
    })?;
    let proxied = match options.proxy {
        Some(_) => ProxyRules::All,
        None => ProxyRules::Env(Arc::new(env)),
    };
    Ok(Client {
        inner,
        headers: Arc::new(headers),
        proxy_route: ProxyRoute::new(options, &proxied),
        proxied,
        timeout: options.timeout,
    })
}

/// The headers sent with every request (besides `host`).
fn request_headers(user_agent: &str, accept_language: Option<&str>) -> Result<HeaderMap> {
    let agent = HeaderValue::from_str(user_agent)
        .map_err(|_| Error::Usage(format!("--user-agent {user_agent:?}: not a header value")))?;
    let mut headers = HeaderMap::new();
    headers.insert(USER_AGENT, agent);
    headers.insert(ACCEPT, HeaderValue::from_static("*/*"));
    headers.insert(
        ACCEPT_ENCODING,
        HeaderValue::from_static(body::ACCEPT_ENCODING),
    );
    if let Some(value) = accept_language {
        let value = HeaderValue::from_str(value).map_err(|_| {
            Error::Usage(format!("--accept-language {value:?}: not a header value"))
        })?;
        headers.insert(ACCEPT_LANGUAGE, value);
    }
    Ok(headers)
}

/// The request head as sent: the request line, `host` (as the HTTP client
/// writes it: the port unless it is the scheme's), the client's headers,
/// the request's own (`extra`).
fn request_head(
    url: &url::Url,
    version: &str,
    headers: &HeaderMap,
    extra: &HeaderMap,
) -> Option<String> {
    let mut target = url.path().to_string();
    if let Some(query) = url.query() {
        target = format!("{target}?{query}");
    }
    let host = host_header(url)?;
    let mut head = format!("GET {target} {version}\r\nhost: {host}\r\n");
    for (name, value) in headers.iter().chain(extra) {
        let value = String::from_utf8_lossy(value.as_bytes());
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    Some(head)
}

/// The `host` header of `url` as the HTTP client writes it: the port only
/// when it is not the scheme's.
fn host_header(url: &url::Url) -> Option<String> {
    let host = url.host_str()?;
    Some(match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    })
}

/// GETs `url`, reading at most `max_content_bytes` of the body.
pub async fn get(client: &Client, url: &str, max_content_bytes: usize) -> Response {
    get_if(client, url, max_content_bytes, &Validators::default()).await
}

/// GETs `url` with its `validators` (a conditional request when it has
/// any), reading at most `max_content_bytes` of the body.
pub async fn get_if(
    client: &Client,
    url: &str,
    max_content_bytes: usize,
    validators: &Validators,
) -> Response {
    let started = Instant::now();
    let fetched_at_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let conditional = validators.headers();
    let parsed = url::Url::parse(url).ok();
    let pooled = parsed.as_ref().and_then(|parsed| {
        let route = client.proxy_route.as_ref()?;
        Some((
            &route.pool,
            pooled_request(client, route, parsed, &conditional)?,
        ))
    });
    let sent = match pooled {
        Some((pool, request)) => {
            // the command line allows a week at most; a library caller's
            // longer timeout is cut to it (an Instant cannot pass its end)
            let deadline = started + client.timeout.min(MAX_TIMEOUT);
            send_pooled(Arc::clone(pool), request, deadline).await
        }
        None => send(client, url, &conditional).await,
    };
    let mut response = match sent {
        Ok(reply) => {
            let mut read = read(reply, max_content_bytes).await;
            let version = read.http_version.as_deref().unwrap_or("HTTP/1.1");
            read.request = parsed
                .as_ref()
                .and_then(|url| request_head(url, version, &client.headers, &conditional));
            read
        }
        Err(error) => error,
    };
    if let Some(why) = client.proxied.answer_failure(url, response.http_status) {
        response.error = Some(why.into());
    }
    response.fetched_at_ms = fetched_at_ms;
    response.conditional = !conditional.is_empty();
    response.elapsed_ms = started.elapsed().as_millis() as i64;
    response
}

/// The GET of `url` over the proxy pool, made anew for each attempt (a
/// retry on a new connection needs a second one): a plain-http URL
/// without credentials that the HTTP types take and `route` carries, sent
/// as reqwest would (the URL normalised), else `None`.
fn pooled_request<'a>(
    client: &'a Client,
    route: &ProxyRoute,
    url: &url::Url,
    conditional: &'a HeaderMap,
) -> Option<impl Fn() -> hyper::Request<Empty<Bytes>> + 'a> {
    if !super::proxy_pool::plain_http(url) {
        return None;
    }
    let uri: hyper::Uri = url.as_str().parse().ok().filter(|uri| route.carries(uri))?;
    let host = HeaderValue::from_str(&host_header(url)?).ok()?;
    Some(move || {
        let mut request = hyper::Request::new(Empty::new()); // a GET
        *request.uri_mut() = uri.clone();
        let headers = request.headers_mut();
        headers.insert(HOST, host.clone());
        for (name, value) in client.headers.iter().chain(conditional) {
            headers.insert(name, value.clone());
        }
        request
    })
}

/// Sends the request `request` makes over `pool`, the whole exchange
/// bounded by `deadline`.
async fn send_pooled(
    pool: Arc<ProxyPool>,
    request: impl Fn() -> hyper::Request<Empty<Bytes>>,
    deadline: Instant,
) -> std::result::Result<Reply, Response> {
    let failed = |error: String| Response {
        error: Some(error),
        ..Response::default()
    };
    match tokio::time::timeout_at(deadline.into(), pool.send(request)).await {
        Err(_) => Err(failed("operation timed out".into())),
        Ok(Err(e)) => Err(failed(e)),
        Ok(Ok((response, connection))) => Ok(Reply::Pooled {
            response,
            connection: Some(connection),
            pool,
            deadline,
        }),
    }
}

/// Sends a GET of `url` with reqwest, once more (on another connection)
/// when the server closed the one it went out on before any answer.
async fn send(
    client: &Client,
    url: &str,
    conditional: &HeaderMap,
) -> std::result::Result<Reply, Response> {
    let started = std::time::Instant::now();
    let attempt = |timeout| {
        let request = client.inner.get(url).headers(conditional.clone());
        request.timeout(timeout).send()
    };
    let sent = match attempt(client.timeout).await {
        // within the one --timeout both share
        Err(e) if closed_before_an_answer(&e) => {
            match client.timeout.checked_sub(started.elapsed()) {
                Some(left) if !left.is_zero() => attempt(left).await,
                _ => Err(e),
            }
        }
        sent => sent,
    };
    sent.map(Reply::Reqwest).map_err(|e| {
        let refused = super::guard::is_refusal(&e);
        Response {
            refused,
            error: Some(client.proxied.blame(url, &e, refused)),
            ..Response::default()
        }
    })
}

/// A request the server's side of the connection ended before any answer
/// came: a kept-alive connection the server closed (at its keep-alive
/// timeout, or with no `Connection: close` on its last answer) as the
/// request went out on it. HTTP/1.1 lets a client retry such a GET
/// (RFC 9110 §9.2.2); a page would otherwise count a failure against its
/// host.
fn closed_before_an_answer(error: &reqwest::Error) -> bool {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        let incomplete = cause
            .downcast_ref::<hyper::Error>()
            .is_some_and(hyper::Error::is_incomplete_message);
        let reset = cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::ConnectionReset);
        if incomplete || reset {
            return true;
        }
        source = cause.source();
    }
    false
}

/// The values of header `name` (any case) among `headers`, `name: value`
/// lines as [`Response::headers`] keeps them, trimmed, in order.
pub fn header_values<'a>(headers: &'a str, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    headers
        .lines()
        .filter_map(|line| line.split_once(':'))
        .filter(move |(n, _)| n.trim().eq_ignore_ascii_case(name))
        .map(|(_, value)| value.trim())
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
#[path = "client_tests.rs"]
mod tests;
