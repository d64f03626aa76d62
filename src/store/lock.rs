//! One writer per crawl. Every command that writes into a crawl (inject,
//! generate, fetch, parse, updatedb, crawl, refilter, simulate's crawls,
//! the demo) holds an advisory lock (`flock`, through `fs4`) on
//! `<crawl>/.lock` for as long as it runs, with its pid and task written in
//! the file; a second writer is refused with one line naming them. The OS
//! releases the lock when its process exits, however it exits, so a killed
//! writer's lock is taken over by the next writer. Read-only commands (sql,
//! report, graph export) never take it.
//!
//! Within one process the lock is shared: `crawl` opens the crawl again for
//! each phase, and every [`CrawlDir`](super::CrawlDir) of it holds the same
//! guard until the last one is dropped.

use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};
use std::time::Duration;

use fs4::TryLockError;

use crate::error::{Error, Result};

/// The lock file's name in the crawl directory (never removed: a process
/// may hold the file open to lock it).
pub const LOCK_FILE: &str = ".lock";

/// The lock of one crawl, held until dropped (and by the OS until the
/// process exits).
#[derive(Debug)]
pub struct WriterLock {
    file: File,
    path: PathBuf,
}

impl WriterLock {
    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        // Still locked here: no other writer is writing its pid yet.
        let _ = self.file.set_len(0);
    }
}

/// The locks this process holds, by canonical crawl path.
static HELD: Mutex<Vec<(PathBuf, Weak<WriterLock>)>> = Mutex::new(Vec::new());
/// What this process does, written into the lock files it takes.
static TASK: OnceLock<&'static str> = OnceLock::new();

/// Names what this process does (`fetch`, `crawl`, ...) for the lock files
/// it takes; the first call wins.
pub fn set_task(task: &'static str) {
    let _ = TASK.set(task);
}

/// Takes the writer lock of the crawl at `root` (an existing folder), or
/// shares it if this process holds it already; [`Error::Locked`] if another
/// live process holds it.
pub fn acquire(root: &Path) -> Result<Arc<WriterLock>> {
    let key = std::fs::canonicalize(root).map_err(Error::io(root))?;
    let mut held = HELD.lock().unwrap_or_else(PoisonError::into_inner);
    held.retain(|(_, lock)| lock.strong_count() > 0);
    let shared = held
        .iter()
        .find(|(path, _)| *path == key)
        .and_then(|(_, lock)| lock.upgrade());
    if let Some(lock) = shared {
        return Ok(lock);
    }
    let lock = Arc::new(take(root, &key.join(LOCK_FILE))?);
    held.push((key, Arc::downgrade(&lock)));
    Ok(lock)
}

fn take(root: &Path, path: &Path) -> Result<WriterLock> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(Error::io(path))?;
    match fs4::FileExt::try_lock(&file) {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            return Err(Error::Locked {
                crawl: root.to_path_buf(),
                holder: read_holder(path),
            })
        }
        Err(TryLockError::Error(source)) => {
            return Err(Error::Io {
                path: path.to_path_buf(),
                source,
            })
        }
    }
    let lock = WriterLock {
        file,
        path: path.to_path_buf(),
    };
    write_holder(&lock).map_err(Error::io(path))?;
    Ok(lock)
}

/// Writes `pid\ntask\n` into the lock file.
fn write_holder(lock: &WriterLock) -> std::io::Result<()> {
    let task = TASK.get().copied().unwrap_or("langcrawl");
    let mut file = &lock.file;
    file.set_len(0)?;
    file.seek(SeekFrom::Start(0))?;
    file.write_all(format!("{}\n{task}\n", std::process::id()).as_bytes())?;
    file.flush()
}

/// Who holds the lock at `path`, as `process 1234 (fetch)`. The holder
/// writes its pid just after locking, so an empty file is read again.
fn read_holder(path: &Path) -> String {
    for _ in 0..25 {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        if let Some(holder) = describe_holder(&text) {
            return holder;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    "another process".into()
}

/// The live process holding the crawl's lock at `root`, as its pid and
/// task, read from the lock file without taking the lock (`status`): a
/// released lock's file is empty; a killed writer's names a pid that is
/// gone (checked in `/proc` where there is one).
pub fn live_holder(root: &Path) -> Option<(u32, String)> {
    let text = std::fs::read_to_string(root.join(LOCK_FILE)).ok()?;
    let mut lines = text.lines();
    let pid: u32 = lines.next()?.trim().parse().ok()?;
    let task = lines.next().unwrap_or("langcrawl").trim().to_string();
    let proc = Path::new("/proc");
    let gone = proc.is_dir() && !proc.join(pid.to_string()).exists();
    (!gone).then_some((pid, task))
}

fn describe_holder(text: &str) -> Option<String> {
    let mut lines = text.lines();
    let pid: u32 = lines.next()?.trim().parse().ok()?;
    let task = lines.next().map(str::trim).filter(|t| !t.is_empty());
    Some(match task {
        Some(task) => format!("process {pid} ({task})"),
        None => format!("process {pid}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_with_the_holders_pid_and_task() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(LOCK_FILE);
        // Another holder: its own open file, locked, with its pid and task.
        let other = File::create(&path).unwrap();
        fs4::FileExt::try_lock(&other).unwrap();
        std::fs::write(&path, "4242\nfetch\n").unwrap();
        let err = acquire(tmp.path()).unwrap_err();
        let line = err.to_string();
        assert!(matches!(err, Error::Locked { .. }), "{line}");
        assert!(
            line.ends_with("is being written by process 4242 (fetch); wait for it or stop it"),
            "{line}"
        );
        assert!(
            line.starts_with(&tmp.path().display().to_string()),
            "{line}"
        );
        assert!(!line.contains('\n'));
        drop(other);
        let lock = acquire(tmp.path()).unwrap();
        let text = std::fs::read_to_string(lock.path()).unwrap();
        assert_eq!(text.lines().next(), Some(&*std::process::id().to_string()));
    }

    #[test]
    fn the_lock_is_shared_within_a_process_and_released_with_its_last_holder() {
        let tmp = tempfile::tempdir().unwrap();
        let first = acquire(tmp.path()).unwrap();
        let second = acquire(tmp.path()).unwrap();
        assert!(Arc::ptr_eq(&first, &second));
        drop((first, second));
        let path = tmp.path().join(LOCK_FILE);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "", "released");
        let other = File::open(&path).unwrap();
        fs4::FileExt::try_lock(&other).expect("free for another process");
    }

    #[test]
    fn status_sees_a_live_holder_and_not_a_released_or_dead_one() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(live_holder(tmp.path()), None, "no lock file");
        let lock = acquire(tmp.path()).unwrap();
        let (pid, _) = live_holder(tmp.path()).expect("this process holds it");
        assert_eq!(pid, std::process::id());
        drop(lock);
        assert_eq!(live_holder(tmp.path()), None, "released");
        if Path::new("/proc").is_dir() {
            std::fs::write(tmp.path().join(LOCK_FILE), "4000000000\nfetch\n").unwrap();
            assert_eq!(live_holder(tmp.path()), None, "a killed writer's pid");
        }
    }

    #[test]
    fn holders_are_described_from_the_lock_file() {
        assert_eq!(
            describe_holder("12\nparse\n").unwrap(),
            "process 12 (parse)"
        );
        assert_eq!(describe_holder("12\n").unwrap(), "process 12");
        assert_eq!(describe_holder(""), None);
        assert_eq!(describe_holder("x\n"), None);
    }
}
