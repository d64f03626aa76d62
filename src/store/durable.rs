//! Durable renames: a file is flushed to disk (fsync) before it is renamed
//! into place, and the folder that holds the new name is flushed after,
//! so a power cut leaves either the old state or the new one, never a
//! renamed file with missing bytes.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};

/// Flushes `file` (at `path`, for the error) to disk.
pub fn sync_file(file: &File, path: &Path) -> Result<()> {
    file.sync_all().map_err(Error::io(path))
}

/// Flushes a folder's entries (names created, renamed or removed in it).
pub fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(Error::io(dir))
}

/// Writes `bytes` to `path` and flushes the file to disk.
pub fn write_synced(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut file = File::create(path).map_err(Error::io(path))?;
    file.write_all(bytes).map_err(Error::io(path))?;
    sync_file(&file, path)
}

/// Renames `from` to `to` and flushes the folders of both names.
pub fn rename_synced(from: &Path, to: &Path) -> Result<()> {
    let n = crash_test::before(from, to);
    std::fs::rename(from, to).map_err(Error::io(from))?;
    let (from_parent, to_parent) = (parent(from), parent(to));
    sync_dir(to_parent)?;
    if from_parent != to_parent {
        sync_dir(from_parent)?;
    }
    crash_test::after(n);
    Ok(())
}

/// `to` as a hard link to `from`, or a copy where links are not possible.
pub fn link_or_copy(from: &Path, to: &Path) -> Result<()> {
    if std::fs::hard_link(from, to).is_err() {
        std::fs::copy(from, to).map_err(Error::io(from))?;
    }
    Ok(())
}

/// The crash-safety tests' hook: every commit of the crate is a rename
/// through [`rename_synced`], so killing a process at each of its renames
/// tests every state a crash can leave. `LANGCRAWL_CRASH_AT_RENAME=N:before`
/// (or `N:after`) aborts the process, as a kill would (no cleanup), just
/// before (after) its Nth rename, counted from 1;
/// `LANGCRAWL_CRASH_AT_RENAME=list` prints each rename to stderr
/// (`rename N: FROM -> TO`). Unset, it costs one look-up per process.
mod crash_test {
    use std::path::Path;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::OnceLock;

    const VAR: &str = "LANGCRAWL_CRASH_AT_RENAME";

    enum Plan {
        Off,
        List,
        Crash { at: usize, after: bool },
    }

    fn plan() -> &'static Plan {
        static PLAN: OnceLock<Plan> = OnceLock::new();
        PLAN.get_or_init(|| {
            let Ok(value) = std::env::var(VAR) else {
                return Plan::Off;
            };
            if value == "list" {
                return Plan::List;
            }
            let (n, when) = value.split_once(':').unwrap_or((&value, "before"));
            match n.parse() {
                Ok(at) => Plan::Crash {
                    at,
                    after: when == "after",
                },
                Err(_) => Plan::Off,
            }
        })
    }

    static RENAMES: AtomicUsize = AtomicUsize::new(0);

    /// Counts a rename about to happen; crashes if planned before it.
    pub fn before(from: &Path, to: &Path) -> usize {
        let plan = plan();
        if matches!(plan, Plan::Off) {
            return 0;
        }
        let n = RENAMES.fetch_add(1, Ordering::SeqCst) + 1;
        match plan {
            Plan::List => eprintln!("rename {n}: {} -> {}", from.display(), to.display()),
            Plan::Crash { at, after: false } if *at == n => std::process::abort(),
            _ => {}
        }
        n
    }

    /// Crashes if planned just after rename `n`.
    pub fn after(n: usize) {
        if let Plan::Crash { at, after: true } = plan() {
            if *at == n {
                std::process::abort();
            }
        }
    }
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_synced_file_is_renamed_with_its_bytes() {
        let tmp = tempfile::tempdir().unwrap();
        let (from, to) = (tmp.path().join("a.tmp"), tmp.path().join("a"));
        write_synced(&from, b"done").unwrap();
        rename_synced(&from, &to).unwrap();
        assert_eq!(std::fs::read(&to).unwrap(), b"done");
        assert!(!from.exists());
        let err = rename_synced(&from, &to).unwrap_err().to_string();
        assert!(err.contains("a.tmp"), "{err}");
    }
}
