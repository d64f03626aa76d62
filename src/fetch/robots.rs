//! robots.txt per RFC 9309: the rules of one origin (scheme, host and
//! port), fetched once a run (and reused for 24 hours through the hosts
//! table, `crate::fetch::hosts`), following up to five redirects across hosts
//! and schemes, each hop through the address guard. A 4xx answer means
//! allow all; a 5xx or 429 answer, no answer, or too many redirects mean the
//! host is not fetched this run (its URLs are `deferred`). Crawl-delay sets
//! the host's politeness delay, clamped whatever the file says.

use std::future::Future;
use std::time::Duration;

use texting_robots::Robot;

use super::client::Response;
use super::guard;

/// The most bytes of a robots.txt read (RFC 9309 §2.5 asks for at least 500 KiB).
pub const MAX_ROBOTS_BYTES: usize = 512 * 1024;
/// Redirects followed for one robots.txt (RFC 9309 §2.3.1.2).
pub const MAX_ROBOTS_REDIRECTS: usize = 5;

/// What robots.txt says about one origin's URLs.
pub enum Robots {
    /// No robots.txt (4xx): everything is allowed.
    AllowAll,
    Rules(Box<Robot>),
    /// 5xx, 429 or no answer: do not fetch the host now.
    Unavailable(String),
}

/// The final answer to a robots.txt request, as the hosts table keeps it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RobotsAnswer {
    pub fetched_at_ms: i64,
    pub status: Option<u16>,
    pub body: Vec<u8>,
    /// Why there is no usable answer (network error, redirects, guard).
    pub error: Option<String>,
    /// The answer's `Retry-After`, for a 429 or 503.
    pub retry_after: Option<String>,
    /// The origin (scheme, host and port) whose `/robots.txt` this answers:
    /// its rules hold for that origin only (RFC 9309 §2.3).
    pub origin: Option<String>,
}

impl RobotsAnswer {
    fn failed(fetched_at_ms: i64, error: String) -> Self {
        RobotsAnswer {
            fetched_at_ms,
            error: Some(error),
            ..RobotsAnswer::default()
        }
    }

    /// True if the answer may be reused in a later run: a 2xx or 4xx (but
    /// not 429) answer, fetched less than `max_age_ms` before `now_ms`.
    pub fn reusable(&self, now_ms: i64, max_age_ms: i64) -> bool {
        let final_status = matches!(self.status, Some(200..=299 | 400..=428 | 430..=499));
        self.error.is_none() && final_status && now_ms - self.fetched_at_ms < max_age_ms
    }

    /// True if this answer's rules are the ones for `url` (same origin).
    pub fn answers_for(&self, url: &url::Url) -> bool {
        self.origin.as_deref() == Some(origin_of(url).as_str())
    }
}

/// The origin whose robots.txt governs `url`: `scheme://host[:port]`.
pub fn origin_of(url: &url::Url) -> String {
    url.origin().ascii_serialization()
}

impl Robots {
    /// Interprets the answer to `GET /robots.txt`.
    pub fn from_response(agent: &str, status: u16, body: &[u8]) -> Robots {
        match status {
            200..=299 => match Robot::new(agent, body) {
                Ok(robot) => Robots::Rules(Box::new(robot)),
                // An unparseable file gives no rules.
                Err(_) => Robots::AllowAll,
            },
            429 => Robots::Unavailable("robots.txt answered HTTP 429".into()),
            400..=499 => Robots::AllowAll,
            _ => Robots::Unavailable(format!("robots.txt answered HTTP {status}")),
        }
    }

    /// Interprets a (fresh or cached) answer.
    pub fn from_answer(agent: &str, answer: &RobotsAnswer) -> Robots {
        match (&answer.error, answer.status) {
            (Some(error), _) => Robots::Unavailable(format!("robots.txt: {error}")),
            (None, Some(status)) => Robots::from_response(agent, status, &answer.body),
            (None, None) => Robots::Unavailable("robots.txt: no answer".into()),
        }
    }

