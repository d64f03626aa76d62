//! A link's anchor and context as a link row keeps them, bounded link by
//! link and page by page: links nest inside `<math>`, `<object>` or a
//! table cell, each then spanning all the text after it (200 such links
//! held 1.5 GB, five such pages 7 GB).

use super::html::collapse_whitespace;

/// Characters of text kept on each side of a link as its context.
pub(super) const CONTEXT_CHARS: usize = 80;
/// Characters of a link's anchor kept (as `links.anchor` keeps them).
pub(super) const ANCHOR_CHARS: usize = super::outlinks::MAX_ANCHOR_CHARS;
/// Characters of an anchor kept once its page's [`PAGE_LINK_TEXT`] is spent.
pub(super) const SHORT_ANCHOR_CHARS: usize = 80;
/// Bytes of anchors and contexts kept for one page; past them a link keeps
/// a short anchor and no context (a page of nested links a few bytes each
/// would otherwise hold gigabytes).
pub(super) const PAGE_LINK_TEXT: usize = 4 << 20;

/// What the link whose text is `text[start..end]` keeps of it.
pub(super) struct LinkText {
    /// The anchor, trimmed: the text, else `fallback` (an attribute's).
    pub anchor: String,
    /// Where the anchor is from (`text`, or the fallback's attribute).
    pub source: Option<&'static str>,
    pub context: String,
}

impl LinkText {
    /// The anchor and context of `text[start..end]`; with `short` (the
    /// page's budget spent) a short anchor and no context.
    pub fn of(
        text: &str,
        (start, end): (usize, usize),
        fallback: Option<&(String, &'static str)>,
        short: bool,
    ) -> LinkText {
        let keep = if short {
            SHORT_ANCHOR_CHARS
        } else {
            ANCHOR_CHARS
        };
        let spanned = text.get(start..end).unwrap_or_default();
        let trimmed = spanned.trim();
        let kept = first_chars(trimmed, keep);
        let (anchor, source) = match (kept.is_empty(), fallback) {
            (false, _) => (kept.trim_end().to_string(), Some("text")),
            (true, Some((fallback, from))) => (
                first_chars(fallback, keep).trim_end().to_string(),
                Some(*from),
            ),
            (true, None) => (String::new(), None),
        };
        // the anchor as kept, where it ends in `text`
        let kept_end = start + (spanned.len() - spanned.trim_start().len()) + kept.len();
        let context = match short {
            true => String::new(),
            false => context_around(text, start, kept_end.min(end), end),
        };
        LinkText {
            anchor,
            source,
            context,
        }
    }

    /// The bytes it holds, against its page's [`PAGE_LINK_TEXT`].
    pub fn bytes(&self) -> usize {
        self.anchor.len() + self.context.len()
    }
}

/// The first `chars` characters of `text`.
fn first_chars(text: &str, chars: usize) -> &str {
    text.char_indices()
        .nth(chars)
        .map_or(text, |(at, _)| &text[..at])
}

/// Up to [`CONTEXT_CHARS`] characters of text on each side of the link
/// text `start..end`, with the link text as kept (`start..kept_end`).
fn context_around(text: &str, start: usize, kept_end: usize, end: usize) -> String {
    let (Some(head), Some(kept), Some(tail)) = (
        text.get(..start),
        text.get(start..kept_end),
        text.get(end..),
    ) else {
        return String::new();
    };
    let from = head.char_indices().rev().nth(CONTEXT_CHARS - 1);
    let before = &head[from.map_or(0, |(at, _)| at)..];
    let after = first_chars(tail, CONTEXT_CHARS);
    let gap = if kept_end < end { " " } else { "" };
    collapse_whitespace(&format!("{before}{kept}{gap}{after}"))
}
