//! langcrawl: a language-specific focused web crawler.
//!
//! The crawl runs in Nutch-style rounds — inject, generate, fetch, parse,
//! updatedb — and every phase reads and writes Parquet segments under a crawl
//! directory (see `store`). Relational steps are DataFusion SQL kept under
//! `sql/` and run through `engine`.

pub mod address;
pub mod catalog;
pub mod cli;
pub mod crawl;
pub mod demo;
pub mod detect;
pub mod engine;
pub mod error;
pub mod export;
pub mod fetch;
pub mod functions;
pub mod generate;
pub mod inject;
pub mod input;
pub mod lang;
pub mod memory;
pub mod parallel;
pub mod parse;
pub mod refilter;
pub mod report;
pub mod schedule;
pub mod shutdown;
pub mod sim;
pub mod sql_files;
pub mod status;
pub mod stop;
pub mod store;
pub mod strategy;
#[cfg(test)]
pub(crate) mod testing;
pub mod updatedb;
pub mod urls;
pub mod webgraph;
pub mod websim;

pub use error::{Error, Result};
