//! What a command writes for the user (WARC, text, a report, a web graph)
//! goes outside the crawl it reads: written into the crawl it would
//! replace a segment's file or crawl.json, or pass for a round.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Refuses `out` (given as `flag`) when it is the crawl at `root` or lies
/// inside it, symbolic links followed. A crawl that is not there refuses
/// nothing (the read that follows says so).
pub fn refuse_inside_crawl(root: &Path, out: &Path, flag: &str) -> Result<()> {
    let Ok(crawl) = root.canonicalize() else {
        return Ok(());
    };
    if resolved(out).starts_with(&crawl) {
        return Err(Error::Usage(format!(
            "{flag} {}: inside the crawl {}, whose files it could replace; write it elsewhere",
            out.display(),
            root.display()
        )));
    }
    Ok(())
}

/// `path` with its longest existing part resolved (links followed, made
/// absolute) and the rest, not yet created, after it.
fn resolved(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut rest = Vec::new();
    let mut at = absolute.as_path();
    loop {
        if let Ok(found) = at.canonicalize() {
            return rest.iter().rev().fold(found, |p, part| p.join(part));
        }
        match (at.parent(), at.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                at = parent;
            }
            _ => return absolute,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_in_the_crawl_is_refused_and_one_beside_it_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let crawl = dir.path().join("crawl");
        std::fs::create_dir_all(crawl.join("00001/fetch")).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&crawl, &link).unwrap();
        for inside in [
            crawl.clone(),
            crawl.join("crawl.json"),
            crawl.join("00001/fetch"),
            crawl.join("00004/new/file.warc.gz"),
            link.join("report.html"),
        ] {
            let err = refuse_inside_crawl(&crawl, &inside, "-o")
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with("-o ") && err.contains("inside the crawl"),
                "{err}"
            );
        }
        for outside in [
            dir.path().join("out.warc.gz"),
            dir.path().join("crawl-export/text.jsonl"),
            dir.path().to_path_buf(),
        ] {
            assert!(
                refuse_inside_crawl(&crawl, &outside, "-o").is_ok(),
                "{outside:?}"
            );
        }
    }
}
