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

pub use crawl_json::{CrawlConfig, CrawlLimits, FetchSettings, Stopped, StrategyParams};
pub use layout::{valid_set_name, CrawlDir, Phase, RoundId, RoundRange, CRAWL_DECISION_SET};
pub use segment::{read_batches, read_columns, row_count, SegmentWriter};
