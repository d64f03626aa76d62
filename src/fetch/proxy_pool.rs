//! Kept-alive connections to the `--proxy`, shared by every crawled host.
//! reqwest keeps its idle connections per target host, so through a
//! forward proxy each host opened a connection of its own (7,675 for the
//! 50,000 URLs of the bench's largest round); here a plain-http URL goes
//! over any idle connection to the proxy, its request line in absolute
//! form (RFC 9112 §3.2.2) as reqwest writes it. https URLs (a CONNECT
//! tunnel each) and proxies with credentials or of another scheme stay
//! with reqwest.

use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::Duration;

use tokio::time::Instant;

use bytes::Bytes;
use http_body_util::Empty;
use hyper::body::Incoming;
use hyper::client::conn::http1::{self, SendRequest};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use super::client::error_chain;

/// How the error of a request that never reached the proxy begins: the
/// page was not asked for, so it is not the page's failure (fetch defers it).
pub const UNREACHABLE: &str = "connecting to the proxy";

/// Idle connections kept at most (beyond them a finished one is closed).
const MAX_IDLE: usize = 256;

/// How long a connection stays idle before it is closed rather than used
/// (a connection a NAT or firewall dropped silently would hold a request
/// until its timeout); reqwest's pool keeps them 90 s.
const MAX_IDLE_TIME: Duration = Duration::from_secs(60);

/// TCP keepalive probes on an open connection: after this much silence,
/// then as often (reqwest's values).
const KEEPALIVE: Duration = Duration::from_secs(15);

/// One connection to the proxy and the address it reached.
pub struct Connection {
    send: SendRequest<Empty<Bytes>>,
    pub peer: SocketAddr,
    idle_since: Instant,
}

/// The idle connections to one proxy.
pub struct ProxyPool {
    /// `host:port` of the proxy.
    address: String,
    /// The proxy's address pinned by `--resolve` (its name's entry).
    pinned: Option<SocketAddr>,
    connect_timeout: Duration,
    idle: Mutex<Vec<Connection>>,
}

impl std::fmt::Debug for ProxyPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProxyPool")
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

/// A plain-http URL without credentials: the only proxy the pool reaches,
/// and the only URLs it carries (the others need a tunnel or credentials
/// reqwest handles).
pub fn plain_http(url: &url::Url) -> bool {
    url.scheme() == "http" && url.username().is_empty() && url.password().is_none()
}

