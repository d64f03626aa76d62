//! The strategy registry: each link-selection strategy is one SQL file under
//! `sql/strategies/` plus one entry here. The registry feeds `--strategy`.

use crate::error::{Error, Result};

/// A link-selection strategy: SQL over the round's `links` (and the server
/// and directory views, and the crawldb) returning
/// `src_url, url, accepted, priority, reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Strategy {
    pub name: &'static str,
    /// Path under `sql/`.
    pub sql: &'static str,
    /// The `$params` the SQL binds, besides the ones every strategy may use.
    pub params: &'static [&'static str],
    pub about: &'static str,
}

pub const STRATEGIES: &[Strategy] = &[Strategy {
    name: "bfs",
    sql: "strategies/bfs.sql",
    params: &[],
    about: "Nutch's default (the papers' control group): follow every link, breadth first",
}];

/// The strategy called `name`, or an error listing the known ones.
pub fn find(name: &str) -> Result<&'static Strategy> {
    STRATEGIES.iter().find(|s| s.name == name).ok_or_else(|| {
        let known: Vec<&str> = STRATEGIES.iter().map(|s| s.name).collect();
        Error::Usage(format!(
            "--strategy {name}: no such strategy (known: {})",
            known.join(", ")
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_strategy_has_a_file_and_every_file_an_entry() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sql");
        for strategy in STRATEGIES {
            assert!(dir.join(strategy.sql).is_file(), "{}", strategy.sql);
        }
        for entry in std::fs::read_dir(dir.join("strategies")).unwrap() {
            let name = format!(
                "strategies/{}",
                entry.unwrap().file_name().to_string_lossy()
            );
            assert!(
                STRATEGIES.iter().any(|s| s.sql == name),
                "{name} has no registry entry"
            );
        }
    }

    #[test]
    fn unknown_strategy_lists_the_known_ones() {
        let err = find("server-agresive").unwrap_err().to_string();
        assert!(err.contains("known: bfs"), "{err}");
    }
}
