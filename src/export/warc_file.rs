//! WARC files as archives keep them: one gzip member per record, a
//! `warcinfo` record first in each file, files rotated once they pass a
//! size, and a CDXJ index beside each (`NAME.warc.gz` → `NAME.cdxj`, sorted
//! by SURT and time) so pywb can replay it. A file is written as
//! `NAME.warc.gz.open` and renamed when complete.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use flate2::Compression;

use super::warc_record::{record_id, warc_date, Record};
use crate::error::{Error, Result};
use crate::store::durable;

/// Where and how the files are written.
#[derive(Debug, Clone)]
pub struct FileSpec {
    pub dir: PathBuf,
    /// File names are `PREFIX-00000.warc.gz`, `PREFIX-00001.warc.gz`, ...
    pub prefix: String,
    /// A file is closed once it holds this many bytes.
    pub max_bytes: u64,
    /// The `warcinfo` record's fields (`name: value` lines).
    pub info: Vec<(String, String)>,
    pub created_ms: i64,
}

/// The open file and its index lines.
struct OpenFile {
    name: String,
    path: PathBuf,
    out: BufWriter<File>,
    offset: u64,
    index: Vec<String>,
    warcinfo_id: String,
}

/// The files of one export.
pub struct WarcFiles {
    spec: FileSpec,
    open: Option<OpenFile>,
    serial: u32,
    /// The files completed so far.
    pub files: Vec<PathBuf>,
}

impl WarcFiles {
    pub fn new(spec: FileSpec) -> Self {
        WarcFiles {
            spec,
            open: None,
            serial: 0,
            files: Vec::new(),
        }
    }

    /// The `warcinfo` id of the file the next records go to (opening it).
    pub fn warcinfo_id(&mut self) -> Result<String> {
        if self.open.is_none() {
            self.open = Some(self.start_file()?);
        }
        Ok(self
            .open
            .as_ref()
            .map(|f| f.warcinfo_id.clone())
            .unwrap_or_default())
    }

    /// Appends `records` (one page's request and response) to the open
    /// file, indexing the responses; closes the file when it is full.
    pub fn append(&mut self, records: &[&Record]) -> Result<()> {
        self.warcinfo_id()?;
        let Some(file) = self.open.as_mut() else {
            return Ok(());
        };
        for record in records {
            let offset = file.offset;
            let length = write_member(file, record)?;
            if let Some(line) = cdxj_line(record, &file.name, offset, length) {
                file.index.push(line);
            }
        }
        if file.offset >= self.spec.max_bytes {
            self.close()?;
        }
        Ok(())
    }

    /// Completes the open file (if any): renamed into place, index beside it.
    pub fn close(&mut self) -> Result<()> {
        let Some(mut file) = self.open.take() else {
            return Ok(());
        };
        let done = self.spec.dir.join(&file.name);
        file.out.flush().map_err(Error::io(&file.path))?;
        let inner = file
            .out
            .into_inner()
            .map_err(|e| Error::io(&file.path)(e.into_error()))?;
        durable::sync_file(&inner, &file.path)?;
        file.index.sort();
        let cdxj = done.with_extension("").with_extension("cdxj");
        let temp = cdxj.with_extension("cdxj.open");
        let mut lines = file.index.join("\n");
        lines.push('\n');
        durable::write_synced(&temp, lines.as_bytes())?;
        durable::rename_synced(&file.path, &done)?;
        durable::rename_synced(&temp, &cdxj)?;
        self.files.push(done);
        Ok(())
    }

    fn start_file(&mut self) -> Result<OpenFile> {
        let name = format!("{}-{:05}.warc.gz", self.spec.prefix, self.serial);
        self.serial += 1;
        let path = self.spec.dir.join(format!("{name}.open"));
        let out = BufWriter::new(File::create(&path).map_err(Error::io(&path))?);
        let date = warc_date(self.spec.created_ms);
        let warcinfo_id = record_id(&["warcinfo", &name, &date]);
        let mut info = Record::new("warcinfo", warcinfo_id.clone(), date)
            .field("WARC-Filename", name.clone())
            .field("Content-Type", "application/warc-fields");
        info.block = self
            .spec
            .info
            .iter()
            .map(|(k, v)| format!("{k}: {v}\r\n"))
            .collect::<String>()
            .into_bytes();
        let mut file = OpenFile {
            name,
            path,
            out,
            offset: 0,
            index: Vec::new(),
            warcinfo_id,
        };
        write_member(&mut file, &info)?;
        Ok(file)
    }
}

