//! The throughput benchmark run by `scripts/bench`: a whole crawl of a
//! generated 200,000-page web (`websim generate`, Tamura's Thai web)
//! served by `websim serve` on 127.0.0.1, crawled through `--proxy` by
//! `crawl --top-n 50000 --concurrency 64 --delay-ms 0`, once with bfs and
//! once with adaptive, each its own process; and the server's ceiling, 64
//! keep-alive connections GETting the web's pages with nothing else done,
//! measured before each crawl and after the last. Prints one table:
//! pages/s of the whole crawl, each phase's seconds and share, fetch
//! against the mean of the ceilings beside it, and adaptive against bfs. The
//! figures, not a pass/fail, are the result.
//!
//!   LANGCRAWL_BENCH_PAGES=200000    pages of the web
//!   LANGCRAWL_BENCH_DIR=/tmp/lc-throughput   where the web (kept) and the crawls go
//!   LANGCRAWL_BENCH_STRATEGIES=bfs,adaptive

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use datafusion::arrow::array::{Array, StringArray};

/// Connections of the ceiling and requests in flight of the crawls.
const CONNECTIONS: usize = 64;
/// Pages the ceiling requests.
const CEILING_PAGES: usize = 50_000;

fn main() -> anyhow::Result<()> {
    let pages: usize = env_or("LANGCRAWL_BENCH_PAGES", "200000").parse()?;
    let dir = PathBuf::from(env_or("LANGCRAWL_BENCH_DIR", "/tmp/lc-throughput"));
    let strategies = env_or("LANGCRAWL_BENCH_STRATEGIES", "bfs,adaptive");
    std::fs::create_dir_all(&dir)?;
    let web = dir.join(format!("web-{pages}"));
    if !web.join("web.json").exists() {
        let args = [
            "websim",
            "generate",
            "--lang",
            "tha",
            "--pages",
            &pages.to_string(),
        ];
        langcrawl_ok(
            &[&args[..], &["-o", &web.display().to_string()]].concat(),
            &dir,
        )?;
    }
    let server = Server::start(&web, &dir)?;
    // The ceiling before each crawl and after the last (it moves by a
    // third between runs on a shared machine): each crawl's fetch is
    // compared with the mean of the two beside it.
    let mut ceilings = vec![ceiling(&web, &server.proxy)?];
    let mut runs = Vec::new();
    for strategy in strategies.split(',') {
        runs.push(crawl(&web, &dir, &server.proxy, strategy)?);
        ceilings.push(ceiling(&web, &server.proxy)?);
    }
    print_table(pages, &ceilings, &runs);
    Ok(())
}

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

/// Runs langcrawl with `args` and fails with its output if it fails.
fn langcrawl_ok(args: &[&str], dir: &Path) -> anyhow::Result<(Duration, u64, String)> {
    let log = dir.join("step.log");
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let started = Instant::now();
    let (code, peak) = common::run_langcrawl(&args, &log)?;
    let wall = started.elapsed();
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    if code != 0 {
        bail!("langcrawl {} exited with {code}: {text}", args.join(" "));
    }
    Ok((wall, peak, text))
}

/// `websim serve --web` in its own process, killed when dropped.
struct Server {
    child: Child,
    proxy: String,
}

