//! What the benchmarks share: where their input data is.

use std::path::{Path, PathBuf};
use std::time::Duration;

use langcrawl::engine::Engine;
use langcrawl::fetch::{client::ClientOptions, FetchOptions};
use langcrawl::generate::GenerateOptions;
use langcrawl::store::{CrawlConfig, CrawlDir};
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
    let config = Some(CrawlConfig::for_lang("ja")?);
    langcrawl::inject::run(&engine, &root, &seeds, config).await?;
    let crawl = CrawlDir::open(&root)?;
    let everything = GenerateOptions {
        top_n: u64::MAX >> 1,
        max_per_host: u64::MAX >> 1,
        max_retries: None,
        partitions: 1,
    };
    langcrawl::generate::run(&engine, &crawl, &everything).await?;
    Ok((websim, engine, crawl))
}
