//! Recovery after a crash, run by the writer when it opens a crawl (under
//! the lock, so no other live process is writing): every swap a killed
//! process left halfway is finished or undone, and what it was writing is
//! removed.
//!
//! - the crawldb and the hosts table (versioned, `store::versioned`):
//!   half-written versions and pointer removed, old versions no reader
//!   holds removed; a crawl from before versions has its tables turned into
//!   first versions (and a `crawldb.old` swap of that layout finished).
//! - a replaced segment (a round's `model`, …): `NAME`
//!   gone and `NAME.tmp-PID-old` there → the old one goes back: the phase
//!   that was replacing it had not committed and runs again.
//! - temp folders (`NAME.tmp-PID`, a killed phase's half-written output)
//!   and half-written JSON files in the root (`crawl.json.tmp`, …) are removed.
//!
//! A crawl with rounds and no crawldb (or one emptied of its files) is
//! damage, not a new crawl: it is refused, with how to recover.

use std::path::{Path, PathBuf};

use super::durable::rename_synced;
use super::layout::{ASIDE_MARK, CRAWLDB_OLD, TEMP_MARK};
use super::segment::part_files;
use super::CrawlDir;
use crate::error::{Error, Result};

/// Finishes or undoes what a killed writer left halfway in `crawl`.
pub(super) fn recover(crawl: &CrawlDir) -> Result<()> {
    undo_unversioned_swap(crawl)?;
    remove_json_temps(crawl.root())?;
    clean(crawl.root())?;
    crawl.crawldb_table().recover()?;
    crawl.hosts_table().recover()?;
    let rounds = crawl.rounds()?;
    for &round in &rounds {
        clean(&crawl.round_dir(round))?;
    }
    check_whole(crawl, &rounds)
}

/// Removes the half-written JSON files (`crawl.json.tmp`, a refilter's
/// `decisions-NAME.unfinished.json.tmp`) a kill left in the crawl's root:
/// each is written whole to its temp file, then renamed.
fn remove_json_temps(root: &Path) -> Result<()> {
    for entry in std::fs::read_dir(root).map_err(Error::io(root))?.flatten() {
        let path = entry.path();
        if path.is_file() && path.to_string_lossy().ends_with(".json.tmp") {
            std::fs::remove_file(&path).map_err(Error::io(&path))?;
        }
    }
    Ok(())
}

/// Refuses a crawl that has lost its crawldb or its crawl.json (readers
/// check it too, so `sql` and `updatedb` agree that it is damaged). A
/// crawldb in `crawldb.old` is not lost: the next writer puts it back.
pub(super) fn check_whole(crawl: &CrawlDir, rounds: &[super::RoundId]) -> Result<()> {
    let lost = || -> Result<bool> {
        Ok(!has_parquet(crawl.crawldb()?)
            && !super::parts::is_part(crawl.root())
            && !crawl.root().join(CRAWLDB_OLD).exists())
    };
    match rounds.last() {
        Some(last) if lost()? => Err(Error::Usage(format!(
            "{}: rounds up to {last} exist but the crawldb is missing or empty — the crawl is \
             damaged, not new; restore {} from a backup, or move the round folders away to start again",
            crawl.root().display(),
            crawl.crawldb_table().dir().display()
        ))),
        _ if !crawl.crawl_json().is_file()
            && !super::parts::is_part(crawl.root())
            && (!rounds.is_empty() || has_parquet(crawl.crawldb()?)) =>
        {
            Err(Error::Usage(format!(
                "{}: holds a crawl but its crawl.json (target language, strategy, settings) is \
                 missing — the crawl is damaged, not new; restore crawl.json from a backup",
                crawl.root().display()
            )))
        }
        _ => Ok(()),
    }
}

/// A crawl written before the crawldb had versions swapped it through
/// `crawldb.old`: `crawldb` gone and `crawldb.old` there → the old one goes
/// back (the round is merged again); both there → the old one is removed.
fn undo_unversioned_swap(crawl: &CrawlDir) -> Result<()> {
    let (current, old) = (
        crawl.crawldb_table().dir().to_path_buf(),
        crawl.root().join(CRAWLDB_OLD),
    );
    if !current.exists() && old.exists() {
        rename_synced(&old, &current)?;
    } else if old.exists() {
        std::fs::remove_dir_all(&old).map_err(Error::io(&old))?;
    }
    Ok(())
}

/// True if `dir` holds a Parquet file.
fn has_parquet(dir: Option<PathBuf>) -> bool {
    dir.is_some_and(|dir| part_files(&dir).is_ok_and(|files| !files.is_empty()))
}

