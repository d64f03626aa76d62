//! Back-off: when a host's queue stops for this run and how long the host
//! is left alone afterwards. A 429 or 503 answer defers the host until its
//! `Retry-After` (seconds or an HTTP date, capped at 7 days; 1 hour if absent
//! or unreadable) — across rounds, through the hosts table. A run of
//! timeouts or connection errors defers the rest of the queue to the next
//! round. The per-host time budget and the phase's deadline do the same.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::client::Response;

/// How long a host that said 429 or 503 without a usable Retry-After is left alone.
pub const DEFAULT_BACKOFF: Duration = Duration::from_secs(3600);
/// The longest a Retry-After is honoured.
pub const MAX_BACKOFF: Duration = Duration::from_secs(7 * 24 * 3600);

/// True for the answers that ask a client to come back later.
pub fn asks_to_wait(status: Option<u16>) -> bool {
    matches!(status, Some(429 | 503))
}

/// How long to wait after an answer with this `Retry-After` value, read
/// at `now`: delay-seconds or an HTTP date, clamped to [0, 7 days].
pub fn retry_after(value: Option<&str>, now: SystemTime) -> Duration {
    let Some(value) = value.map(str::trim) else {
        return DEFAULT_BACKOFF;
    };
    let wait = if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) {
        // All digits: seconds, however many (an overflow is "very long").
        Some(value.parse().map_or(MAX_BACKOFF, Duration::from_secs))
    } else {
        httpdate::parse_http_date(value)
            .ok()
            .map(|date| date.duration_since(now).unwrap_or(Duration::ZERO))
    };
    wait.unwrap_or(DEFAULT_BACKOFF).min(MAX_BACKOFF)
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// A time in milliseconds as an HTTP date (`Sun, 06 Nov 1994 08:49:37 GMT`).
pub fn http_date(ms: i64) -> String {
    let at = UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64);
    httpdate::fmt_http_date(at)
}

/// One host's pace in this run: its consecutive failures, its deadline,
/// and, once its queue has stopped, why and until when.
#[derive(Debug)]
pub struct HostPace {
    failures: u32,
    max_failures: u32,
    deadline: Option<(Instant, String)>,
    /// Why the rest of the queue waits (set once).
    pub stopped: Option<String>,
    /// No request to the host before this time (ms), from a 429 or 503.
    pub deferred_until_ms: Option<i64>,
}

impl HostPace {
    /// `prior_failures` carry over from the last run, so a host that kept
    /// failing gets one try before its queue stops again.
    pub fn new(prior_failures: u32, max_failures: u32) -> Self {
        let max_failures = max_failures.max(1);
        HostPace {
            failures: prior_failures.min(max_failures - 1),
            max_failures,
            deadline: None,
            stopped: None,
            deferred_until_ms: None,
        }
    }

    pub fn failures(&self) -> u32 {
        self.failures
    }

    /// Sets the instant the host's queue stops, and the reason given then.
    pub fn set_deadline(&mut self, at: Instant, reason: String) {
        if self.deadline.as_ref().is_none_or(|(d, _)| at < *d) {
            self.deadline = Some((at, reason));
        }
    }

    pub fn deadline(&self) -> Option<Instant> {
        self.deadline.as_ref().map(|(at, _)| *at)
    }

    /// Stops the queue for `reason` (the first reason stays).
    pub fn stop(&mut self, reason: String) {
        self.stopped.get_or_insert(reason);
    }

    /// Stops the queue if the deadline has passed, or would pass within
    /// `wait`; true if the queue may go on.
    pub fn may_continue(&mut self, wait: Duration) -> bool {
        if let Some((at, reason)) = &self.deadline {
            if Instant::now() + wait >= *at {
                let reason = reason.clone();
                self.stop(reason);
            }
        }
        self.stopped.is_none()
    }

    /// Notes one answer: a 429 or 503 defers the host, a timeout or
    /// connection error counts toward `max_failures`, anything else
    /// resets the count.
    pub fn record(&mut self, response: &Response) {
        if asks_to_wait(response.http_status) {
            let wait = retry_after(response.retry_after.as_deref(), SystemTime::now());
            self.defer(response.http_status.unwrap_or_default(), wait);
        } else if response.error.is_some() {
            self.failures += 1;
            if self.failures >= self.max_failures {
                self.stop(format!(
                    "{} timeouts or connection errors in a row: host waits for the next round",
                    self.failures
                ));
            }
        } else {
            self.failures = 0;
        }
    }

