//! Politeness queues. The hosts that share a queue (`--queue-by host`,
//! `domain`: the registrable domain, or `ip`: the address the name
//! resolves to) take turns: one request at a time, each host's delay
//! after the queue's last request. `--delay-factor F` stretches a host's
//! delay to at least F times the server's last response time, up to the
//! Crawl-delay cap. Hundreds of names on one shared-hosting address are
//! then one server's worth of requests, not hundreds.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::{Mutex, MutexGuard};

/// What the hosts of one politeness queue have in common.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum QueueBy {
    #[default]
    Host,
    Domain,
    Ip,
}

/// How long a name may take to resolve for `--queue-by ip`.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(5);

/// One queue's turn: when its last request ended. Held (locked) through
/// a request's wait and the request itself.
#[derive(Debug, Default)]
pub struct Turn(Mutex<Option<Instant>>);

/// A host's hold on its queue's turn.
pub type TurnGuard<'a> = MutexGuard<'a, Option<Instant>>;

impl Turn {
    pub async fn take(&self) -> TurnGuard<'_> {
        self.0.lock().await
    }
}

/// The wait before a request that is `delay` after the queue's last one.
pub fn wait(turn: &TurnGuard<'_>, delay: Duration) -> Duration {
    turn.map_or(Duration::ZERO, |at| delay.saturating_sub(at.elapsed()))
}

/// Sleeps `wait`, and not at all when it is zero: tokio's timer fires on
/// its next millisecond tick, so a zero sleep costs up to a millisecond
/// (with `--delay-ms 0`, a lone host's queue went at 1.4 ms a request, of
/// which 0.12 ms fetching).
pub async fn sleep(wait: Duration) {
    if !wait.is_zero() {
        tokio::time::sleep(wait).await;
    }
}

/// A host's delay after an answer that took `elapsed`: at least `factor`
/// times it (0: off), at least `base`, at most `cap`.
pub fn stretched(base: Duration, factor: f64, elapsed: Duration, cap: Duration) -> Duration {
    if factor <= 0.0 || !factor.is_finite() {
        return base;
    }
    let scaled = Duration::try_from_secs_f64(elapsed.as_secs_f64() * factor).unwrap_or(cap);
    base.max(scaled.min(cap))
}

/// Each host's turn: hosts with the same key share one. `pinned` are the
/// names `--resolve` maps; with a proxy no name is resolved here (the
/// proxy resolves them), so `ip` falls back to the host.
pub async fn turns(
    hosts: &[String],
    by: QueueBy,
    pinned: &[(String, SocketAddr)],
    proxy: bool,
) -> HashMap<String, Arc<Turn>> {
    let mut by_key: HashMap<String, Arc<Turn>> = HashMap::new();
    let mut turns = HashMap::new();
    for host in hosts {
        let key = match by {
            QueueBy::Host => host.clone(),
            QueueBy::Domain => psl::domain_str(host).unwrap_or(host).to_string(),
            QueueBy::Ip => address(host, pinned, proxy)
                .await
                .map_or_else(|| host.clone(), |ip| ip.to_string()),
        };
        let turn = by_key.entry(key).or_default().clone();
        turns.insert(host.clone(), turn);
    }
    turns
}

/// The address `host` resolves to (a pinned one first); `None` when it
/// does not resolve in time, or a proxy resolves names.
async fn address(host: &str, pinned: &[(String, SocketAddr)], proxy: bool) -> Option<IpAddr> {
    if let Some((_, addr)) = pinned.iter().find(|(name, _)| name == host) {
        return Some(addr.ip());
    }
    if let Ok(ip) = host.trim_matches(['[', ']']).parse::<IpAddr>() {
        return Some(ip);
    }
    if proxy {
        return None;
    }
    let lookup = tokio::net::lookup_host((host, 80));
    let mut found = tokio::time::timeout(RESOLVE_TIMEOUT, lookup)
        .await
        .ok()?
        .ok()?;
    found.next().map(|a| a.ip())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn hosts_share_a_turn_by_domain_or_by_address() {
        let hosts: Vec<String> = ["a.example.jp", "b.example.jp", "c.other.jp", "d.test"]
            .map(String::from)
            .to_vec();
        let same = |turns: &HashMap<String, Arc<Turn>>, a: &str, b: &str| {
            Arc::ptr_eq(&turns[a], &turns[b])
        };
        let by_host = turns(&hosts, QueueBy::Host, &[], true).await;
        assert!(!same(&by_host, "a.example.jp", "b.example.jp"));
        let by_domain = turns(&hosts, QueueBy::Domain, &[], true).await;
        assert!(same(&by_domain, "a.example.jp", "b.example.jp"));
        assert!(!same(&by_domain, "a.example.jp", "c.other.jp"));
        let pinned: Vec<(String, SocketAddr)> = ["c.other.jp", "d.test"]
            .iter()
            .map(|h| (h.to_string(), "10.1.2.3:80".parse().unwrap()))
            .collect();
        let by_ip = turns(&hosts, QueueBy::Ip, &pinned, true).await;
        assert!(same(&by_ip, "c.other.jp", "d.test"), "one address");
        assert!(
            !same(&by_ip, "a.example.jp", "b.example.jp"),
            "a proxy resolves them"
        );
    }

    #[tokio::test]
    async fn no_delay_is_no_wait_for_the_timer() {
        use futures::FutureExt;
        // done on its first poll, not on the timer's next tick
        assert_eq!(sleep(Duration::ZERO).now_or_never(), Some(()));
        assert_eq!(sleep(Duration::from_millis(5)).now_or_never(), None);
    }

    #[test]
    fn a_slow_server_stretches_the_delay_within_the_cap() {
        let (base, cap) = (Duration::from_millis(100), Duration::from_secs(10));
        let slow = Duration::from_millis(500);
        assert_eq!(stretched(base, 0.0, slow, cap), base);
        assert_eq!(stretched(base, 2.0, slow, cap), Duration::from_secs(1));
        assert_eq!(stretched(base, 2.0, Duration::from_millis(10), cap), base);
        assert_eq!(stretched(base, 100.0, slow, cap), cap);
        assert_eq!(stretched(base, f64::NAN, slow, cap), base);
    }
}
