//! A hostile web on 127.0.0.1 for the fetch tests: one host name per fault,
//! reached through `--proxy` (requests come in absolute form, `GET
//! http://host/path`). A raw TCP server, so it can stall, reset, and send
//! endless or compressed bodies; every request is logged with its time.
//!
//! | host | fault |
//! |---|---|
//! | `normal.test` | robots 404; HTML pages |
//! | `robots-redirect.test` | robots.txt 301 to another path, then to robots-store.test |
//! | `robots-store.test` | serves robots-redirect.test's rules: Disallow: /secret/ |
//! | `crawl-delay-inf.test` | robots.txt says Crawl-delay: inf |
//! | `busy-429.test` | every page 429 with Retry-After: 3600 |
//! | `unavailable-503.test` | every page 503 without Retry-After |
//! | `robots-503.test` | robots.txt 503 |
//! | `ports.test` | robots 404 on port 80; on port 8080: Disallow: /private/ |
//! | `silent.test` | accepts and never answers |
//! | `stall-body.test` | page headers, a few bytes, then silence |
//! | `stall-all.test` | robots 404; every page: silence |
//! | `reset.test` | pages: connection reset |
//! | `loop.test` | /a 302 to /b, /b 302 to /a |
//! | `chain.test` | /hop/N 302 to /hop/N+1, 30 hops |
//! | `bomb.test` | 1 GiB of zeros gzipped (Content-Encoding: gzip) |
//! | `endless.test` | an endless chunked body |
//! | `slow.test` | every page answered after [`SLOW_ANSWER`] |
//! | `gzip.test` | a small page gzipped (Content-Encoding: gzip): [`GZIP_PAGE`] |
//! | `sitemap-big.test` | robots names /big.xml: a 60 MB urlset, one URL then comments (chunked) |
//! | `sitemap-bomb.test` | robots names /bomb.xml.gz: a urlset head, one URL, then 1 GiB of spaces, gzipped (no Content-Encoding) |
//! | `sitemap-million.test` | robots names /million.txt: a text sitemap of 1,000,000 URLs (chunked) |
//! | `sitemap-malformed.test` | robots names /bad.xml: two good `<url>`s, then a mismatched end tag |
//! | `sitemap-self.test` | robots names /index.xml: an index listing itself and /child.xml (2 URLs) |
//! | `sitemap-cross.test` | robots names http://sitemap-store.test/cross.xml: URLs on sitemap-cross.test, sitemap-store.test and third-party.test |
//! | any other host | robots 404; a small page at every path (the host's name may carry a port) |
//!
//! The `sitemap-*` hosts serve an ordinary page at `/` (and any other path).

use std::net::SocketAddr;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::hostile_sitemap_files::{
    big_sitemap, chunked, million_sitemap, sitemap_file, SITEMAP_BOMB,
};

type Log = Arc<Mutex<Vec<(Instant, String)>>>;

/// How long `slow.test` takes to answer a page.
pub const SLOW_ANSWER: Duration = Duration::from_millis(500);

pub struct Hostile {
    addr: SocketAddr,
    log: Log,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Hostile {
    pub fn start() -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        let log = Log::default();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let served = log.clone();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = TcpListener::from_std(listener).unwrap();
                tokio::select! {
                    _ = accept_loop(listener, served) => {}
                    _ = rx => {}
                }
            });
            runtime.shutdown_background();
        });
        Hostile {
            addr,
            log,
            shutdown: Some(tx),
            thread: Some(thread),
        }
    }

    pub fn proxy_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The port the server listens on (for URLs that name it directly).
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Every request so far: when, and `http://host/path`.
    pub fn requests(&self) -> Vec<(Instant, String)> {
        self.log.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The URLs requested on `host`, in order.
    pub fn requested_on(&self, host: &str) -> Vec<String> {
        let prefix = format!("http://{host}/");
        self.requests()
            .into_iter()
            .map(|(_, url)| url)
            .filter(|url| url.starts_with(&prefix))
            .collect()
    }
}

impl Drop for Hostile {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn accept_loop(listener: TcpListener, log: Log) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        tokio::spawn(serve(stream, log.clone()));
    }
}

