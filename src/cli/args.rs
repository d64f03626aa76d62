//! The command line's clap structs: their doc comments are the `--help` text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use super::fetch_args::FetchArgs;
use super::websim_args::WebsimCommand;
use crate::report::Format;

/// The crawl directory when `--crawl` is not given.
pub const DEFAULT_CRAWL: &str = "segments";

/// A language-specific focused web crawler: Nutch-style rounds (inject,
/// generate, fetch, parse, updatedb) over Parquet segments, with link
/// selection strategies written as DataFusion SQL.
#[derive(Debug, Parser)]
#[command(name = "langcrawl", version, propagate_version = true)]
pub struct Cli {
    /// The crawl directory [default: segments, or segments/demo for `demo`]
    #[arg(long, global = true, value_name = "DIR")]
    pub crawl: Option<PathBuf>,

    /// Read the pipeline's SQL files from DIR instead of the built-in ones
    /// (files missing there fall back to the built-in ones)
    #[arg(long, global = true, value_name = "DIR", value_parser = existing_dir)]
    pub sql_dir: Option<PathBuf>,

    /// Print errors only
    #[arg(long, short, global = true)]
    pub quiet: bool,

    /// Memory pool for the SQL steps (sorts and aggregates spill to disk under
    /// TMPDIR beyond it), e.g. 8GiB, or none. The pool counts DataFusion's
    /// estimates, far above real use (an updatedb of 10M URLs holds 1.9 GiB
    /// but needs more than a 17 GiB pool) [default: none]
    #[arg(long, global = true, value_name = "SIZE", value_parser = crate::memory::parse_limit)]
    pub memory_limit: Option<usize>,

    /// Where the SQL steps run: local (DataFusion in this process), ballista
    /// (a Ballista scheduler and executor in this process), or
    /// df://HOST:PORT (a Ballista cluster; needs the `ballista` feature)
    #[arg(long, global = true, value_name = "ENGINE", default_value = "local")]
    pub engine: crate::engine::EngineKind,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Add seed URLs (one per line; `#` comments and blank lines ignored) to the crawldb
    Inject {
        /// The seeds file
        seeds: PathBuf,
        /// Target language of the crawl (ja, jpn, th, ...), saved in crawl.json
        #[arg(long)]
        lang: Option<String>,
    },
    /// Write the next round's fetch list (sql/steps/generate.sql over the crawldb)
    Generate(GenerateArgs),
    /// Fetch the latest round's fetch list
    Fetch(FetchCommandArgs),
    /// Parse the latest fetched round: text, language, links
    Parse(PartitionArg),
    /// Merge the latest parsed round into the crawldb, deciding every link with the strategy
    Updatedb(UpdateArgs),
    /// Run all phases for N rounds (finishing an interrupted round first)
    Crawl(Box<CrawlArgs>),
    /// Re-run a strategy over the links of earlier rounds into a named decision set (the crawl is not changed)
    Refilter(RefilterArgs),
    /// Run a SQL query over the crawl: tables crawldb, servers, dirs, fetchlist, fetch, parse, links, decisions, decision_sets, hosts, and model, scores, labels and frontier (what adaptive learned)
    Sql(SqlArgs),
    /// Print the language report (pages per language, target first) and the harvest rate per round
    Report(ReportArgs),
    /// Where a crawl stands, at any time (read-only): the process writing it and its phase's
    /// progress, rounds done, URLs by status, the last round's target share, disk used
    Status {
        /// Print one JSON object instead of lines
        #[arg(long)]
        json: bool,
    },
    /// What to take home from a crawl: WARC files with CDXJ indexes, a clean text corpus
    Export {
        #[command(subcommand)]
        command: super::export_args::ExportCommand,
    },
    /// The built-in synthetic web
    Websim {
        #[command(subcommand)]
        command: WebsimCommand,
    },
    /// Crawl a built-in synthetic web for Japanese (a tenth of its pages) with bfs, Tamura's server-conservative and adaptive, and compare them (no network needed)
    Demo(DemoArgs),
    /// Print the charset and language of a page (or of an anchor text), as the parse phase sees them
    Detect(DetectArgs),
    /// Replay strategies over a web graph, fetch replaced by a lookup (Tamura's evaluation)
    Simulate(SimulateArgs),
    /// Web graphs: export a finished crawl as one, to replay it with simulate
    Graph {
        #[command(subcommand)]
        command: GraphCommand,
    },
    /// Print the completion script of a shell, e.g. `langcrawl completions bash > ~/.local/share/bash-completion/completions/langcrawl`
    Completions {
        /// bash, zsh, fish, elvish or powershell
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), e.g. `langcrawl man > ~/.local/share/man/man1/langcrawl.1`,
    /// or a command's (`langcrawl man crawl > .../langcrawl-crawl.1`)
    Man {
        /// The command whose page to print, e.g. `crawl` or `websim serve` [default: langcrawl's]
        command: Vec<String>,
    },
    /// A Ballista cluster's processes, with langcrawl's SQL functions (feature `ballista`)
    #[cfg(feature = "ballista")]
    Ballista {
        #[command(subcommand)]
        command: super::ballista_args::BallistaCommand,
    },
}

