//! The command line: clap structs (their doc comments are the `--help`
//! text) and the dispatch from a subcommand to its phase.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::fetch::{client::ClientOptions, FetchOptions};
use crate::generate::GenerateOptions;
use crate::lang::TargetLang;
use crate::report::Format;
use crate::store::{CrawlConfig, CrawlDir, CrawlLimits, StrategyParams};
use crate::strategy::LinkSelection;

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
    #[arg(long, global = true, value_name = "DIR")]
    pub sql_dir: Option<PathBuf>,

    /// Print errors only
    #[arg(long, short, global = true)]
    pub quiet: bool,

    /// Memory for the SQL steps (sorts, joins and aggregates spill to disk
    /// under TMPDIR beyond it), e.g. 512MiB, 2GiB, 1.5G [default: half the
    /// RAM, at most 2GiB]
    #[arg(long, global = true, value_name = "SIZE", value_parser = crate::memory::parse_limit)]
    pub memory_limit: Option<usize>,

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
    /// Write the next round's fetch list (sql/generate.sql over the crawldb)
    Generate(GenerateArgs),
    /// Fetch the latest round's fetch list
    Fetch(FetchCommandArgs),
    /// Parse the latest fetched round: text, language, links
    Parse,
    /// Merge the latest parsed round into the crawldb, deciding every link with the strategy
    Updatedb(UpdateArgs),
    /// Run all phases for N rounds (finishing an interrupted round first)
    Crawl(CrawlArgs),
    /// Re-run a strategy over the links of earlier rounds into a named decision set (the crawl is not changed)
    Refilter(RefilterArgs),
    /// Run a SQL query over the crawl: tables crawldb, servers, dirs, fetchlist, fetch, parse, links, decisions, decision_sets, hosts
    Sql(SqlArgs),
    /// Print the language report (pages per language, target first) and the harvest rate per round
    Report(ReportArgs),
    /// The built-in synthetic web
    Websim {
        #[command(subcommand)]
        command: WebsimCommand,
    },
    /// Crawl the built-in synthetic web for Japanese and print the report (no network needed)
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
}

impl Command {
    /// The subcommand's name, as the crawl's lock file records its writer.
    fn name(&self) -> &'static str {
        match self {
            Command::Inject { .. } => "inject",
            Command::Generate(_) => "generate",
            Command::Fetch(_) => "fetch",
            Command::Parse => "parse",
            Command::Updatedb(_) => "updatedb",
            Command::Crawl(_) => "crawl",
            Command::Refilter(_) => "refilter",
            Command::Sql(_) => "sql",
            Command::Report(_) => "report",
            Command::Websim { .. } => "websim",
            Command::Demo(_) => "demo",
            Command::Detect(_) => "detect",
            Command::Simulate(_) => "simulate",
            Command::Graph { .. } => "graph",
        }
    }
}

#[derive(Debug, Args)]
pub struct SimulateArgs {
    /// The web graph (from `websim generate` or `graph export`)
    #[arg(long, value_name = "DIR")]
    pub web: PathBuf,
    /// Strategies to replay, comma-separated, or `all` (every strategy and `perfect`; `ontology` only with --importance)
    #[arg(
        long,
        value_name = "S1,S2,...",
        value_delimiter = ',',
        default_value = "all"
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
    /// Output folder: one crawl directory per strategy, metrics and miss ratios as Parquet and CSV
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
    /// Also print the share of the text in this language's script (ja, th, ...)
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
}

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// Requests in flight across all hosts
    #[arg(long, default_value_t = 32, value_name = "N")]
    pub concurrency: usize,
    /// Pause between two requests to one host, in milliseconds (0 for a local web; at most 60000)
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub delay_ms: u64,
    /// The longest robots.txt Crawl-delay honoured, in milliseconds: a host asking
    /// for more (or for an unreadable value such as inf) is fetched at this delay (at most 600000)
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    pub max_crawl_delay_ms: u64,
    /// After N timeouts or connection errors in a row on one host, the rest of
    /// its queue waits for the next round
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub max_host_failures: u32,
    /// The longest one host may take in a round, in seconds; its URLs left
    /// then wait for the next round (status deferred)
    #[arg(long, default_value_t = 300.0, value_name = "SECS")]
    pub host_time_budget: f64,
    /// End the fetch phase after this many seconds; URLs not fetched by then
    /// wait for the next round (status deferred) [default: no limit]
    #[arg(long, value_name = "SECS")]
    pub max_fetch_time: Option<f64>,
    /// Send all requests through this HTTP proxy (default: the http_proxy variable, if set)
    #[arg(long, value_name = "URL")]
    pub proxy: Option<String>,
    /// The User-Agent header; its first word is the robots.txt agent name
    #[arg(long, default_value = concat!("langcrawl/", env!("CARGO_PKG_VERSION")), value_name = "S")]
    pub user_agent: String,
    /// Give up connecting after this many seconds
    #[arg(long, default_value_t = 10.0, value_name = "SECS")]
    pub connect_timeout: f64,
    /// Give up on a request (connect, headers and body) after this many seconds
    #[arg(long, default_value_t = 30.0, value_name = "SECS")]
    pub timeout: f64,
    /// Keep at most this many bytes of a page (the row records the truncation)
    #[arg(long, default_value_t = 1 << 20, value_name = "BYTES")]
    pub max_content_bytes: usize,
}

