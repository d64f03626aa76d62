//! `export`'s clap structs: what users take home from a crawl.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::store::RoundRange;

#[derive(Debug, Subcommand)]
pub enum ExportCommand {
    /// WARC/1.1 files (gzip per record) of every answered request, with a CDXJ index beside each file for pywb
    Warc(WarcArgs),
    /// The main text (menus and footers removed) of each page in a language, as JSON lines or Parquet
    Text(TextArgs),
}

#[derive(Debug, Args)]
pub struct WarcArgs {
    /// The folder for the WARC files and their indexes (created if missing)
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: PathBuf,
    /// Only these rounds: A..B, A.., ..B or one round [default: all]
    #[arg(long, value_name = "A..B")]
    pub rounds: Option<RoundRange>,
    /// Only the pages in the crawl's target language
    #[arg(long)]
    pub only_target: bool,
    /// Start a new file once one holds this much (e.g. 1GB, 100MiB)
    #[arg(long, default_value = "1GB", value_name = "SIZE", value_parser = crate::memory::parse_nonzero_size)]
    pub max_file_size: usize,
}

#[derive(Debug, Args)]
pub struct TextArgs {
    /// The corpus file: NAME.jsonl.gz (one JSON object per line) or NAME.parquet
    #[arg(short = 'o', long = "out", value_name = "FILE")]
    pub out: PathBuf,
    /// The pages' language (ja, jpn, th, ...) [default: the crawl's target]
    #[arg(long)]
    pub lang: Option<String>,
    /// Only these rounds: A..B, A.., ..B or one round [default: all]
    #[arg(long, value_name = "A..B")]
    pub rounds: Option<RoundRange>,
    /// Leave out pages whose main text is shorter than N characters
    #[arg(long, default_value_t = 200, value_name = "N")]
    pub min_chars: usize,
    /// Remove a line (a paragraph of the main text) found on N or more pages of the same host: the site's menus, footers and notices that Readability kept (0 keeps every line)
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub site_boilerplate: usize,
    /// Leave out exact duplicates (same text) and near duplicates (see --near-bits)
    #[arg(long)]
    pub dedup: bool,
    /// Near duplicates: SimHash fingerprints (64 bits, over 3-token shingles) at most this many bits apart
    #[arg(long, default_value_t = 3, value_name = "BITS", value_parser = clap::value_parser!(u32).range(0..=32))]
    pub near_bits: u32,
}
