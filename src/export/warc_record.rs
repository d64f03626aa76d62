//! WARC/1.1 records (ISO 28500): `warcinfo`, `request`, `response` and
//! `revisit`, each with its block digest (and payload digest) as sha1 in
//! base32, the form the archive tools (warcio, pywb, Heritrix) write and
//! check. A record is serialized as one gzip member by `warc_file`.

use data_encoding::BASE32;
use sha1::{Digest, Sha1};

/// Why a `revisit` record stands in for a response (its WARC-Profile).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Revisit {
    /// A payload already stored (under this URL or another).
    IdenticalPayload,
    /// A `304 Not Modified` to a conditional request.
    ServerNotModified,
}

impl Revisit {
    pub fn profile(self) -> &'static str {
        match self {
            Revisit::IdenticalPayload => {
                "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
            }
            Revisit::ServerNotModified => {
                "http://netpreserve.org/warc/1.1/revisit/server-not-modified"
            }
        }
    }
}

/// `sha1:<base32>` of `bytes`.
pub fn sha1_digest(bytes: &[u8]) -> String {
    format!("sha1:{}", BASE32.encode(&Sha1::digest(bytes)))
}

/// A record's id: a name-based UUID of what identifies it, so the same
/// crawl exported twice gives the same ids.
pub fn record_id(parts: &[&str]) -> String {
    let name = parts.join("\n");
    let id = uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, name.as_bytes());
    format!("<urn:uuid:{id}>")
}