    pub fn allows(&self, url: &str) -> bool {
        match self {
            Robots::AllowAll => true,
            Robots::Rules(robot) => robot.allowed(url),
            Robots::Unavailable(_) => false,
        }
    }

    /// The sitemaps the file names (`Sitemap:` lines), as written.
    pub fn sitemaps(&self) -> &[String] {
        match self {
            Robots::Rules(robot) => &robot.sitemaps,
            _ => &[],
        }
    }

    /// The Crawl-delay asked for: NaN counts as none, a negative value as
    /// zero, infinity or a huge value as `Duration::MAX` (capped later).
    pub fn crawl_delay(&self) -> Option<Duration> {
        match self {
            Robots::Rules(robot) => robot.delay.and_then(delay_seconds),
            _ => None,
        }
    }
}

fn delay_seconds(seconds: f32) -> Option<Duration> {
    if seconds.is_nan() {
        return None;
    }
    if seconds <= 0.0 {
        return Some(Duration::ZERO);
    }
    Some(Duration::try_from_secs_f32(seconds).unwrap_or(Duration::MAX))
}

/// GETs `start` (a `/robots.txt` URL) through `get`, following redirects:
/// each Location is resolved against the URL that gave it and must pass the
/// address guard; a sixth redirect makes the answer unavailable.
pub async fn fetch<F, Fut>(start: url::Url, allow_private: bool, mut get: F) -> RobotsAnswer
where
    F: FnMut(url::Url) -> Fut,
    Fut: Future<Output = Response>,
{
    let origin = Some(origin_of(&start));
    let answer = follow(start, allow_private, &mut get).await;
    RobotsAnswer { origin, ..answer }
}

/// The final answer to the GET of `start`, following redirects.
async fn follow<F, Fut>(start: url::Url, allow_private: bool, get: &mut F) -> RobotsAnswer
where
    F: FnMut(url::Url) -> Fut,
    Fut: Future<Output = Response>,
{
    let mut url = start;
    let mut hops = 0;
    loop {
        let response = get(url.clone()).await;
        let at = response.fetched_at_ms;
        let redirect = matches!(response.http_status, Some(300..=399)) && response.error.is_none();
        if !redirect {
            return RobotsAnswer {
                fetched_at_ms: at,
                status: response.http_status,
                body: response.content,
                error: response.error,
                retry_after: response.retry_after,
                origin: None,
            };
        }
        if hops == MAX_ROBOTS_REDIRECTS {
            return RobotsAnswer::failed(at, format!("more than {MAX_ROBOTS_REDIRECTS} redirects"));
        }
        hops += 1;
        url = match next_hop(&url, response.location.as_deref(), allow_private) {
            Ok(next) => next,
            Err(why) => return RobotsAnswer::failed(at, why),
        };
    }
}

/// Where a robots.txt redirect leads, if it may be followed.
fn next_hop(
    from: &url::Url,
    location: Option<&str>,
    allow_private: bool,
) -> Result<url::Url, String> {
    let location = location.ok_or_else(|| format!("redirect from {from} without a Location"))?;
    let next = from
        .join(location)
        .map_err(|e| format!("redirect from {from} to {location:?}: {e}"))?;
    match guard::refusal(&next, allow_private) {
        Some(why) => Err(format!("redirect to {next} refused: {why}")),
        None => Ok(next),
    }
}

/// The robots.txt product token of a user agent (`langcrawl/0.1 (...)` → `langcrawl`).
pub fn agent_token(user_agent: &str) -> &str {
    user_agent
        .split(['/', ' '])
        .next()
        .filter(|t| !t.is_empty())
        .unwrap_or("*")
}

/// The politeness delay for a host: the configured delay, raised to the
/// host's Crawl-delay but never above `cap`.
pub fn host_delay(configured: Duration, crawl_delay: Option<Duration>, cap: Duration) -> Duration {
    match crawl_delay {
        Some(asked) => configured.max(asked.min(cap)),
        None => configured,
    }
}

#[cfg(test)]
#[path = "robots_tests.rs"]
mod tests;
