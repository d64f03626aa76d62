//! Reads one sitemap file (XML urlset or sitemap index, plain-text list,
//! RSS or Atom feed; gzipped or not) into its URL entries, as a stream and
//! within fixed bounds: at most MAX_DECODED_BYTES decompressed, MAX_URLS
//! entries and MAX_ALTERNATES hreflang alternates, whatever the input.
//! Where reading stopped short, `Sitemap::problem` says why.

use std::io::{self, BufRead, BufReader, Read};

use flate2::read::MultiGzDecoder;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesRef, BytesStart, Event};
use quick_xml::Reader;

/// Most URLs one sitemap file may list (sitemaps.org).
pub const MAX_URLS: usize = 50_000;
/// Most bytes of one sitemap file once decompressed (sitemaps.org: 50 MB).
pub const MAX_DECODED_BYTES: usize = 50 * 1024 * 1024;
/// Most hreflang alternates kept from one file.
pub const MAX_ALTERNATES: usize = 200_000;
/// Longest URL kept (longer ones are skipped and counted).
pub const MAX_URL_CHARS: usize = 2048;

/// Bytes kept of a field's text or a text line; a longer loc or line is skipped.
const FIELD_CAP: usize = MAX_URL_CHARS * 4 + 64;
/// Longest problem message, in characters.
const MAX_PROBLEM_CHARS: usize = 200;
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SitemapKind {
    UrlSet,
    Index,
    Text,
    Rss,
    Atom,
}

impl SitemapKind {
    pub fn as_str(&self) -> &'static str {
        match self {
            SitemapKind::UrlSet => "urlset",
            SitemapKind::Index => "index",
            SitemapKind::Text => "text",
            SitemapKind::Rss => "rss",
            SitemapKind::Atom => "atom",
        }
    }
}

/// Each XML kind's root element and entry element (local names).
static XML_KINDS: [(&[u8], SitemapKind, &[u8]); 5] = [
    (b"urlset", SitemapKind::UrlSet, b"url"),
    (b"sitemapindex", SitemapKind::Index, b"sitemap"),
    (b"rss", SitemapKind::Rss, b"item"),
    (b"RDF", SitemapKind::Rss, b"item"),
    (b"feed", SitemapKind::Atom, b"entry"),
];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Field {
    Loc,
    Lastmod,
    Published,
}