impl Command {
    /// The subcommand's name, as the crawl's lock file records its writer.
    pub(super) fn name(&self) -> &'static str {
        match self {
            Command::Inject { .. } => "inject",
            Command::Generate(_) => "generate",
            Command::Fetch(_) => "fetch",
            Command::Parse(_) => "parse",
            Command::Updatedb(_) => "updatedb",
            Command::Crawl(_) => "crawl",
            Command::Refilter(_) => "refilter",
            Command::Sql(_) => "sql",
            Command::Report(_) => "report",
            Command::Status { .. } => "status",
            Command::Export { .. } => "export",
            Command::Websim { .. } => "websim",
            Command::Demo(_) => "demo",
            Command::Detect(_) => "detect",
            Command::Simulate(_) => "simulate",
            Command::Graph { .. } => "graph",
            Command::Completions { .. } => "completions",
            Command::Man { .. } => "man",
            #[cfg(feature = "ballista")]
            Command::Ballista { .. } => "ballista",
        }
    }
}

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The web graph (from `websim generate` or `graph export`)
    #[arg(long, value_name = "DIR")]
    pub web: PathBuf,
    /// Strategies to replay, comma-separated, or `all` (every strategy and `perfect`; the ontology strategies only with --importance or on a topic web)
    #[arg(
        long,
        value_name = "S1,S2,...",
        value_delimiter = ',',
        default_value = "all",
        value_parser = strategy_names(&[("all", "every strategy and perfect")])
    )]
    pub strategy: Vec<String>,
    /// Target language; must be the web's (web.json) [default: the web's]
    #[arg(long)]
    pub lang: Option<String>,
    /// Stop each strategy after this many fetches [default: when its queue is empty]
    #[arg(long, value_name = "N", value_parser = positive::<u64>)]
    pub pages: Option<u64>,
    /// URLs fetched per round (generate's --top-n)
    #[arg(long, default_value_t = 1_000, value_name = "K", value_parser = positive::<u64>)]
    pub round_size: u64,
    /// Stop each strategy after N rounds [default: when its queue is empty]
    #[arg(long, value_name = "N", value_parser = positive::<u32>)]
    pub rounds: Option<u32>,
    /// Output folder: one crawl directory per strategy, metrics, miss ratios and round times as Parquet and CSV
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: PathBuf,
    #[command(flatten)]
    pub params: StrategyArgs,
}

#[derive(Debug, Subcommand)]
pub enum GraphCommand {
    /// Write a finished crawl (--crawl) as a web graph: its pages, their answers and languages, its links
    Export {
        /// The web directory to write (must not exist, or be empty)
        #[arg(short = 'o', long = "out", value_name = "DIR")]
        out: PathBuf,
    },
    /// Write a web described in tab-separated files (shared/webgen's truth.tsv, links.tsv, seeds.txt, stats.json) as a web graph, to replay with simulate
    Import {
        /// The folder holding truth.tsv, links.tsv, seeds.txt and stats.json
        #[arg(long, value_name = "DIR")]
        from: PathBuf,
        /// The web directory to write (must not exist, or be empty)
        #[arg(short = 'o', long = "out", value_name = "DIR")]
        out: PathBuf,
    },
}

