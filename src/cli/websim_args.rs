//! `websim`'s clap structs: the synthetic webs, served or written.

use std::path::PathBuf;

use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub enum WebsimCommand {
    /// Serve the synthetic web as an HTTP forward proxy on loopback; crawl it with --proxy
    Serve(WebsimArgs),
    /// Write a web graph as Parquet: a calibrated one (Tamura's Thai web, for any target; its statistics printed) or Kumar & Vig's university web
    Generate(GenerateWebArgs),
}

/// The webs `websim generate` makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum WebKind {
    /// Tamura's Thai web, calibrated, for the target language --lang
    Calibrated,
    /// Kumar & Vig's engineering university: classes CSE, IT, ENGG, COMP linked as their Table 3 says, a fifth of the pages mixed Hindi–English; its target is class CSE
    University,
}

#[derive(Debug, Args)]
pub struct GenerateWebArgs {
    /// Which web
    #[arg(long, value_enum, default_value_t = WebKind::Calibrated)]
    pub kind: WebKind,
    /// Target language of a calibrated web: tha, jpn, kor, cmn, hin, deu, fra or rus (or th, ja, ko, zh, hi, de, fr, ru); not English, the language of its fronts and tunnels
    #[arg(long, required_if_eq("kind", "calibrated"))]
    pub lang: Option<String>,
    /// Number of pages
    #[arg(long, default_value_t = 100_000)]
    pub pages: usize,
    /// Seed of the generator: the same seed gives the same web
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Draw the calibrated web's shape from the family's ranges with this seed (target share 2-20%, target pages off the ccTLDs 10-90%, link locality, target anchors, multilingual and English-fronted sites, tunnels of 1-10 pages) [default: Tamura's shares]
    #[arg(long, value_name = "N")]
    pub shape_seed: Option<u64>,
    /// The web directory to write (must not exist, or be empty)
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: PathBuf,
}

#[derive(Debug, Args)]
pub struct WebsimArgs {
    /// Serve this web graph (from `websim generate` or `graph export`) instead of the built-in web
    #[arg(long, value_name = "DIR")]
    pub web: Option<PathBuf>,
    /// Address to listen on (loopback only; port 0 picks a free port)
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: std::net::SocketAddr,
    /// Seed of the generator: the same seed gives the same web
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Number of hosts
    #[arg(long, default_value_t = 300)]
    pub hosts: usize,
    /// Give every page its site's menu and footer; the menu links pages a second time, with `?from=menu`
    #[arg(long)]
    pub chrome: bool,
    /// Give every 4th host sitemaps (an index, a gzipped urlset, hreflang
    /// alternates) listing pages no page links to, and let English hosts
    /// among every 4th negotiate the language by Accept-Language
    #[arg(long)]
    pub discovery: bool,
    /// Let every 3rd page change between visits, and hosts send ETag and
    /// Last-Modified (every 3rd host only Last-Modified, every 3rd neither)
    /// and answer 304 to matching validators: a web to recrawl
    #[arg(long)]
    pub changes: bool,
    /// Number of pages, spread over the hosts
    #[arg(long, default_value_t = 6000)]
    pub pages: usize,
}
