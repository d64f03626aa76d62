//! `export warc`: every answered request of the chosen rounds as a
//! `request` and a `response` record, or a `revisit`: when an earlier record
//! of this export stored the same complete payload (identical-payload-digest
//! profile), or when the server answered a conditional request `304 Not
//! Modified` (server-not-modified, referring to the URL's last response in
//! the export); WARC/1.1, gzip per record, rotated files with CDXJ indexes.

use std::collections::HashMap;
use std::path::PathBuf;

use datafusion::arrow::array::{
    Array, BinaryArray, Int32Array, RecordBatch, StringArray, TimestampMillisecondArray,
};
use futures::StreamExt;

use super::warc_file::{file_prefix, FileSpec, WarcFiles};
use super::warc_record::{sha1_digest, Exchange, Record, Revisit};
use super::{fetched_rounds, register_round};
use crate::engine::{Engine, Params};
use crate::error::{Error, Result};
use crate::store::rows::{column, opt_str, utf8_column};
use crate::store::{CrawlConfig, CrawlDir, RoundRange};

/// What to export and where.
#[derive(Debug, Clone)]
pub struct WarcOptions {
    pub out: PathBuf,
    pub rounds: RoundRange,
    /// Only pages in the crawl's target language (and their requests).
    pub only_target: bool,
    /// A file is closed once it holds this many bytes.
    pub max_file_bytes: u64,
}

/// What an export wrote.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct WarcReport {
    pub files: Vec<PathBuf>,
    pub exchanges: usize,
    pub responses: usize,
    pub revisits: usize,
    pub truncated: usize,
    pub bytes: u64,
}

/// Writes the WARC files of `crawl` into `options.out`.
pub async fn export(
    engine: &Engine,
    crawl: &CrawlDir,
    options: &WarcOptions,
) -> Result<WarcReport> {
    let config = CrawlConfig::load(crawl)?;
    let target = config.target_lang.clone().unwrap_or_default();
    if options.only_target && target.is_empty() {
        return Err(Error::Usage(
            "--only-target: the crawl has no target language".into(),
        ));
    }
    let rounds = fetched_rounds(crawl, options.rounds)?;
    crate::store::create_folder(&options.out)?;
    let created_ms = crate::fetch::backoff::now_ms();
    let mut files = WarcFiles::new(FileSpec {
        dir: options.out.clone(),
        prefix: file_prefix(crawl.root(), created_ms),
        max_bytes: options.max_file_bytes,
        info: warcinfo(&config, &rounds),
        created_ms,
    });
    let mut export = Export {
        files: &mut files,
        stored: HashMap::new(),
        last_of_url: HashMap::new(),
        report: WarcReport::default(),
    };
    let params = Params::new()
        .set("only_target", options.only_target)
        .set("target_lang", target);
    crate::catalog::crawldb(engine, crawl).await?;
    for round in rounds {
        register_round(engine, crawl, round).await?;
        let df = engine
            .query_file("export/warc_exchanges.sql", &params)
            .await?;
        let mut stream = engine.stream(df).await?;
        while let Some(batch) = stream.next().await {
            let batch = batch.map_err(Error::sql(format!("reading round {round}")))?;
            for exchange in exchanges(&batch)? {
                export.write(&exchange)?;
            }
        }
    }
    let mut report = export.report;
    files.close()?;
    report.bytes = files
        .files
        .iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.len())
        .sum();
    report.files = files.files;
    Ok(report)
}

/// The export in progress: the files, the response record that first
/// stored each complete payload (by digest), and the last one of each URL
/// (what a `304` refers to).
struct Export<'a> {
    files: &'a mut WarcFiles,
    stored: HashMap<String, Record>,
    last_of_url: HashMap<String, Record>,
    report: WarcReport,
}

impl Export<'_> {
    fn write(&mut self, exchange: &Exchange) -> Result<()> {
        let info = self.files.warcinfo_id()?;
        let (request, response) = exchange.records(&info);
        let complete = exchange.payload_truncated.is_none() && !exchange.payload.is_empty();
        let digest = sha1_digest(&exchange.payload);
        let profile = if exchange.http_status == 304 {
            Some(Revisit::ServerNotModified)
        } else if complete && self.stored.contains_key(&digest) {
            Some(Revisit::IdenticalPayload)
        } else {
            None
        };
        let written = match profile {
            Some(profile) => {
                self.report.revisits += 1;
                let original = match profile {
                    Revisit::ServerNotModified => self.last_of_url.get(&exchange.url).cloned(),
                    Revisit::IdenticalPayload => {
                        // this URL's payload is now that stored record's
                        let original = self.stored.get(&digest).cloned();
                        if let Some(original) = &original {
                            self.last_of_url
                                .insert(exchange.url.clone(), original.clone());
                        }
                        original
                    }
                };
                exchange.revisit(&info, profile, original.as_ref())
            }
            None => {
                self.report.responses += 1;
                let mut stub = response.clone();
                stub.block = Vec::new();
                if complete {
                    self.stored.insert(digest, stub.clone());
                }
                if exchange.http_status / 100 == 2 {
                    self.last_of_url.insert(exchange.url.clone(), stub);
                }
                response
            }
        };
        self.report.exchanges += 1;
        self.report.truncated += usize::from(exchange.payload_truncated.is_some());
        self.files.append(&[&request, &written])
    }
}

/// The `warcinfo` fields: the software, the format, the crawl's settings.
fn warcinfo(config: &CrawlConfig, rounds: &[crate::store::RoundId]) -> Vec<(String, String)> {
    let mut info = vec![
        (
            "software",
            concat!("langcrawl/", env!("CARGO_PKG_VERSION")).to_string(),
        ),
        ("format", "WARC File Format 1.1".into()),
        (
            "conformsTo",
            "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/".into(),
        ),
        ("robots", "obey".into()),
        ("strategy", config.strategy.clone()),
    ];
    if let Some(lang) = &config.target_lang {
        info.push(("target-language", lang.clone()));
    }
    if let (Some(first), Some(last)) = (rounds.first(), rounds.last()) {
        info.push(("rounds", format!("{first}..{last}")));
    }
    let params = serde_json::to_string(&config.params).unwrap_or_default();
    info.push(("crawl-parameters", params));
    info.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// The exchanges of one batch of `warc_exchanges.sql`.
fn exchanges(batch: &RecordBatch) -> Result<Vec<Exchange>> {
    let url = utf8_column(batch, "url")?;
    let request = utf8_column(batch, "request")?;
    let version = utf8_column(batch, "http_version")?;
    let headers = utf8_column(batch, "headers")?;
    let ip = utf8_column(batch, "remote_ip")?;
    let cut = utf8_column(batch, "payload_truncated")?;
    let status = column::<Int32Array>(batch, "http_status")?;
    let at = column::<TimestampMillisecondArray>(batch, "fetched_at")?;
    let payload = column::<BinaryArray>(batch, "payload")?;
    let text = |a: &StringArray, row| opt_str(a, row).unwrap_or_default().to_string();
    Ok((0..batch.num_rows())
        .map(|row| Exchange {
            url: text(&url, row),
            fetched_at_ms: at.value(row),
            request: text(&request, row),
            http_version: opt_str(&version, row).unwrap_or("HTTP/1.1").to_string(),
            http_status: status.value(row).clamp(0, 999) as u16,
            headers: text(&headers, row),
            remote_ip: opt_str(&ip, row).map(str::to_string),
            payload: if payload.is_null(row) {
                Vec::new()
            } else {
                payload.value(row).to_vec()
            },
            payload_truncated: opt_str(&cut, row).map(str::to_string),
        })
        .collect())
}
