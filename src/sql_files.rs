//! The pipeline's SQL files and data tables: the whole `sql/` folder,
//! embedded at build time, looked up by path (`steps/generate.sql`).
//! `--sql-dir` overrides them file by file (`crate::engine`).
//!
//! `sql/` is grouped by role: `steps/` (queries whose rows a phase writes),
//! `views/` (tables registered for the steps and strategies to read),
//! `strategies/` (one file per link-selection strategy), `reports/`,
//! `sim/` (replay) and `tables/` (CSV data the user may replace).

use std::path::{Path, PathBuf};

use include_dir::{include_dir, Dir};

static SQL: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/sql");

/// The built-in text of `sql/<path>`, if there is such a file.
pub fn builtin(path: &str) -> Option<&'static str> {
    SQL.get_file(path).and_then(|file| file.contents_utf8())
}

/// The paths of every built-in `.sql` and `.csv` file.
pub fn paths() -> Vec<&'static str> {
    let mut paths = Vec::new();
    let mut dirs = vec![&SQL];
    while let Some(dir) = dirs.pop() {
        for file in dir.files() {
            let path = file.path().to_str().unwrap_or_default();
            if path.ends_with(".sql") || path.ends_with(".csv") {
                paths.push(path);
            }
        }
        dirs.extend(dir.dirs());
    }
    paths.sort_unstable();
    paths
}

/// The files of a `--sql-dir` that no step reads, by path under it: a copy
/// of an older, flat `sql/` or a misspelt name would otherwise go unused
/// without a word.
pub fn unused_overrides(dir: &Path) -> Vec<String> {
    let mut unused: Vec<String> = files_under(dir)
        .iter()
        .filter_map(|path| path.strip_prefix(dir).ok())
        .map(|relative| relative.to_string_lossy().replace('\\', "/"))
        .filter(|name| name.ends_with(".sql") || name.ends_with(".csv"))
        .filter(|name| builtin(name).is_none())
        .collect();
    unused.sort();
    unused
}

/// Every file under `dir`, in its folders too (unreadable folders skipped).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.flatten().map(|entry| entry.path()) {
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    /// The text of every Rust file under `src/`.
    fn rust_sources() -> Vec<(String, String)> {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        files_under(&src)
            .into_iter()
            .filter(|path| path.extension().is_some_and(|e| e == "rs"))
            .map(|path| {
                let text = std::fs::read_to_string(&path).unwrap();
                (path.display().to_string(), text)
            })
            .collect()
    }

    #[test]
    fn a_sql_dir_in_the_old_flat_layout_is_named_as_unused() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("steps")).unwrap();
        for name in [
            "generate.sql",
            "steps/generate.sql",
            "steps/genrate.sql",
            "notes.txt",
        ] {
            std::fs::write(tmp.path().join(name), "SELECT 1").unwrap();
        }
        let unused = unused_overrides(tmp.path());
        assert_eq!(unused, ["generate.sql", "steps/genrate.sql"]);
    }

    /// String literals in `text` that name a file under `sql/`: a path
    /// with a folder, ending `.sql` or `.csv`.
    fn sql_references(text: &str) -> Vec<&str> {
        text.split('"')
            .skip(1)
            .step_by(2)
            .filter(|s| s.contains('/') && (s.ends_with(".sql") || s.ends_with(".csv")))
            .filter(|s| !s.contains(char::is_whitespace) && !s.starts_with('/'))
            .collect()
    }

    #[test]
    fn every_file_is_used_and_every_reference_resolves() {
        let sources = rust_sources();
        let mut used = BTreeSet::new();
        // This file's own examples are not references.
        let others = sources.iter().filter(|(f, _)| !f.ends_with("sql_files.rs"));
        for (file, text) in others {
            for reference in sql_references(text) {
                let name = reference.strip_prefix("sql/").unwrap_or(reference);
                assert!(
                    builtin(name).is_some(),
                    "{file} names {reference:?}, not under sql/"
                );
                used.insert(name.to_string());
            }
        }
        let unused: Vec<_> = paths().into_iter().filter(|p| !used.contains(*p)).collect();
        assert!(unused.is_empty(), "no Rust file names {unused:?}");
    }

    #[test]
    fn references_are_found_in_rust_text() {
        let text = r#"query_file("steps/generate.sql", p); let x = "a b.sql"; ("views/x.sql")"#;
        assert_eq!(sql_references(text), ["steps/generate.sql", "views/x.sql"]);
        assert!(builtin("steps/generate.sql").is_some());
        assert!(builtin("views/x.sql").is_none());
    }

    /// The leading comment block of a SQL file, and the rest.
    fn header_and_body(text: &str) -> (String, String) {
        let lines: Vec<&str> = text.lines().collect();
        let split = lines
            .iter()
            .position(|l| !l.starts_with("--"))
            .unwrap_or(lines.len());
        (lines[..split].join("\n"), lines[split..].join("\n"))
    }

    /// The `$names` in `text`.
    fn placeholders(text: &str) -> BTreeSet<String> {
        text.split('$')
            .skip(1)
            .map(|rest| {
                rest.chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect::<String>()
            })
            .filter(|name| !name.is_empty())
            .collect()
    }

    #[test]
    fn every_sql_file_opens_with_its_inputs_output_and_params() {
        for path in paths().into_iter().filter(|p| p.ends_with(".sql")) {
            let (header, body) = header_and_body(builtin(path).unwrap());
            for field in ["-- inputs:", "-- params:", "-- output:"] {
                assert!(header.contains(field), "sql/{path} has no {field:?} line");
            }
            let params = header.split("-- params:").nth(1).unwrap_or_default();
            let params = params.split("-- output:").next().unwrap_or_default();
            let body: String = body
                .lines()
                .map(|l| l.split("--").next().unwrap_or_default())
                .collect::<Vec<_>>()
                .join("\n");
            let missing: Vec<_> = placeholders(&body)
                .into_iter()
                .filter(|name| !placeholders(params).contains(name))
                .collect();
            assert!(
                missing.is_empty(),
                "sql/{path} uses {missing:?}, not in its params line"
            );
        }
    }
}
