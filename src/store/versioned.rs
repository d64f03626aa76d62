//! A table replaced as a whole — the crawldb, the hosts table — kept as
//! versions that are never changed once written (as Delta Lake keeps its
//! data files):
//!
//! ```text
//! crawldb/CURRENT            the name of the current version ("v000007")
//! crawldb/v000007/           its Parquet files, and `.lease`
//! crawldb/v000006/           an older version a reader still holds
//! ```
//!
//! A commit renames the new version's folder into place, then a new
//! `CURRENT` over the old one: one rename makes it current. A reader pins
//! the version it first opens with a shared lock on the version's `.lease`
//! and reads that version to the end; the writer removes an old version
//! only when it can lock its lease exclusively, so never under a reader.

use std::fs::File;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use datafusion::arrow::datatypes::SchemaRef;
use fs4::TryLockError;

use super::durable::{rename_synced, sync_dir, write_synced};
use super::layout::TEMP_MARK;
use super::segment::{part_files, SegmentWriter, Staged};
use crate::error::{Error, Result};

/// Names the current version.
const POINTER: &str = "CURRENT";
/// Written beside the pointer before it is renamed over it.
const POINTER_TEMP: &str = "CURRENT.tmp";
/// In every version: the file readers lock (shared) to keep it.
const LEASE: &str = ".lease";
/// How often a reader looks again for a version that was removed between
/// reading the pointer and locking the version's lease.
const PIN_TRIES: usize = 1000;

/// A table folder holding versions.
#[derive(Debug, Clone)]
pub struct VersionedTable {
    dir: PathBuf,
}

/// A version held by a reader: not removed while this lives.
#[derive(Debug)]
pub struct Pin {
    pub dir: PathBuf,
    /// None for a table of the layout before versions (no lease to hold).
    _lease: Option<File>,
}

impl VersionedTable {
    pub fn new(dir: PathBuf) -> Self {
        VersionedTable { dir }
    }