impl Server {
    fn start(web: &Path, dir: &Path) -> anyhow::Result<Server> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port();
        let listen = format!("127.0.0.1:{port}");
        let log = std::fs::File::create(dir.join("server.log"))?;
        let child = Command::new(env!("CARGO_BIN_EXE_langcrawl"))
            .args(["websim", "serve", "--web"])
            .arg(web)
            .args(["--listen", &listen])
            .stdout(Stdio::from(log.try_clone()?))
            .stderr(Stdio::from(log))
            .spawn()
            .context("starting websim serve")?;
        let server = Server {
            child,
            proxy: format!("http://{listen}"),
        };
        for _ in 0..600 {
            if std::net::TcpStream::connect(&listen).is_ok() {
                return Ok(server);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        bail!("websim serve did not listen on {listen} within 60 s (see server.log)")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What the server answers with nothing but GETs: requests/s and MB/s.
struct Ceiling {
    requests: usize,
    /// Requests that failed (the server closed a connection, say).
    failed: usize,
    seconds: f64,
    bytes: usize,
}

/// 64 connections GET the web's first pages (status 200, robots allowed)
/// through the proxy, each kept alive for all its requests and each body
/// read whole: the server's ceiling, as `wrk` would measure it.
fn ceiling(web: &Path, proxy: &str) -> anyhow::Result<Ceiling> {
    let urls = Arc::new(page_urls(web, CEILING_PAGES)?);
    let server = proxy.trim_start_matches("http://").to_string();
    let next = Arc::new(AtomicUsize::new(0));
    let runtime = tokio::runtime::Runtime::new()?;
    let started = Instant::now();
    let outcomes = runtime.block_on(async {
        let workers = (0..CONNECTIONS).map(|_| {
            let (urls, next, server) = (urls.clone(), next.clone(), server.clone());
            tokio::spawn(async move { get_on_one_connection(&server, &urls, &next).await })
        });
        futures::future::join_all(workers).await
    });
    let seconds = started.elapsed().as_secs_f64();
    let (mut bytes, mut failed) = (0, 0);
    for outcome in outcomes {
        let (b, f) = outcome??;
        (bytes, failed) = (bytes + b, failed + f);
    }
    Ok(Ceiling {
        requests: urls.len(),
        failed,
        seconds,
        bytes,
    })
}

/// GETs the next URL of `urls` until none is left, on one connection to
/// the proxy at `server` (opened again if the server closes it); returns
/// the bytes read and the requests that failed.
async fn get_on_one_connection(
    server: &str,
    urls: &[String],
    next: &AtomicUsize,
) -> anyhow::Result<(usize, usize)> {
    use http_body_util::BodyExt;
    let (mut bytes, mut failed) = (0, 0);
    let mut sender = None;
    while let Some(url) = urls.get(next.fetch_add(1, Ordering::Relaxed)) {
        if sender.is_none() {
            let stream = tokio::net::TcpStream::connect(server).await?;
            let io = hyper_util::rt::TokioIo::new(stream);
            let (send, connection) = hyper::client::conn::http1::handshake(io).await?;
            tokio::spawn(connection);
            sender = Some(send);
        }
        let send: &mut hyper::client::conn::http1::SendRequest<
            http_body_util::Empty<bytes::Bytes>,
        > = sender.as_mut().expect("connected above");
        let request = hyper::Request::get(url.as_str()).body(http_body_util::Empty::new())?;
        let body = match send.send_request(request).await {
            Ok(response) => response
                .into_body()
                .collect()
                .await
                .map(|b| b.to_bytes().len()),
            Err(e) => Err(e),
        };
        match body {
            Ok(n) => bytes += n,
            Err(_) => (failed, sender) = (failed + 1, None),
        }
    }
    Ok((bytes, failed))
}

/// The first `n` URLs of the web's pages a crawler gets: status 200,
/// allowed by robots.txt.
fn page_urls(web: &Path, n: usize) -> anyhow::Result<Vec<String>> {
    let runtime = tokio::runtime::Runtime::new()?;
    runtime.block_on(async {
        let ctx = datafusion::prelude::SessionContext::new();
        let pages = web.join("pages").display().to_string() + "/";
        ctx.register_parquet("pages", &pages, Default::default())
            .await?;
        let query = "SELECT url FROM pages WHERE status = 200 AND robots_allowed";
        let mut urls = Vec::new();
        for batch in ctx.sql(query).await?.limit(0, Some(n))?.collect().await? {
            let column = batch.column(0);
            let column = datafusion::arrow::compute::cast(
                column,
                &datafusion::arrow::datatypes::DataType::Utf8,
            )?;
            let column = column
                .as_any()
                .downcast_ref::<StringArray>()
                .context("url")?;
            urls.extend((0..column.len()).map(|i| column.value(i).to_string()));
        }
        Ok(urls)
    })
}

/// One whole crawl: its wall time, peak memory, and the phases' seconds
/// summed over its rounds (from the round lines fetch and parse print).
struct Run {
    strategy: String,
    rounds: usize,
    wall: f64,
    peak: u64,
    urls: u64,
    fetch_secs: f64,
    parse_secs: f64,
    parsed: u64,
}

fn crawl(web: &Path, dir: &Path, proxy: &str, strategy: &str) -> anyhow::Result<Run> {
    let crawl = dir.join(format!("crawl-{strategy}"));
    if crawl.exists() {
        std::fs::remove_dir_all(&crawl)?;
    }
    let info: serde_json::Value = serde_json::from_slice(&std::fs::read(web.join("web.json"))?)?;
    let seeds: Vec<&str> = info["seeds"]
        .as_array()
        .context("web.json: no seeds")?
        .iter()
        .filter_map(|s| s.as_str())
        .collect();
    let seeds_file = dir.join("seeds.txt");
    std::fs::write(&seeds_file, seeds.join("\n") + "\n")?;
    let lang = info["target_lang"].as_str().unwrap_or("tha").to_string();
    let (crawl_s, seeds_s) = (
        crawl.display().to_string(),
        seeds_file.display().to_string(),
    );
    let concurrency = CONNECTIONS.to_string();
    let args = [
        "crawl",
        "--crawl",
        &crawl_s,
        "--seeds",
        &seeds_s,
        "--lang",
        &lang,
        "--strategy",
        strategy,
        "--rounds",
        "100",
        "--top-n",
        "50000",
        "--concurrency",
        &concurrency,
        "--delay-ms",
        "0",
        "--proxy",
        proxy,
        "--allow-private",
    ];
    let (wall, peak, log) = langcrawl_ok(&args, dir)?;
    std::fs::write(dir.join(format!("crawl-{strategy}.log")), &log)?;
    let mut run = Run {
        strategy: strategy.to_string(),
        rounds: 0,
        wall: wall.as_secs_f64(),
        peak,
        urls: 0,
        fetch_secs: 0.0,
        parse_secs: 0.0,
        parsed: 0,
    };
    for line in log.lines() {
        // "fetch round 00001: 12 URLs in 0.1s (...", "parse round 00001: 12 pages in 0.0s (..."
        let Some((phase, count, secs)) = round_line(line) else {
            continue;
        };
        match phase {
            "fetch" => {
                (run.rounds, run.urls, run.fetch_secs) =
                    (run.rounds + 1, run.urls + count, run.fetch_secs + secs)
            }
            _ => (run.parsed, run.parse_secs) = (run.parsed + count, run.parse_secs + secs),
        }
    }
    Ok(run)
}

/// The phase, count and seconds of a fetch or parse round line. The
/// seconds are printed to a tenth, the rate to a page a second: the
/// seconds are the count over the rate where there is one (a round of
/// 0.04 s would count as 0.0 s).
fn round_line(line: &str) -> Option<(&str, u64, f64)> {
    let phase = ["fetch", "parse"]
        .into_iter()
        .find(|p| line.starts_with(&format!("{p} round ")))?;
    let (_, rest) = line.split_once(": ")?;
    let mut words = rest.split_whitespace();
    let count: u64 = words.next()?.parse().ok()?;
    let secs: f64 = words.nth(2)?.trim_end_matches('s').parse().ok()?;
    let rate: Option<f64> = words
        .next()
        .and_then(|w| w.strip_prefix('('))
        .and_then(|w| w.parse().ok())
        .filter(|&r| r > 0.0);
    Some((phase, count, rate.map_or(secs, |r| count as f64 / r)))
}

fn print_table(pages: usize, ceilings: &[Ceiling], runs: &[Run]) {
    let requests_per_s = |c: &Ceiling| c.requests as f64 / c.seconds;
    println!("\nweb: {pages} pages (websim generate --lang tha), served by `websim serve` on 127.0.0.1; {} cores", std::thread::available_parallelism().map_or(0, |n| n.get()));
    println!("\n| measure | figure |");
    println!("|---|---|");
    let each: Vec<String> = ceilings
        .iter()
        .map(|c| {
            format!(
                "{:.0} ({} in {:.1} s, {} failed, {:.0} MB/s)",
                requests_per_s(c),
                c.requests,
                c.seconds,
                c.failed,
                c.bytes as f64 / 1e6 / c.seconds
            )
        })
        .collect();
    println!(
        "| server's ceiling ({CONNECTIONS} connections, GETs only), before each crawl and after the last | {} requests/s |",
        each.join("; ")
    );
    let bfs = runs.iter().find(|r| r.strategy == "bfs");
    for (i, run) in runs.iter().enumerate() {
        let ceiling_rate = (requests_per_s(&ceilings[i]) + requests_per_s(&ceilings[i + 1])) / 2.0;
        let rest = (run.wall - run.fetch_secs - run.parse_secs).max(0.0);
        let rate = run.urls as f64 / run.wall;
        let share = |s: f64| 100.0 * s / run.wall;
        println!(
            "| whole crawl, {} | **{rate:.0} pages/s** ({} fetches in {:.1} s, {} rounds, peak {:.0} MiB){} |",
            run.strategy,
            run.urls,
            run.wall,
            run.rounds,
            run.peak as f64 / (1 << 20) as f64,
            match bfs {
                Some(b) if b.strategy != run.strategy => format!("; {:.2}x bfs's pages/s", rate / (b.urls as f64 / b.wall)),
                _ => String::new(),
            }
        );
        println!(
            "| {} phases | fetch {:.1} s ({:.0}%), parse {:.1} s ({:.0}%), generate + updatedb + start {:.1} s ({:.0}%) |",
            run.strategy,
            run.fetch_secs,
            share(run.fetch_secs),
            run.parse_secs,
            share(run.parse_secs),
            rest,
            share(rest)
        );
        let fetch_rate = run.urls as f64 / run.fetch_secs.max(1e-3);
        println!(
            "| {} fetch / parse | {fetch_rate:.0} pages/s ({:.0}% of the ceiling beside it) / {:.0} pages/s |",
            run.strategy,
            100.0 * fetch_rate / ceiling_rate,
            run.parsed as f64 / run.parse_secs.max(1e-3)
        );
    }
}
