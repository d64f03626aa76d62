//! The inject phase: read a seeds file (one URL per line, `#` comments and
//! blank lines ignored), normalize and de-duplicate the URLs, and add the
//! new ones to the crawldb as unfetched.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::array::{RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};

use crate::engine::{Engine, Params};
use crate::error::{Error, Result};
use crate::store::{CrawlConfig, CrawlDir, CrawlLimits};
use crate::urls;

/// A seeds-file line that is not an http(s) URL.
#[derive(Debug, Clone, PartialEq)]
pub struct RejectedLine {
    pub line: usize,
    pub text: String,
    pub why: String,
}

impl RejectedLine {
    /// The warning for this line of `seeds`, as `inject` and `crawl
    /// --seeds` print it (on stderr, `--quiet` or not).
    pub fn warning(&self, seeds: &Path) -> String {
        let (seeds, line, text, why) = (seeds.display(), self.line, &self.text, &self.why);
        format!("langcrawl: {seeds}:{line}: skipped {text:?}: {why}")
    }
}

#[derive(Debug, Clone)]
pub struct InjectReport {
    /// Distinct URLs in the seeds file.
    pub seeds: usize,
    /// URLs the crawldb did not know before.
    pub injected: usize,
    pub rejected: Vec<RejectedLine>,
    /// The crawl injected into, its writer lock held while this lives:
    /// `crawl` goes on to round 1 without letting go of it.
    pub crawl: CrawlDir,
}

impl std::fmt::Display for InjectReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "inject: {} seed URLs, {} new, {} lines rejected",
            self.seeds,
            self.injected,
            self.rejected.len()
        )
    }
}

/// The URLs of a seeds file and the lines that are not URLs.
pub fn read_seeds(path: &Path) -> Result<(BTreeSet<String>, Vec<RejectedLine>)> {
    let text = crate::input::read_capped(path, crate::input::MAX_SEEDS_BYTES, "seeds file")?;
    let text = String::from_utf8_lossy(&text);
    // a byte order mark, as editors on Windows save UTF-8
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut urls = BTreeSet::new();
    let mut rejected = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let checked = urls::normalize(line).and_then(|url| within_length(url.to_string()));
        match checked {
            Ok(url) => {
                urls.insert(url);
            }
            Err(why) => rejected.push(RejectedLine {
                line: index + 1,
                text: shortened(line),
                why,
            }),
        }
    }
    Ok((urls, rejected))
}

/// `url` if it is no longer than the default `--max-url-length`.
fn within_length(url: String) -> std::result::Result<String, String> {
    let limit = CrawlLimits::default().max_url_length as usize;
    let length = url.chars().count();
    if length > limit {
        return Err(format!("URL of {length} characters (the limit is {limit})"));
    }
    Ok(url)
}

/// A rejected line as quoted back to the user: at most 80 characters.
fn shortened(line: &str) -> String {
    const SHOWN: usize = 80;
    match line.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}... ({} bytes)", &line[..cut], line.len()),
        None => line.to_string(),
    }
}