/// `2026-11-25T02:00:00Z` for a time in milliseconds since 1970.
pub fn warc_date(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// One WARC record: its named header fields (besides `WARC-Type`,
/// `Content-Length` and the block digest, which `to_bytes` writes) and its
/// block.
#[derive(Debug, Clone)]
pub struct Record {
    pub kind: &'static str,
    pub fields: Vec<(&'static str, String)>,
    pub block: Vec<u8>,
}

impl Record {
    pub fn new(kind: &'static str, id: String, date: String) -> Self {
        Record {
            kind,
            fields: vec![("WARC-Record-ID", id), ("WARC-Date", date)],
            block: Vec::new(),
        }
    }

    /// Adds a header field.
    pub fn field(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.fields.push((name, value.into()));
        self
    }

    /// The record's `WARC-Record-ID`.
    pub fn id(&self) -> &str {
        self.value("WARC-Record-ID").unwrap_or_default()
    }

    /// The value of header field `name`, if the record has it.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The record as written: version line, fields, blank line, block,
    /// two CRLFs.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut head = format!("WARC/1.1\r\nWARC-Type: {}\r\n", self.kind);
        for (name, value) in &self.fields {
            head.push_str(&format!("{name}: {}\r\n", one_line(value)));
        }
        head.push_str(&format!(
            "WARC-Block-Digest: {}\r\nContent-Length: {}\r\n\r\n",
            sha1_digest(&self.block),
            self.block.len()
        ));
        let mut bytes = head.into_bytes();
        bytes.extend_from_slice(&self.block);
        bytes.extend_from_slice(b"\r\n\r\n");
        bytes
    }
}

/// A header value on one line (a URL or a field never holds a line break;
/// if one did, it would end the field).
fn one_line(value: &str) -> String {
    value.replace(['\r', '\n'], " ")
}

/// What fetch kept of one answered request.
#[derive(Debug, Clone, Default)]
pub struct Exchange {
    pub url: String,
    pub fetched_at_ms: i64,
    pub request: String,
    pub http_version: String,
    pub http_status: u16,
    /// `name: value` lines as fetch stored them.
    pub headers: String,
    pub remote_ip: Option<String>,
    pub payload: Vec<u8>,
    pub payload_truncated: Option<String>,
}

impl Exchange {
    /// The response's status line and headers, CRLF-terminated, ending in
    /// the blank line. The payload is stored without its transfer coding,
    /// so `Transfer-Encoding` is renamed `X-Crawler-Transfer-Encoding` (as
    /// Common Crawl does) and readers do not try to de-chunk it.
    pub fn response_head(&self) -> Vec<u8> {
        let reason = reqwest::StatusCode::from_u16(self.http_status)
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or("");
        let mut head = format!("{} {} {reason}\r\n", self.http_version, self.http_status);
        for line in self.headers.lines().filter(|l| !l.is_empty()) {
            let renamed = line.len() > 18 && line[..18].eq_ignore_ascii_case("transfer-encoding:");
            let prefix = if renamed { "x-crawler-" } else { "" };
            head.push_str(&format!("{prefix}{line}\r\n"));
        }
        head.push_str("\r\n");
        head.into_bytes()
    }

    /// The `request` and `response` records (the request's
    /// `WARC-Concurrent-To` names the response).
    pub fn records(&self, warcinfo_id: &str) -> (Record, Record) {
        let date = warc_date(self.fetched_at_ms);
        let response_id = self.response_id(&date);
        let mut block = self.response_head();
        block.extend_from_slice(&self.payload);
        let mut response = self
            .common(
                Record::new("response", response_id.clone(), date.clone()),
                warcinfo_id,
            )
            .field("Content-Type", "application/http;msgtype=response")
            .field("WARC-Payload-Digest", sha1_digest(&self.payload));
        if let Some(why) = &self.payload_truncated {
            response = response.field("WARC-Truncated", why.clone());
        }
        response.block = block;
        let mut request = self
            .common(
                Record::new("request", record_id(&["request", &self.url, &date]), date),
                warcinfo_id,
            )
            .field("WARC-Concurrent-To", response_id)
            .field("Content-Type", "application/http;msgtype=request");
        request.block = self.request.clone().into_bytes();
        (request, response)
    }

    /// A `revisit` record in place of the response, for the reason `why`:
    /// the payload is the one `original` (a response record) stored — for
    /// a `304`, the page's last response in the export, if any.
    pub fn revisit(&self, warcinfo_id: &str, why: Revisit, original: Option<&Record>) -> Record {
        let date = warc_date(self.fetched_at_ms);
        let id = self.response_id(&date);
        let mut revisit = self
            .common(Record::new("revisit", id, date), warcinfo_id)
            .field("Content-Type", "application/http;msgtype=response")
            .field("WARC-Profile", why.profile());
        // a 304 carries no payload: the digest is the original's (as
        // Heritrix writes it), so an index finds what to replay
        let digest = match why {
            Revisit::IdenticalPayload => Some(sha1_digest(&self.payload)),
            Revisit::ServerNotModified => original
                .and_then(|o| o.value("WARC-Payload-Digest"))
                .map(str::to_string),
        };
        if let Some(digest) = digest {
            revisit = revisit.field("WARC-Payload-Digest", digest);
        }
        for (from, to) in [
            ("WARC-Target-URI", "WARC-Refers-To-Target-URI"),
            ("WARC-Date", "WARC-Refers-To-Date"),
            ("WARC-Record-ID", "WARC-Refers-To"),
        ] {
            if let Some(value) = original.and_then(|o| o.value(from)) {
                revisit = revisit.field(to, value);
            }
        }
        revisit.block = self.response_head();
        revisit
    }

    /// The id of the record that answers the request (a response or a
    /// revisit, never both for one exchange).
    fn response_id(&self, date: &str) -> String {
        record_id(&["response", &self.url, date])
    }

    fn common(&self, record: Record, warcinfo_id: &str) -> Record {
        let mut record = record
            .field("WARC-Target-URI", self.url.clone())
            .field("WARC-Warcinfo-ID", warcinfo_id);
        if let Some(ip) = &self.remote_ip {
            record = record.field("WARC-IP-Address", ip.clone());
        }
        record
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_sha1_in_base32() {
        // sha1("") = da39a3ee5e6b4b0d3255bfef95601890afd80709
        assert_eq!(sha1_digest(b""), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
        assert_eq!(warc_date(0), "1970-01-01T00:00:00Z");
        assert_eq!(record_id(&["a"]), record_id(&["a"]));
        assert_ne!(record_id(&["a", "b"]), record_id(&["a\nb", ""]));
    }

    #[test]
    fn a_chunked_answer_is_stored_dechunked_and_says_so() {
        let exchange = Exchange {
            url: "http://a.jp/".into(),
            http_version: "HTTP/1.1".into(),
            http_status: 200,
            headers: "content-type: text/html\ntransfer-encoding: chunked\n".into(),
            payload: b"<p>x</p>".to_vec(),
            request: "GET / HTTP/1.1\r\nhost: a.jp\r\n\r\n".into(),
            ..Exchange::default()
        };
        let head = String::from_utf8(exchange.response_head()).unwrap();
        assert_eq!(
            head,
            "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nx-crawler-transfer-encoding: chunked\r\n\r\n"
        );
        let (request, response) = exchange.records("<urn:uuid:x>");
        assert_eq!(request.value("WARC-Concurrent-To"), Some(response.id()));
        let text = String::from_utf8(response.to_bytes()).unwrap();
        assert!(text.ends_with("<p>x</p>\r\n\r\n"), "{text}");
        assert!(text.contains(&format!("Content-Length: {}\r\n", head.len() + 8)));
    }
}
