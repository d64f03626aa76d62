//! The HTML tree builder's stack of open elements, as the depth bound
//! ([`depth::bounded`](super::depth::bounded)) follows it from the tags
//! alone. Where the model and the builder part, the model must keep more
//! elements open than the builder does, never fewer: an element it
//! wrongly thinks closed lets the builder nest past the bound. So it
//! follows the builder where the builder keeps elements open that a plain
//! reading of the tags would close (end tags stopped by a table or a
//! special element, `</body>`, `</form>`) and where it closes elements
//! by itself (a table opened in a table, a cell after a cell, a button in
//! a button, a heading in a heading, a link in a link). HTML §13.2.6.
//! An element whose start tag was dropped stays on the stack, marked, so
//! its end tag is found and dropped too; what closes it closes only the
//! dropped elements from it on, since the builder never had them.

use std::collections::{HashMap, HashSet};

use super::active_formatting::{ActiveFormatting, FORMATTING, MARKERS};
use super::element_kinds::{
    kinds, BREAKOUT, CELLS, HEADINGS, IMPLIED_END, INLINE_VOID, INTEGRATION_POINTS, IS_SPECIAL,
    KEPT, REOPENS, RUBY_PARTS, TABLE_PARTS,
};

/// The most formatting elements the builder is let keep to open again
/// after each block: past them, a formatting element's tags are dropped.
/// (Three alike at most, so only elements with different attributes
/// reach it.)
const MAX_FORMATTING: usize = 16;

/// The most entries the builder's formatting list is let hold, markers
/// too: an `applet`, `marquee` or `object` closed other than by its end
/// tag leaves its marker there for good, and the builder walks the whole
/// list at every formatting tag.
const MAX_LISTED: usize = 256;

/// The open elements, with the place of each name's, of the special
/// elements' and of the scope marks' open elements, so an end tag finds
/// its element without walking the stack; and the formatting elements the
/// builder would open again.
#[derive(Default)]
pub struct OpenElements {
    /// Deeper than this, a start tag is dropped (unless [`KEPT`]).
    max: usize,
    stack: Vec<Open>,
    at: HashMap<String, Vec<usize>>,
    specials: Vec<usize>,
    scope_marks: Vec<usize>,
    table_marks: Vec<usize>,
    /// Special elements but `address`, `div` and `p`: where the search of
    /// `<li>`, `<dd>` and `<dt>` for an open item to close stops.
    list_stops: Vec<usize>,
    open_ids: HashSet<u64>,
    next_id: u64,
    formatting: ActiveFormatting,
    /// The builder's form pointer: the form element opened last outside
    /// a template, until a `</form>` outside one; open or not.
    form: Option<u64>,
    /// The `svg` and `math` elements open: without one, no tag needs the
    /// search for foreign content.
    foreign_roots: usize,
}

struct Open {
    name: String,
    id: u64,
    /// It put a marker in the formatting list.
    marker: bool,
    /// Its start tag was dropped: the builder never had it.
    dropped: bool,
}

impl OpenElements {
    /// The stack as the builder has it before the body's content: `html`
    /// and `body`, whether the page has their tags or not.
    pub fn new(max: usize) -> OpenElements {
        let mut open = OpenElements {
            max,
            ..OpenElements::default()
        };
        open.push("html");
        open.push("body");
        open
    }

    /// A start tag of a counted element, with its attributes' text: what
    /// the builder closes for the tag, the formatting elements it opens
    /// again, then the element, unless the builder ignores the tag.
    /// Whether the tag is kept: the element is no deeper than the bound.
    pub fn open(&mut self, name: &str, attrs: &str) -> bool {
        if let Some(foreign) = self.foreign_root() {
            if !BREAKOUT.contains(&name) {
                // an SVG or MathML element, whatever its name
                self.push(name);
                return self.keep_top(self.depth() <= self.max);
            }
            self.pop_to(foreign);
        }
        if self.topmost("frameset").is_some() {
            // the builder ignores all but framesets in one; if it ignored
            // the frameset, every tag after it counts, and none closes
            self.push(name);
            return self.keep_top(self.depth() <= self.max || KEPT.contains(&name));
        }
        // the builder's adoption agency for an open link or `nobr`
        if name == "a" {
            self.close_formatting(name, true);
        }
        if name == "nobr" {
            self.reopen_formatting();
            if self.in_scope(name).is_some() {
                self.close_formatting(name, false);
            }
        }
        if !self.close_for(name) {
            return self.depth() < self.max || KEPT.contains(&name);
        }
        let block = kinds(name) & IS_SPECIAL != 0 && !REOPENS.contains(&name);
        if !block && !RUBY_PARTS.contains(&name) {
            self.reopen_formatting();
        }
        let id = self.push(name);
        let too_many = self.too_many_formatting(name);
        let kept = (self.depth() <= self.max && !too_many) || KEPT.contains(&name);
        if kept {
            self.record(name, attrs, id);
        }
        self.keep_top(kept)
    }

