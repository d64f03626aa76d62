//! The HTML tree of a page, built with a cap on the tree builder's work.
//! The builder's scope checks walk its stack of open elements, so a page
//! that nests deep costs the square of its depth. [`depth::bounded`]
//! keeps ordinary deep pages shallow; this cap is the guarantee behind it
//! for pages its model of the builder misreads: the builder's steps
//! through open elements are counted, and once they pass a budget in
//! proportion to the page's length the rest of the page is left unparsed.
//!
//! [`depth::bounded`]: super::depth::bounded

use std::borrow::Cow;
use std::cell::Cell;

use html5ever::tendril::{StrTendril, TendrilSink};
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{Attribute, QualName};
use scraper::{Html, HtmlTreeSink};

/// Steps through open elements allowed per byte of page. The real pages
/// saved with the tests cost at most a few per byte; a page that nests
/// 10,000 deep costs thousands.
pub const WORK_PER_BYTE: usize = 64;

/// What an element created costs, in steps: so the budget also bounds the
/// tree's size, which formatting elements opened again after every block
/// (a thousand `<b class=…>`s left open) would otherwise multiply.
const ELEMENT_WORK: usize = 64;

/// Steps allowed to any page, however short.
const BASE_WORK: usize = 1 << 20;

/// The page is fed to the builder in pieces this long, the work checked
/// between them.
const PIECE: usize = 4096;

/// The tree of `html`, and whether its end was left unparsed because the
/// builder's work passed the budget of a page of `page_len` bytes (the
/// page as fetched: `html` may have lost tags to the depth bound).
pub fn parse_document(html: &str, page_len: usize) -> (Html, bool) {
    let (document, unparsed_end, _) = parse_within(html, budget(page_len.max(html.len())));
    (document, unparsed_end)
}

/// The work a page of `len` bytes may cost.
fn budget(len: usize) -> usize {
    BASE_WORK + WORK_PER_BYTE * len
}

/// The tree of `html`, whether its end was left unparsed, and the work it
/// cost: pieces are fed while the work is within `budget`.
fn parse_within(html: &str, budget: usize) -> (Html, bool, usize) {
    let mut parser = html5ever::driver::parse_document(
        CountingSink::new(HtmlTreeSink::new(Html::new_document())),
        Default::default(),
    );
    let work =
        |parser: &html5ever::driver::Parser<CountingSink>| parser.tokenizer.sink.sink.work.get();
    let mut at = 0;
    while at < html.len() && work(&parser) <= budget {
        let end = piece_end(html, at);
        parser.process(StrTendril::from_slice(&html[at..end]));
        at = end;
    }
    let spent = work(&parser);
    (parser.finish(), at < html.len(), spent)
}

/// Where the piece of `html` that starts at `at` ends: [`PIECE`] bytes on,
/// back to a character boundary.
fn piece_end(html: &str, at: usize) -> usize {
    let mut end = (at + PIECE).min(html.len());
    while !html.is_char_boundary(end) {
        end -= 1;
    }
    end
}

/// scraper's tree sink, counting the names the builder asks for and the
/// nodes it compares (it does one or the other at each step of its walks
/// through the open elements and the active formatting elements), and
/// the elements it creates.
struct CountingSink {
    inner: HtmlTreeSink,
    work: Cell<usize>,
}

impl CountingSink {
    fn new(inner: HtmlTreeSink) -> CountingSink {
        CountingSink {
            inner,
            work: Cell::new(0),
        }
    }

    fn add(&self, steps: usize) {
        self.work.set(self.work.get() + steps);
    }
}

type Handle = <HtmlTreeSink as TreeSink>::Handle;

impl TreeSink for CountingSink {
    type Handle = Handle;
    type Output = Html;
    type ElemName<'a> = <HtmlTreeSink as TreeSink>::ElemName<'a>;

    fn finish(self) -> Html {
        self.inner.finish()
    }

    /// Not kept: scraper would keep every one (8 MiB of NUL bytes, an error
    /// each, held 1.1 GB), and nothing reads them.
    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> Handle {
        self.inner.get_document()
    }

    fn elem_name<'a>(&'a self, target: &'a Handle) -> Self::ElemName<'a> {
        self.add(1);
        self.inner.elem_name(target)
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> Handle {
        self.add(ELEMENT_WORK);
        self.inner.create_element(name, attrs, flags)
    }

    fn create_comment(&self, text: StrTendril) -> Handle {
        self.inner.create_comment(text)
    }

    fn create_pi(&self, target: StrTendril, data: StrTendril) -> Handle {
        self.inner.create_pi(target, data)
    }

    fn append(&self, parent: &Handle, child: NodeOrText<Handle>) {
        self.inner.append(parent, child)
    }

    fn append_based_on_parent_node(
        &self,
        element: &Handle,
        prev_element: &Handle,
        child: NodeOrText<Handle>,
    ) {
        self.inner
            .append_based_on_parent_node(element, prev_element, child)
    }

    fn append_doctype_to_document(
        &self,
        name: StrTendril,
        public_id: StrTendril,
        system_id: StrTendril,
    ) {
        self.inner
            .append_doctype_to_document(name, public_id, system_id)
    }

    fn mark_script_already_started(&self, node: &Handle) {
        self.inner.mark_script_already_started(node)
    }

    fn pop(&self, node: &Handle) {
        self.inner.pop(node)
    }

    fn get_template_contents(&self, target: &Handle) -> Handle {
        self.inner.get_template_contents(target)
    }

    fn same_node(&self, x: &Handle, y: &Handle) -> bool {
        self.add(1);
        self.inner.same_node(x, y)
    }

    fn set_quirks_mode(&self, mode: QuirksMode) {
        self.inner.set_quirks_mode(mode)
    }

    fn append_before_sibling(&self, sibling: &Handle, new_node: NodeOrText<Handle>) {
        self.inner.append_before_sibling(sibling, new_node)
    }

    fn add_attrs_if_missing(&self, target: &Handle, attrs: Vec<Attribute>) {
        self.inner.add_attrs_if_missing(target, attrs)
    }

    fn associate_with_form(
        &self,
        target: &Handle,
        form: &Handle,
        nodes: (&Handle, Option<&Handle>),
    ) {
        self.inner.associate_with_form(target, form, nodes)
    }

    fn remove_from_parent(&self, target: &Handle) {
        self.inner.remove_from_parent(target)
    }

    fn reparent_children(&self, node: &Handle, new_parent: &Handle) {
        self.inner.reparent_children(node, new_parent)
    }

    fn is_mathml_annotation_xml_integration_point(&self, handle: &Handle) -> bool {
        self.inner
            .is_mathml_annotation_xml_integration_point(handle)
    }

    fn set_current_line(&self, line_number: u64) {
        self.inner.set_current_line(line_number)
    }

    fn allow_declarative_shadow_roots(&self, intended_parent: &Handle) -> bool {
        self.inner.allow_declarative_shadow_roots(intended_parent)
    }

    fn attach_declarative_shadow(
        &self,
        location: &Handle,
        template: &Handle,
        attrs: &[Attribute],
    ) -> bool {
        self.inner
            .attach_declarative_shadow(location, template, attrs)
    }

    fn maybe_clone_an_option_into_selectedcontent(&self, option: &Handle) {
        self.inner
            .maybe_clone_an_option_into_selectedcontent(option)
    }
}

#[cfg(test)]
#[path = "tree_tests.rs"]
mod tests;
