//! Serving a web graph over HTTP: each page answers with its recorded
//! status — a 200 page rendered with corpus text in its language and exactly
//! its recorded links and anchors — and each host's robots.txt disallows
//! the pages the graph marks as not allowed. A live crawl of it sees what
//! `simulate` looks up.

use std::collections::HashMap;

use super::corpus::{self, LANGS};
use super::render::{
    redirect, render, text_response, PageStyle, SimLink, SimResponse, DECLARATIONS,
};
use super::rng::Rng;
use super::server::Site;
use crate::error::Result;
use crate::webgraph::{Graph, WebDir, WebInfo};

/// A web graph ready to be served.
pub struct GraphSite {
    graph: Graph,
    info: WebInfo,
    by_url: HashMap<String, u32>,
    /// Paths robots.txt disallows, per host name.
    disallowed: HashMap<String, Vec<String>>,
}

impl GraphSite {
    /// Reads the web directory `web` into memory.
    pub fn load(web: &WebDir) -> Result<Self> {
        Ok(GraphSite::new(web.read()?, web.info()?))
    }

    pub fn new(graph: Graph, info: WebInfo) -> Self {
        let by_url = graph
            .url_index()
            .into_iter()
            .map(|(url, id)| (url.to_string(), id))
            .collect();
        let mut disallowed: HashMap<String, Vec<String>> = HashMap::new();
        for (id, page) in graph.pages.iter().enumerate() {
            if !page.robots_allowed {
                if let Ok(url) = url::Url::parse(&page.url) {
                    disallowed
                        .entry(graph.host_of(id as u32).name.clone())
                        .or_default()
                        .push(url.path().to_string());
                }
            }
        }
        GraphSite {
            graph,
            info,
            by_url,
            disallowed,
        }
    }

    pub fn info(&self) -> &WebInfo {
        &self.info
    }

    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    fn robots(&self, host: &str) -> SimResponse {
        let rules: String = self
            .disallowed
            .get(host)
            .into_iter()
            .flatten()
            .map(|path| format!("Disallow: {path}\n"))
            .collect();
        let rules = if rules.is_empty() {
            "Disallow:\n".to_string()
        } else {
            rules
        };
        text_response(200, &format!("User-agent: *\n{rules}"))
    }

    fn page(&self, id: u32) -> SimResponse {
        let page = &self.graph.pages[id as usize];
        match page.status {
            Some(200) => {}
            Some(status) if (300..400).contains(&status) => {
                if let Some(to) = page.redirect_to {
                    return redirect(self.graph.pages[to as usize].url.clone());
                }
                return text_response(500, "redirect without a target");
            }
            Some(status) => return text_response(status, "error"),
            None => return text_response(404, "not in the recorded web"),
        }
        let lang = self
            .graph
            .lang_of(id)
            .and_then(corpus::lang_index)
            .or_else(|| corpus::lang_index("eng"))
            .unwrap_or(0);
        let links: Vec<SimLink> = self
            .graph
            .outlinks(id)
            .iter()
            .map(|l| {
                let anchor = &self.graph.anchors[l.anchor as usize];
                let hreflang = anchor
                    .hreflang
                    .as_deref()
                    .map(|code| corpus::lang_index(code).map_or(code, |i| LANGS[i].tag));
                SimLink {
                    hreflang: hreflang.map(str::to_string),
                    ..SimLink::text(
                        self.graph.pages[l.dst as usize].url.clone(),
                        anchor.text.clone(),
                    )
                }
            })
            .collect();
        let host = &self.graph.host_of(id).name;
        let mut rng = Rng::new(&[hash(&page.url), 3]);
        render(&style(host, lang), lang, &mut rng, &links)
    }
}

impl Site for GraphSite {
    fn respond(&self, host: &str, path: &str) -> SimResponse {
        if path == "/robots.txt" {
            return self.robots(host);
        }
        match self.by_url.get(&format!("http://{host}{path}")) {
            Some(&id) => self.page(id),
            None => text_response(404, "not found"),
        }
    }
}

/// How `host` writes pages in corpus language `lang`: a legacy charset for
/// some hosts (declared in the header, in `<meta>`, wrongly, or not at all).
fn style(host: &str, lang: usize) -> PageStyle {
    let mut rng = Rng::new(&[hash(host), lang as u64, 4]);
    let legacy = LANGS[lang].legacy;
    let encoding = if !legacy.is_empty() && rng.chance(0.4) {
        *rng.pick(legacy)
    } else {
        encoding_rs::UTF_8
    };
    let declared = *rng.pick(&DECLARATIONS);
    PageStyle {
        encoding,
        declared,
        html_lang: rng.chance(0.6),
    }
}

/// FNV-1a: a stable hash of a name, for per-host and per-page choices.
fn hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}