/// Reads one request head and answers it as the host's fault dictates.
async fn serve(mut stream: TcpStream, log: Log) {
    let Some((host, path)) = read_request(&mut stream).await else {
        return;
    };
    log.lock()
        .unwrap_or_else(|p| p.into_inner())
        .push((Instant::now(), format!("http://{host}{path}")));
    let robots = path == "/robots.txt";
    let _ = match host.as_str() {
        "silent.test" => return hold(stream).await,
        "stall-all.test" if !robots => return hold(stream).await,
        "stall-body.test" if !robots => {
            let head =
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100000\r\n\r\n";
            let _ = stream
                .write_all(format!("{head}<html><body>").as_bytes())
                .await;
            return hold(stream).await;
        }
        "reset.test" if !robots => return reset(stream),
        "bomb.test" if !robots => bomb(&mut stream).await,
        "gzip.test" if !robots => {
            let headers = [("Content-Encoding", "gzip".to_string())];
            respond(&mut stream, 200, &headers, &gzip_page()).await
        }
        "endless.test" if !robots => endless(&mut stream).await,
        "slow.test" if !robots => {
            tokio::time::sleep(SLOW_ANSWER).await;
            let body = page(&format!("page {path} of {host}"));
            respond(&mut stream, 200, &[], body.as_bytes()).await
        }
        "sitemap-big.test" if path == "/big.xml" => {
            chunked(&mut stream, "application/xml", big_sitemap()).await
        }
        "sitemap-bomb.test" if path == "/bomb.xml.gz" => {
            chunked(&mut stream, "application/x-gzip", [&SITEMAP_BOMB[..]]).await
        }
        "sitemap-million.test" if path == "/million.txt" => {
            chunked(&mut stream, "text/plain", million_sitemap()).await
        }
        _ => {
            let (status, headers, body) = answer(&host, &path);
            respond(&mut stream, status, &headers, body.as_bytes()).await
        }
    };
    let _ = stream.shutdown().await;
}

/// The request line's host and path (absolute form, or a Host header).
async fn read_request(stream: &mut TcpStream) -> Option<(String, String)> {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buf).await.ok().filter(|&n| n > 0)?;
        head.extend_from_slice(&buf[..n]);
        if head.len() > 64 * 1024 {
            return None;
        }
    }
    let head = String::from_utf8_lossy(&head);
    let target = head.lines().next()?.split(' ').nth(1)?;
    let url = url::Url::parse(target).ok().or_else(|| {
        let host = head.lines().find_map(|l| {
            l.strip_prefix("Host: ")
                .or_else(|| l.strip_prefix("host: "))
        })?;
        url::Url::parse(&format!("http://{}{target}", host.trim())).ok()
    })?;
    let host = match url.port() {
        Some(port) => format!("{}:{port}", url.host_str()?),
        None => url.host_str()?.to_string(),
    };
    Some((host, url.path().to_string()))
}

/// Status, extra headers and body for the hosts that answer plainly.
fn answer(host: &str, path: &str) -> (u16, Vec<(&'static str, String)>, String) {
    let redirect = |to: String| (302, vec![("Location", to)], String::new());
    match (host, path) {
        ("robots-redirect.test", "/robots.txt") => (
            301,
            vec![("Location", "/moved/robots.txt".into())],
            String::new(),
        ),
        ("robots-redirect.test", "/moved/robots.txt") => (
            301,
            vec![("Location", "http://robots-store.test/site-a.txt".into())],
            String::new(),
        ),
        ("robots-store.test", "/site-a.txt") => {
            (200, vec![], "User-agent: *\nDisallow: /secret/\n".into())
        }
        ("crawl-delay-inf.test", "/robots.txt") => (
            200,
            vec![],
            "User-agent: *\nCrawl-delay: inf\nDisallow: /no/\n".into(),
        ),
        ("robots-503.test", "/robots.txt") => (503, vec![], "down".into()),
        ("ports.test:8080", "/robots.txt") => {
            (200, vec![], "User-agent: *\nDisallow: /private/\n".into())
        }
        _ if sitemap_file(host, path).is_some() => (200, vec![], sitemap_file(host, path).unwrap()),
        (_, "/robots.txt") => (404, vec![], "no robots.txt".into()),
        ("busy-429.test", _) => (
            429,
            vec![("Retry-After", "3600".into())],
            "slow down".into(),
        ),
        ("unavailable-503.test", _) => (503, vec![], "unavailable".into()),
        ("loop.test", "/a") => redirect("/b".into()),
        ("loop.test", "/b") => redirect("/a".into()),
        ("chain.test", _) => match path
            .strip_prefix("/hop/")
            .and_then(|n| n.parse::<u32>().ok())
        {
            Some(n) if n < 30 => redirect(format!("/hop/{}", n + 1)),
            _ => (200, vec![], page("the end of the chain")),
        },
        // 12,000 nested containers (under the test's 64 KiB content cap),
        // a link at the bottom
        ("deep.test", "/deep.html") => (
            200,
            vec![],
            format!(
                "<html><body>{}<p>bottom <a href=\"/after.html\">on</a></p></body></html>",
                "<div>".repeat(12_000)
            ),
        ),
        _ => (200, vec![], page(&format!("page {path} of {host}"))),
    }
}

fn page(text: &str) -> String {
    format!(
        "<html lang=en><head><title>{text}</title></head><body><p>{text}: a plain English page \
         that says little and links nowhere.</p></body></html>"
    )
}

async fn respond(
    stream: &mut TcpStream,
    status: u16,
    headers: &[(&str, String)],
    body: &[u8],
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body).await
}

