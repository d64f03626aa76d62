//! A bound on how deep a page nests before the HTML tree builder sees it.
//! The builder's work per tag grows with the number of open elements (its
//! scope checks walk them), so 200,000 nested `<div>`s — 1 MB, under the
//! content cap — took minutes. Like a browser that stops nesting at some
//! depth, the start and end tags of containers below [`MAX_DEPTH`] open
//! elements are dropped: their text stays, in order; only the nesting
//! goes. Links are never dropped; void elements, `p`, table rows and raw
//! text are not counted. Which elements are open is followed as the
//! builder keeps them ([`OpenElements`]), so ordinary pages are
//! untouched and pages built to fool a plain count of tags are bounded
//! too. A tag's attributes past [`MAX_ATTRIBUTES`] go the same way, but
//! those the parse reads. One pass, linear in the page's length;
//! [`tree`](super::tree) caps the builder's work behind it.

use std::borrow::Cow;

use super::element_kinds::{kinds, IS_RAW_TEXT, IS_UNCOUNTED};
use super::open_elements::OpenElements;

/// The deepest a page's plain containers nest (browsers go on to 512).
pub const MAX_DEPTH: usize = 256;

/// The attributes of one tag the builder is given; past them only the
/// first of each name link extraction reads ([`READ_ATTRIBUTES`]) stays.
/// The tokenizer checks each new attribute against the tag's earlier
/// ones: 100,000 on one tag (689 KB) took 27 s.
pub const MAX_ATTRIBUTES: usize = 1_000;

/// The attributes the parse reads (links, their anchors, hints).
const READ_ATTRIBUTES: [&str; 13] = [
    "alt",
    "aria-label",
    "charset",
    "content",
    "href",
    "hreflang",
    "http-equiv",
    "lang",
    "name",
    "rel",
    "src",
    "title",
    "type",
];

/// `html` with the tags of plain containers nested deeper than `max`
/// removed, and the attributes of a tag past [`MAX_ATTRIBUTES`]; borrowed
/// when nothing nests that deep and no tag has that many.
pub fn bounded(html: &str, max: usize) -> Cow<'_, str> {
    let mut out: Option<String> = None;
    let mut open = OpenElements::new(max);
    let mut copied = 0;
    let mut at = 0;
    let mut text_from = 0;
    let mut unended = Vec::new();
    let bytes = html.as_bytes();
    while let Some(offset) = memchr(b'<', &bytes[at..]) {
        let start = at + offset;
        let Some(tag) = Tag::read(html, start) else {
            at = start + 1;
            continue;
        };
        if !bytes[text_from..start].trim_ascii().is_empty() {
            open.text();
        }
        // where the tag rewritten without its extra attributes starts
        let mut rewritten = None;
        if !tag.extra_attributes.is_empty() {
            let text = out.get_or_insert_with(|| String::with_capacity(html.len()));
            text.push_str(&html[copied..start]);
            rewritten = Some(text.len());
            tag.push_bounded(html, start, text);
            copied = tag.end;
        }
        at = tag.end;
        text_from = at;
        if tag.name.is_empty() {
            continue; // a comment, doctype or processing instruction
        }
        let kinds = kinds(&tag.name);
        if !tag.closing && kinds & IS_RAW_TEXT != 0 && open.reads_raw_text() {
            // without an end tag, the builder may not have read it as raw
            // text (it ignores `<iframe>` in some places): the tags after
            // it are followed, which at worst counts too many
            if let Some(end) = raw_text_end(html, at, &tag.name, &mut unended) {
                at = end;
                text_from = end;
                continue;
            }
        }
        let kept = kept(&mut open, &tag, kinds, html);
        if !kept {
            let text = out.get_or_insert_with(|| String::with_capacity(html.len()));
            match rewritten {
                Some(at) => text.truncate(at),
                None => text.push_str(&html[copied..start]),
            }
            if text.ends_with(['<', '&']) {
                // a stray `<` (or `&`) must not run into what follows
                text.push_str("<!---->");
            }
            copied = tag.end;
        }
    }
    match out {
        None => Cow::Borrowed(html),
        Some(mut text) => {
            text.push_str(&html[copied..]);
            Cow::Owned(text)
        }
    }
}