#[derive(Debug, Args)]
pub struct FetchCommandArgs {
    #[command(flatten)]
    pub fetch: FetchArgs,
    #[command(flatten)]
    pub guard: AllowPrivateArg,
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
    #[arg(long, value_name = "N")]
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

impl LimitArgs {
    /// Sets the limits given on the command line.
    pub fn apply(&self, limits: &mut CrawlLimits) {
        set(&mut limits.max_depth, self.max_depth);
        set(&mut limits.max_url_length, self.max_url_length);
        set(&mut limits.max_repeated_segment, self.max_repeated_segment);
        set(&mut limits.host_budget, self.host_budget);
        set(&mut limits.max_outlinks, self.max_outlinks);
        set(&mut limits.max_redirects, self.max_redirects);
        set(&mut limits.allow_private, self.guard.allow_private);
    }
}

#[derive(Debug, Args)]
pub struct UpdateArgs {
    /// Link selection strategy: bfs, tld-anchor, hard-focused, soft-focused,
    /// server-aggressive, server-conservative, dir-conservative, ontology
    /// (perfect: simulate only) [default: the crawl's, else bfs]
    #[arg(long, value_name = "NAME")]
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
    /// ontology: follow a link whose OBRS exceeds this [default: 5, the paper's Min_OntRel]
    #[arg(long, value_name = "X")]
    pub min_ont_rel: Option<f64>,
    /// ontology: else follow it if its LARS (a rule probability) exceeds this [default: 0.3]
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
    pub rounds: Option<crate::refilter::RoundRange>,
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
    pub query: String,
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Include the fetched bytes (`fetch.content`)
    #[arg(long)]
    pub content: bool,
}

#[derive(Debug, Subcommand)]
pub enum WebsimCommand {
    /// Serve the synthetic web as an HTTP forward proxy on loopback; crawl it with --proxy
    Serve(WebsimArgs),
    /// Write a calibrated web graph (Tamura's Thai web, for any target) as Parquet, and print its statistics
    Generate(GenerateWebArgs),
}

#[derive(Debug, Args)]
pub struct GenerateWebArgs {
    /// Target language: tha, jpn, kor, cmn or hin (or th, ja, ko, zh, hi)
    #[arg(long)]
    pub lang: String,
    /// Number of pages
    #[arg(long, default_value_t = 100_000)]
    pub pages: usize,
    /// Seed of the generator: the same seed gives the same web
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
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
    /// Number of pages, spread over the hosts
    #[arg(long, default_value_t = 6000)]
    pub pages: usize,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Rounds to crawl
    #[arg(long, default_value_t = 3, value_parser = positive::<u32>)]
    pub rounds: u32,
}

/// A count that must be at least 1: `--top-n 0` is refused with "must be
/// at least 1" rather than running with nothing to do.
fn positive<T: std::str::FromStr + PartialOrd + From<u8>>(text: &str) -> Result<T, String> {
    let value: T = text
        .trim()
        .parse()
        .map_err(|_| "not a whole number".to_string())?;
    if value < T::from(1) {
        return Err("must be at least 1".into());
    }
    Ok(value)
}

impl Cli {
    fn crawl_dir(&self) -> PathBuf {
        self.crawl
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_CRAWL))
    }
}