#[derive(Debug, Args)]
pub struct DetectArgs {
    /// The document: HTML or text, raw bytes; `-` reads stdin
    pub input: PathBuf,
    /// Treat the input as a short anchor text
    #[arg(long)]
    pub anchor: bool,
    /// Print JSON instead of `key: value` lines
    #[arg(long)]
    pub json: bool,
    /// Decide for a crawl of this language (ja, th, mr, ms...): settle the
    /// target's confusable neighbours, print whether the text counts as the
    /// target and what decided it, and the share in the target's script
    #[arg(long)]
    pub lang: Option<String>,
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// At most N URLs in the fetch list
    #[arg(long, default_value_t = 50_000, value_name = "N", value_parser = positive::<u64>)]
    pub top_n: u64,
    /// At most N URLs of one host
    #[arg(long, default_value_t = 1_000, value_name = "N", value_parser = positive::<u64>)]
    pub max_per_host: u64,
    /// A URL whose fetch failed N times (timeouts, 5xx) is `gone`; saved in
    /// crawl.json [default: the crawl's, else 3]
    #[arg(long, value_name = "N", value_parser = positive::<u32>)]
    pub max_retries: Option<u32>,
    /// Split the fetch list by host into N parts (at most 4096), fetched and parsed each with `--partition I` (on any machine that sees the crawl directory); updatedb gathers them
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = partition_count)]
    pub partitions: usize,
    #[command(flatten)]
    pub recrawl: super::recrawl_args::RecrawlArgs,
}

#[derive(Debug, Args)]
pub struct FetchCommandArgs {
    #[command(flatten)]
    pub part: PartitionArg,
    #[command(flatten)]
    pub fetch: FetchArgs,
    #[command(flatten)]
    pub guard: AllowPrivateArg,
}

#[derive(Debug, Args)]
pub struct PartitionArg {
    /// Work on part I of a round split by `generate --partitions N` (0 to N-1)
    #[arg(long, value_name = "I")]
    pub partition: Option<usize>,
}

#[derive(Debug, Args)]
pub struct AllowPrivateArg {
    /// Fetch hosts on loopback, private, link-local (cloud metadata), CGNAT and
    /// multicast addresses, refused by default; saved in crawl.json [default: false]
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    pub allow_private: Option<bool>,
}

/// Crawler-trap limits, applied whatever the strategy; each unset one keeps
/// the crawl's value (crawl.json), else its default. A link past a limit is
/// rejected with the limit's name as its reason.
#[derive(Debug, Args)]
pub struct LimitArgs {
    /// Follow links at most N steps from a seed (a redirect is a step) [default: 50]
    #[arg(long, value_name = "N")]
    pub max_depth: Option<u32>,
    /// Refuse URLs longer than N characters [default: 2048]
    #[arg(long, value_name = "N")]
    pub max_url_length: Option<u32>,
    /// Refuse URLs with a path segment repeated more than N times (/a/b/a/b/a/) [default: 2]
    #[arg(long, value_name = "N")]
    pub max_repeated_segment: Option<u32>,
    /// At most N URLs of one host in the crawldb, across rounds [default: 100000]
    #[arg(long, value_name = "N", value_parser = whole::<u64>)]
    pub host_budget: Option<u64>,
    /// Follow at most the first N links of a page [default: 1000]
    #[arg(long, value_name = "N")]
    pub max_outlinks: Option<u32>,
    /// Follow at most N redirects in a row [default: 5]
    #[arg(long, value_name = "N")]
    pub max_redirects: Option<u32>,
    #[command(flatten)]
    pub guard: AllowPrivateArg,
}

#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// Link selection strategy (`--help` says what each does; adaptive is
    /// the one to start with) [default: the crawl's, else bfs]
    #[arg(long, value_name = "NAME", value_parser = strategy_names(&[]))]
    pub strategy: Option<String>,
    /// Target language (ja, jpn, th, ...) [default: the crawl's]
    #[arg(long)]
    pub lang: Option<String>,
    #[command(flatten)]
    pub params: StrategyArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// The strategies' parameters; each unset one keeps the crawl's value