/// Whether `tag` (not the start of raw text; its name of `kinds`) stays:
/// every tag but those of containers deeper than the bound, as `open`
/// follows them.
fn kept(open: &mut OpenElements, tag: &Tag, kinds: u8, html: &str) -> bool {
    let name = tag.name.as_str();
    if tag.closing && kinds & IS_RAW_TEXT != 0 && !open.is_open(name) {
        return true; // the end of raw text, or stray
    }
    let foreign = !tag.closing && open.opens_foreign(name);
    if kinds & IS_UNCOUNTED != 0 && !foreign {
        if !tag.closing || name == "br" {
            // (the builder reads `</br>` as `<br>`)
            open.uncounted(name);
        }
        return true;
    }
    if tag.self_closing && foreign {
        return true;
    }
    if tag.closing {
        open.close(name)
    } else {
        open.open(name, &html[tag.attributes.clone()])
    }
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == needle)
}

/// A tag as far as depth goes: its lowercased name ("" for a comment,
/// doctype or processing instruction), whether it closes or closes
/// itself, and the byte after it.
struct Tag {
    name: String,
    /// The text between the name and the end of the tag.
    attributes: std::ops::Range<usize>,
    closing: bool,
    self_closing: bool,
    end: usize,
    /// Where each attribute past [`MAX_ATTRIBUTES`] starts (none mostly).
    extra_attributes: Vec<usize>,
}

impl Tag {
    /// The tag at `start` (a `<`), or `None` if the `<` is text.
    fn read(html: &str, start: usize) -> Option<Tag> {
        let rest = &html[start + 1..];
        if let Some(comment) = rest.strip_prefix("!--") {
            let end = comment
                .find("-->")
                .map_or(html.len(), |i| start + 4 + i + 3);
            return Some(Tag::other(end));
        }
        if rest.starts_with('!') || rest.starts_with('?') {
            let end = rest.find('>').map_or(html.len(), |i| start + 1 + i + 1);
            return Some(Tag::other(end));
        }
        let (closing, name_at) = match rest.strip_prefix('/') {
            Some(_) => (true, 1),
            None => (false, 0),
        };
        // as the tokenizer reads it: up to white space, `/` or `>`
        if !rest[name_at..].starts_with(|c: char| c.is_ascii_alphabetic()) {
            // `</` then no letter: a bogus comment up to `>`; `<` then no
            // letter: text
            return closing
                .then(|| Tag::other(rest.find('>').map_or(html.len(), |i| start + 1 + i + 1)));
        }
        let name: String = rest[name_at..]
            .chars()
            .take_while(|c| !(c.is_ascii_whitespace() || *c == '/' || *c == '>'))
            .map(|c| c.to_ascii_lowercase())
            .collect();
        let read = read_attributes(rest.as_bytes(), name_at + name.len());
        let (close, self_closing) = (read.end, read.self_closing);
        let attributes = start + 1 + name_at + name.len()..(start + 1 + close).min(html.len());
        Some(Tag {
            name,
            attributes,
            closing,
            self_closing,
            end: (start + 1 + close + 1).min(html.len()),
            extra_attributes: read.extra.iter().map(|at| start + 1 + at).collect(),
        })
    }

    /// Writes the tag that starts at `start` into `out` without its
    /// attributes past [`MAX_ATTRIBUTES`], but the first of each name in
    /// [`READ_ATTRIBUTES`].
    fn push_bounded(&self, html: &str, start: usize, out: &mut String) {
        out.push_str(&html[start..self.extra_attributes[0]]);
        let ends = self.extra_attributes[1..]
            .iter()
            .copied()
            .chain([self.attributes.end]);
        let mut kept: Vec<&str> = Vec::new();
        for (from, to) in self.extra_attributes.iter().copied().zip(ends) {
            let attribute = &html[from..to];
            let name_end = attribute
                .find(|c: char| c.is_ascii_whitespace() || c == '=' || c == '/')
                .unwrap_or(attribute.len());
            let name = attribute[..name_end].to_ascii_lowercase();
            let read = READ_ATTRIBUTES.iter().find(|n| **n == name);
            if let Some(read) = read.filter(|n| !kept.contains(n)) {
                kept.push(read);
                out.push(' ');
                out.push_str(attribute.trim_end_matches(|c: char| c.is_ascii_whitespace()));
            }
        }
        // apart from the kept ones, so that a `/` is neither lost nor made
        out.push(' ');
        if self.self_closing {
            out.push('/');
        }
        // the tag's end as it was (none when the page ends inside it)
        out.push_str(&html[self.attributes.end..self.end]);
    }

