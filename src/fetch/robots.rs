//! robots.txt: fetched once per host per fetch run. A 4xx answer means
//! allow all; a 5xx answer or a network error means the host is not fetched
//! this run. Crawl-delay is read for the host's politeness delay.

use std::time::Duration;

use texting_robots::Robot;

/// What robots.txt says about one host.
pub enum Robots {
    /// No robots.txt (4xx): everything is allowed.
    AllowAll,
    Rules(Box<Robot>),
    /// 5xx or no answer: do not fetch the host now.
    Unavailable(String),
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
            400..=499 => Robots::AllowAll,
            _ => Robots::Unavailable(format!("robots.txt answered HTTP {status}")),
        }
    }

    pub fn allows(&self, url: &str) -> bool {
        match self {
            Robots::AllowAll => true,
            Robots::Rules(robot) => robot.allowed(url),
            Robots::Unavailable(_) => false,
        }
    }

    pub fn crawl_delay(&self) -> Option<Duration> {
        match self {
            Robots::Rules(robot) => robot.delay.map(|s| Duration::from_secs_f32(s.max(0.0))),
            _ => None,
        }
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
mod tests {
    use super::*;

    const TXT: &[u8] = b"User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n";

    #[test]
    fn disallow_is_obeyed_and_delay_read() {
        let robots = Robots::from_response("langcrawl", 200, TXT);
        assert!(!robots.allows("http://a.jp/private/1.html"));
        assert!(robots.allows("http://a.jp/p/1.html"));
        assert_eq!(robots.crawl_delay(), Some(Duration::from_secs(2)));
    }

    #[test]
    fn status_codes() {
        assert!(Robots::from_response("x", 404, b"").allows("http://a.jp/private/"));
        assert!(!Robots::from_response("x", 503, b"").allows("http://a.jp/"));
    }

    #[test]
    fn crawl_delay_is_floored_and_capped() {
        let (one, ten) = (Duration::from_secs(1), Duration::from_secs(10));
        assert_eq!(host_delay(one, Some(Duration::from_secs(60)), ten), ten);
        assert_eq!(host_delay(one, Some(Duration::ZERO), ten), one);
        assert_eq!(agent_token("langcrawl/0.1 (+x)"), "langcrawl");
    }
}