    /// Marks the element last opened as dropped unless `kept`; `kept`.
    fn keep_top(&mut self, kept: bool) -> bool {
        if let Some(top) = self.stack.last_mut() {
            top.dropped = !kept;
        }
        kept
    }

    /// What the builder records of an element it opened (as `id`): the
    /// form pointer, a formatting element, a marker.
    fn record(&mut self, name: &str, attrs: &str, id: u64) {
        match name {
            "form" if !self.is_open("template") => self.form = Some(id),
            _ if FORMATTING.contains(&name) => self.formatting.push(name, attrs, id),
            _ if MARKERS.contains(&name) => {
                self.formatting.push_marker();
                if let Some(open) = self.stack.last_mut() {
                    open.marker = true;
                }
            }
            _ => {}
        }
    }

    /// Whether a start tag of `name` would grow the builder's formatting
    /// list past what it is let hold.
    fn too_many_formatting(&self, name: &str) -> bool {
        let listed = self.formatting.len() >= MAX_LISTED;
        match name {
            "a" => false,
            _ if FORMATTING.contains(&name) => listed || self.formatting.active() >= MAX_FORMATTING,
            "applet" | "marquee" | "object" => listed,
            _ => false,
        }
    }

    /// What the builder closes before it opens `name`; false if it
    /// ignores the tag.
    fn close_for(&mut self, name: &str) -> bool {
        match name {
            "html" | "body" => return false, // open from the start
            "form" => return self.form.is_none() || self.is_open("template"),
            "table" if self.open_cell().is_none() => {
                let table = self.topmost("table");
                if let Some(table) = table.filter(|&t| self.after_mark(t, true)) {
                    self.pop_to(table);
                }
            }
            "td" | "th" | "caption" => {
                let Some(context) = self.table_context() else {
                    return false; // outside a table the builder ignores them
                };
                self.clear_to_table(context);
            }
            "button" => {
                if let Some(button) = self.in_scope("button") {
                    self.pop_to(button);
                }
            }
            "li" | "dd" | "dt" => {
                let items: &[&str] = if name == "li" { &["li"] } else { &["dd", "dt"] };
                let item = items.iter().filter_map(|item| self.topmost(item)).max();
                if let Some(item) = item.filter(|&i| self.list_stops.last() == Some(&i)) {
                    self.pop_to(item);
                }
            }
            "select" => {
                if let Some(select) = self.in_scope("select") {
                    let ignored = !self.stack[select].dropped;
                    self.pop_to(select);
                    if ignored {
                        return false;
                    }
                }
            }
            "option" | "optgroup" if self.in_scope("select").is_some() => {
                self.pop_implied(if name == "option" { "optgroup" } else { "" });
            }
            "option" | "optgroup" if self.top_is(&["option"]) => self.pop_to(self.depth() - 1),
            "rb" | "rtc" if self.in_scope("ruby").is_some() => self.pop_implied(""),
            "rp" | "rt" if self.in_scope("ruby").is_some() => self.pop_implied("rtc"),
            _ if HEADINGS.contains(&name) && self.top_is(&HEADINGS) => {
                self.pop_to(self.depth() - 1);
            }
            _ => {}
        }
        true
    }

    /// A start tag the model does not count (void elements, `p`, `li`,
    /// table rows and sections): the formatting elements the builder
    /// opens again for it, and for table structure the open cell and
    /// whatever was opened in it or in the table after it, which the
    /// builder closes. Nothing in a frameset, where the builder ignores
    /// them.
    pub fn uncounted(&mut self, name: &str) {
        if self.topmost("frameset").is_some() {
            return;
        }
        if name == "input" {
            if let Some(select) = self.in_scope("select") {
                self.pop_to(select); // an input ends a select
            }
        }
        if TABLE_PARTS.contains(&name) {
            if let Some(context) = self.table_context() {
                self.clear_to_table(context);
            }
        } else if INLINE_VOID.contains(&name) {
            self.reopen_formatting();
        }
    }