    /// The table's folder (holding the versions).
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The current version's folder, or `None` before the first commit. A
    /// pointer that names no version folder there is an error (nothing is
    /// then removed as "not current").
    pub fn current(&self) -> Result<Option<PathBuf>> {
        let pointer = self.dir.join(POINTER);
        let name = match std::fs::read_to_string(&pointer) {
            Ok(name) => name.trim().to_string(),
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(&pointer)(e)),
        };
        let version = self.dir.join(&name);
        if version_number(&name).is_none() || !version.is_dir() {
            return Err(Error::SegmentRead {
                path: pointer,
                message: format!(
                    "names {name:?}, which is not a version folder beside it; the table is damaged"
                ),
            });
        }
        Ok(Some(version))
    }

    /// The folder the next version is written to (its writer's final
    /// folder): one past the highest version there.
    pub fn next_version(&self) -> Result<PathBuf> {
        let last = self.versions()?.last().map_or(0, |(n, _)| *n);
        let next = last.checked_add(1).ok_or_else(|| Error::SegmentWrite {
            path: self.dir.clone(),
            message: format!("no version after {}", version_name(last)),
        })?;
        Ok(self.dir.join(version_name(next)))
    }

    /// A writer of the next version, to be made current with
    /// [`commit`](Self::commit).
    pub fn writer(&self, schema: SchemaRef) -> Result<SegmentWriter> {
        SegmentWriter::create(&self.next_version()?, schema)
    }

    /// Makes `staged` (from [`writer`](Self::writer)) the current version,
    /// then removes the old versions no reader holds.
    pub fn commit(&self, staged: Staged) -> Result<()> {
        self.install(&staged.temp_dir, &staged.final_dir)?;
        // installed: the temp folder is the version now
        let _ = staged.hand_on();
        // Committed: an old version left behind is removed by a later commit.
        if let Err(e) = self.prune() {
            eprintln!(
                "langcrawl: warning: old versions of {} stay: {e}",
                self.dir.display()
            );
        }
        Ok(())
    }

    /// Renames the complete folder `temp` (its lease added) to `version`
    /// and makes it current.
    fn install(&self, temp: &Path, version: &Path) -> Result<()> {
        write_synced(&temp.join(LEASE), b"")?;
        sync_dir(temp)?;
        rename_synced(temp, version)?;
        self.point_to(version)
    }

    fn point_to(&self, version: &Path) -> Result<()> {
        let name = version.file_name().unwrap_or_default().to_string_lossy();
        let temp = self.dir.join(POINTER_TEMP);
        write_synced(&temp, name.as_bytes())?;
        rename_synced(&temp, &self.dir.join(POINTER))
    }

    /// Holds the current version for a reader (`None` before the first
    /// commit; the folder itself for a table of the layout before versions,
    /// which its next writer turns into a version). Retries while versions
    /// are removed under it.
    pub fn pin(&self) -> Result<Option<Pin>> {
        for attempt in 1..=PIN_TRIES {
            let current = match self.current() {
                // read just before a commit moved the pointer on and
                // removed the version it named: read the pointer again
                Err(_) if attempt < PIN_TRIES && self.dir.join(POINTER).exists() => continue,
                current => current?,
            };
            let Some(version) = current else {
                if self.is_unversioned() {
                    let dir = self.dir.clone();
                    return Ok(Some(Pin { dir, _lease: None }));
                }
                // a writer turning the old layout into a version may have
                // moved its files and written the pointer since
                if attempt < PIN_TRIES && self.dir.join(POINTER).exists() {
                    continue;
                }
                return Ok(None);
            };
            let lease = version.join(LEASE);
            let file = match File::open(&lease) {
                Ok(file) => file,
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                Err(e) => return Err(Error::io(&lease)(e)),
            };
            fs4::FileExt::lock_shared(&file).map_err(Error::io(&lease))?;
            // Locked after the writer removed it: look again.
            if lease.exists() {
                return Ok(Some(Pin {
                    dir: version,
                    _lease: Some(file),
                }));
            }
        }
        Err(Error::SegmentRead {
            path: self.dir.clone(),
            message: format!("replaced {PIN_TRIES} times while being opened; try again"),
        })
    }

    /// After a crash (the writer's lock held): removes half-written
    /// versions and pointer, turns a table of the layout before versions
    /// (Parquet files in the folder itself) into its first version, and
    /// removes old versions no reader holds.
    pub fn recover(&self) -> Result<()> {
        if !self.dir.is_dir() {
            return Ok(());
        }
        for (path, name) in entries(&self.dir)? {
            if name.contains(TEMP_MARK) || name == POINTER_TEMP {
                remove(&path)?;
            }
        }
        if self.current()?.is_none() && self.is_unversioned() {
            self.adopt_files(&self.dir.clone())?;
        }
        self.prune()
    }

    /// True if the folder holds Parquet files itself (the layout before
    /// versions).
    fn is_unversioned(&self) -> bool {
        part_files(&self.dir).is_ok_and(|files| !files.is_empty())
    }

    /// Hard-links (or copies) the files of `from` into a new version and
    /// makes it current.
    pub fn adopt_files(&self, from: &Path) -> Result<()> {
        let version = self.next_version()?;
        let temp = super::layout::temp_dir_for(&version);
        std::fs::create_dir_all(&temp).map_err(Error::io(&temp))?;
        for (path, name) in entries(from)? {
            if path.is_file() && name != LEASE && name != POINTER {
                super::durable::link_or_copy(&path, &temp.join(name))?;
            }
        }
        self.install(&temp, &version)
    }

    /// Removes every version but the current one that no reader holds,
    /// and (once a version is current) the files of the layout before
    /// versions.
    fn prune(&self) -> Result<()> {
        let Some(current) = self.current()? else {
            return Ok(());
        };
        for (path, name) in entries(&self.dir)? {
            if path == current || name == POINTER || name.contains(TEMP_MARK) {
                continue;
            }
            if path.is_dir() {
                if version_number(&name).is_some() {
                    remove_unless_held(&path)?;
                }
            } else {
                remove(&path)?;
            }
        }
        Ok(())
    }

    /// The committed versions, oldest first.
    fn versions(&self) -> Result<Vec<(u64, PathBuf)>> {
        if !self.dir.is_dir() {
            return Ok(Vec::new());
        }
        let mut found: Vec<(u64, PathBuf)> = entries(&self.dir)?
            .into_iter()
            .filter_map(|(path, name)| Some((version_number(&name)?, path)))
            .collect();
        found.sort();
        Ok(found)
    }
}

/// Removes version folder `dir` unless a reader holds its lease: first
/// renamed to a temp name under the exclusive lock (so a reader that
/// opened the lease before finds it gone, and a crash midway leaves a temp
/// folder, never a partial version), then removed.
fn remove_unless_held(dir: &Path) -> Result<()> {
    let lease = dir.join(LEASE);
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&lease);
    let file = match opened {
        Ok(file) => file,
        // No lease: a version half removed already.
        Err(e) if e.kind() == ErrorKind::NotFound => return remove(dir),
        Err(e) => return Err(Error::io(&lease)(e)),
    };
    match fs4::FileExt::try_lock(&file) {
        Ok(()) => {
            let doomed = super::layout::temp_dir_for(dir);
            std::fs::rename(dir, &doomed).map_err(Error::io(dir))?;
            remove(&doomed)
        }
        Err(TryLockError::WouldBlock) => Ok(()),
        Err(TryLockError::Error(e)) => Err(Error::io(&lease)(e)),
    }
}

fn remove(path: &Path) -> Result<()> {
    let removed = if path.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    };
    match removed {
        Err(e) if e.kind() != ErrorKind::NotFound => Err(Error::io(path)(e)),
        _ => Ok(()),
    }
}

/// The entries of `dir` with their names.
pub(super) fn entries(dir: &Path) -> Result<Vec<(PathBuf, String)>> {
    Ok(std::fs::read_dir(dir)
        .map_err(Error::io(dir))?
        .filter_map(|e| e.ok())
        .map(|e| (e.path(), e.file_name().to_string_lossy().into_owned()))
        .collect())
}

fn version_name(n: u64) -> String {
    format!("v{n:06}")
}

/// The number of a version folder's name (`v000007` → 7).
fn version_number(name: &str) -> Option<u64> {
    let digits = name.strip_prefix('v')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
#[path = "versioned_tests.rs"]
mod tests;