/// In `dir`: puts back each segment moved aside whose replacement never
/// arrived, and removes every other temp folder.
fn clean(dir: &Path) -> Result<()> {
    for (path, name) in super::versioned::entries(dir)? {
        if !name.contains(TEMP_MARK) {
            continue;
        }
        let final_name = name
            .strip_suffix(ASIDE_MARK)
            .and_then(|base| base.rsplit_once(TEMP_MARK))
            .map(|(final_name, _pid)| final_name);
        match final_name.map(|n| dir.join(n)) {
            Some(final_dir) if !final_dir.exists() => rename_synced(&path, &final_dir)?,
            _ => std::fs::remove_dir_all(&path).map_err(Error::io(&path))?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    /// A crawl folder with `crawl.json` and the folders `dirs`, each holding
    /// a file `v` with its own name (and a crawldb's a Parquet file).
    fn crawl_with(dirs: &[&str]) -> tempfile::TempDir {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("crawl.json"), "{}").unwrap();
        for dir in dirs {
            fs::create_dir_all(tmp.path().join(dir)).unwrap();
            fs::write(tmp.path().join(dir).join("v"), dir).unwrap();
            if dir.starts_with("crawldb") {
                fs::write(tmp.path().join(dir).join("part-0.parquet"), "").unwrap();
            }
        }
        tmp
    }

    /// The file `v` of the table `dir` (of its current version, once it
    /// has versions).
    fn version(tmp: &tempfile::TempDir, dir: &str) -> String {
        let dir = tmp.path().join(dir);
        let current = fs::read_to_string(dir.join("CURRENT")).unwrap_or_default();
        fs::read_to_string(dir.join(current).join("v")).unwrap()
    }

    #[test]
    fn a_table_moved_aside_comes_back_when_its_replacement_never_arrived() {
        // killed between `hosts → hosts.tmp-7-old` and `hosts.tmp-7 → hosts`
        let tmp = crawl_with(&["crawldb", "hosts.tmp-7-old", "hosts.tmp-7"]);
        CrawlDir::open(tmp.path()).unwrap();
        assert_eq!(version(&tmp, "hosts"), "hosts.tmp-7-old");
        let left: Vec<_> = fs::read_dir(tmp.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .collect();
        assert!(
            left.iter()
                .all(|e| !e.file_name().to_string_lossy().contains(".tmp")),
            "{left:?}"
        );
    }

    #[test]
    fn a_table_already_replaced_keeps_the_new_version() {
        // killed after the second rename, before the old copy was removed
        let tmp = crawl_with(&["crawldb", "00001/model", "00001/model.tmp-7-old"]);
        CrawlDir::open(tmp.path()).unwrap();
        assert_eq!(version(&tmp, "00001/model"), "00001/model");
        assert!(!tmp.path().join("00001/model.tmp-7-old").exists());
    }

    #[test]
    fn a_finished_crawldb_swap_drops_the_old_crawldb_and_a_half_written_crawl_json() {
        let tmp = crawl_with(&["crawldb", "crawldb.old"]);
        fs::write(tmp.path().join("crawl.json.tmp"), "{\"half").unwrap();
        CrawlDir::open(tmp.path()).unwrap();
        assert_eq!(version(&tmp, "crawldb"), "crawldb");
        assert!(!tmp.path().join("crawldb.old").exists());
        assert!(!tmp.path().join("crawl.json.tmp").exists());
        assert_eq!(
            fs::read_to_string(tmp.path().join("crawl.json")).unwrap(),
            "{}"
        );
    }

    #[test]
    fn rounds_without_a_crawldb_are_refused_not_taken_for_a_new_crawl() {
        for crawldb in [None, Some("crawldb")] {
            let mut dirs = vec!["00001/fetchlist"];
            dirs.extend(crawldb);
            let tmp = crawl_with(&dirs);
            if crawldb.is_some() {
                fs::remove_file(tmp.path().join("crawldb/part-0.parquet")).unwrap();
            }
            let err = CrawlDir::open(tmp.path()).unwrap_err();
            assert_eq!(err.exit_code(), 2);
            let line = err.to_string();
            assert!(
                line.contains("damaged") && line.contains("crawldb"),
                "{line}"
            );
        }
    }

    #[test]
    fn a_crawldb_swap_cut_short_puts_the_old_crawldb_back() {
        let tmp = crawl_with(&["crawldb.old", "crawldb.tmp-3"]);
        CrawlDir::open(tmp.path()).unwrap();
        assert_eq!(version(&tmp, "crawldb"), "crawldb.old");
        assert!(!tmp.path().join("crawldb.tmp-3").exists());
    }
}
