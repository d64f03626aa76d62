//! Stopping on request: the first SIGINT or SIGTERM asks the running
//! command to stop gracefully — fetch sends no new request, waits up to
//! [`GRACE`] for those in flight, writes what arrived and marks the rest
//! `deferred`, then commits; the other phases finish (run on their own,
//! they hear it through [`heard`]); `crawl` ends after the phase it is in,
//! and the command exits with the signal's status
//! (128 + its number: 130 for SIGINT, 143 for SIGTERM), so that a script
//! running rounds stops too. A second signal exits at once, as a kill
//! would (every commit is a rename, so the crawl is then as after a kill).

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;

/// How long fetch waits for the requests in flight once asked to stop.
pub const GRACE: Duration = Duration::from_secs(5);
/// Why a URL was not requested after a stop request.
pub const STOPPED: &str = "the crawl was asked to stop (SIGINT/SIGTERM); fetched next time";
/// The exit status after SIGINT, and after any second signal (128 + 2, as
/// shells report it).
pub const ABORT_STATUS: i32 = 130;

/// A request to stop, shared by everything that should heed it. The
/// default handle is never requested unless [`StopHandle::request`] is
/// called (tests) or [`listen`] hears a signal.
#[derive(Debug, Clone, Default)]
pub struct StopHandle(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    requested: AtomicBool,
    /// The exit status the signal that asked calls for (0: no signal).
    status: AtomicI32,
    notify: Notify,
}

impl StopHandle {
    pub fn request(&self) {
        self.0.requested.store(true, Ordering::SeqCst);
        self.0.notify.notify_waiters();
    }

    /// A stop asked for by a signal: the command ends with `status`.
    fn request_by_signal(&self, status: i32) {
        self.0.status.store(status, Ordering::SeqCst);
        self.request();
    }

    /// The exit status a signal's stop calls for, once one asked.
    pub fn signal_status(&self) -> Option<i32> {
        let status = self.0.status.load(Ordering::SeqCst);
        (status != 0).then_some(status)
    }

    pub fn is_requested(&self) -> bool {
        self.0.requested.load(Ordering::SeqCst)
    }

    /// Resolves once a stop is requested.
    pub async fn requested(&self) {
        loop {
            let notified = self.0.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_requested() {
                return;
            }
            notified.await;
        }
    }

    /// Resolves [`GRACE`] after a stop is requested.
    pub async fn grace_over(&self) {
        self.requested().await;
        tokio::time::sleep(GRACE).await;
    }
}

/// `--until`'s value: an RFC 3339 time (`2026-12-01T06:00:00Z`) or a
/// duration from now (`90s`, `45m`, `8h`, `2d`).
pub fn parse_until(text: &str) -> Result<std::time::SystemTime, String> {
    let text = text.trim();
    if let Ok(at) = chrono::DateTime::parse_from_rfc3339(text) {
        let seconds = u64::try_from(at.timestamp()).map_err(|_| format!("{text}: before 1970"))?;
        return Ok(std::time::UNIX_EPOCH + Duration::from_secs(seconds));
    }
    let duration = crate::schedule::parse_duration(text).map_err(|_| {
        format!(
            "{text}: give a time (2026-12-01T06:00:00Z) or a duration from now (90s, 45m, 8h, 2d)"
        )
    })?;
    Ok(std::time::SystemTime::now() + duration)
}

/// Listens for SIGINT and SIGTERM on the current runtime: the first
/// requests a stop on `handle` (saying so on stderr), the second exits
/// the process at once with [`ABORT_STATUS`]. The handlers are in place
/// when it returns: a signal from then on is heard.
pub fn listen(handle: StopHandle) {
    let Some(mut signals) = Signals::new() else {
        return;
    };
    tokio::spawn(async move {
        for count in 0.. {
            let status = signals.next().await;
            if count > 0 {
                eprintln!("langcrawl: second signal: stopping now (the crawl resumes from its last commit)");
                die_of_signal(status);
            }
            eprintln!("langcrawl: stopping: finishing the phase in progress (a fetch gives its requests in flight up to {}s); signal again to stop at once", GRACE.as_secs());
            handle.request_by_signal(status);
        }
    });
}

/// The exit status after a stop asked by SIGTERM (128 + 15).
pub const TERM_STATUS: i32 = 143;

