//! Each command's body, one module per group: the phases one by one
//! (`phases`), the crawl loop, refilter and the demo (`crawl`), `sql` and
//! `report` (`inspect`), replay and graph export (`sim`), the synthetic web
//! (`websim`), `detect`, and shell completions and the man page
//! (`shell_help`). They turn checked options into calls of the
//! library and print what the user asked for; the work is in the library.

#[cfg(feature = "ballista")]
pub(super) mod ballista;
pub(super) mod crawl;
pub(super) mod detect;
pub(super) mod export;
pub(super) mod inspect;
pub(super) mod phases;
pub(super) mod shell_help;
pub(super) mod sim;
pub(super) mod websim;

use std::path::PathBuf;

use super::args::Cli;
use crate::engine::Engine;

/// What every command gets: the SQL engine, the crawl directory, and
/// whether to print progress.
pub(super) struct Context {
    pub engine: Engine,
    pub root: PathBuf,
    pub quiet: bool,
}

impl Context {
    pub async fn new(cli: &Cli) -> crate::error::Result<Self> {
        let memory_limit = memory_limit(cli);
        Ok(Context {
            engine: Engine::open(cli.sql_dir.clone(), memory_limit, &cli.engine).await?,
            root: cli.crawl_dir(),
            quiet: cli.quiet,
        })
    }

    /// Prints one line of progress, unless `--quiet`.
    pub fn say(&self, line: impl std::fmt::Display) {
        if !self.quiet {
            println!("{line}");
        }
    }
}

/// `--memory-limit`, or this machine's default.
fn memory_limit(cli: &Cli) -> usize {
    cli.memory_limit
        .unwrap_or_else(crate::memory::default_limit)
}