/// Runs the parsed command line; `say` prints one line of progress.
pub async fn run(cli: Cli) -> Result<()> {
    crate::store::lock::set_task(cli.command.name());
    let memory_limit = cli
        .memory_limit
        .unwrap_or_else(crate::memory::default_limit);
    let engine = Engine::with_memory_limit(cli.sql_dir.clone(), memory_limit);
    let quiet = cli.quiet;
    let say = |line: String| {
        if !quiet {
            println!("{line}");
        }
    };
    let root = cli.crawl_dir();
    match &cli.command {
        Command::Inject { seeds, lang } => {
            let config = lang.as_deref().map(new_config).transpose()?;
            let report = crate::inject::run(&engine, &root, seeds, config).await?;
            for line in &report.rejected {
                eprintln!(
                    "langcrawl: {}:{}: skipped {:?}: {}",
                    seeds.display(),
                    line.line,
                    line.text,
                    line.why
                );
            }
            say(report.to_string());
            if !report.rejected.is_empty() {
                return Err(Error::Usage(format!(
                    "{}: {} lines are not http(s) URLs; the other URLs were injected",
                    seeds.display(),
                    report.rejected.len()
                )));
            }
        }
        Command::Generate(args) => {
            let crawl = CrawlDir::open(&root)?;
            say(crate::generate::run(&engine, &crawl, &args.options())
                .await?
                .to_string());
        }
        Command::Fetch(args) => {
            let crawl = CrawlDir::open(&root)?;
            let mut config = CrawlConfig::load(&crawl)?;
            set(&mut config.limits.allow_private, args.guard.allow_private);
            config.save(&crawl)?;
            let mut options = args.fetch.options(quiet)?;
            options.allow_private = config.limits.allow_private;
            say(crate::fetch::run(&crawl, &options).await?.to_string());
        }
        Command::Parse => {
            let crawl = CrawlDir::open(&root)?;
            say(crate::parse::run(&crawl)?.to_string());
        }
        Command::Updatedb(args) => {
            let crawl = CrawlDir::open(&root)?;
            let mut config = CrawlConfig::load(&crawl)?;
            let selection = args.resolve(&mut config)?;
            config.save(&crawl)?;
            say(crate::updatedb::run(&engine, &crawl, &selection)
                .await?
                .to_string());
        }
        Command::Refilter(args) => run_refilter(&engine, &root, args, quiet).await?,
        Command::Crawl(args) => run_crawl(&engine, &root, args, quiet).await?,
        Command::Sql(args) => {
            let crawl = CrawlDir::open_read_only(&root)?;
            crate::report::register_crawl(&engine, &crawl, args.content).await?;
            let batches = crate::report::query(&engine, &args.query).await?;
            print!(
                "{}",
                with_newline(crate::report::format(&batches, args.format)?)
            );
        }
        Command::Report(args) => {
            if let Some(out) = &args.html {
                let figures = crate::report::html::write(&engine, &root, out).await?;
                say(format!("report: {figures} figures -> {}", out.display()));
            }
            if !crate::sim::SimDir::is_simulation(&root) {
                let crawl = CrawlDir::open_read_only(&root)?;
                println!("{}", crate::report::full_report(&engine, &crawl).await?);
            }
        }
        Command::Websim {
            command: WebsimCommand::Serve(args),
        } => serve_websim(args).await?,
        Command::Websim {
            command: WebsimCommand::Generate(args),
        } => generate_web(&engine, args).await?,
        Command::Detect(args) => print!("{}", detect(args)?),
        Command::Simulate(args) => simulate(&engine, args, quiet).await?,
        Command::Graph {
            command: GraphCommand::Export { out },
        } => {
            let crawl = CrawlDir::open_read_only(&root)?;
            let exported = crate::sim::export::run(&engine, &crawl, out).await?;
            say(format!(
                "graph export: {} pages, {} links, {} seeds -> {}",
                exported.pages,
                exported.links,
                exported.seeds,
                out.display()
            ));
        }
        Command::Demo(args) => {
            let root = cli
                .crawl
                .clone()
                .unwrap_or_else(|| Path::new(DEFAULT_CRAWL).join("demo"));
            crate::demo::run(&engine, &root, args.rounds, quiet).await?;
        }
    }
    Ok(())
}