    fn other(end: usize) -> Tag {
        Tag {
            name: String::new(),
            attributes: 0..0,
            closing: false,
            self_closing: false,
            end,
            extra_attributes: Vec::new(),
        }
    }
}

/// Where a tag's attributes are in the tokenizer's reading (HTML §13.2.5).
#[derive(Clone, Copy, PartialEq)]
enum In {
    BeforeName,
    Name,
    AfterName,
    BeforeValue,
    Quoted(u8),
    AfterQuoted,
    Unquoted,
    SelfClosing,
}

/// A tag's attributes as the tokenizer reads them.
struct Attributes {
    /// The index of the `>` that ends them; the end of the text if none
    /// does (the tokenizer drops such a tag).
    end: usize,
    self_closing: bool,
    /// Where each attribute past [`MAX_ATTRIBUTES`] starts.
    extra: Vec<usize>,
}

/// The attributes of a tag in `rest`, read from `from` as the tokenizer
/// reads them (HTML §13.2.5).
fn read_attributes(rest: &[u8], from: usize) -> Attributes {
    let mut state = In::BeforeName;
    let mut count = 0;
    let mut extra = Vec::new();
    let mut i = from;
    while i < rest.len() {
        let b = rest[i];
        let space = b.is_ascii_whitespace();
        if state == In::SelfClosing && b != b'>' {
            state = In::BeforeName; // and the byte read again
        }
        let before = state;
        state = match (state, b) {
            (In::Quoted(q), b) if b == q => In::AfterQuoted,
            (In::Quoted(q), _) => In::Quoted(q),
            (In::BeforeValue, b'"' | b'\'') => In::Quoted(b),
            (_, b'>') => {
                let self_closing = state == In::SelfClosing;
                return Attributes {
                    end: i,
                    self_closing,
                    extra,
                };
            }
            (In::Unquoted, _) if space => In::BeforeName,
            (In::Unquoted, _) => In::Unquoted,
            (_, _) if space => match state {
                In::Name => In::AfterName,
                In::AfterQuoted => In::BeforeName,
                other => other,
            },
            (In::BeforeValue, _) => In::Unquoted,
            (_, b'/') => In::SelfClosing,
            (In::Name | In::AfterName, b'=') => In::BeforeValue,
            _ => In::Name,
        };
        if state == In::Name && before != In::Name {
            count += 1;
            if count > MAX_ATTRIBUTES {
                extra.push(i);
            }
        }
        i += 1;
    }
    Attributes {
        end: rest.len(),
        self_closing: false,
        extra,
    }
}

/// Where the raw text of element `name` that starts at `from` ends: at its
/// end tag (ASCII case-insensitive). `None` if the page has no such end
/// tag after `from`; then `unended` records the name, so no later search
/// for it reads the rest of the page again.
fn raw_text_end(html: &str, from: usize, name: &str, unended: &mut Vec<String>) -> Option<usize> {
    if unended.iter().any(|n| n == name) {
        return None;
    }
    let bytes = html.as_bytes();
    let mut at = from;
    while let Some(offset) = memchr(b'<', &bytes[at..]) {
        let start = at + offset;
        let after = &bytes[start + 1..];
        if after.first() == Some(&b'/')
            && after.len() > name.len()
            && after[1..=name.len()].eq_ignore_ascii_case(name.as_bytes())
        {
            return Some(start);
        }
        at = start + 1;
    }
    unended.push(name.to_string());
    None
}

#[cfg(test)]
#[path = "depth_tests.rs"]
pub(crate) mod tests;