/// Writes `record` as one gzip member; its compressed length.
fn write_member(file: &mut OpenFile, record: &Record) -> Result<u64> {
    let mut gz = GzEncoder::new(Vec::new(), Compression::default());
    let bytes = gz
        .write_all(&record.to_bytes())
        .and_then(|_| gz.finish())
        .map_err(Error::io(&file.path))?;
    file.out.write_all(&bytes).map_err(Error::io(&file.path))?;
    file.offset += bytes.len() as u64;
    Ok(bytes.len() as u64)
}

/// The CDXJ line of a response or revisit record (`None` for others).
fn cdxj_line(record: &Record, file: &str, offset: u64, length: u64) -> Option<String> {
    if !matches!(record.kind, "response" | "revisit") {
        return None;
    }
    let url = record.value("WARC-Target-URI")?;
    let time: String = record
        .value("WARC-Date")?
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let head = http_head(&record.block);
    let status = head.lines().next()?.split_whitespace().nth(1)?.to_string();
    // No `mime` when the answer has no Content-Type (as pywb's indexer).
    let mime = match record.kind {
        "revisit" => "warc/revisit".to_string(),
        _ => header_value(&head, "content-type")
            .and_then(|v| v.split(';').next())
            .map(|v| v.trim().to_ascii_lowercase())
            .unwrap_or_default(),
    };
    // a revisit of a 304 whose original is not in the export has none
    let digest = record.value("WARC-Payload-Digest").unwrap_or_default();
    // The fields in the order, and with the spacing, pywb's indexer
    // (cdxj-indexer) writes them.
    let fields = [
        ("url", url.to_string()),
        ("mime", mime),
        ("status", status),
        ("digest", digest.to_string()),
        ("length", length.to_string()),
        ("offset", offset.to_string()),
        ("filename", file.to_string()),
    ]
    .iter()
    .filter(|(k, v)| !matches!(*k, "mime" | "digest") || !v.is_empty())
    .map(|(k, v)| format!("\"{k}\": {}", serde_json::Value::from(v.as_str())))
    .collect::<Vec<_>>()
    .join(", ");
    let fields = format!("{{{fields}}}");
    Some(format!("{} {time} {fields}", surt(url)))
}

/// The HTTP head of a response block (up to the blank line).
fn http_head(block: &[u8]) -> String {
    let end = block
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or(block.len());
    String::from_utf8_lossy(&block[..end]).into_owned()
}

/// The first value of header `name` in an HTTP head (after its status line).
fn header_value<'a>(head: &'a str, name: &'a str) -> Option<&'a str> {
    let headers = head.split_once('\n').map_or("", |(_, rest)| rest);
    crate::fetch::client::header_values(headers, name).next()
}

/// The SURT form of `url` as pywb looks it up: host labels reversed
/// without `www`, the port if not the scheme's, `)`, the path (without a
/// trailing slash) and the query with its arguments sorted, all lower case.
pub fn surt(url: &str) -> String {
    let Ok(parsed) = url::Url::parse(url) else {
        return url.to_ascii_lowercase();
    };
    let host = parsed.host_str().unwrap_or("").to_ascii_lowercase();
    let host = strip_www(&host);
    let mut key: String = host.split('.').rev().collect::<Vec<_>>().join(",");
    if let Some(port) = parsed.port() {
        key.push_str(&format!(":{port}"));
    }
    key.push(')');
    let path = parsed.path();
    let path = match path.strip_suffix('/') {
        Some(trimmed) if !trimmed.is_empty() => trimmed,
        _ => path,
    };
    key.push_str(&path.to_lowercase());
    if let Some(query) = parsed.query().filter(|q| !q.is_empty()) {
        let mut args: Vec<&str> = query.split('&').collect();
        args.sort_unstable();
        key.push('?');
        key.push_str(&args.join("&").to_lowercase());
    }
    key
}

fn strip_www(host: &str) -> &str {
    let Some(rest) = host.strip_prefix("www") else {
        return host;
    };
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    match rest[digits..].strip_prefix('.') {
        Some(tail) if tail.contains('.') => tail,
        _ => host,
    }
}

/// The name of an export's files: the crawl folder's name and the time.
pub fn file_prefix(crawl: &Path, created_ms: i64) -> String {
    let name = crawl
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "crawl".into());
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let time: String = warc_date(created_ms)
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    format!("langcrawl-{name}-{time}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surts_are_the_keys_pywb_looks_up() {
        assert_eq!(surt("http://www.Example.com/"), "com,example)/");
        assert_eq!(
            surt("https://example.com:8080/A/b?z=1&a=2#top"),
            "com,example:8080)/a/b?a=2&z=1"
        );
        assert_eq!(surt("http://www2.a.co.jp/x.html"), "jp,co,a)/x.html");
        assert_eq!(surt("http://www.com/"), "com,www)/");
        assert_eq!(surt("http://sakura.jp:80/"), "jp,sakura)/");
        assert_eq!(surt("http://www.a.jp/loop/"), "jp,a)/loop");
    }
}
