//! A bound on how deep a page nests before the HTML tree builder sees it.
//! The builder's work per tag grows with the number of open elements (its
//! scope checks walk them), so 200,000 nested `<div>`s — 1 MB, under the
//! content cap — took minutes. Like a browser that stops nesting at some
//! depth, the start and end tags of plain containers below
//! [`MAX_DEPTH`] open elements are dropped: their text stays, in order;
//! only the nesting goes. Links, frames, headings, metadata and raw-text
//! elements are never dropped, and elements whose end tag is optional
//! (`p`, `li`, `td`, …) are not counted, so ordinary pages are untouched.
//! One pass, linear in the page's length.

use std::borrow::Cow;

/// The deepest a page's plain containers nest (browsers go on to 512).
pub const MAX_DEPTH: usize = 256;

/// Elements never dropped: what parse reads (links, frames, headings,
/// metadata) and what structures the document.
const KEPT: [&str; 20] = [
    "a", "area", "base", "body", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head",
    "html", "iframe", "link", "meta", "noscript", "template", "title",
];

/// Elements whose end tag may be left out, and void elements: the builder
/// closes them itself, so a count of their tags says nothing of depth.
const UNCOUNTED: [&str; 30] = [
    "p", "li", "dt", "dd", "option", "optgroup", "tr", "td", "th", "tbody", "thead", "tfoot",
    "colgroup", "rb", "rt", "rp", "br", "hr", "img", "input", "col", "embed", "param", "source",
    "track", "wbr", "keygen", "command", "basefont", "bgsound",
];

/// Elements whose content is text, not tags, up to their end tag.
const RAW_TEXT: [&str; 7] = [
    "script",
    "style",
    "textarea",
    "xmp",
    "noembed",
    "noframes",
    "plaintext",
];

/// `html` with the tags of plain containers nested deeper than `max`
/// removed; borrowed when nothing nests that deep.
pub fn bounded(html: &str, max: usize) -> Cow<'_, str> {
    let mut out: Option<String> = None;
    let mut open = OpenElements::default();
    let mut copied = 0;
    let mut at = 0;
    let bytes = html.as_bytes();
    while let Some(offset) = memchr(b'<', &bytes[at..]) {
        let start = at + offset;
        let Some(tag) = Tag::read(html, start) else {
            at = start + 1;
            continue;
        };
        at = tag.end;
        if tag.name.is_empty() {
            continue; // a comment, doctype or processing instruction
        }
        if RAW_TEXT.contains(&tag.name.as_str()) {
            if !tag.closing {
                at = raw_text_end(html, at, &tag.name);
            }
            continue;
        }
        if tag.self_closing || UNCOUNTED.contains(&tag.name.as_str()) {
            continue;
        }
        let deep = if tag.closing {
            let deep = open.depth() > max;
            open.close(&tag.name);
            deep
        } else {
            open.open(&tag.name);
            open.depth() > max
        };
        if deep && !KEPT.contains(&tag.name.as_str()) {
            let text = out.get_or_insert_with(|| String::with_capacity(html.len()));
            text.push_str(&html[copied..start]);
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

/// Containers of the HTML "special" category (§13.2.4.2) that nest: an
/// end tag of another element never closes past one of them.
const SPECIAL: [&str; 44] = [
    "address",
    "applet",
    "article",
    "aside",
    "blockquote",
    "body",
    "button",
    "caption",
    "center",
    "details",
    "dir",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "header",
    "hgroup",
    "html",
    "listing",
    "main",
    "marquee",
    "menu",
    "nav",
    "object",
    "ol",
    "pre",
    "search",
    "section",
    "select",
    "summary",
    "table",
    "template",
    "ul",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "iframe",
    "noscript",
];

/// How far below the current element an end tag of a non-special element
/// is looked for (the tree builder walks until a special element).
const PHRASING_REACH: usize = 64;

/// The counted elements open at a point of the page, as the tree builder
/// keeps them: an end tag of a special container closes it and every
/// element opened after it; that of another element closes it only if no
/// special container was opened after it (else the builder ignores it or
/// reparents, and the depth stays); an end tag of no open element closes
/// nothing (`<div></b>` repeated nests as deep as `<div>` alone).
#[derive(Default)]
struct OpenElements {
    stack: Vec<String>,
    open: std::collections::HashMap<String, usize>,
}

impl OpenElements {
    fn depth(&self) -> usize {
        self.stack.len()
    }

    fn open(&mut self, name: &str) {
        self.stack.push(name.to_string());
        *self.open.entry(name.to_string()).or_default() += 1;
    }

    fn close(&mut self, name: &str) {
        if self.open.get(name).is_none_or(|&n| n == 0) {
            return;
        }
        let closes = SPECIAL.contains(&name)
            || self
                .stack
                .iter()
                .rev()
                .take(PHRASING_REACH)
                .take_while(|open| open.as_str() == name || !SPECIAL.contains(&open.as_str()))
                .any(|open| open == name);
        if !closes {
            return;
        }
        while let Some(top) = self.stack.pop() {
            if let Some(n) = self.open.get_mut(&top) {
                *n -= 1;
            }
            if top == name {
                return;
            }
        }
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
    closing: bool,
    self_closing: bool,
    end: usize,
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
        let (close, self_closing) = attributes_end(rest.as_bytes(), name_at + name.len());
        Some(Tag {
            name,
            closing,
            self_closing,
            end: (start + 1 + close + 1).min(html.len()),
        })
    }

    fn other(end: usize) -> Tag {
        Tag {
            name: String::new(),
            closing: false,
            self_closing: false,
            end,
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

/// The index of the `>` that ends a tag's attributes in `rest`, read from
/// `from` as the tokenizer reads them, and whether the tag closes itself;
/// the end of `rest` if it never ends (the tokenizer drops such a tag).
fn attributes_end(rest: &[u8], from: usize) -> (usize, bool) {
    let mut state = In::BeforeName;
    let mut i = from;
    while i < rest.len() {
        let b = rest[i];
        let space = b.is_ascii_whitespace();
        if state == In::SelfClosing && b != b'>' {
            state = In::BeforeName; // and the byte read again
        }
        state = match (state, b) {
            (In::Quoted(q), b) if b == q => In::AfterQuoted,
            (In::Quoted(q), _) => In::Quoted(q),
            (In::BeforeValue, b'"' | b'\'') => In::Quoted(b),
            (_, b'>') => return (i, state == In::SelfClosing),
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
        i += 1;
    }
    (rest.len(), false)
}

/// Where the raw text of element `name` that starts at `from` ends: at its
/// end tag (ASCII case-insensitive), or the end of the page.
fn raw_text_end(html: &str, from: usize, name: &str) -> usize {
    let bytes = html.as_bytes();
    let mut at = from;
    while let Some(offset) = memchr(b'<', &bytes[at..]) {
        let start = at + offset;
        let after = &bytes[start + 1..];
        if after.first() == Some(&b'/')
            && after.len() > name.len()
            && after[1..=name.len()].eq_ignore_ascii_case(name.as_bytes())
        {
            return start;
        }
        at = start + 1;
    }
    html.len()
}

#[cfg(test)]
#[path = "depth_tests.rs"]
mod tests;