fn with_newline(mut text: String) -> String {
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// A crawl.json for a new crawl in `lang`.
pub fn new_config(lang: &str) -> Result<CrawlConfig> {
    let lang = TargetLang::parse(lang)?;
    let mut config = CrawlConfig {
        target_lang: Some(lang.code().to_string()),
        ..CrawlConfig::default()
    };
    config.params.target_tlds = lang.default_tlds();
    Ok(config)
}

async fn run_crawl(engine: &Engine, root: &Path, args: &CrawlArgs, quiet: bool) -> Result<()> {
    let existing = match CrawlDir::open(root) {
        Ok(crawl) => Some(crawl),
        Err(e) if args.seeds.is_some() => {
            if root.join("crawl.json").exists() {
                return Err(e);
            }
            None
        }
        Err(e) => return Err(e),
    };
    let mut config = match &existing {
        Some(crawl) => CrawlConfig::load(crawl)?,
        None => CrawlConfig::default(),
    };
    set(&mut config.limits.max_retries, args.generate.max_retries);
    let update = args.update.resolve(&mut config)?;
    let options = crate::crawl::CrawlOptions {
        seeds: args.seeds.clone(),
        rounds: args.rounds,
        generate: args.generate.options(),
        fetch: crate::fetch::FetchOptions {
            allow_private: update.limits.allow_private,
            ..args.fetch.options(quiet)?
        },
        update,
    };
    let mut say = |line: String| {
        if !quiet {
            println!("{line}");
        }
    };
    let crawl = crate::crawl::run(engine, root, &options, config, &mut say).await?;
    if !quiet {
        println!("\n{}", crate::report::full_report(engine, &crawl).await?);
    }
    Ok(())
}

async fn run_refilter(
    engine: &Engine,
    root: &Path,
    args: &RefilterArgs,
    quiet: bool,
) -> Result<()> {
    let crawl = CrawlDir::open(root)?;
    let name = match (&args.name, &args.update.strategy) {
        (Some(name), _) => name.clone(),
        (None, Some(strategy)) => strategy.clone(),
        (None, None) if args.compare => {
            return Err(Error::Usage(
                "--compare without --strategy compares an existing set: name it with --name".into(),
            ))
        }
        (None, None) => {
            return Err(Error::Usage(
                "--strategy is required: the strategy to re-run (e.g. server-conservative)".into(),
            ))
        }
    };
    if args.update.strategy.is_some() {
        // The crawl's settings are the base; nothing is saved back.
        let mut config = CrawlConfig::load(&crawl)?;
        let options = crate::refilter::RefilterOptions {
            selection: args.update.resolve(&mut config)?,
            name: name.clone(),
            rounds: args.rounds.unwrap_or_default(),
        };
        for round in crate::refilter::run(engine, &crawl, &options).await? {
            if !quiet {
                println!(
                    "refilter round {}: {} links decided, {} accepted -> {}",
                    round.round,
                    round.links,
                    round.accepted,
                    crawl.decision_set(round.round, &name).display()
                );
            }
        }
    }
    if args.compare {
        let table = crate::refilter::compare(engine, &crawl, &name).await?;
        println!(
            "Decision set {name:?} beside the crawl's own decisions:\n{}",
            crate::report::format(&table, Format::Table)?
        );
    }
    Ok(())
}

fn missing_lang() -> Error {
    Error::Usage("--lang is required: the crawl has no target language yet (e.g. --lang ja)".into())
}

impl GenerateArgs {
    fn options(&self) -> GenerateOptions {
        GenerateOptions {
            top_n: self.top_n,
            max_per_host: self.max_per_host,
            max_retries: self.max_retries,
        }
    }
}

impl FetchArgs {
    fn options(&self, quiet: bool) -> Result<FetchOptions> {
        // A week at most: a deadline past the clock's range would panic.
        let seconds = |name: &str, value: f64| {
            Duration::try_from_secs_f64(value)
                .ok()
                .filter(|d| !d.is_zero() && d.as_secs() <= 7 * 24 * 3600)
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "--{name} {value}: must be a positive number of seconds, at most 604800 (a week)"
                    ))
                })
        };
        if self.concurrency == 0 {
            return Err(Error::Usage("--concurrency 0: must be at least 1".into()));
        }
        if self.max_host_failures == 0 {
            return Err(Error::Usage(
                "--max-host-failures 0: must be at least 1".into(),
            ));
        }
        let millis = |name: &str, value: u64, max: u64| {
            (value <= max)
                .then(|| Duration::from_millis(value))
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "--{name} {value}: must be at most {max} milliseconds"
                    ))
                })
        };
        Ok(FetchOptions {
            client: ClientOptions {
                user_agent: self.user_agent.clone(),
                proxy: self.proxy.clone(),
                connect_timeout: seconds("connect-timeout", self.connect_timeout)?,
                timeout: seconds("timeout", self.timeout)?,
                max_content_bytes: self.max_content_bytes,
            },
            concurrency: self.concurrency,
            delay: millis("delay-ms", self.delay_ms, 60_000)?,
            max_crawl_delay: millis("max-crawl-delay-ms", self.max_crawl_delay_ms, 600_000)?,
            max_host_failures: self.max_host_failures,
            host_time_budget: seconds("host-time-budget", self.host_time_budget)?,
            max_fetch_time: self
                .max_fetch_time
                .map(|t| seconds("max-fetch-time", t))
                .transpose()?,
            allow_private: false,
            quiet,
        })
    }
}