    /// Leaves the host alone for `wait` after an HTTP `status`.
    pub fn defer(&mut self, status: u16, wait: Duration) {
        let until = now_ms().saturating_add(wait.as_millis() as i64);
        self.deferred_until_ms = Some(until);
        self.stop(format!(
            "HTTP {status}: host deferred until {}",
            http_date(until)
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_in_seconds_dates_and_garbage() {
        let now = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(retry_after(Some("3600"), now), Duration::from_secs(3600));
        assert_eq!(retry_after(Some(" 0 "), now), Duration::ZERO);
        assert_eq!(retry_after(None, now), DEFAULT_BACKOFF);
        let later = httpdate::fmt_http_date(now + Duration::from_secs(120));
        assert_eq!(retry_after(Some(&later), now), Duration::from_secs(120));
        let past = httpdate::fmt_http_date(now - Duration::from_secs(120));
        assert_eq!(retry_after(Some(&past), now), Duration::ZERO);
        // RFC 850 and asctime dates are HTTP dates too.
        let rfc850 = retry_after(Some("Sunday, 06-Nov-94 08:49:37 GMT"), now);
        assert_eq!(rfc850, Duration::ZERO);
        for garbage in [
            "",
            "soon",
            "-5",
            "1.5",
            "3600s",
            "Mon, 99 Foo 2024",
            "\u{0}",
        ] {
            assert_eq!(
                retry_after(Some(garbage), now),
                DEFAULT_BACKOFF,
                "{garbage:?}"
            );
        }
        for huge in ["99999999999999999999999999", "31536000"] {
            assert_eq!(retry_after(Some(huge), now), MAX_BACKOFF, "{huge}");
        }
        let far = httpdate::fmt_http_date(now + Duration::from_secs(400 * 24 * 3600));
        assert_eq!(retry_after(Some(&far), now), MAX_BACKOFF);
    }

    fn response(status: Option<u16>, error: Option<&str>) -> Response {
        Response {
            http_status: status,
            error: error.map(str::to_string),
            ..Response::default()
        }
    }

    #[test]
    fn consecutive_failures_stop_the_queue() {
        let mut pace = HostPace::new(0, 3);
        pace.record(&response(None, Some("timed out")));
        pace.record(&response(None, Some("timed out")));
        pace.record(&response(Some(200), None));
        assert!(
            pace.may_continue(Duration::ZERO),
            "a success resets the count"
        );
        for _ in 0..3 {
            pace.record(&response(None, Some("connection reset")));
        }
        assert!(!pace.may_continue(Duration::ZERO));
        assert!(pace
            .stopped
            .unwrap()
            .contains("3 timeouts or connection errors"));
        let mut again = HostPace::new(7, 3);
        assert_eq!(again.failures(), 2, "one try left after a failing run");
        again.record(&response(None, Some("timed out")));
        assert!(!again.may_continue(Duration::ZERO));
    }

    #[test]
    fn busy_answers_defer_the_host() {
        let mut pace = HostPace::new(0, 5);
        let mut busy = response(Some(429), None);
        busy.retry_after = Some("3600".into());
        pace.record(&busy);
        let until = pace.deferred_until_ms.unwrap();
        assert!((until - now_ms() - 3_600_000).abs() < 5_000, "{until}");
        assert!(pace
            .stopped
            .unwrap()
            .starts_with("HTTP 429: host deferred until"));
    }

    #[test]
    fn a_deadline_stops_the_queue_before_a_wait_that_crosses_it() {
        let mut pace = HostPace::new(0, 5);
        pace.set_deadline(Instant::now() + Duration::from_secs(60), "budget".into());
        assert!(pace.may_continue(Duration::from_secs(1)));
        assert!(!pace.may_continue(Duration::from_secs(61)));
        assert_eq!(pace.stopped.as_deref(), Some("budget"));
    }
}