/// (crawl.json), else its default.
#[derive(Debug, Args)]
pub struct StrategyArgs {
    /// Tamura's T: irrelevant pages a server (or directory) may show before it is judged irrelevant [default: 10]
    #[arg(long, value_name = "T")]
    pub tolerance: Option<u32>,
    /// tld-anchor: the target's ccTLDs, comma-separated [default: per language, e.g. jp; cn,tw,hk]
    #[arg(long, value_name = "TLD,...", value_delimiter = ',')]
    pub tld: Option<Vec<String>>,
    /// Whether a Han-only anchor counts as Japanese or Chinese [default: true]
    #[arg(long, value_name = "BOOL")]
    pub han_matches: Option<bool>,
    /// ontology: follow a link whose OBRS (Σ term count × importance over its context) exceeds this [default: 5, the paper's Min_OntRel; chosen by scripts/reproduce-kumar-vig]
    #[arg(long, value_name = "X")]
    pub min_ont_rel: Option<f64>,
    /// ontology: else follow it if its LARS (the class-rule probability from its page's class to the class sought) exceeds this [default: 0.15, chosen by scripts/reproduce-kumar-vig]
    #[arg(long, value_name = "X")]
    pub min_la_rel: Option<f64>,
    /// ontology: the class sought [default: the class of the most important term]
    #[arg(long, value_name = "CLASS")]
    pub target_class: Option<String>,
    /// ontology: importance table, CSV term,importance,class [default: sql/tables/importance.csv]
    #[arg(long, value_name = "FILE")]
    pub importance: Option<PathBuf>,
    /// ontology: bilingual dictionary, CSV source_term,target_term [default: sql/tables/dictionary.csv]
    #[arg(long, value_name = "FILE")]
    pub dictionary: Option<PathBuf>,
    /// ontology: class rules, CSV from_class,to_class,probability [default: sql/tables/class_rules.csv]
    #[arg(long, value_name = "FILE")]
    pub class_rules: Option<PathBuf>,
    /// ontology: noise words the transcriptor drops, CSV lang,word [default: sql/tables/stop_words.csv]
    #[arg(long, value_name = "FILE")]
    pub stop_words: Option<PathBuf>,
    /// ontology: chain class rules up to this many steps for LARS, 1 to 4 (1 = the rules as given) [default: 2]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4))]
    pub rule_depth: Option<u32>,
    /// adaptive: share of each round's fetch list spent exploring the servers the crawl knows least (a bandit over servers), 0 to 0.9 [default: 0.02, chosen on the family of webs of scripts/bench-focus]
    #[arg(long, value_name = "S")]
    pub explore_share: Option<f64>,
    /// adaptive: a round holds at least this share of the pages fetched so far, 0 to 1; larger shares mean fewer rounds (less CPU per page), smaller ones fewer requests to reach the target pages [default: 0.02, chosen on live-exported webgen webs, docs/adaptive.md]
    #[arg(long, value_name = "F")]
    pub round_floor: Option<f64>,
    /// Stop the crawl when the target share of the last round's fetches (with as many rounds before it as it takes to hold 10/Y requests) falls below Y, for the best-ranked and for the explored fetches alike (0 to 1) [default: never]
    #[arg(long, value_name = "Y")]
    pub min_yield: Option<f64>,
    /// Stop the crawl after N fetch requests [default: no limit]
    #[arg(long, value_name = "N", value_parser = positive::<u64>)]
    pub max_pages: Option<u64>,
    /// adaptive: features the model leaves out, for ablations (kind, hreflang, url_lang, anchor, tld, hops, inlinks, src_server, dst_server, dst_dir); a target-language anchor also shows in dst_server and dst_dir (their /target-anchor values): leave those out too to take it away whole [default: none]
    #[arg(long, value_name = "FEATURE,...", value_delimiter = ',')]
    pub leave_out: Option<Vec<String>>,
}

#[derive(Debug, Args)]
pub struct RefilterArgs {
    #[command(flatten)]
    pub update: UpdateArgs,
    /// Name of the decision set written in each round (decisions-NAME) [default: the strategy's name]
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// Rounds to refilter: A..B, A.., ..B or A [default: all merged rounds]
    #[arg(long, value_name = "A..B")]
    pub rounds: Option<crate::store::RoundRange>,
    /// Print, per round, the set beside the crawl's own decisions (without --strategy: compare an existing set)
    #[arg(long)]
    pub compare: bool,
}

