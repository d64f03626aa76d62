//! A web graph in memory: hosts, pages by id, languages and anchors
//! interned, and links as adjacency lists, with what a crawler sees of a
//! page (content or not, where it leads on to). The walks over it are in
//! `walk`.

use std::collections::HashMap;

use super::topology::Topology;

/// Marks an unreachable page in distance arrays.
pub const UNREACHABLE: u32 = u32::MAX;

/// A host and the parts of its name the crawl keys on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphHost {
    pub name: String,
    pub domain: String,
    pub tld: String,
}

/// One page of the graph.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphPage {
    pub url: String,
    /// Index into [`Graph::hosts`].
    pub host: u32,
    /// Top-level directory (`host/dir/` or `host/`).
    pub dir: String,
    /// Index into [`Graph::langs`]; `None` unless the page answers 200.
    pub lang: Option<u16>,
    /// HTTP status a fetch gets; `None` for a page never fetched.
    pub status: Option<u16>,
    /// Page id a 301 points to.
    pub redirect_to: Option<u32>,
    pub robots_allowed: bool,
}

impl GraphPage {
    /// True if a crawler can fetch the page and read its language.
    pub fn is_content(&self) -> bool {
        self.status == Some(200) && self.robots_allowed && self.lang.is_some()
    }
}

/// A link: its destination page and its anchor (index into [`Graph::anchors`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphLink {
    pub dst: u32,
    pub anchor: u32,
}

/// How a link is marked up: its anchor text and the language
/// `lang::anchor_lang` gives it, its kind (`a`, `area`, `iframe`, ...,
/// as the links segment names them) and its hreflang (ISO 639-3), if any.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Anchor {
    pub text: String,
    pub lang: String,
    pub kind: String,
    pub hreflang: Option<String>,
}

impl Anchor {
    /// A plain `<a>` link's anchor.
    pub fn text(text: impl Into<String>, lang: impl Into<String>) -> Self {
        Anchor {
            text: text.into(),
            lang: lang.into(),
            kind: "a".into(),
            hreflang: None,
        }
    }
}

/// A web graph in memory.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    pub hosts: Vec<GraphHost>,
    pub pages: Vec<GraphPage>,
    pub langs: Vec<String>,
    pub anchors: Vec<Anchor>,
    /// Outlinks of page `i` are `links[offsets[i]..offsets[i + 1]]`.
    offsets: Vec<u32>,
    links: Vec<GraphLink>,
}

impl Graph {
    /// A graph of `pages` with `outlinks[i]` the links of page `i`.
    pub fn new(
        hosts: Vec<GraphHost>,
        pages: Vec<GraphPage>,
        langs: Vec<String>,
        anchors: Vec<Anchor>,
        outlinks: impl IntoIterator<Item = Vec<GraphLink>>,
    ) -> Self {
        let mut offsets = Vec::with_capacity(pages.len() + 1);
        let mut links = Vec::new();
        offsets.push(0);
        for page_links in outlinks {
            links.extend(page_links);
            offsets.push(links.len() as u32);
        }
        offsets.resize(pages.len() + 1, links.len() as u32);
        Graph {
            hosts,
            pages,
            langs,
            anchors,
            offsets,
            links,
        }
    }

    pub fn outlinks(&self, page: u32) -> &[GraphLink] {
        let (a, b) = (self.offsets[page as usize], self.offsets[page as usize + 1]);
        &self.links[a as usize..b as usize]
    }

    pub fn link_count(&self) -> usize {
        self.links.len()
    }

    pub fn lang_of(&self, page: u32) -> Option<&str> {
        self.pages[page as usize]
            .lang
            .map(|l| self.langs[l as usize].as_str())
    }

    pub fn host_of(&self, page: u32) -> &GraphHost {
        &self.hosts[self.pages[page as usize].host as usize]
    }

    /// True if `page` is content in language `code`.
    pub fn is_target(&self, page: u32, code: &str) -> bool {
        self.pages[page as usize].is_content() && self.lang_of(page) == Some(code)
    }

    /// Page ids by URL.
    pub fn url_index(&self) -> HashMap<&str, u32> {
        self.pages
            .iter()
            .enumerate()
            .map(|(i, p)| (p.url.as_str(), i as u32))
            .collect()
    }

    /// The graph's topology for target language `code`.
    pub fn topology(&self, code: &str) -> Topology {
        let mut topology = Topology::default();
        for (id, p) in self.pages.iter().enumerate() {
            let redirect = p.redirect_to.filter(|_| p.robots_allowed);
            topology.push_page(p.is_content(), self.is_target(id as u32, code), redirect);
        }
        for page in 0..self.pages.len() as u32 {
            topology.push_outlinks(page, self.outlinks(page).iter().map(|l| l.dst));
        }
        topology
    }
}
