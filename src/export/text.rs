//! `export text`: the pages of the chosen rounds in one language, each as
//! its main text (`main_text`), url, title, language, confidence, charset,
//! fetch time and text digest; the lines a host repeats on many pages
//! removed (`site_lines`); too-short texts, and with `--dedup` exact and
//! near duplicates (`dedup`), left out and counted; a page fetched again
//! in a recrawl is exported once, as first fetched. Written as gzipped
//! JSON lines or as one Parquet file, renamed into place when complete.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, BinaryArray, Float64Array, Int64Array, RecordBatch, StringArray,
    TimestampMillisecondArray,
};
use flate2::write::GzEncoder;
use futures::StreamExt;

use super::dedup::{Dedup, Verdict};
use super::main_text::{extract, MainText};
use super::site_lines::SiteLines;
use super::warc_record::{sha1_digest, warc_date};
use super::{fetched_rounds, register_round};
use crate::engine::{Engine, Params};
use crate::error::{Error, Result};
use crate::store::rows::{column, opt_str, utf8_column};
use crate::store::schema::TEXT;
use crate::store::{CrawlConfig, CrawlDir, RoundRange, SegmentWriter};

/// What to export and where.
#[derive(Debug, Clone)]
pub struct TextOptions {
    /// `.jsonl.gz` or `.parquet`.
    pub out: PathBuf,
    /// ISO 639-3; `None`: the crawl's target language.
    pub lang: Option<String>,
    pub rounds: RoundRange,
    /// Texts shorter than this (in characters) are left out.
    pub min_chars: usize,
    /// Drop exact and near duplicates ...
    pub dedup: bool,
    /// ... near meaning SimHash fingerprints at most this many bits apart.
    pub near_bits: u32,
    /// A line on this many pages of a host is removed (0: none is).
    pub site_boilerplate_pages: usize,
}

/// What an export found and wrote.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct TextReport {
    pub lang: String,
    /// Pages in the language.
    pub pages: usize,
    /// Readability found no article.
    pub no_main_text: usize,
    pub too_short: usize,
    /// Lines removed as their host's boilerplate.
    pub boilerplate_lines: usize,
    pub exact_duplicates: usize,
    pub near_duplicates: usize,
    pub written: usize,
    /// Later fetches of a page already exported (a recrawl): only a
    /// page's first version is in the corpus.
    pub later_versions: usize,
}

/// One record of the corpus.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct TextRecord {
    pub url: String,
    pub title: Option<String>,
    pub text: String,
    pub lang: String,
    pub lang_confidence: Option<f64>,
    pub charset: Option<String>,
    /// Milliseconds since 1970 (written as an ISO 8601 time).
    pub fetched_at: i64,
    pub digest: String,
    pub chars: usize,
}

impl TextRecord {
    /// The record as one line of the JSON corpus.
    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "url": self.url,
            "title": self.title,
            "text": self.text,
            "lang": self.lang,
            "lang_confidence": self.lang_confidence,
            "charset": self.charset,
            "fetched_at": warc_date(self.fetched_at),
            "digest": self.digest,
            "chars": self.chars,
        })
    }
}

/// Writes the text corpus of `crawl` to `options.out`.
pub async fn export(
    engine: &Engine,
    crawl: &CrawlDir,
    options: &TextOptions,
) -> Result<TextReport> {
    let mut sink = Sink::create(&options.out)?;
    let lang = match &options.lang {
        Some(lang) => lang.clone(),
        None => CrawlConfig::load(crawl)?.target_lang.ok_or_else(|| {
            Error::Usage("the crawl has no target language; name one with --lang".into())
        })?,
    };
    let mut report = TextReport {
        lang: lang.clone(),
        ..TextReport::default()
    };
    let dir = match options.out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut lines = SiteLines::create(dir, options.site_boilerplate_pages)?;
    let params = Params::new().set("lang", lang);
    let mut exported = std::collections::HashSet::new();
    for round in fetched_rounds(crawl, options.rounds)? {
        register_round(engine, crawl, round).await?;
        let df = engine.query_file("export/text_pages.sql", &params).await?;
        let mut stream = engine.stream(df).await?;
        while let Some(batch) = stream.next().await {
            let batch = batch.map_err(Error::sql(format!("reading round {round}")))?;
            for (mut record, main) in records(&batch)? {
                if !exported.insert(record.url.clone()) {
                    report.later_versions += 1;
                    continue;
                }
                report.pages += 1;
                let Some(main) = main else {
                    report.no_main_text += 1;
                    continue;
                };
                if record.title.is_none() && !main.title.is_empty() {
                    record.title = Some(main.title);
                }
                record.text = main.text;
                lines.add(&record)?;
            }
        }
    }
    let mut dedup = options.dedup.then(|| Dedup::new(options.near_bits));
    let mut kept = Vec::new();
    report.boilerplate_lines = lines.finish(|record| {
        if let Some(record) = keep(record, options.min_chars, dedup.as_mut(), &mut report) {
            kept.push(record);
        }
        if kept.len() >= WRITE_BATCH {
            sink.write(&kept)?;
            kept.clear();
        }
        Ok(())
    })?;
    sink.write(&kept)?;
    sink.finish()?;
    Ok(report)
}

/// Records written at a time.
const WRITE_BATCH: usize = 1024;

