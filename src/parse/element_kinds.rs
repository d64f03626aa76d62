//! The kinds of HTML element the tree builder treats apart (HTML
//! §13.2.4, §13.2.6), as the depth model ([`open_elements`]) needs them.
//!
//! [`open_elements`]: super::open_elements

/// Elements never dropped: links, what parse reads most, and the root
/// and body, which the builder never opens twice. (Headings, `template`
/// and `frameset` nest in the builder without end, so they are dropped
/// like any container; metadata and frames are void; `noscript` is raw
/// text.)
pub const KEPT: [&str; 3] = ["a", "body", "html"];

/// Elements of the HTML "special" category (§13.2.4.2) that nest: the end
/// tag of an element not in it never closes past one of them.
pub const SPECIAL: [&str; 61] = [
    "address",
    "frameset",
    "head",
    "title",
    "isindex",
    "mi",
    "mo",
    "mn",
    "ms",
    "mtext",
    "annotation-xml",
    "foreignobject",
    "desc",
    "dd",
    "dt",
    "li",
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
    "td",
    "th",
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

/// Where an end tag's search for its element stops (the default scope,
/// with the integration points of SVG and MathML, whatever their
/// namespace: a mark too many only keeps more open).
pub const SCOPE_MARKS: [&str; 18] = [
    "applet",
    "caption",
    "html",
    "table",
    "td",
    "th",
    "marquee",
    "object",
    "select",
    "template",
    "mi",
    "mo",
    "mn",
    "ms",
    "mtext",
    "foreignobject",
    "desc",
    "title",
];

/// Where the search of a table's or a cell's end tag stops (table scope).
pub const TABLE_MARKS: [&str; 3] = ["html", "table", "template"];

/// HTML start tags that end `<svg>` or `<math>` content (§13.2.6.5).
pub const BREAKOUT: [&str; 44] = [
    "b",
    "big",
    "blockquote",
    "body",
    "br",
    "center",
    "code",
    "dd",
    "div",
    "dl",
    "dt",
    "em",
    "embed",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "hr",
    "i",
    "img",
    "li",
    "listing",
    "menu",
    "meta",
    "nobr",
    "ol",
    "p",
    "pre",
    "ruby",
    "s",
    "small",
    "span",
    "strong",
    "strike",
    "sub",
    "sup",
    "table",
    "tt",
    "u",
    "ul",
    "var",
];

/// Elements of SVG and of MathML whose content is HTML again.
pub const INTEGRATION_POINTS: [(&str, &str); 8] = [
    ("foreignobject", "svg"),
    ("desc", "svg"),
    ("title", "svg"),
    ("mi", "math"),
    ("mo", "math"),
    ("mn", "math"),
    ("ms", "math"),
    ("mtext", "math"),
];

/// What the builder does not open formatting elements again for: special
/// elements but these, and ruby annotations.
pub const REOPENS: [&str; 5] = ["applet", "marquee", "object", "button", "select"];

/// Ruby annotations.
pub const RUBY_PARTS: [&str; 4] = ["rb", "rp", "rt", "rtc"];

/// Void elements the builder opens formatting elements again before.
pub const INLINE_VOID: [&str; 7] = ["br", "img", "image", "input", "embed", "keygen", "wbr"];

/// Counted elements whose end tag may be left out: the builder closes
/// them by itself before some tags.
pub const IMPLIED_END: [&str; 9] = [
    "dd", "dt", "li", "option", "optgroup", "rb", "rp", "rt", "rtc",
];

/// Table cells and captions: the builder reads tags in them as in the
/// body, and closes their marker with them.
pub const CELLS: [&str; 3] = ["td", "th", "caption"];

pub const HEADINGS: [&str; 6] = ["h1", "h2", "h3", "h4", "h5", "h6"];

/// Table structure the model does not count: a start tag of one ends the
/// open cell and whatever was opened in it or in the table after it.
pub const TABLE_PARTS: [&str; 6] = ["tr", "tbody", "thead", "tfoot", "col", "colgroup"];

/// Elements whose end tag may be left out, and void elements: the builder
/// closes them itself, so a count of their tags says nothing of depth.
pub const UNCOUNTED: [&str; 26] = [
    "p", "head", "meta", "link", "base", "area", "frame", "tr", "tbody", "thead", "tfoot",
    "colgroup", "br", "hr", "img", "input", "col", "embed", "param", "source", "track", "wbr",
    "keygen", "command", "basefont", "bgsound",
];

/// Elements whose content is text, not tags, up to their end tag, as
/// the builder parses them (scripting on, so `noscript` too); in SVG and
/// MathML they are elements like any other.
pub const RAW_TEXT: [&str; 10] = [
    "script",
    "style",
    "textarea",
    "title",
    "iframe",
    "noscript",
    "xmp",
    "noembed",
    "noframes",
    "plaintext",
];

/// A bit of [`kinds`] for each list the depth model asks of every tag.
pub const IS_SPECIAL: u8 = 1;
pub const IS_SCOPE_MARK: u8 = 2;
pub const IS_TABLE_MARK: u8 = 4;
pub const IS_RAW_TEXT: u8 = 8;
pub const IS_UNCOUNTED: u8 = 16;

/// The lists `name` is on, as bits: one lookup where each tag would
/// otherwise be compared with every name of every list.
pub fn kinds(name: &str) -> u8 {
    static KINDS: std::sync::LazyLock<std::collections::HashMap<&str, u8>> =
        std::sync::LazyLock::new(|| {
            let mut kinds = std::collections::HashMap::new();
            for (names, bit) in [
                (&SPECIAL[..], IS_SPECIAL),
                (&SCOPE_MARKS[..], IS_SCOPE_MARK),
                (&TABLE_MARKS[..], IS_TABLE_MARK),
                (&RAW_TEXT[..], IS_RAW_TEXT),
                (&UNCOUNTED[..], IS_UNCOUNTED),
            ] {
                for &name in names {
                    *kinds.entry(name).or_default() |= bit;
                }
            }
            kinds
        });
    KINDS.get(name).copied().unwrap_or(0)
}
