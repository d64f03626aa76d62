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
    std::fs::rename(from, to).map_err(Error::io(from))?;
    let (from_parent, to_parent) = (parent(from), parent(to));
    sync_dir(to_parent)?;
    if from_parent != to_parent {
        sync_dir(from_parent)?;
    }
    Ok(())
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