/// The record to write, or `None` (counted in `report`).
fn keep(
    mut record: TextRecord,
    min_chars: usize,
    dedup: Option<&mut Dedup>,
    report: &mut TextReport,
) -> Option<TextRecord> {
    record.chars = record.text.chars().count();
    if record.chars < min_chars.max(1) {
        report.too_short += 1;
        return None;
    }
    record.digest = sha1_digest(record.text.as_bytes());
    match dedup.map(|d| d.check(&record.digest, &record.text)) {
        Some(Verdict::Exact) => report.exact_duplicates += 1,
        Some(Verdict::Near) => report.near_duplicates += 1,
        _ => {
            report.written += 1;
            return Some(record);
        }
    }
    None
}

/// The batch's pages with their main text, extracted on every core.
fn records(batch: &RecordBatch) -> Result<Vec<(TextRecord, Option<MainText>)>> {
    let url = utf8_column(batch, "url")?;
    let title = utf8_column(batch, "title")?;
    let lang = utf8_column(batch, "lang")?;
    let charset = utf8_column(batch, "charset")?;
    let confidence = column::<Float64Array>(batch, "lang_confidence")?;
    let at = column::<TimestampMillisecondArray>(batch, "fetched_at")?;
    let content = column::<BinaryArray>(batch, "content")?;
    let text = |a: &StringArray, row| opt_str(a, row).map(str::to_string);
    let rows: Vec<TextRecord> = (0..batch.num_rows())
        .map(|row| TextRecord {
            url: text(&url, row).unwrap_or_default(),
            title: text(&title, row).filter(|t| !t.is_empty()),
            text: String::new(),
            lang: text(&lang, row).unwrap_or_default(),
            lang_confidence: (!confidence.is_null(row)).then(|| confidence.value(row)),
            charset: text(&charset, row),
            fetched_at: at.value(row),
            digest: String::new(),
            chars: 0,
        })
        .collect();
    let indices: Vec<usize> = (0..rows.len()).collect();
    let mains = crate::parallel::map(
        &indices,
        |&row| main_text(&rows[row], content.value(row)),
        |_| None,
    );
    Ok(rows.into_iter().zip(mains).collect())
}

/// The main text of a page's bytes, decoded with the charset parse chose.
fn main_text(record: &TextRecord, bytes: &[u8]) -> Option<MainText> {
    let encoding = record
        .charset
        .as_deref()
        .and_then(|c| encoding_rs::Encoding::for_label(c.as_bytes()))
        .unwrap_or(encoding_rs::UTF_8);
    let (html, _, _) = encoding.decode(bytes);
    extract(&html, &record.url)
}

/// Where the records go: gzipped JSON lines or a Parquet file, both
/// written aside and renamed into place.
enum Sink {
    Json {
        path: PathBuf,
        temp: PathBuf,
        out: GzEncoder<std::io::BufWriter<std::fs::File>>,
    },
    Parquet {
        path: PathBuf,
        writer: SegmentWriter,
    },
}

impl Sink {
    fn create(path: &Path) -> Result<Self> {
        let name = path.to_string_lossy();
        if name.ends_with(".parquet") {
            let writer = SegmentWriter::create(path, TEXT.clone())?;
            return Ok(Sink::Parquet {
                path: path.to_path_buf(),
                writer,
            });
        }
        if !name.ends_with(".jsonl.gz") {
            return Err(Error::Usage(format!(
                "-o {name}: the file must end in .jsonl.gz or .parquet"
            )));
        }
        let temp = PathBuf::from(format!("{name}.open"));
        // named as asked for: its temp file is ours
        let file = std::fs::File::create(&temp).map_err(Error::io(path))?;
        let out = GzEncoder::new(
            std::io::BufWriter::new(file),
            flate2::Compression::default(),
        );
        Ok(Sink::Json {
            path: path.to_path_buf(),
            temp,
            out,
        })
    }

    fn write(&mut self, records: &[TextRecord]) -> Result<()> {
        match self {
            Sink::Json { temp, out, .. } => {
                for record in records {
                    serde_json::to_writer(&mut *out, &record.to_json())
                        .map_err(std::io::Error::from)
                        .and_then(|_| out.write_all(b"\n"))
                        .map_err(Error::io(&*temp))?;
                }
                Ok(())
            }
            Sink::Parquet { writer, .. } if !records.is_empty() => writer.write(&to_batch(records)),
            Sink::Parquet { .. } => Ok(()),
        }
    }

    fn finish(self) -> Result<()> {
        match self {
            Sink::Json { path, temp, out } => {
                let file = out
                    .finish()
                    .and_then(|b| b.into_inner().map_err(|e| e.into_error()))
                    .map_err(Error::io(&temp))?;
                crate::store::durable::sync_file(&file, &temp)?;
                crate::store::durable::rename_synced(&temp, &path)
            }
            Sink::Parquet { path, writer } => writer.finish()?.commit_file(&path).map(|_| ()),
        }
    }
}

fn to_batch(records: &[TextRecord]) -> RecordBatch {
    let strings = |f: fn(&TextRecord) -> Option<&str>| -> ArrayRef {
        Arc::new(records.iter().map(f).collect::<StringArray>())
    };
    let at: TimestampMillisecondArray = records.iter().map(|r| Some(r.fetched_at)).collect();
    let columns = vec![
        strings(|r| Some(&r.url)),
        strings(|r| r.title.as_deref()),
        strings(|r| Some(&r.text)),
        strings(|r| Some(&r.lang)),
        Arc::new(
            records
                .iter()
                .map(|r| r.lang_confidence)
                .collect::<Float64Array>(),
        ),
        strings(|r| r.charset.as_deref()),
        Arc::new(at.with_timezone("UTC")),
        strings(|r| Some(&r.digest)),
        Arc::new(
            records
                .iter()
                .map(|r| Some(r.chars as i64))
                .collect::<Int64Array>(),
        ),
    ];
    RecordBatch::try_new(TEXT.clone(), columns).expect("text records match the text schema")
}
