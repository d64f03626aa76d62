//! The on-disk crawl: Parquet schemas, the crawl directory's layout, and the
//! only code that reads and writes segments (temp folder, then rename).

pub mod activity;
pub mod crawl_json;
pub mod durable;
pub mod layout;
pub mod lock;
pub mod outside;
pub mod parts;
mod recover;
pub mod rows;
pub mod schema;
pub mod segment;
pub mod versioned;

use std::path::Path;

use crate::error::{Error, Result};

/// Creates the folder `path` a command was given (and its parents); a
/// file in its place is named as such (the OS would say "File exists").
pub fn create_folder(path: &Path) -> Result<()> {
    refuse_a_file(path)?;
    std::fs::create_dir_all(path).map_err(Error::io(path))
}

/// Refuses a file where the folder `path` is asked for.
pub fn refuse_a_file(path: &Path) -> Result<()> {
    if path.exists() && !path.is_dir() {
        return Err(Error::Usage(format!(
            "{}: not a folder (a file is there)",
            path.display()
        )));
    }
    Ok(())
}

pub use crawl_json::{CrawlConfig, CrawlLimits, FetchSettings, Stopped, StrategyParams};
pub use layout::{valid_set_name, CrawlDir, Phase, RoundId, RoundRange, CRAWL_DECISION_SET};
pub use segment::{read_batches, read_columns, row_count, SegmentWriter};