/// Ends the process as the signal behind `status` (128 + its number) does,
/// output flushed first: a shell running it from a script then stops the
/// script too (bash goes on after a child that exits with 130 itself,
/// taking the signal as handled), and reports the same status.
pub fn die_of_signal(status: i32) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    #[cfg(target_os = "linux")]
    // SAFETY: setting a signal's action back to the default and raising
    // it take integers; the default action of SIGINT and SIGTERM ends the
    // process.
    unsafe {
        libc::signal(status - 128, libc::SIG_DFL);
        libc::raise(status - 128);
    }
    std::process::exit(status)
}

/// SIGINT and SIGTERM, listened for; `None` if they cannot be.
#[cfg(unix)]
struct Signals {
    term: tokio::signal::unix::Signal,
    int: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl Signals {
    fn new() -> Option<Self> {
        use tokio::signal::unix::{signal, SignalKind};
        let term = signal(SignalKind::terminate()).ok()?;
        let int = signal(SignalKind::interrupt()).ok()?;
        Some(Signals { term, int })
    }

    /// The next signal, as the exit status it calls for.
    async fn next(&mut self) -> i32 {
        tokio::select! {
            _ = self.term.recv() => TERM_STATUS,
            _ = self.int.recv() => ABORT_STATUS,
        }
    }
}

#[cfg(not(unix))]
struct Signals;

#[cfg(not(unix))]
impl Signals {
    fn new() -> Option<Self> {
        Some(Signals)
    }

    async fn next(&mut self) -> i32 {
        let _ = tokio::signal::ctrl_c().await;
        ABORT_STATUS
    }
}

/// What a command a signal stopped part-way has done (`fetch`, `crawl`).
pub const PART_DONE: &str = "what was done is committed; run the command again to go on";

/// What a command that cannot stop part-way has done when a signal came
/// (`generate`, `parse`, `updatedb`, `refilter`): all of it.
pub const ALL_DONE: &str =
    "the command ran to its end and is committed; a script running it stops here";

/// `Err(Stopped)` after a command a signal stopped (`done`: what it
/// committed): the command's exit status then says a signal came.
pub fn stopped_by_signal(handle: &StopHandle, done: &'static str) -> crate::error::Result<()> {
    match handle.signal_status() {
        Some(status) => Err(crate::error::Error::Stopped { status, done }),
        None => Ok(()),
    }
}

/// A stop handle that hears SIGINT and SIGTERM ([`listen`]), for a command
/// that runs to its end anyway and then exits with the signal's status (a
/// second signal still exits at once).
pub fn heard() -> StopHandle {
    let handle = StopHandle::default();
    listen(handle.clone());
    handle
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn until_takes_a_time_or_a_duration() {
        let at = parse_until("2030-01-01T00:00:00Z").unwrap();
        let since = at.duration_since(std::time::UNIX_EPOCH).unwrap();
        assert_eq!(since.as_secs(), 1_893_456_000);
        let soon = parse_until("45m").unwrap();
        let left = soon.duration_since(std::time::SystemTime::now()).unwrap();
        assert!(left > Duration::from_secs(44 * 60) && left <= Duration::from_secs(45 * 60));
        for bad in ["", "45", "m", "0h", "tomorrow", "12x"] {
            assert!(parse_until(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn only_a_signals_stop_calls_for_an_exit_status() {
        let asked = StopHandle::default();
        asked.request();
        assert!(asked.is_requested());
        assert!(
            stopped_by_signal(&asked, PART_DONE).is_ok(),
            "a stop without a signal"
        );
        let signalled = StopHandle::default();
        signalled.request_by_signal(TERM_STATUS);
        assert!(signalled.is_requested());
        let stopped = stopped_by_signal(&signalled, ALL_DONE).unwrap_err();
        assert_eq!(stopped.exit_code(), 143);
        assert!(stopped.to_string().contains("ran to its end"), "{stopped}");
    }

    #[tokio::test]
    async fn a_request_wakes_every_waiter_even_one_that_came_late() {
        let handle = StopHandle::default();
        let early = tokio::spawn({
            let handle = handle.clone();
            async move { handle.requested().await }
        });
        tokio::task::yield_now().await;
        assert!(!handle.is_requested());
        handle.request();
        early.await.unwrap();
        // a waiter after the request returns at once
        tokio::time::timeout(Duration::from_secs(1), handle.requested())
            .await
            .unwrap();
    }
}
