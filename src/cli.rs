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
use crate::store::{CrawlConfig, CrawlDir};
use crate::updatedb::UpdateOptions;

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
    Fetch(FetchArgs),
    /// Parse the latest fetched round: text, language, links
    Parse,
    /// Merge the latest parsed round into the crawldb, deciding every link with the strategy
    Updatedb(UpdateArgs),
    /// Run all phases for N rounds (finishing an interrupted round first)
    Crawl(CrawlArgs),
    /// Run a SQL query over the crawl: tables crawldb, servers, dirs, fetchlist, fetch, parse, links, decisions
    Sql(SqlArgs),
    /// Print the language report (pages per language, target first) and the harvest rate per round
    Report,
    /// The built-in synthetic web
    Websim {
        #[command(subcommand)]
        command: WebsimCommand,
    },
    /// Crawl the built-in synthetic web for Japanese and print the report (no network needed)
    Demo(DemoArgs),
    /// Print the charset and language of a page (or of an anchor text), as the parse phase sees them
    Detect(DetectArgs),
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
    #[arg(long, default_value_t = 50_000, value_name = "N")]
    pub top_n: u64,
    /// At most N URLs of one host
    #[arg(long, default_value_t = 1_000, value_name = "N")]
    pub max_per_host: u64,
    /// Do not retry a URL that failed N times
    #[arg(long, default_value_t = 3, value_name = "N")]
    pub max_retries: u32,
}

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// Requests in flight across all hosts
    #[arg(long, default_value_t = 32, value_name = "N")]
    pub concurrency: usize,
    /// Pause between two requests to one host, in milliseconds (0 for a local web)
    #[arg(long, default_value_t = 1000, value_name = "MS")]
    pub delay_ms: u64,
    /// The longest robots.txt Crawl-delay honoured, in milliseconds
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    pub max_crawl_delay_ms: u64,
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
pub struct UpdateArgs {
    /// Link selection strategy [default: the crawl's, else bfs]
    #[arg(long, value_name = "NAME")]
    pub strategy: Option<String>,
    /// Target language (ja, jpn, th, ...) [default: the crawl's]
    #[arg(long)]
    pub lang: Option<String>,
    /// Tamura's T: irrelevant pages a server may show before it is judged irrelevant [default: the crawl's, else 10]
    #[arg(long, value_name = "T")]
    pub tolerance: Option<u32>,
}

#[derive(Debug, Args)]
pub struct CrawlArgs {
    /// Inject this seeds file first
    #[arg(long)]
    pub seeds: Option<PathBuf>,
    /// Rounds to run
    #[arg(long, default_value_t = 3)]
    pub rounds: u32,
    #[command(flatten)]
    pub generate: GenerateArgs,
    #[command(flatten)]
    pub fetch: FetchArgs,
    #[command(flatten)]
    pub update: UpdateArgs,
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
}

#[derive(Debug, Args)]
pub struct WebsimArgs {
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
    #[arg(long, default_value_t = 3)]
    pub rounds: u32,
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
    let engine = Engine::new(cli.sql_dir.clone());
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
            say(crate::fetch::run(&crawl, &args.options(quiet)?)
                .await?
                .to_string());
        }
        Command::Parse => {
            let crawl = CrawlDir::open(&root)?;
            say(crate::parse::run(&crawl)?.to_string());
        }
        Command::Updatedb(args) => {
            let crawl = CrawlDir::open(&root)?;
            let options = args.options(&crawl)?;
            say(crate::updatedb::run(&engine, &crawl, &options)
                .await?
                .to_string());
        }
        Command::Crawl(args) => run_crawl(&engine, &root, args, quiet).await?,
        Command::Sql(args) => {
            let crawl = CrawlDir::open(&root)?;
            crate::report::register_crawl(&engine, &crawl, args.content).await?;
            let batches = crate::report::query(&engine, &args.query).await?;
            print!(
                "{}",
                with_newline(crate::report::format(&batches, args.format)?)
            );
        }
        Command::Report => {
            let crawl = CrawlDir::open(&root)?;
            println!("{}", crate::report::full_report(&engine, &crawl).await?);
        }
        Command::Websim {
            command: WebsimCommand::Serve(args),
        } => serve_websim(args).await?,
        Command::Detect(args) => print!("{}", detect(args)?),
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
    Ok(CrawlConfig {
        target_tlds: lang.default_tlds(),
        target_lang: Some(lang.code().to_string()),
        ..CrawlConfig::default()
    })
}

async fn run_crawl(engine: &Engine, root: &Path, args: &CrawlArgs, quiet: bool) -> Result<()> {
    let lang = args
        .update
        .lang
        .as_deref()
        .map(TargetLang::parse)
        .transpose()?;
    if args.seeds.is_none() {
        CrawlDir::open(root)?;
    }
    let mut config = match CrawlDir::open(root) {
        Ok(crawl) => CrawlConfig::load(&crawl)?,
        Err(_) => CrawlConfig::default(),
    };
    if let Some(lang) = &lang {
        config.target_lang = Some(lang.code().to_string());
        config.target_tlds = lang.default_tlds();
    }
    let target = config.target_lang.clone().ok_or_else(missing_lang)?;
    let update = UpdateOptions {
        strategy: crate::strategy::find(
            args.update.strategy.as_deref().unwrap_or(&config.strategy),
        )?,
        target_lang: TargetLang::parse(&target)?,
        tolerance: args.update.tolerance.unwrap_or(config.tolerance),
    };
    let options = crate::crawl::CrawlOptions {
        seeds: args.seeds.clone(),
        rounds: args.rounds,
        generate: args.generate.options(),
        fetch: args.fetch.options(quiet)?,
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
        let seconds = |name: &str, value: f64| {
            Duration::try_from_secs_f64(value)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| {
                    Error::Usage(format!(
                        "--{name} {value}: must be a positive number of seconds"
                    ))
                })
        };
        if self.concurrency == 0 {
            return Err(Error::Usage("--concurrency 0: must be at least 1".into()));
        }
        Ok(FetchOptions {
            client: ClientOptions {
                user_agent: self.user_agent.clone(),
                proxy: self.proxy.clone(),
                connect_timeout: seconds("connect-timeout", self.connect_timeout)?,
                timeout: seconds("timeout", self.timeout)?,
                max_content_bytes: self.max_content_bytes,
            },
            concurrency: self.concurrency,
            delay: Duration::from_millis(self.delay_ms),
            max_crawl_delay: Duration::from_millis(self.max_crawl_delay_ms),
            quiet,
        })
    }
}

impl UpdateArgs {
    /// Resolves the flags against crawl.json and saves what they change.
    fn options(&self, crawl: &CrawlDir) -> Result<UpdateOptions> {
        let mut config = CrawlConfig::load(crawl)?;
        let lang = match &self.lang {
            Some(lang) => TargetLang::parse(lang)?,
            None => TargetLang::parse(config.target_lang.as_deref().ok_or_else(missing_lang)?)?,
        };
        let strategy = crate::strategy::find(self.strategy.as_deref().unwrap_or(&config.strategy))?;
        if config.target_lang.as_deref() != Some(lang.code()) {
            config.target_tlds = lang.default_tlds();
            config.target_lang = Some(lang.code().to_string());
        }
        config.strategy = strategy.name.to_string();
        config.tolerance = self.tolerance.unwrap_or(config.tolerance);
        config.save(crawl)?;
        Ok(UpdateOptions {
            strategy,
            target_lang: lang,
            tolerance: config.tolerance,
        })
    }
}

async fn serve_websim(args: &WebsimArgs) -> Result<()> {
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