    /// Text other than white space: the builder opens the formatting
    /// elements a block closed again around it.
    pub fn text(&mut self) {
        if self.reads_raw_text() {
            self.reopen_formatting();
        }
    }

    /// An end tag: closes its element as the builder would. Whether the
    /// tag is kept: the element it closes was, or it closes nothing and
    /// the page is no deeper than the bound here.
    pub fn close(&mut self, name: &str) -> bool {
        let kept = |open: &Open| !open.dropped || KEPT.contains(&name);
        if name != "frameset" && self.topmost("frameset").is_some() {
            return self.depth() <= self.max || KEPT.contains(&name);
        }
        if FORMATTING.contains(&name) && self.foreign_root().is_none() {
            if let Some(closed) = self.close_formatting(name, false) {
                // the formatting list holds kept elements only
                return closed || self.depth() <= self.max;
            }
        }
        let index = match name {
            "html" | "body" => None, // the builder keeps everything open
            "frameset" => self.topmost(name),
            "form" => return self.close_form(),
            "table" | "td" | "th" => self.topmost(name).filter(|&i| self.after_mark(i, true)),
            "li" => self.in_scope(name).filter(|&i| {
                let list = self.topmost("ol").max(self.topmost("ul"));
                list.is_none_or(|list| list < i)
            }),
            _ if HEADINGS.contains(&name) => HEADINGS.iter().filter_map(|h| self.in_scope(h)).max(),
            _ if kinds(name) & IS_SPECIAL != 0 => self.in_scope(name),
            _ => self
                .topmost(name)
                .filter(|&i| self.specials.last().is_none_or(|&special| special < i)),
        };
        match index {
            Some(index) => {
                let kept = kept(&self.stack[index]);
                let marker = self.stack[index].marker && !CELLS.contains(&name);
                self.pop_to(index);
                if marker {
                    self.formatting.clear_to_marker();
                }
                kept
            }
            None => self.depth() <= self.max || KEPT.contains(&name),
        }
    }

    /// `</form>`: outside a template, the form the builder's pointer
    /// names leaves the stack alone, if it is open and in scope; in one,
    /// the form in scope closes with what was opened after it. Whether
    /// the tag is kept.
    fn close_form(&mut self) -> bool {
        let in_template = self.is_open("template");
        let index = if in_template {
            self.in_scope("form")
        } else {
            let id = self.form.take();
            let at = self.stack.iter().rposition(|open| Some(open.id) == id);
            at.filter(|&i| self.after_mark(i, false))
        };
        let Some(index) = index else {
            return self.depth() <= self.max;
        };
        let kept = !self.stack[index].dropped;
        if in_template {
            self.pop_to(index);
        } else {
            self.remove(index);
        }
        kept
    }

    /// The adoption agency, as far as depth goes: the last `name` in the
    /// formatting list leaves it; its element closes with what was opened
    /// after it, or alone if a special element was opened after it (the
    /// builder moves that one out from under it). Out of scope, the
    /// element stays, unless a new link is opened (`link`): then it is
    /// taken out alone. `None` if `name` is not in the list, else whether
    /// its element was closed.
    fn close_formatting(&mut self, name: &str, link: bool) -> Option<bool> {
        let (place, id) = self.formatting.last(name)?;
        let Some(index) = self.stack.iter().rposition(|open| open.id == id) else {
            self.formatting.remove(place);
            return Some(false);
        };
        let in_scope = self.after_mark(index, false);
        if !in_scope && !link {
            return Some(false);
        }
        self.formatting.remove(place);
        let special_after = self.specials.last().is_some_and(|&special| special > index);
        if !in_scope || special_after {
            self.remove(index);
        } else {
            self.pop_to(index);
        }
        Some(true)
    }

    /// Opens again the formatting elements a block closed, as the builder
    /// does before text and inline tags.
    fn reopen_formatting(&mut self) {
        let open_ids = &self.open_ids;
        for (place, name) in self.formatting.to_reopen(|id| open_ids.contains(&id)) {
            let id = self.push(&name);
            self.formatting.reopened(place, id);
        }
    }

    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    pub fn is_open(&self, name: &str) -> bool {
        self.topmost(name).is_some()
    }