/// The field an entry's child element (by local name) holds as text; a
/// `Published` date stands in for a missing `Lastmod`.
fn field_of(kind: SitemapKind, name: &[u8]) -> Option<Field> {
    use SitemapKind::{Atom, Index, Rss, UrlSet};
    match (kind, name) {
        (UrlSet | Index, b"loc") | (Rss, b"link") => Some(Field::Loc),
        (UrlSet | Index, b"lastmod") | (Rss, b"pubDate") => Some(Field::Lastmod),
        (Atom, b"updated") => Some(Field::Lastmod),
        (Rss, b"date") | (Atom, b"published") => Some(Field::Published),
        _ => None,
    }
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Alternate {
    pub hreflang: String,
    pub href: String,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Entry {
    /// Trimmed, entities decoded, as written (not resolved or normalized).
    pub loc: String,
    /// `<lastmod>` as written (trimmed); RSS `<pubDate>`; Atom `<updated>`.
    pub lastmod: Option<String>,
    /// `<xhtml:link rel="alternate" hreflang=".." href=".."/>` inside `<url>`.
    pub alternates: Vec<Alternate>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Sitemap {
    pub kind: SitemapKind,
    /// URL entries of a urlset/text/feed; for an index, its child sitemaps' <loc> (lastmod kept, no alternates).
    pub entries: Vec<Entry>,
    /// Why reading stopped short, when it did: "too-many-urls" (more than MAX_URLS entries; the first MAX_URLS are kept),
    /// "too-large" (more than MAX_DECODED_BYTES decoded; what was read before is kept),
    /// "malformed: <one line, with the byte position>" (what was read before the error is kept),
    /// "bad-gzip: ..." , "not-a-sitemap" (XML whose root is none of urlset/sitemapindex/rss/feed, or
    /// text with no http(s) URL line).
    pub problem: Option<String>,
    /// Bytes read after decompression (MAX_DECODED_BYTES + 1 when "too-large").
    pub decoded_bytes: u64,
    /// Entries or alternates skipped: URL too long, empty loc, alternates over MAX_ALTERNATES.
    pub skipped: u64,
}

/// Reads one sitemap file's body as received (after HTTP Content-Encoding was undone by the client):
/// gzip is recognised by its magic bytes (1f 8b) whatever the name, and decompressed as a stream;
/// never more than MAX_DECODED_BYTES are read from the decompressor (read one byte more to detect "too-large").
pub fn read(body: &[u8]) -> Sitemap {
    let gzip = body.starts_with(b"\x1f\x8b");
    let mut out = Sitemap {
        kind: SitemapKind::UrlSet,
        entries: Vec::new(),
        problem: None,
        decoded_bytes: 0,
        skipped: 0,
    };
    let source: Box<dyn Read + '_> = match gzip {
        true => Box::new(MultiGzDecoder::new(body)),
        false => Box::new(body),
    };
    // The limit left in `Take` counts the bytes read through it.
    let limit = MAX_DECODED_BYTES as u64 + 1;
    let mut limited = source.take(limit);
    let mut input = BufReader::with_capacity(1 << 16, &mut limited);
    let read = first_byte(&mut input).and_then(|first| match first {
        Some(b'<') => read_xml(input, &mut out),
        _ => read_text(input, &mut out),
    });
    if let Err(e) = read {
        let what = if gzip { "bad-gzip" } else { "malformed" };
        out.fail(format!("{what}: {e}"));
    }
    out.finish(limit - limited.limit())
}

/// Skips byte order marks and whitespace; returns the next byte, unread.
fn first_byte<R: BufRead>(input: &mut R) -> io::Result<Option<u8>> {
    loop {
        let buf = input.fill_buf()?;
        let bom = usize::from(buf.starts_with(UTF8_BOM)) * UTF8_BOM.len();
        let text = buf[bom..].iter().position(|b| !b.is_ascii_whitespace());
        let skip = bom + text.unwrap_or(buf.len() - bom);
        let byte = buf.get(skip).copied();
        input.consume(skip);
        if byte.is_some() || skip == 0 {
            return Ok(byte);
        }
    }
}

impl Sitemap {
    /// Keeps an entry, or counts it as skipped when its loc is empty or too
    /// long; false (and "too-many-urls") when MAX_URLS are already kept.
    fn push(&mut self, entry: Entry) -> bool {
        if entry.loc.is_empty() || entry.loc.chars().count() > MAX_URL_CHARS {
            self.skipped += 1;
            return true;
        } else if self.entries.len() >= MAX_URLS {
            self.fail("too-many-urls".to_string());
            return false;
        }
        self.entries.push(entry);
        true
    }

    /// Records the first problem, on one line.
    fn fail(&mut self, problem: String) {
        let line = problem.chars().take(MAX_PROBLEM_CHARS);
        let line = line.map(|c| if c == '\n' || c == '\r' { ' ' } else { c });
        self.problem.get_or_insert_with(|| line.collect());
    }

    fn finish(mut self, decoded_bytes: u64) -> Sitemap {
        let stopped = self.problem.as_deref() == Some("too-many-urls");
        if decoded_bytes > MAX_DECODED_BYTES as u64 && !stopped {
            self.problem = Some("too-large".to_string());
        }
        self.decoded_bytes = decoded_bytes;
        self
    }
}

/// One URL a line; lines are cut at FIELD_CAP bytes (and then skipped).
fn read_text<R: BufRead>(mut input: R, out: &mut Sitemap) -> io::Result<()> {
    out.kind = SitemapKind::Text;
    let (mut line, mut any_url) = (Vec::new(), false);
    loop {
        line.clear();
        let mut limited = input.by_ref().take(FIELD_CAP as u64);
        if limited.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let overlong = line.len() == FIELD_CAP && line.last() != Some(&b'\n');
        if overlong {
            input.skip_until(b'\n')?;
        }
        let text = String::from_utf8_lossy(&line);
        let url = text.trim();
        let scheme = url.get(..8).unwrap_or(url).to_ascii_lowercase();
        if !scheme.starts_with("http://") && !scheme.starts_with("https://") {
            continue;
        }
        any_url = true;
        if overlong {
            out.skipped += 1;
        } else if !out.push(Entry {
            loc: url.to_string(),
            ..Entry::default()
        }) {
            return Ok(());
        }
    }
    if !any_url {
        out.fail("not-a-sitemap".to_string());
    }
    Ok(())
}

/// XML, up to its end, its first error (an I/O error is returned) or a problem.
fn read_xml<R: BufRead>(input: R, out: &mut Sitemap) -> io::Result<()> {
    let mut reader = Reader::from_reader(input);
    reader.config_mut().allow_dangling_amp = true;
    let (mut buf, mut xml) = (Vec::new(), Xml::default());
    loop {
        buf.clear();
        match reader.read_event_into(&mut buf) {
            Ok(Event::Eof) => break,
            Ok(event) if xml.event(&event, out) => {}
            Ok(_) => break,
            Err(quick_xml::Error::Io(e)) => return Err(io::Error::new(e.kind(), e.to_string())),
            Err(e) => {
                let at = reader.error_position();
                break out.fail(format!("malformed: {e} at byte {at}"));
            }
        }
    }
    if xml.kind.is_none() {
        out.fail("not-a-sitemap".to_string());
    } else if xml.depth > 0 {
        let at = reader.buffer_position();
        out.fail(format!("malformed: unclosed elements at byte {at}"));
    }
    Ok(())
}

/// Where the XML reader is, and the entry being read.
#[derive(Default)]
struct Xml {
    /// The kind and the entry element, once the root element was read.
    kind: Option<&'static (&'static [u8], SitemapKind, &'static [u8])>,
    depth: usize,
    /// The depth of the entry element being read (0: none).
    entry_depth: usize,
    /// The field whose text is being read (a child of the entry element).
    field: Option<Field>,
    /// That text, leading whitespace dropped; None once over FIELD_CAP bytes.
    text: Option<String>,
    entry: Entry,
    /// Alternates read into entries so far.
    alternates: usize,
}

impl Xml {
    /// Handles one event; false to stop reading.
    fn event(&mut self, event: &Event, out: &mut Sitemap) -> bool {
        let reading = self.field.is_some();
        match event {
            Event::Start(e) => return self.start(e, out),
            Event::Empty(e) => return self.start(e, out) && self.end(out),
            Event::End(_) => return self.end(out),
            Event::Text(t) if reading => self.push(&String::from_utf8_lossy(t)),
            Event::CData(t) if reading => self.push(&String::from_utf8_lossy(t)),
            Event::GeneralRef(r) if reading => self.push_reference(r),
            _ => {}
        }
        true
    }

    /// Opens an element; false when the root is no sitemap's.
    fn start(&mut self, e: &BytesStart, out: &mut Sitemap) -> bool {
        self.depth += 1;
        let name = e.local_name();
        let Some(&(_, kind, entry_name)) = self.kind else {
            self.kind = XML_KINDS.iter().find(|k| k.0 == name.as_ref());
            match self.kind {
                Some(k) => out.kind = k.1,
                None => out.fail("not-a-sitemap".to_string()),
            }
            return self.kind.is_some();
        };
        if self.entry_depth == 0 && name.as_ref() == entry_name {
            self.entry_depth = self.depth;
        } else if self.entry_depth > 0 && self.depth == self.entry_depth + 1 {
            self.field = field_of(kind, name.as_ref());
            self.text = Some(String::new());
            if name.as_ref() == b"link" && self.field.is_none() {
                self.link(kind, e, out);
            }
        }
        true
    }

    /// An `xhtml:link` of a urlset's entry, or an Atom entry's `link`.
    fn link(&mut self, kind: SitemapKind, e: &BytesStart, out: &mut Sitemap) {
        let [rel, hreflang, href] = [&b"rel"[..], b"hreflang", b"href"].map(|n| attribute(e, n));
        let alternate = rel.map(|r| r.trim().eq_ignore_ascii_case("alternate"));
        let href = href.as_deref().map(str::trim).unwrap_or_default();
        match (kind, alternate, hreflang) {
            (SitemapKind::Atom, None | Some(true), _) if self.entry.loc.is_empty() => {
                self.entry.loc = href.to_string();
            }
            (SitemapKind::UrlSet, Some(true), Some(lang)) => {
                let bad = href.is_empty() || href.chars().count() > MAX_URL_CHARS;
                if bad || self.alternates >= MAX_ALTERNATES {
                    out.skipped += 1;
                } else {
                    self.alternates += 1;
                    let (hreflang, href) = (lang.trim().to_string(), href.to_string());
                    self.entry.alternates.push(Alternate { hreflang, href });
                }
            }
            _ => {}
        }
    }

    /// Closes the element at `depth`; false to stop reading.
    fn end(&mut self, out: &mut Sitemap) -> bool {
        let (depth, entry) = (self.depth, self.entry_depth);
        self.depth = depth.saturating_sub(1);
        if entry > 0 && depth == entry + 1 {
            self.end_field();
        } else if entry > 0 && depth == entry {
            self.entry_depth = 0;
            return out.push(std::mem::take(&mut self.entry));
        }
        true
    }

    /// Keeps a field's text. A loc too long to keep leaves the entry
    /// without one, so it is skipped.
    fn end_field(&mut self) {
        let text = self.text.take().unwrap_or_default();
        let value = text.trim().to_string();
        match self.field.take() {
            _ if value.is_empty() => {}
            Some(Field::Loc) if self.entry.loc.is_empty() => self.entry.loc = value,
            Some(Field::Lastmod) => self.entry.lastmod = Some(value),
            Some(Field::Published) => _ = self.entry.lastmod.get_or_insert(value),
            _ => {}
        }
    }

    /// Adds a piece of the field's text, within FIELD_CAP bytes.
    fn push(&mut self, piece: &str) {
        let Some(text) = &mut self.text else { return };
        let lead = text.is_empty();
        let piece = if lead { piece.trim_start() } else { piece };
        if text.len() + piece.len() > FIELD_CAP {
            self.text = None;
        } else {
            text.push_str(piece);
        }
    }

    /// An entity or character reference: decoded when known, else kept as written.
    fn push_reference(&mut self, r: &BytesRef) {
        let name = String::from_utf8_lossy(r);
        match (r.resolve_char_ref(), resolve_predefined_entity(&name)) {
            (Ok(Some(c)), _) => self.push(c.encode_utf8(&mut [0; 4])),
            (_, Some(s)) => self.push(s),
            _ if name.len() > FIELD_CAP => self.text = None,
            _ => self.push(&format!("&{name};")),
        }
    }
}

/// The value of the first attribute with that local name, unescaped when possible.
fn attribute(e: &BytesStart, name: &[u8]) -> Option<String> {
    let mut attributes = e.attributes();
    let a = attributes
        .with_checks(false)
        .map_while(Result::ok)
        .find(|a| a.key.local_name().as_ref() == name)?;
    let value = a.unescape_value().map(|v| v.into_owned());
    Some(value.unwrap_or_else(|_| String::from_utf8_lossy(&a.value).into_owned()))
}

#[cfg(test)]
#[path = "sitemap_read_tests.rs"]
mod tests;