/// Injects the seeds file into the crawl at `root`, creating it if needed.
pub async fn run(
    engine: &Engine,
    root: &Path,
    seeds_file: &Path,
    config: Option<CrawlConfig>,
) -> Result<InjectReport> {
    let (seeds, rejected) = read_seeds(seeds_file)?;
    if seeds.is_empty() {
        let first = rejected
            .first()
            .map(|r| format!("; line {} {:?}: {}", r.line, r.text, r.why))
            .unwrap_or_default();
        return Err(Error::Usage(format!(
            "{}: no http(s) URLs to inject ({} lines rejected{first})",
            seeds_file.display(),
            rejected.len()
        )));
    }
    let crawl = CrawlDir::create(root)?;
    if !crawl.crawl_json().exists() {
        config.unwrap_or_default().save(&crawl)?;
    } else if let Some(config) = config {
        let mut current = CrawlConfig::load(&crawl)?;
        current.keep_target(&crawl, config.target_lang.as_deref())?;
        current.target_lang = config.target_lang.or(current.target_lang);
        current.params.target_tlds = config.params.target_tlds;
        current.save(&crawl)?;
    }
    let merged = crawl.merged_round()?;
    crate::catalog::crawldb(engine, &crawl).await?;
    engine.register_batches("seeds", seed_schema(), vec![seed_batch(&seeds)])?;
    let df = engine
        .query_file(
            "steps/inject.sql",
            &Params::new().set("round", merged.0 as i32),
        )
        .await?;
    let staged = engine.write(df, crawl.crawldb_writer()?).await?;
    let known_before = engine.count_rows("crawldb", None).await?;
    let injected = staged.rows - known_before;
    crawl.swap_crawldb(staged, merged)?;
    let report = InjectReport {
        seeds: seeds.len(),
        injected,
        rejected,
        crawl: crawl.clone(),
    };
    CrawlConfig::record(&crawl, "inject", merged.0, &report.to_string())?;
    Ok(report)
}

fn seed_schema() -> Arc<Schema> {
    let field = |name| Field::new(name, DataType::Utf8, false);
    Arc::new(Schema::new(vec![
        field("url"),
        field("host"),
        field("domain"),
        field("tld"),
        field("dir"),
    ]))
}

fn seed_batch(seeds: &BTreeSet<String>) -> RecordBatch {
    let parts: Vec<urls::UrlParts> = seeds
        .iter()
        .filter_map(|s| urls::normalize(s).ok())
        .map(|u| urls::parts(&u))
        .collect();
    let column = |f: fn(&urls::UrlParts) -> &str| {
        Arc::new(parts.iter().map(|p| Some(f(p))).collect::<StringArray>()) as _
    };
    RecordBatch::try_new(
        seed_schema(),
        vec![
            column(|p| &p.url),
            column(|p| &p.host),
            column(|p| &p.domain),
            column(|p| &p.tld),
            column(|p| &p.dir),
        ],
    )
    .expect("seed columns match")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_and_junk_lines_are_rejected_and_quoted_short() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("seeds.txt");
        let long_url = format!("http://a.jp/{}", "x".repeat(100_000));
        let junk = "j".repeat(10_000_000);
        std::fs::write(&path, format!("http://a.jp/\n{long_url}\n{junk}\n")).unwrap();
        let (urls, rejected) = read_seeds(&path).unwrap();
        assert_eq!(urls.into_iter().collect::<Vec<_>>(), ["http://a.jp/"]);
        assert_eq!(rejected.len(), 2);
        assert!(
            rejected[0].why.contains("100012 characters"),
            "{:?}",
            rejected[0].why
        );
        assert!(rejected.iter().all(|r| r.text.len() < 120), "{rejected:?}");
        assert!(rejected[1].text.ends_with("(10000000 bytes)"));
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_first_seed() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("seeds.txt");
        std::fs::write(&path, "\u{feff}http://a.jp/\r\nhttp://b.jp/\r\n").unwrap();
        let (urls, rejected) = read_seeds(&path).unwrap();
        assert_eq!(
            urls.into_iter().collect::<Vec<_>>(),
            ["http://a.jp/", "http://b.jp/"]
        );
        assert!(rejected.is_empty(), "{rejected:?}");
    }

    #[tokio::test]
    async fn seeds_that_are_all_bad_say_why_the_first_is() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("seeds.txt");
        std::fs::write(&path, "# seeds\nftp://a.jp/\nnot a url\n").unwrap();
        let engine = Engine::new(None);
        let err = run(&engine, &tmp.path().join("crawl"), &path, None)
            .await
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("2 lines rejected; line 2 \"ftp://a.jp/\": ") && !err.contains('\n'),
            "{err}"
        );
        assert!(!tmp.path().join("crawl").exists(), "no crawl made");
    }
}
