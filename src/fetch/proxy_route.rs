//! Which URLs of a fetch go through a proxy (`--proxy`: all; else the
//! environment's rules, `NO_PROXY` apart), which of their failures are the
//! proxy's (the URL then waits), and the pool of connections to the proxy
//! that plain-http ones share (`proxy_pool`).

use std::sync::Arc;

use hyper_util::client::proxy::matcher::Matcher;

use super::client::error_chain;
use super::client::ClientOptions;
use super::proxy_pool::{ProxyPool, UNREACHABLE};

/// hyper-util's words for a CONNECT tunnel (an https URL through the
/// proxy, sent by reqwest) whose connection to the proxy never opened:
/// its `TunnelError::ConnectFailed`, a type it does not export.
const TUNNEL_NOT_OPENED: &str = "tunnel error: failed to create underlying connection";

/// hyper-util's words for a CONNECT the proxy answered 407.
const TUNNEL_NEEDS_CREDENTIALS: &str = "tunnel error: proxy authorization required";

/// What a request the proxy refused for want of credentials (HTTP 407)
/// says: the proxy's failure, not the page's.
const NEEDS_CREDENTIALS: &str = "connecting to the proxy: it asked for credentials \
     (HTTP 407 Proxy Authentication Required); check the user and password of the proxy";

/// Which URLs go through a proxy: every one for `--proxy`; else those the
/// environment's rules send to one (`NO_PROXY` apart; none without one).
#[derive(Debug, Clone)]
pub(super) enum ProxyRules {
    All,
    Env(Arc<Matcher>),
}

impl ProxyRules {
    fn carries_url(&self, url: &str) -> bool {
        url.parse().is_ok_and(|uri| self.carries(&uri))
    }

    /// The error text of reqwest's failed GET of `url` (the guard's refusal
    /// when `refused`), marked as [`UNREACHABLE`] where the proxy failed,
    /// as the pool marks its own: through a proxy the connection made is
    /// to the proxy, so for a plain-http URL every connect error is the
    /// proxy's; for an https one (a CONNECT tunnel, then TLS with the
    /// page's server) failing to reach it, a tunnel that never opened, or
    /// a 407 to the CONNECT — the page's TLS is the page's failure.
    pub(super) fn blame(&self, url: &str, error: &reqwest::Error, refused: bool) -> String {
        let chain = error_chain(error);
        let reaching = chain.contains("tcp connect error") || chain.contains("dns error");
        let plain = url.starts_with("http://");
        if error.is_connect() && !refused && (plain || reaching) && self.carries_url(url) {
            format!("{UNREACHABLE}: {chain}")
        } else if chain.contains(TUNNEL_NOT_OPENED) {
            format!("{UNREACHABLE} (a CONNECT tunnel): {chain}")
        } else if chain.contains(TUNNEL_NEEDS_CREDENTIALS) {
            NEEDS_CREDENTIALS.to_string()
        } else {
            chain
        }
    }

    /// Why an answer to `url` with HTTP `status` is the proxy's failure: a
    /// 407 comes from a proxy (every URL through it would be `gone`).
    pub(super) fn answer_failure(&self, url: &str, status: Option<u16>) -> Option<&'static str> {
        (status == Some(407) && self.carries_url(url)).then_some(NEEDS_CREDENTIALS)
    }

    fn carries(&self, uri: &hyper::Uri) -> bool {
        match self {
            ProxyRules::All => true,
            ProxyRules::Env(rules) => rules.intercept(uri).is_some(),
        }
    }
}

/// The pool of connections to the proxy plain-http URLs go through, and
/// which URLs take it.
#[derive(Debug, Clone)]
pub(super) struct ProxyRoute {
    pub(super) pool: Arc<ProxyPool>,
    rules: ProxyRules,
}

impl ProxyRoute {
    /// `--proxy`'s pool; else the environment's http proxy as reqwest
    /// reads it (`HTTP_PROXY`, `ALL_PROXY`; not in a CGI script), unless
    /// it has credentials or another scheme (reqwest carries those).
    pub(super) fn new(options: &ClientOptions, rules: &ProxyRules) -> Option<Self> {
        let pool = |proxy: &str| {
            ProxyPool::for_proxy(proxy, &options.resolve, options.connect_timeout).map(Arc::new)
        };
        let env = match rules {
            ProxyRules::All => {
                return Some(ProxyRoute {
                    pool: pool(options.proxy.as_deref()?)?,
                    rules: ProxyRules::All,
                })
            }
            ProxyRules::Env(env) => env,
        };
        // a name no NO_PROXY list would name; under `*`, which exempts
        // every URL, nothing is pooled
        let probe: hyper::Uri = "http://langcrawl.invalid/".parse().ok()?;
        let intercept = env.intercept(&probe)?;
        if intercept.basic_auth().is_some() || intercept.raw_auth().is_some() {
            return None;
        }
        Some(ProxyRoute {
            pool: pool(&intercept.uri().to_string())?,
            rules: rules.clone(),
        })
    }

    /// Whether `uri` goes over the pool.
    pub(super) fn carries(&self, uri: &hyper::Uri) -> bool {
        self.rules.carries(uri)
    }
}