impl UpdateArgs {
    /// The link selection the flags ask for, over the crawl's settings;
    /// `config` takes the result (the caller saves it, or not).
    pub fn resolve(&self, config: &mut CrawlConfig) -> Result<LinkSelection> {
        let lang = match &self.lang {
            Some(lang) => TargetLang::parse(lang)?,
            None => TargetLang::parse(config.target_lang.as_deref().ok_or_else(missing_lang)?)?,
        };
        let strategy = crate::strategy::find(self.strategy.as_deref().unwrap_or(&config.strategy))?;
        if strategy.simulation_only {
            return Err(Error::Usage(format!(
                "--strategy {}: needs the whole web graph; replay a crawl with `langcrawl graph export` and `langcrawl simulate`",
                strategy.name
            )));
        }
        if config.target_lang.as_deref() != Some(lang.code()) {
            config.params.target_tlds = lang.default_tlds();
            config.target_lang = Some(lang.code().to_string());
        }
        config.strategy = strategy.name.to_string();
        self.params.apply(&mut config.params)?;
        self.limits.apply(&mut config.limits);
        Ok(LinkSelection {
            strategy,
            target_lang: lang,
            params: config.params.clone(),
            limits: config.limits.clone(),
        })
    }
}

impl StrategyArgs {
    /// Sets the parameters given on the command line.
    fn apply(&self, params: &mut StrategyParams) -> Result<()> {
        if let Some(tlds) = &self.tld {
            params.target_tlds = tlds
                .iter()
                .map(|t| t.trim().trim_start_matches('.').to_ascii_lowercase())
                .filter(|t| !t.is_empty())
                .collect();
        }
        for (flag, value) in [
            ("min-ont-rel", self.min_ont_rel),
            ("min-la-rel", self.min_la_rel),
        ] {
            if value.is_some_and(|v| !v.is_finite()) {
                return Err(Error::Usage(format!("--{flag}: must be a number")));
            }
        }
        for (flag, file) in [
            ("importance", &self.importance),
            ("dictionary", &self.dictionary),
            ("class-rules", &self.class_rules),
        ] {
            if let Some(file) = file.as_ref().filter(|f| !f.is_file()) {
                return Err(Error::Usage(format!(
                    "--{flag} {}: no such file",
                    file.display()
                )));
            }
        }
        set(&mut params.tolerance, self.tolerance);
        set(&mut params.han_matches, self.han_matches);
        set(&mut params.min_ont_rel, self.min_ont_rel);
        set(&mut params.min_la_rel, self.min_la_rel);
        set_some(&mut params.target_class, &self.target_class);
        set_some(
            &mut params.importance,
            &self.importance.as_deref().map(absolute),
        );
        set_some(
            &mut params.dictionary,
            &self.dictionary.as_deref().map(absolute),
        );
        set_some(
            &mut params.class_rules,
            &self.class_rules.as_deref().map(absolute),
        );
        Ok(())
    }
}

fn set<T>(slot: &mut T, value: Option<T>) {
    if let Some(value) = value {
        *slot = value;
    }
}

fn set_some<T: Clone>(slot: &mut Option<T>, value: &Option<T>) {
    if value.is_some() {
        slot.clone_from(value);
    }
}

/// A table file's path as crawl.json keeps it: absolute, so later phases
/// find it from any working directory.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

async fn generate_web(engine: &Engine, args: &GenerateWebArgs) -> Result<()> {
    let target = TargetLang::parse(&args.lang)?;
    let Some(index) = crate::websim::corpus::lang_index(target.code()) else {
        let known: Vec<&str> = crate::websim::corpus::LANGS
            .iter()
            .map(|l| l.code)
            .collect();
        return Err(Error::Usage(format!(
            "--lang {}: the synthetic web has no text in {} (it has {})",
            args.lang,
            target.code(),
            known.join(", ")
        )));
    };
    if args.pages < 100 {
        return Err(Error::Usage(format!(
            "--pages {}: at least 100",
            args.pages
        )));
    }
    let spec = crate::websim::calibrated::CalibratedSpec {
        target: index,
        pages: args.pages,
        seed: args.seed,
    };
    let started = std::time::Instant::now();
    let info = crate::websim::web_stats::generate_into(engine, spec, &target, &args.out).await?;
    println!(
        "websim: wrote a web of {} pages and {} links for {} to {} in {:.1} s; seeds: {}\n",
        info.pages,
        info.links,
        target.code(),
        args.out.display(),
        started.elapsed().as_secs_f64(),
        info.seeds.join(" ")
    );
    print!("{}", crate::websim::web_stats::table(&info.stats));
    Ok(())
}

