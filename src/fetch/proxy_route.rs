//! Which URLs of a fetch go through a proxy (`--proxy`: all; else the
//! environment's rules, `NO_PROXY` apart), and the pool of connections
//! to the proxy that plain-http ones share (`proxy_pool`).

use std::sync::Arc;

use hyper_util::client::proxy::matcher::Matcher;

use super::client::ClientOptions;
use super::proxy_pool::ProxyPool;

/// Which URLs go through a proxy: every one for `--proxy`; else those the
/// environment's rules send to one (`NO_PROXY` apart; none without one).
#[derive(Debug, Clone)]
pub(super) enum ProxyRules {
    All,
    Env(Arc<Matcher>),
}

impl ProxyRules {
    pub(super) fn carries_url(&self, url: &str) -> bool {
        url.parse().is_ok_and(|uri| self.carries(&uri))
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
