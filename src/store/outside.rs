//! What a command writes for the user (WARC, text, a report, a web graph)
//! goes outside the crawl it reads: written into the crawl it would
//! replace a segment's file or crawl.json, or pass for a round.

use std::path::{Component, Path, PathBuf};

use super::layout::CRAWL_JSON;

use crate::error::{Error, Result};

/// Refuses `out` (given as `flag`) when it is the crawl at `root` or lies
/// inside it, symbolic links followed; for a simulation's folder, inside
/// one of its strategies' crawls. A crawl that is not there refuses
/// nothing (the read that follows says so).
pub fn refuse_inside_crawl(root: &Path, out: &Path, flag: &str) -> Result<()> {
    let resolved_out = resolved(out);
    for crawl in crawls_at(root) {
        if resolved_out.starts_with(&crawl) {
            return Err(Error::Usage(format!(
                "{flag} {}: inside the crawl {}, whose files it could replace; write it elsewhere",
                out.display(),
                crawl.display()
            )));
        }
    }
    Ok(())
}

/// The crawl at `root`, or the crawls in it (a simulation's, one a
/// strategy), each resolved.
fn crawls_at(root: &Path) -> Vec<PathBuf> {
    let is_crawl = |dir: &Path| dir.join(CRAWL_JSON).is_file();
    if is_crawl(root) {
        return root.canonicalize().into_iter().collect();
    }
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|dir| is_crawl(dir))
        .filter_map(|dir| dir.canonicalize().ok())
        .collect()
}

/// `path` made absolute, its links followed as far as it exists and its
/// `..` taken away (the part not created yet holds no link).
fn resolved(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut at = PathBuf::new();
    for part in absolute.components() {
        match part {
            Component::ParentDir => {
                at.pop();
            }
            Component::CurDir => {}
            part => {
                at.push(part);
                if let Ok(real) = at.canonicalize() {
                    at = real;
                }
            }
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_output_in_the_crawl_is_refused_and_one_beside_it_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let crawl = dir.path().join("crawl");
        std::fs::create_dir_all(crawl.join("00001/fetch")).unwrap();
        std::fs::write(crawl.join("crawl.json"), "{}").unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&crawl, &link).unwrap();
        for inside in [
            crawl.clone(),
            crawl.join("crawl.json"),
            crawl.join("00001/fetch"),
            crawl.join("00004/new/file.warc.gz"),
            link.join("report.html"),
            dir.path().join("other/missing/../../crawl/00001"),
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
            crawl.join("missing/../../elsewhere/x"),
        ] {
            assert!(
                refuse_inside_crawl(&crawl, &outside, "-o").is_ok(),
                "{outside:?}"
            );
        }
        // a simulation's folder: its report beside its strategies' crawls
        let sim = dir.path().join("sim");
        std::fs::create_dir_all(sim.join("bfs")).unwrap();
        std::fs::write(sim.join("bfs/crawl.json"), "{}").unwrap();
        assert!(refuse_inside_crawl(&sim, &sim.join("report.html"), "--html").is_ok());
        assert!(refuse_inside_crawl(&sim, &sim.join("bfs/crawl.json"), "--html").is_err());
    }
}
