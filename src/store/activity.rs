//! What the crawl's writer is doing now, for `langcrawl status`: the phase,
//! its round and how far it is (`<crawl>/.activity.json`). Advisory: it is
//! replaced (a temp file renamed, not a commit: no fsync, no crash hook)
//! at most once a second, and `status` trusts it only while the process
//! holding the crawl's lock is alive.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// The file's name in the crawl directory.
pub const ACTIVITY_FILE: &str = ".activity.json";
/// How often a phase's progress is written at most.
const EVERY: Duration = Duration::from_secs(1);

/// One phase's progress as `status` reads it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Activity {
    pub pid: u32,
    pub phase: String,
    pub round: u32,
    /// Items done (fetch: URLs, parse: pages) and in all, when counted.
    pub done: u64,
    pub total: Option<u64>,
    pub started_at_ms: i64,
    pub updated_at_ms: i64,
}

/// The writer side: started by a phase, updated as it goes.
pub struct ActivityFile {
    path: PathBuf,
    activity: Activity,
    written: Option<Instant>,
}

fn now_ms() -> i64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    since.map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl ActivityFile {
    /// Notes that `phase` of `round` starts in the crawl at `root`.
    pub fn start(root: &Path, phase: &str, round: u32, total: Option<u64>) -> Self {
        let at = now_ms();
        let mut file = ActivityFile {
            path: root.join(ACTIVITY_FILE),
            activity: Activity {
                pid: std::process::id(),
                phase: phase.into(),
                round,
                done: 0,
                total,
                started_at_ms: at,
                updated_at_ms: at,
            },
            written: None,
        };
        file.write();
        file
    }

    /// Notes `done` items; written if the last write is a second old.
    pub fn update(&mut self, done: u64) {
        self.activity.done = done;
        if self.written.is_none_or(|at| at.elapsed() >= EVERY) {
            self.write();
        }
    }

    /// Best effort: a failure to note progress never fails the phase.
    fn write(&mut self) {
        self.activity.updated_at_ms = now_ms();
        let temp = self.path.with_extension("json.tmp");
        let Ok(text) = serde_json::to_vec(&self.activity) else {
            return;
        };
        if std::fs::write(&temp, text).is_ok() {
            let _ = std::fs::rename(&temp, &self.path);
        }
        self.written = Some(Instant::now());
    }
}

/// The activity noted in the crawl at `root`, if any (unreadable: none).
pub fn read(root: &Path) -> Option<Activity> {
    let text = std::fs::read(root.join(ACTIVITY_FILE)).ok()?;
    serde_json::from_slice(&text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_phase_notes_its_progress_and_status_reads_it() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(read(tmp.path()), None);
        let mut file = ActivityFile::start(tmp.path(), "fetch", 3, Some(2000));
        file.update(10);
        let seen = read(tmp.path()).unwrap();
        assert_eq!(
            (seen.phase.as_str(), seen.round, seen.total),
            ("fetch", 3, Some(2000))
        );
        assert_eq!(seen.done, 0, "written at most once a second");
        file.written = None;
        file.update(20);
        assert_eq!(read(tmp.path()).unwrap().done, 20);
        assert_eq!(read(tmp.path()).unwrap().pid, std::process::id());
    }
}