/// Keeps the connection open and says nothing.
async fn hold(stream: TcpStream) {
    let _held = stream;
    std::future::pending::<()>().await;
}

/// Closes the connection with a TCP reset.
fn reset(stream: TcpStream) {
    // Linger 0 sends RST at once; it cannot block the thread.
    #[allow(deprecated)]
    let _ = stream.set_linger(Some(Duration::ZERO));
    drop(stream);
}

async fn bomb(stream: &mut TcpStream) -> std::io::Result<()> {
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nConnection: close\r\n\r\n";
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(&GZIP_BOMB).await
}

async fn endless(stream: &mut TcpStream) -> std::io::Result<()> {
    let head = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n";
    stream.write_all(head.as_bytes()).await?;
    let data = "<p>more</p>\n".repeat(700);
    let chunk = format!("{:x}\r\n{data}\r\n", data.len());
    loop {
        stream.write_all(chunk.as_bytes()).await?;
    }
}

/// The page `gzip.test` serves, before compression.
pub const GZIP_PAGE: &str =
    "<html><body><p>A page sent compressed, stored as sent.</p></body></html>";

/// [`GZIP_PAGE`] gzipped: the payload as sent.
pub fn gzip_page() -> Vec<u8> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(GZIP_PAGE.as_bytes()).unwrap();
    gz.finish().unwrap()
}

/// Bytes of zeros the bomb expands to.
pub const BOMB_BYTES: u64 = 1 << 30;

/// A gzip file of 1 GiB of zeros, about 1 MB.
static GZIP_BOMB: LazyLock<Vec<u8>> = LazyLock::new(|| gzip_bomb(b"", 0));

/// `prefix`, then [`BOMB_BYTES`] of `fill`, gzipped (one member): the
/// prefix ending in a full flush, then one deflate segment of 1 MiB of
/// `fill` (ending in a full flush, so every one after the first is the
/// same bytes) repeated, then the final block and the trailer.
pub(crate) fn gzip_bomb(prefix: &[u8], fill: u8) -> Vec<u8> {
    use flate2::{Compress, Compression, Crc, FlushCompress};
    let fills = vec![fill; 1 << 20];
    let mut deflate = Compress::new(Compression::best(), false);
    let mut segment = |input: &[u8]| {
        let mut out = Vec::with_capacity(1 << 16);
        let before = deflate.total_in();
        deflate
            .compress_vec(input, &mut out, FlushCompress::Full)
            .unwrap();
        assert_eq!(deflate.total_in() - before, input.len() as u64);
        out
    };
    let head = if prefix.is_empty() {
        Vec::new()
    } else {
        segment(prefix)
    };
    let first = segment(&fills);
    let second = segment(&fills);
    assert_eq!(
        segment(&fills),
        second,
        "segments after a full flush repeat"
    );
    let mut crc = Crc::new();
    crc.update(prefix);
    crc.update(&fills);
    let mut one = Crc::new();
    one.update(&fills);
    let mut gzip = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 0xff];
    gzip.extend_from_slice(&head);
    gzip.extend_from_slice(&first);
    for _ in 1..(BOMB_BYTES >> 20) {
        gzip.extend_from_slice(&second);
        crc.combine(&one);
    }
    // An empty final block with fixed codes, then CRC-32 and size mod 2^32.
    let size = prefix.len() as u64 + BOMB_BYTES;
    gzip.extend_from_slice(&[0x03, 0x00]);
    gzip.extend_from_slice(&crc.sum().to_le_bytes());
    gzip.extend_from_slice(&((size & 0xffff_ffff) as u32).to_le_bytes());
    gzip
}

#[test]
fn the_bomb_is_small_and_expands_to_a_gibibyte() {
    assert!(GZIP_BOMB.len() < 2 << 20, "{} bytes", GZIP_BOMB.len());
    let mut decoder = flate2::read::GzDecoder::new(&GZIP_BOMB[..]);
    let mut head = vec![0u8; 1 << 20];
    std::io::Read::read_exact(&mut decoder, &mut head).unwrap();
    assert!(head.iter().all(|&b| b == 0));
}