async fn simulate(engine: &Engine, args: &SimulateArgs, quiet: bool) -> Result<()> {
    let web = crate::websim::graph::WebDir::open(&args.web)?;
    let target = TargetLang::parse(&web.info()?.target_lang)?;
    if let Some(lang) = &args.lang {
        let asked = TargetLang::parse(lang)?;
        if asked != target {
            return Err(Error::Usage(format!(
                "--lang {lang}: the web {} is for {}",
                args.web.display(),
                target.code()
            )));
        }
    }
    let names: Vec<&str> = if args.strategy.iter().any(|s| s == "all") {
        // The ontology needs tables written for the crawl's topic.
        crate::strategy::STRATEGIES
            .iter()
            .map(|s| s.name)
            .filter(|&name| name != "ontology" || args.params.importance.is_some())
            .collect()
    } else {
        args.strategy.iter().map(String::as_str).collect()
    };
    let mut selections = Vec::new();
    for name in names {
        let mut selection = LinkSelection::new(crate::strategy::find(name)?, target.clone());
        args.params.apply(&mut selection.params)?;
        selections.push(selection);
    }
    let options = crate::sim::SimulateOptions {
        web: args.web.clone(),
        selections,
        pages: args.pages,
        round_size: args.round_size,
        rounds: args.rounds,
        out: args.out.clone(),
    };
    let mut log = |line: String| {
        if !quiet {
            println!("{line}");
        }
    };
    let table = crate::sim::run(engine, &options, &mut log).await?;
    println!(
        "\nFinal table (details in {}: metrics.csv, miss_by_distance.csv, one crawl per strategy):\n{}",
        args.out.display(),
        crate::report::format(&table, Format::Table)?
    );
    Ok(())
}

async fn serve_websim(args: &WebsimArgs) -> Result<()> {
    if let Some(dir) = &args.web {
        return serve_graph(args, dir).await;
    }
    let web = crate::websim::Web::generate(crate::websim::WebSpec {
        seed: args.seed,
        hosts: args.hosts.max(1),
        pages: args.pages.max(1),
    });
    let listener = crate::websim::server::bind(args.listen)?;
    let addr = listener.local_addr().map_err(Error::io("listener"))?;
    println!(
        "websim: {} hosts, {} pages (seed {}) on http://{addr}; crawl it with --proxy http://{addr}",
        web.hosts.len(),
        web.hosts.iter().map(|h| h.pages as usize).sum::<usize>(),
        args.seed
    );
    println!(
        "seeds (Japanese front pages): {}",
        web.seeds("jpn", 3).join(" ")
    );
    crate::websim::server::serve_std(std::sync::Arc::new(web), listener, None).await
}

async fn serve_graph(args: &WebsimArgs, dir: &Path) -> Result<()> {
    let web = crate::websim::graph::WebDir::open(dir)?;
    let site = crate::websim::graph_site::GraphSite::load(&web)?;
    let listener = crate::websim::server::bind(args.listen)?;
    let addr = listener.local_addr().map_err(Error::io("listener"))?;
    println!(
        "websim: the web graph {} ({} pages) on http://{addr}; crawl it with --proxy http://{addr}",
        dir.display(),
        site.graph().pages.len()
    );
    println!("seeds: {}", site.info().seeds.join(" "));
    crate::websim::server::serve_std(std::sync::Arc::new(site), listener, None).await
}

fn detect(args: &DetectArgs) -> Result<String> {
    let target = args.lang.as_deref().map(TargetLang::parse).transpose()?;
    let bytes = crate::detect::read_input(&args.input)?;
    let found = if args.anchor {
        crate::detect::anchor(&bytes)
    } else {
        crate::detect::page(&bytes, target.as_ref())
    };
    if args.json {
        let json = serde_json::to_string(&found)
            .map_err(|e| Error::Other(format!("writing JSON: {e}")))?;
        Ok(json + "\n")
    } else {
        Ok(found.to_lines())
    }
}