#[derive(Debug, Args)]
pub struct CrawlArgs {
    /// Inject this seeds file first
    #[arg(long)]
    pub seeds: Option<PathBuf>,
    /// Rounds to run
    #[arg(long, default_value_t = 3, value_parser = positive::<u32>)]
    pub rounds: u32,
    /// End the crawl cleanly at this time: an RFC 3339 time
    /// (2026-12-01T06:00:00Z) or a duration from now (90s, 45m, 8h, 2d); the
    /// fetch phase stops requesting then (the rest is deferred) and no phase
    /// starts after it
    #[arg(long, value_name = "TIME", value_parser = crate::shutdown::parse_until)]
    pub until: Option<std::time::SystemTime>,
    #[command(flatten)]
    pub generate: GenerateArgs,
    #[command(flatten)]
    pub fetch: FetchArgs,
    #[command(flatten)]
    pub update: UpdateArgs,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Also write one self-contained HTML file with the figures (harvest rate, coverage,
    /// queue size, servers accessed) and tables; --crawl may name a simulation's output folder
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct SqlArgs {
    /// The query, e.g. "SELECT status, count(*) FROM crawldb GROUP BY status"
    #[arg(required_unless_present = "file", conflicts_with = "file")]
    pub query: Option<String>,
    /// Read the query from FILE (at most 64 KiB)
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Print at most N rows [default: 10000 as a table, whose columns are as wide as
    /// their widest cell; every row as csv or json, which stream]
    #[arg(long, value_name = "N", value_parser = positive::<usize>)]
    pub max_rows: Option<usize>,
    /// Include the fetched bytes (`fetch.content`, and `fetch.payload`: the body as received where it differs)
    #[arg(long)]
    pub content: bool,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Fetch requests each strategy may make
    #[arg(long, value_name = "N", default_value_t = 1500, value_parser = positive::<u64>)]
    pub max_pages: u64,
}

/// A count that must be at least 1: `--top-n 0` is refused with "must be
/// at least 1" rather than running with nothing to do.
pub(super) fn positive<T: std::str::FromStr + PartialOrd + From<u8>>(
    text: &str,
) -> Result<T, String> {
    let value: T = whole(text)?;
    if value < T::from(1) {
        return Err("must be at least 1".into());
    }
    Ok(value)
}

/// A whole number that SQL can hold: the steps bind numbers as Int64, where
/// one past `i64::MAX` turns negative (a `--host-budget` of 2^63 rejected
/// every link).
pub(super) fn whole<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    let text = text.trim();
    match text.parse::<i64>() {
        Err(_) if text.parse::<u128>().is_ok() => Err(format!("at most {}", i64::MAX)),
        _ => text.parse().map_err(|_| "not a whole number".to_string()),
    }
}

/// Most parts a round can be split into: one machine or process each.
pub const MAX_PARTITIONS: usize = 4096;

/// `--strategy`'s values, from the strategy registry (so a new strategy
/// is in `--help`, the error for a wrong name and the shell completions
/// by itself), each with what it does, after `extra` ones.
fn strategy_names(extra: &[(&'static str, &'static str)]) -> clap::builder::PossibleValuesParser {
    let registered = crate::strategy::STRATEGIES
        .iter()
        .map(|s| (s.name, s.about));
    let values = extra.iter().copied().chain(registered);
    clap::builder::PossibleValuesParser::new(
        values.map(|(name, about)| clap::builder::PossibleValue::new(name).help(about)),
    )
}

fn partition_count(text: &str) -> Result<usize, String> {
    let n = positive::<usize>(text)?;
    if n > MAX_PARTITIONS {
        return Err(format!("at most {MAX_PARTITIONS}"));
    }
    Ok(n)
}

/// An existing folder (`--sql-dir`).
fn existing_dir(text: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(text);
    if !path.is_dir() {
        return Err(format!("{text}: no such folder"));
    }
    Ok(path)
}

impl Cli {
    pub(super) fn crawl_dir(&self) -> PathBuf {
        self.crawl
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_CRAWL))
    }
}