impl ProxyPool {
    /// A pool for `proxy` (`http://host:port`), or `None` where reqwest
    /// carries the requests: a proxy of another scheme, or with credentials.
    /// A `resolve` entry for the proxy's name pins its address (the port
    /// is the proxy URL's, as reqwest does).
    pub fn for_proxy(
        proxy: &str,
        resolve: &[(String, SocketAddr)],
        connect_timeout: Duration,
    ) -> Option<Self> {
        let url = url::Url::parse(proxy).ok().filter(plain_http)?;
        let (host, port) = (url.host_str()?, url.port_or_known_default()?);
        let pinned = resolve
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(host))
            .map(|(_, addr)| SocketAddr::new(addr.ip(), port));
        Some(ProxyPool {
            address: format!("{host}:{port}"),
            pinned,
            connect_timeout,
            idle: Mutex::new(Vec::new()),
        })
    }

    /// Sends the request `request` makes (its URI absolute) over an idle
    /// connection, or a new one. A GET is safe to repeat, so when an idle
    /// connection turns out closed — before the request went out, or
    /// before any answer came (the proxy's keep-alive ran out meanwhile) —
    /// it is made again and goes on a new connection. The connection comes
    /// back with the response: [`give_back`](Self::give_back) it once the
    /// body is read whole.
    pub async fn send(
        &self,
        request: impl Fn() -> Request<Empty<Bytes>>,
    ) -> Result<(Response<Incoming>, Connection), String> {
        if let Some(mut connection) = self.take_idle().await {
            match connection.send.try_send_request(request()).await {
                Ok(response) => return Ok((response, connection)),
                Err(mut failed) => {
                    let unsent = failed.take_message().is_some();
                    if !unsent && !failed.error().is_incomplete_message() {
                        return Err(error_chain(failed.error()));
                    }
                }
            }
        }
        let mut connection = self.connect().await?;
        match connection.send.send_request(request()).await {
            Ok(response) => Ok((response, connection)),
            Err(e) => Err(error_chain(&e)),
        }
    }

    /// Keeps `connection` for the next request, if it is still open.
    pub fn give_back(&self, mut connection: Connection) {
        if connection.send.is_closed() {
            return;
        }
        connection.idle_since = Instant::now();
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() >= MAX_IDLE {
            idle.retain(|c| !c.send.is_closed());
        }
        if idle.len() < MAX_IDLE {
            idle.push(connection);
        }
    }

    /// The last idle connection that is ready for a request; those idle
    /// too long are closed.
    async fn take_idle(&self) -> Option<Connection> {
        loop {
            let mut connection = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop()?;
            if connection.idle_since.elapsed() > MAX_IDLE_TIME {
                continue;
            }
            if connection.send.ready().await.is_ok() {
                return Some(connection);
            }
        }
    }

    /// The proxy's addresses: the pinned one, else its name's.
    async fn addresses(&self) -> std::io::Result<Vec<SocketAddr>> {
        match self.pinned {
            Some(addr) => Ok(vec![addr]),
            None => Ok(tokio::net::lookup_host(&self.address).await?.collect()),
        }
    }

    /// A new connection to the proxy, its HTTP/1.1 driver spawned: each of
    /// its addresses tried in turn, with an equal share of the time left
    /// of the connect timeout.
    async fn connect(&self) -> Result<Connection, String> {
        let failed = |e: &dyn std::error::Error| {
            format!("{UNREACHABLE} {}: {}", self.address, error_chain(e))
        };
        let deadline = Instant::now() + self.connect_timeout;
        let addresses = tokio::time::timeout_at(deadline, self.addresses())
            .await
            .map_err(|e| failed(&e))?
            .map_err(|e| failed(&e))?;
        let mut last = format!("{UNREACHABLE} {}: no address", self.address);
        for (tried, addr) in addresses.iter().enumerate() {
            let left = addresses.len() - tried;
            let share = deadline.saturating_duration_since(Instant::now()) / left as u32;
            match tokio::time::timeout(share, TcpStream::connect(addr)).await {
                Ok(Ok(stream)) => return self.handshake(stream).await.map_err(|e| failed(&*e)),
                Ok(Err(e)) => last = failed(&e),
                Err(e) => last = failed(&e),
            }
        }
        Err(last)
    }

    /// The HTTP/1.1 handshake over `stream`, its driver spawned.
    async fn handshake(
        &self,
        stream: TcpStream,
    ) -> Result<Connection, Box<dyn std::error::Error + Send + Sync>> {
        stream.set_nodelay(true)?;
        let keepalive = socket2::TcpKeepalive::new().with_time(KEEPALIVE);
        #[cfg(any(target_os = "linux", target_os = "macos", target_os = "windows"))]
        let keepalive = keepalive.with_interval(KEEPALIVE);
        socket2::SockRef::from(&stream).set_tcp_keepalive(&keepalive)?;
        let peer = stream.peer_addr()?;
        let (send, driver) = http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(async move {
            // ends when the proxy closes or every handle is dropped; its
            // error reaches the request waiting on it
            let _ = driver.await;
        });
        Ok(Connection {
            send,
            peer,
            idle_since: Instant::now(),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use http_body_util::Full;
    use hyper::server::conn::http1 as server;
    use hyper::service::service_fn;
    use tokio::net::TcpListener;

    use hyper_util::client::proxy::matcher::Matcher;

    use super::super::client::{build, build_with_env, get, ClientOptions};

    /// A forward proxy on 127.0.0.1 that answers every request with its
    /// target and its host header, keeping connections alive unless
    /// `close`; counts the connections it accepted.
    async fn proxy(close: bool) -> (String, Arc<AtomicUsize>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let accepted = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&accepted);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                let answer = service_fn(move |request: hyper::Request<_>| async move {
                    let host = request.headers()["host"].to_str().unwrap().to_string();
                    let body = format!("{} host={host}", request.uri());
                    let mut response = hyper::Response::new(Full::new(bytes::Bytes::from(body)));
                    if close {
                        response
                            .headers_mut()
                            .insert("connection", "close".parse().unwrap());
                    }
                    Ok::<_, std::convert::Infallible>(response)
                });
                let io = super::TokioIo::new(stream);
                tokio::spawn(server::Builder::new().serve_connection(io, answer));
            }
        });
        (format!("http://{address}"), accepted)
    }

    /// Fetches one page on each of `hosts` hosts through `proxy`, one after
    /// the other, checking each answer came for its own URL.
    async fn fetch_hosts(proxy: &str, hosts: usize) {
        let options = ClientOptions {
            proxy: Some(proxy.to_string()),
            ..ClientOptions::default()
        };
        fetch_with(&build(&options, false).unwrap(), hosts).await;
    }

    /// Fetches one page on each of `hosts` hosts with `client`, checking
    /// each answer came for its own URL through the proxy.
    async fn fetch_with(client: &super::super::client::Client, hosts: usize) {
        for n in 0..hosts {
            let url = format!("http://host{n}.example:8080/page?q={n}");
            let response = get(client, &url, 1 << 20).await;
            assert_eq!(response.http_status, Some(200), "{response:?}");
            let expected = format!("{url} host=host{n}.example:8080");
            assert_eq!(String::from_utf8_lossy(&response.content), expected);
            assert_eq!(response.remote_ip.as_deref(), Some("127.0.0.1"));
        }
    }

    #[tokio::test]
    async fn hosts_share_one_kept_alive_connection_to_the_proxy() {
        let (url, accepted) = proxy(false).await;
        fetch_hosts(&url, 20).await;
        assert_eq!(accepted.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_proxy_the_environment_names_is_shared_too_but_not_for_its_exempt_hosts() {
        if !super::super::guard::proxies(None).is_empty() {
            return; // reqwest would send the exempt host to the real one
        }
        let (url, accepted) = proxy(false).await;
        // the exempt host's server
        let (direct, _) = proxy(false).await;
        let direct: std::net::SocketAddr = direct.trim_start_matches("http://").parse().unwrap();
        let env = Matcher::builder().http(&url).no("direct.example").build();
        // the proxied names pinned too: were they not proxied, no name
        // would be looked up either
        let resolve = (0..20)
            .map(|n| (format!("host{n}.example"), direct))
            .chain([("direct.example".to_string(), direct)])
            .collect();
        let options = ClientOptions {
            resolve,
            ..ClientOptions::default()
        };
        let client = build_with_env(&options, true, env).unwrap();
        fetch_with(&client, 20).await;
        assert_eq!(accepted.load(Ordering::SeqCst), 1);
        // NO_PROXY's host is asked directly (a request line of a path, not
        // a URL), never through the proxy
        let exempt = format!("http://direct.example:{}/", direct.port());
        let response = get(&client, &exempt, 1 << 20).await;
        assert_eq!(response.http_status, Some(200), "{response:?}");
        let answer = String::from_utf8_lossy(&response.content).into_owned();
        assert!(answer.starts_with("/ host=direct.example"), "{answer}");
        assert_eq!(accepted.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn the_proxy_is_reached_by_its_pinned_name_and_the_url_goes_normalised() {
        let (url, accepted) = proxy(false).await;
        let address: std::net::SocketAddr = url.trim_start_matches("http://").parse().unwrap();
        let options = ClientOptions {
            // a name only --resolve knows, at the port of the proxy URL
            proxy: Some(format!("http://proxy.invalid:{}", address.port())),
            resolve: vec![("proxy.invalid".into(), "127.0.0.1:1".parse().unwrap())],
            // longer than an Instant can reach: cut, not a panic
            timeout: std::time::Duration::MAX,
            ..ClientOptions::default()
        };
        let client = build(&options, false).unwrap();
        let response = get(&client, "http://Host.Example:80/a/../b?q", 1 << 20).await;
        assert_eq!(response.http_status, Some(200), "{response:?}");
        assert_eq!(
            String::from_utf8_lossy(&response.content),
            "http://host.example/b?q host=host.example"
        );
        assert_eq!(accepted.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_proxy_that_closes_every_connection_is_dialled_again() {
        let (url, accepted) = proxy(true).await;
        fetch_hosts(&url, 20).await;
        assert_eq!(accepted.load(Ordering::SeqCst), 20);
    }

    /// A proxy that answers one request per connection with `answer` of
    /// its target and then closes the connection without saying so (no
    /// `Connection: close`), as a proxy whose keep-alive timeout just ran
    /// out does.
    async fn closing_proxy(answer: fn(&str) -> Vec<u8>) -> (String, Arc<AtomicUsize>) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let accepted = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&accepted);
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut buf = [0u8; 1024];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match stream.read(&mut buf).await {
                            Ok(n) if n > 0 => head.extend_from_slice(&buf[..n]),
                            _ => return,
                        }
                    }
                    let text = String::from_utf8_lossy(&head);
                    let _ = stream
                        .write_all(&answer(text.split(' ').nth(1).unwrap_or_default()))
                        .await;
                    let _ = stream.shutdown().await;
                });
            }
        });
        (format!("http://{address}"), accepted)
    }

    /// A plain answer naming `target`.
    fn echo(target: &str) -> Vec<u8> {
        format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{target}",
            target.len()
        )
        .into_bytes()
    }

    #[tokio::test]
    async fn a_connection_the_proxy_closed_unannounced_is_not_a_failed_fetch() {
        let (proxy, accepted) = closing_proxy(echo).await;
        let options = ClientOptions {
            proxy: Some(proxy),
            ..ClientOptions::default()
        };
        let client = build(&options, false).unwrap();
        for n in 0..50 {
            let url = format!("http://host{n}.example/");
            let response = get(&client, &url, 1 << 20).await;
            assert_eq!(response.http_status, Some(200), "request {n}: {response:?}");
            assert_eq!(String::from_utf8_lossy(&response.content), url);
        }
        assert!(accepted.load(Ordering::SeqCst) >= 50);
    }

    thread_local! {
        /// What the proxy of the property below answers, per test thread.
        static ANSWER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(crate::testing::cases(64)))]

        /// Whatever bytes a proxy answers — after a valid status line or
        /// not — the fetch ends with a row (a status or an error), within
        /// its timeout, and the next fetch over the pool still works.
        #[test]
        fn any_answer_ends_the_fetch_and_the_pool_goes_on(
            status_line in proptest::prelude::any::<bool>(),
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..2048),
        ) {
            let mut answer = if status_line { b"HTTP/1.1 200 OK\r\n".to_vec() } else { Vec::new() };
            answer.extend_from_slice(&bytes);
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            runtime.block_on(async move {
                ANSWER.with_borrow_mut(|a| *a = answer);
                let (hostile, _) = closing_proxy(|target| match target.ends_with("/hostile") {
                    true => ANSWER.with_borrow(Clone::clone),
                    false => echo(target),
                })
                .await;
                let options = ClientOptions {
                    proxy: Some(hostile),
                    timeout: std::time::Duration::from_secs(2),
                    ..ClientOptions::default()
                };
                let client = build(&options, false).unwrap();
                let started = std::time::Instant::now();
                let response = get(&client, "http://host.example/hostile", 1 << 16).await;
                assert!(response.http_status.is_some() || response.error.is_some(), "{response:?}");
                assert!(started.elapsed() < std::time::Duration::from_secs(3));
                let next = get(&client, "http://host.example/fine", 1 << 16).await;
                assert_eq!(next.http_status, Some(200), "{next:?}");
                assert_eq!(next.content, b"http://host.example/fine");
            });
        }
    }
}
