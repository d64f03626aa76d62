//! The synthetic web's HTTP server: answers absolute-form requests
//! (`GET http://host/path`, as sent to a forward proxy) and origin-form ones
//! with a `Host` header, routed by host name. Listens on loopback only.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use super::generator::Web;
use super::render::SimResponse;
use crate::error::{Error, Result};

/// What the websim serves: an HTTP answer for each host and path.
pub trait Site: Send + Sync + 'static {
    fn respond(&self, host: &str, path: &str) -> SimResponse;

    /// The answer to a request with these headers; a site that neither
    /// negotiates nor answers conditional requests ignores them.
    fn respond_to(&self, host: &str, path: &str, _request: &SimRequest) -> SimResponse {
        self.respond(host, path)
    }
}

impl Site for Web {
    fn respond(&self, host: &str, path: &str) -> SimResponse {
        Web::respond(self, host, path)
    }

    fn respond_to(&self, host: &str, path: &str, request: &SimRequest) -> SimResponse {
        Web::respond_to(self, host, path, request)
    }
}

/// The request headers a site may answer by: the language asked for and
/// the validators of a conditional request.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SimRequest {
    pub accept_language: Option<String>,
    pub if_none_match: Option<String>,
    pub if_modified_since: Option<String>,
}

/// One request served: `http://host/path` and the headers a site reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Served {
    pub url: String,
    pub accept_language: Option<String>,
    pub if_none_match: Option<String>,
    pub if_modified_since: Option<String>,
}

/// Every request served, for tests to inspect.
pub type RequestLog = Arc<std::sync::Mutex<Vec<Served>>>;

/// Serves `web` on `listener` until the task is dropped, noting each
/// request in `log` if one is given.
pub async fn serve<S: Site>(web: Arc<S>, listener: TcpListener, log: Option<RequestLog>) {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(_) => {
                // Out of file descriptors or similar: back off instead of spinning.
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let web = web.clone();
        let log = log.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request| {
                let web = web.clone();
                let log = log.clone();
                async move { Ok::<_, Infallible>(answer(web.as_ref(), &request, log.as_ref())) }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Binds `addr`, refusing anything but a loopback address. The listener is
/// non-blocking, ready for [`TcpListener::from_std`] inside a runtime.
pub fn bind(addr: SocketAddr) -> Result<std::net::TcpListener> {
    if !addr.ip().is_loopback() {
        return Err(Error::Usage(format!(
            "--listen {addr}: the synthetic web only listens on loopback (127.0.0.1)"
        )));
    }
    let listener = std::net::TcpListener::bind(addr)
        .map_err(|e| Error::Usage(format!("--listen {addr}: {e}")))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| Error::Usage(format!("--listen {addr}: {e}")))?;
    Ok(listener)
}

/// Serves `web` on an already bound listener (see [`bind`]).
pub async fn serve_std<S: Site>(
    web: Arc<S>,
    listener: std::net::TcpListener,
    log: Option<RequestLog>,
) -> Result<()> {
    let listener = TcpListener::from_std(listener).map_err(|source| Error::Websim { source })?;
    serve(web, listener, log).await;
    Ok(())
}

fn answer<B, S: Site>(
    web: &S,
    request: &Request<B>,
    log: Option<&RequestLog>,
) -> Response<Full<Bytes>> {
    let host = request
        .uri()
        .host()
        .map(str::to_string)
        .or_else(|| {
            request
                .headers()
                .get(hyper::header::HOST)
                .and_then(|h| h.to_str().ok())
                .map(|h| {
                    h.rsplit_once(':')
                        .map_or(h, |(name, _port)| name)
                        .to_string()
                })
        })
        .unwrap_or_default();
    let header = |name| {
        request
            .headers()
            .get(name)
            .and_then(|v: &hyper::header::HeaderValue| v.to_str().ok())
            .map(str::to_string)
    };
    let asked = SimRequest {
        accept_language: header(hyper::header::ACCEPT_LANGUAGE),
        if_none_match: header(hyper::header::IF_NONE_MATCH),
        if_modified_since: header(hyper::header::IF_MODIFIED_SINCE),
    };
    if let Some(log) = log {
        let mut log = log.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        log.push(Served {
            url: format!("http://{host}{}", request.uri().path()),
            accept_language: asked.accept_language.clone(),
            if_none_match: asked.if_none_match.clone(),
            if_modified_since: asked.if_modified_since.clone(),
        });
    }
    to_http(web.respond_to(&host, request.uri().path(), &asked))
}

fn to_http(sim: SimResponse) -> Response<Full<Bytes>> {
    let mut builder = Response::builder().status(sim.status);
    if let Some(content_type) = sim.content_type {
        builder = builder.header(hyper::header::CONTENT_TYPE, content_type);
    }
    if let Some(location) = sim.location {
        builder = builder.header(hyper::header::LOCATION, location);
    }
    for (name, value) in sim.headers {
        builder = builder.header(name, value);
    }
    builder
        .body(Full::new(Bytes::from(sim.body)))
        .expect("valid response parts")
}

/// A synthetic web running on its own thread, for tests and the demo.
pub struct Websim<S: Site = Web> {
    pub addr: SocketAddr,
    pub web: Arc<S>,
    /// Every request served so far.
    pub requests: RequestLog,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl<S: Site> Websim<S> {
    /// The URL to give the crawler as `--proxy`.
    pub fn proxy_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The URLs requested so far, in the order they were served.
    pub fn requested(&self) -> Vec<String> {
        self.served().into_iter().map(|s| s.url).collect()
    }

    /// The requests served so far, with their Accept-Language.
    pub fn served(&self) -> Vec<Served> {
        self.requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

impl<S: Site> Drop for Websim<S> {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Starts `web` on 127.0.0.1 (port 0: any free port) on a background thread.
pub fn spawn_background<S: Site>(web: S, port: u16) -> Result<Websim<S>> {
    let web = Arc::new(web);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|source| Error::Websim { source })?;
    let listener = bind(SocketAddr::from(([127, 0, 0, 1], port)))?;
    let addr = listener
        .local_addr()
        .map_err(|source| Error::Websim { source })?;
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let served = web.clone();
    let requests = RequestLog::default();
    let log = requests.clone();
    let thread = std::thread::spawn(move || {
        runtime.block_on(async move {
            tokio::select! {
                _ = serve_std(served, listener, Some(log)) => {}
                _ = rx => {}
            }
        });
    });
    Ok(Websim {
        addr,
        web,
        requests,
        shutdown: Some(tx),
        thread: Some(thread),
    })
}
