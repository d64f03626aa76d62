//! A host queue's robots.txt, in the host's politeness turn. Rules hold per
//! origin (RFC 9309 §2.3). The host's first answer — the hosts table's
//! while it is fresh, else the robots.txt of the first URL's origin — is
//! the one the table keeps; it sets the host's delay, names its sitemaps,
//! and if it is unavailable the whole queue waits. Another origin of the
//! same host (`https` beside `http`, another port) has its own robots.txt,
//! fetched once a run when the queue first meets it: its Crawl-delay can
//! only slow the host down, its sitemaps are not read, and if it is
//! unavailable only its own URLs wait (`deferred`).

use std::time::{Duration, Instant};

use super::super::backoff::{asks_to_wait, now_ms, retry_after};
use super::super::client::{Response, Validators};
use super::super::hosts::ROBOTS_MAX_AGE_MS;
use super::super::politeness;
use super::super::robots::{self, Robots, RobotsAnswer, MAX_ROBOTS_BYTES};
use super::{within, HostRun};

impl HostRun<'_> {
    /// Reads the host's first robots.txt answer (from the hosts table if
    /// fresh, whichever origin it is for; else `any_url`'s origin's) and
    /// sets the host's delay; a 429/503 answer defers the host, any other
    /// failure stops its queue for this run.
    pub(super) async fn load_robots(&mut self, any_url: &url::Url) {
        // a table written before answers named their origin: fetched again
        let cached = self
            .record
            .robots
            .as_ref()
            .filter(|a| a.reusable(now_ms(), ROBOTS_MAX_AGE_MS) && a.origin.is_some())
            .cloned();
        self.robots_fresh = cached.is_none();
        let answer = match cached {
            Some(answer) => answer,
            None => self.fetch_robots(any_url).await,
        };
        let robots = self.interpret(&answer);
        if let Robots::Unavailable(why) = &robots {
            self.pace.may_continue(Duration::ZERO);
            self.pace
                .stop(format!("{why}: host waits for the next run"));
        }
        self.base_delay = self.delay_for(robots.crawl_delay());
        self.delay = self.base_delay;
        self.record.robots = Some(answer);
        self.robots = Some(robots);
    }

    /// Whether robots.txt lets the queue fetch `url`: the rules of `url`'s
    /// own origin. `Err` says why not now: that origin's robots.txt is
    /// unavailable, or its answer deferred the host.
    pub(super) async fn robots_allow(&mut self, url: &url::Url) -> Result<bool, String> {
        let (Some(first), Some(rules)) = (&self.record.robots, &self.robots) else {
            return Err("robots.txt not read yet".into());
        };
        if first.answers_for(url) {
            return Ok(rules.allows(url.as_str()));
        }
        if let Some(why) = &self.pace.stopped {
            return Err(why.clone());
        }
        let origin = robots::origin_of(url);
        if !self.other_robots.contains_key(&origin) {
            let answer = self.fetch_robots(url).await;
            let rules = self.interpret(&answer);
            self.slow_down_to(rules.crawl_delay());
            self.other_robots.insert(origin.clone(), rules);
        }
        if let Some(why) = &self.pace.stopped {
            return Err(why.clone());
        }
        match &self.other_robots[&origin] {
            Robots::Unavailable(why) => Err(format!("{why}: {origin} waits for the next run")),
            rules => Ok(rules.allows(url.as_str())),
        }
    }

    /// Raises the host's delay to another origin's Crawl-delay.
    fn slow_down_to(&mut self, crawl_delay: Option<Duration>) {
        let delay = self.delay_for(crawl_delay);
        self.base_delay = self.base_delay.max(delay);
        self.delay = self.delay.max(delay);
    }

    /// The host's delay under a robots.txt `crawl_delay` (clamped).
    fn delay_for(&self, crawl_delay: Option<Duration>) -> Duration {
        let options = &self.shared.options;
        robots::host_delay(options.delay, crawl_delay, options.max_crawl_delay)
    }

    /// The rules of `answer`; a 429/503 defers the host.
    fn interpret(&mut self, answer: &RobotsAnswer) -> Robots {
        if asks_to_wait(answer.status) {
            let wait = retry_after(answer.retry_after.as_deref(), std::time::SystemTime::now());
            self.pace.defer(answer.status.unwrap_or_default(), wait);
        }
        let agent = robots::agent_token(&self.shared.options.client.user_agent);
        Robots::from_answer(agent, answer)
    }

    /// GETs the robots.txt of `any_url`'s origin in the host's turn,
    /// within its deadline, following redirects.
    async fn fetch_robots(&mut self, any_url: &url::Url) -> RobotsAnswer {
        let Ok(start) = any_url.join("/robots.txt") else {
            return RobotsAnswer {
                fetched_at_ms: now_ms(),
                status: Some(404),
                origin: Some(robots::origin_of(any_url)),
                ..RobotsAnswer::default()
            };
        };
        let turn = self.turn;
        let mut last = turn.take().await;
        politeness::sleep(politeness::wait(&last, self.delay)).await;
        self.start_budget().await;
        let deadline = self.pace.deadline();
        let shared = self.shared;
        let allow_private = shared.options.allow_private;
        let answer = robots::fetch(start, allow_private, |url| async move {
            let unconditional = Validators::default();
            let get = shared.get(url.as_str(), MAX_ROBOTS_BYTES, &unconditional);
            let got = tokio::select! {
                got = within(deadline, get) => got,
                _ = shared.options.stop.grace_over() => None,
            };
            got.unwrap_or_else(|| Response {
                error: Some("cut off by the host's deadline or a stop request".into()),
                fetched_at_ms: now_ms(),
                ..Response::default()
            })
        })
        .await;
        *last = Some(Instant::now());
        answer
    }
}
