//! What the benchmarks share: where their input data is.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use datafusion::arrow::array::{BooleanArray, RecordBatch, StringArray};
use langcrawl::engine::Engine;
use langcrawl::fetch::{client::ClientOptions, FetchOptions};
use langcrawl::generate::GenerateOptions;
use langcrawl::store::rows::column;
use langcrawl::store::schema::LINKS;
use langcrawl::store::{CrawlConfig, CrawlDir, Phase, SegmentWriter};
use langcrawl::websim::{spawn_background, Web, WebSpec, Websim};

/// `$env_var` if set, else the shared workplace corpus `../shared/corpus/NAME`
/// when it exists (the full data), else the small copy under `tests/`.
#[allow(dead_code)] // not every benchmark reads data
pub fn data_dir(env_var: &str, shared: &str, in_repo: &str) -> PathBuf {
    if let Some(dir) = std::env::var_os(env_var) {
        return dir.into();
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let full = root.join("../shared/corpus").join(shared);
    if full.is_dir() {
        full
    } else {
        root.join(in_repo)
    }
}

/// Fetching from the in-process synthetic web through `proxy`: 64
/// requests in flight, no politeness delay, no progress bar.
#[allow(dead_code)] // not every benchmark fetches
pub fn local_fetch_options(proxy: &str) -> FetchOptions {
    FetchOptions {
        client: ClientOptions {
            user_agent: "langcrawl-bench/0".into(),
            proxy: Some(proxy.to_string()),
            ..ClientOptions::default()
        },
        concurrency: 64,
        delay: Duration::ZERO,
        max_crawl_delay: Duration::ZERO,
        quiet: true,
        ..FetchOptions::default()
    }
}

/// New links the updatedb benchmarks add.
#[allow(dead_code)]
pub const NEW_LINKS: usize = 1_000_000;

/// The pipeline benchmarks' round: 40,000 URLs of a 1,000-host,
/// 60,000-page synthetic web in the fetch list.
#[allow(dead_code)] // not every benchmark crawls
pub async fn pipeline_round(dir: &Path) -> anyhow::Result<(Websim, Engine, CrawlDir)> {
    let spec = WebSpec {
        seed: 1,
        hosts: 1_000,
        pages: 60_000,
        ..WebSpec::default()
    };
    generated_round(dir, spec, 40_000).await
}

/// A Japanese crawl in `dir/crawl` whose first round's fetch list holds the
/// first `pages` fetchable URLs of the synthetic web `spec`, and that web
/// served on 127.0.0.1.
#[allow(dead_code)] // not every benchmark crawls
pub async fn generated_round(
    dir: &Path,
    spec: WebSpec,
    pages: usize,
) -> anyhow::Result<(Websim, Engine, CrawlDir)> {
    let web = Web::generate(spec);
    let urls = web.fetchable_urls(pages);
    let websim = spawn_background(web, 0)?;
    let engine = Engine::new(None);
    let seeds = dir.join("seeds.txt");
    std::fs::write(&seeds, urls.join("\n"))?;
    let root = dir.join("crawl");
    let config = Some(CrawlConfig::for_lang(&langcrawl::lang::TargetLang::parse(
        "ja",
    )?));
    langcrawl::inject::run(&engine, &root, &seeds, config).await?;
    let crawl = CrawlDir::open(&root)?;
    let everything = GenerateOptions {
        top_n: u64::MAX >> 1,
        max_per_host: u64::MAX >> 1,
        ..GenerateOptions::default()
    };
    langcrawl::generate::run(&engine, &crawl, &everything).await?;
    Ok((websim, engine, crawl))
}

/// Replaces the round's links with `n` links to distinct new URLs, spread
/// over the fetched pages as sources and 20,000 new hosts as destinations.
#[allow(dead_code)] // not every benchmark updates
pub fn replace_links(crawl: &CrawlDir, n: usize) -> anyhow::Result<()> {
    let round = crawl.latest_round()?.expect("a round was generated");
    let dir = crawl.segment(round, Phase::Links);
    let sources: Vec<(String, String)> =
        langcrawl::store::read_batches(&crawl.segment(round, Phase::Parse), 8192)?
            .map(|batch| -> anyhow::Result<Vec<(String, String)>> {
                let batch = batch?;
                let url = column::<StringArray>(&batch, "url")?;
                let host = column::<StringArray>(&batch, "host")?;
                Ok(url
                    .iter()
                    .zip(host.iter())
                    .map(|(u, h)| (u.unwrap().to_string(), h.unwrap().to_string()))
                    .collect())
            })
            .collect::<anyhow::Result<Vec<_>>>()?
            .concat();
    std::fs::remove_dir_all(&dir)?;
    let mut writer = SegmentWriter::create(&dir, LINKS.clone())?;
    for chunk in (0..n).collect::<Vec<_>>().chunks(65_536) {
        writer.write(&links_batch(chunk, &sources)?)?;
    }
    writer.finish()?.commit()?;
    Ok(())
}

fn links_batch(ids: &[usize], sources: &[(String, String)]) -> anyhow::Result<RecordBatch> {
    let src = |i: usize| &sources[i % sources.len()];
    let host = |i: usize| format!("www.bench{}.com", i % 20_000);
    let strings = |f: &dyn Fn(usize) -> String| {
        Arc::new(StringArray::from_iter_values(ids.iter().map(|&i| f(i))))
    };
    let columns: Vec<Arc<dyn datafusion::arrow::array::Array>> = vec![
        strings(&|i| src(i).0.clone()),
        strings(&|i| src(i).1.clone()),
        strings(&|_| "jpn".into()),
        strings(&|i| format!("http://{}/p/{i}.html", host(i))),
        strings(&host),
        strings(&|i| format!("bench{}.com", i % 20_000)),
        strings(&|_| "com".into()),
        strings(&|i| format!("{}/p/", host(i))),
        strings(&|i| format!("page {i}")),
        strings(&|_| "eng".into()),
        strings(&|i| format!("context of link {i}")),
        Arc::new(BooleanArray::from(vec![false; ids.len()])),
        strings(&|_| "a".into()),
        Arc::new(StringArray::new_null(ids.len())),
        Arc::new(datafusion::arrow::array::Int32Array::new_null(ids.len())),
    ];
    Ok(RecordBatch::try_new(LINKS.clone(), columns)?)
}

/// Runs the `langcrawl` binary with `args`, its output to `log`; returns
/// its exit code and its peak resident memory in bytes (read with `wait4`,
/// so each step has its own peak). `LANGCRAWL_BENCH_BIN` names another
/// binary to run instead (an older build, or a wrapper that profiles it).
#[allow(dead_code)] // not every benchmark runs child processes
pub fn run_langcrawl(args: &[String], log: &Path) -> anyhow::Result<(i32, u64)> {
    use anyhow::Context;
    use std::process::{Command, Stdio};
    let out = std::fs::File::create(log)?;
    let binary = std::env::var_os("LANGCRAWL_BENCH_BIN")
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_langcrawl").into());
    let child = Command::new(&binary)
        .args(args)
        .env_remove("http_proxy")
        .env_remove("HTTP_PROXY")
        .stdout(Stdio::from(out.try_clone()?))
        .stderr(Stdio::from(out))
        .spawn()
        .with_context(|| format!("starting {}", binary.to_string_lossy()))?;
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `pid` is our child, not yet waited for; wait4 fills `status`
    // and `usage`, both valid for writes.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, usage.as_mut_ptr()) };
    if waited != pid {
        anyhow::bail!("waiting for langcrawl: {}", std::io::Error::last_os_error());
    }
    // SAFETY: wait4 succeeded, so it wrote `usage` (zeroed before anyway).
    let usage = unsafe { usage.assume_init() };
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    // ru_maxrss is in KiB on Linux.
    Ok((code, usage.ru_maxrss as u64 * 1024))
}
