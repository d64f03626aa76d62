//! HTML extraction with scraper: title, visible text (no script/style),
//! `<html lang>`, `<base href>`, and links with anchor text, a context
//! window of the text around them, and nofollow.

use std::sync::LazyLock;

use ego_tree::NodeRef;
use scraper::{Html, Node, Selector};

/// Elements whose text is not visible.
const HIDDEN: &[&str] = &[
    "script", "style", "noscript", "template", "head", "svg", "iframe",
];
/// Elements that break the text flow (a space is put around them).
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "br",
    "li",
    "ul",
    "ol",
    "td",
    "th",
    "tr",
    "table",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "section",
    "article",
    "header",
    "footer",
    "nav",
    "blockquote",
    "pre",
    "dd",
    "dt",
];
/// Characters of text kept on each side of a link as its context.
const CONTEXT_CHARS: usize = 80;

static TITLE: LazyLock<Selector> = LazyLock::new(|| Selector::parse("title").unwrap());
static BASE: LazyLock<Selector> = LazyLock::new(|| Selector::parse("base[href]").unwrap());
static META_ROBOTS: LazyLock<Selector> =
    LazyLock::new(|| Selector::parse(r#"meta[name="robots" i]"#).unwrap());

/// What a page says, before URLs are resolved.
#[derive(Debug, Default)]
pub struct Extracted {
    pub title: Option<String>,
    pub text: String,
    pub html_lang: Option<String>,
    pub base_href: Option<String>,
    /// `<meta name=robots content=nofollow>`: no link of the page is endorsed.
    pub nofollow_all: bool,
    pub links: Vec<RawLink>,
}

#[derive(Debug, PartialEq)]
pub struct RawLink {
    pub href: String,
    pub anchor: String,
    pub context: String,
    pub nofollow: bool,
}

/// Extracts title, visible text, hints and links from an HTML document.
pub fn extract(html: &str) -> Extracted {
    let document = Html::parse_document(html);
    let mut walk = Walk::default();
    walk.visit(document.tree.root());
    let nofollow_all = document.select(&META_ROBOTS).any(|m| {
        m.value()
            .attr("content")
            .is_some_and(|c| c.to_ascii_lowercase().contains("nofollow"))
    });
    let links = walk
        .links
        .iter()
        .map(|link| RawLink {
            href: link.href.clone(),
            anchor: walk.text[link.start..link.end].trim().to_string(),
            context: context_around(&walk.text, link.start, link.end),
            nofollow: link.nofollow || nofollow_all,
        })
        .collect();
    Extracted {
        title: document
            .select(&TITLE)
            .next()
            .map(|t| collapse_whitespace(&t.text().collect::<String>())),
        html_lang: document
            .root_element()
            .value()
            .attr("lang")
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty()),
        base_href: document
            .select(&BASE)
            .next()
            .and_then(|b| b.value().attr("href"))
            .map(str::to_string),
        nofollow_all,
        text: walk.text.trim_end().to_string(),
        links,
    }
}

struct LinkSpan {
    href: String,
    start: usize,
    end: usize,
    nofollow: bool,
}

/// A depth-first walk that collects visible text and link spans in it.
#[derive(Default)]
struct Walk {
    text: String,
    links: Vec<LinkSpan>,
}

enum Step<'a> {
    Enter(NodeRef<'a, Node>),
    Break,
    EndLink(usize),
}

impl Walk {
    fn visit(&mut self, root: NodeRef<'_, Node>) {
        let mut stack = vec![Step::Enter(root)];
        while let Some(step) = stack.pop() {
            match step {
                Step::Break => self.push_break(),
                Step::EndLink(index) => self.links[index].end = self.text.trim_end().len(),
                Step::Enter(node) => match node.value() {
                    Node::Text(text) => self.push_text(text),
                    Node::Element(element) => {
                        let name = element.name();
                        if HIDDEN.contains(&name) {
                            continue;
                        }
                        if BLOCKS.contains(&name) {
                            self.push_break();
                            stack.push(Step::Break);
                        }
                        if let (true, Some(href)) = (name == "a", element.attr("href")) {
                            self.push_break();
                            let rel = element.attr("rel").unwrap_or_default().to_ascii_lowercase();
                            self.links.push(LinkSpan {
                                href: href.to_string(),
                                start: self.text.len(),
                                end: self.text.len(),
                                nofollow: rel.split_whitespace().any(|r| r == "nofollow"),
                            });
                            stack.push(Step::EndLink(self.links.len() - 1));
                        }
                        stack.extend(node.children().rev().map(Step::Enter));
                    }
                    _ => stack.extend(node.children().rev().map(Step::Enter)),
                },
            }
        }
    }

    fn push_text(&mut self, text: &str) {
        let mut words = text.split_whitespace().peekable();
        if words.peek().is_none() {
            return self.push_break();
        }
        if text.starts_with(char::is_whitespace) {
            self.push_break();
        }
        for (i, word) in words.enumerate() {
            if i > 0 {
                self.text.push(' ');
            }
            self.text.push_str(word);
        }
        if text.ends_with(char::is_whitespace) {
            self.push_break();
        }
    }

    fn push_break(&mut self) {
        if !self.text.is_empty() && !self.text.ends_with(' ') {
            self.text.push(' ');
        }
    }
}

fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Up to `CONTEXT_CHARS` characters of text on each side of `start..end`, with the span.
fn context_around(text: &str, start: usize, end: usize) -> String {
    let before: String = text[..start]
        .chars()
        .rev()
        .take(CONTEXT_CHARS)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let after: String = text[end..].chars().take(CONTEXT_CHARS).collect();
    collapse_whitespace(&format!("{before}{}{after}", &text[start..end]))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<!doctype html><html lang="ja"><head><title> 人権 宣言 </title>
        <base href="http://base.jp/dir/"><style>p{color:red}</style></head>
        <body><script>var x = "hidden";</script>
        <p>第一条 すべての人間は、<a href="a.html">生まれながらにして自由</a>であり、</p>
        <p><a href="http://b.jp/" rel="nofollow noopener">リンク</a> after</p>
        </body></html>"#;

    #[test]
    fn visible_text_hints_and_links() {
        let page = extract(PAGE);
        assert_eq!(page.title.as_deref(), Some("人権 宣言"));
        assert_eq!(page.html_lang.as_deref(), Some("ja"));
        assert_eq!(page.base_href.as_deref(), Some("http://base.jp/dir/"));
        assert!(
            !page.text.contains("hidden") && !page.text.contains("color"),
            "{}",
            page.text
        );
        assert!(page.text.contains("第一条 すべての人間は、"));
        assert_eq!(page.links.len(), 2);
        assert_eq!(page.links[0].anchor, "生まれながらにして自由");
        assert!(
            page.links[0].context.contains("第一条") && page.links[0].context.contains("であり")
        );
        assert!(!page.links[0].nofollow && page.links[1].nofollow);
    }

    #[test]
    fn numeric_character_references_are_decoded() {
        let page = extract("<p>&#26085;&#x672C; &amp; more</p>");
        assert_eq!(page.text, "日本 & more");
    }

    #[test]
    fn meta_robots_nofollow_covers_every_link() {
        let page = extract(r#"<meta name="ROBOTS" content="noindex, nofollow"><a href="/x">x</a>"#);
        assert!(page.nofollow_all && page.links[0].nofollow);
    }
}