    /// Inside `<svg>` or `<math>` content.
    fn in_foreign_content(&self) -> bool {
        self.foreign_root().is_some()
    }

    /// Whether the builder reads the content of `script`, `style`, … as
    /// text here: not in SVG or MathML, nor in a frameset (where it
    /// ignores such tags).
    pub fn reads_raw_text(&self) -> bool {
        !self.in_foreign_content() && self.topmost("frameset").is_none()
    }

    /// Whether a start tag `name` opens an SVG or MathML element: in
    /// `<svg>` or `<math>` content, unless it is an HTML tag that ends
    /// that content. Such an element nests whatever its name (a `<tbody>`
    /// or an `<input>` too), and `<name/>` closes it; elsewhere the
    /// builder reads `<name/>` as `<name>`.
    pub fn opens_foreign(&self, name: &str) -> bool {
        self.in_foreign_content() && !BREAKOUT.contains(&name)
    }

    /// The outermost `<svg>` or `<math>` open above the last HTML
    /// integration point (`foreignObject` in SVG, `mi` in MathML, …).
    fn foreign_root(&self) -> Option<usize> {
        if self.foreign_roots == 0 {
            return None;
        }
        let point = INTEGRATION_POINTS
            .iter()
            .filter_map(|&(name, root)| {
                let at = self.topmost(name)?;
                (self.innermost_root_below(at) == Some(root)).then_some(at)
            })
            .max();
        let outermost = |name| {
            let at = self.at.get(name)?;
            let first = at.partition_point(|&i| point.is_some_and(|p| i < p));
            at.get(first).copied()
        };
        match (outermost("svg"), outermost("math")) {
            (Some(svg), Some(math)) => Some(svg.min(math)),
            (svg, math) => svg.or(math),
        }
    }

    /// Whether the innermost `<svg>` or `<math>` open below `index` is
    /// `svg` or `math`.
    fn innermost_root_below(&self, index: usize) -> Option<&'static str> {
        let below = |name| {
            let at = self.at.get(name)?;
            at.partition_point(|&i| i < index)
                .checked_sub(1)
                .map(|i| at[i])
        };
        match (below("svg"), below("math")) {
            (Some(svg), Some(math)) => Some(if svg > math { "svg" } else { "math" }),
            (Some(_), None) => Some("svg"),
            (None, Some(_)) => Some("math"),
            (None, None) => None,
        }
    }

    /// Closes the elements whose end tag may be left out from the top,
    /// but `except`.
    fn pop_implied(&mut self, except: &str) {
        while self.top_is(&IMPLIED_END) && !self.top_is(&[except]) {
            self.pop_to(self.depth() - 1);
        }
    }

    fn top_is(&self, names: &[&str]) -> bool {
        self.stack
            .last()
            .is_some_and(|top| names.contains(&top.name.as_str()))
    }

    fn topmost(&self, name: &str) -> Option<usize> {
        self.at.get(name).and_then(|at| at.last().copied())
    }

    /// Whether no scope mark (of table scope, if `table`) was opened
    /// after the element at `index`.
    fn after_mark(&self, index: usize, table: bool) -> bool {
        let marks = if table {
            &self.table_marks
        } else {
            &self.scope_marks
        };
        marks.last().is_none_or(|&mark| mark <= index)
    }

    /// The topmost open `name` if no scope mark was opened after it.
    fn in_scope(&self, name: &str) -> Option<usize> {
        self.topmost(name).filter(|&i| self.after_mark(i, false))
    }

    /// The innermost table or template, if no other table scope mark was
    /// opened after it: what the builder clears the stack back to for
    /// table structure.
    fn table_context(&self) -> Option<usize> {
        let &mark = self.table_marks.last()?;
        ["table", "template"]
            .contains(&self.stack[mark].name.as_str())
            .then_some(mark)
    }

    /// The open cell (or caption) of the innermost table, where the
    /// builder reads tags as in the body.
    fn open_cell(&self) -> Option<usize> {
        let cell = CELLS.iter().filter_map(|name| self.topmost(name)).max()?;
        self.topmost("table")
            .is_none_or(|table| table < cell)
            .then_some(cell)
    }
}

#[path = "open_elements_places.rs"]
mod places;
