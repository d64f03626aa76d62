//! The calibrated web generator: a web graph whose shape follows Tamura,
//! Somboonviwat & Kitsuregawa's measurements of the Thai web (§2–3, Tables
//! 1, 4 and 5), for any target language of the synthetic web's corpus.
//!
//! Servers come in kinds: target servers (mostly target pages, a few in
//! English), target company sites with English pages beside target ones,
//! target sites fronted by a chain of English pages (whose target section
//! no other target page links to — the source of Tamura's long distances
//! between target pages), and multilingual sites with one top-level
//! directory per language; the rest are servers in other languages. Each
//! link is drawn as intra- or inter-server and as leading to a target page
//! or not, with the probabilities of Table 4; anchors are mostly in the
//! source page's language, and those to target pages often in the target
//! language (Chan & Yamana).
//!
//! This module holds the plan of a web (kinds of server, the generator's
//! state, a few bytes a page: no URL is kept) and the aims; `servers`
//! draws the servers, their hosts and pages, `links` the links and their
//! anchors, `output` streams the pages and links into a web directory.

mod links;
mod output;
mod servers;
mod shape;

pub use shape::Shape;

use super::rng::Rng;
use crate::error::Result;
use crate::webgraph::{Anchor, GraphHost, Topology, WebDir};

/// What the generator aims at (Tamura §2.3 and Table 4).
pub mod aims {
    /// Target pages among all pages (Table 1: 9.4%).
    pub const TARGET_PAGES: f64 = 0.094;
    /// Target pages outside the target ccTLDs (two thirds).
    pub const OFF_CCTLD: f64 = 0.667;
    /// Servers with at least one target page (4.6%).
    pub const TARGET_SERVERS: f64 = 0.046;
    /// Links from target pages that lead to target pages (71.8%) ...
    pub const FROM_TARGET: f64 = 0.718;
    /// ... and of their inter-server links (37.4%).
    pub const FROM_TARGET_INTER: f64 = 0.374;
    /// Links from non-target pages on target servers (21.5%; inter 35.3%).
    pub const FROM_OTHER_ON_TARGET_SERVER: f64 = 0.215;
    pub const FROM_OTHER_ON_TARGET_SERVER_INTER: f64 = 0.353;
    /// Links from non-target pages on other servers (0.2%; inter 0.3%).
    pub const FROM_OTHER_ELSEWHERE: f64 = 0.002;
    pub const FROM_OTHER_ELSEWHERE_INTER: f64 = 0.003;
    /// Share of the links of pages on target servers that leave the server
    /// (Table 4: about 30%), and of pages on other servers (about 50%).
    pub const INTER_ON_TARGET_SERVER: f64 = 0.30;
    pub const INTER_ELSEWHERE: f64 = 0.50;
}

/// Target pages behind an English front.
const HIDDEN_SECTION: u32 = 12;

/// The size, target and seed of a calibrated web.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CalibratedSpec {
    /// Index of the target language in `corpus::LANGS`.
    pub target: usize,
    pub pages: usize,
    pub seed: u64,
    /// Tamura's shares ([`Shape::TAMURA`]) or a shape of the family ...
    pub shape: Shape,
    /// ... drawn with this seed ([`Shape::drawn`]).
    pub shape_seed: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A server in another language.
    Other(usize),
    /// Target pages, one in twenty in English.
    Target,
    /// A target company site: half its pages in English.
    TargetWithEnglish,
    /// The home page and English pages `/en/1..=chain` in front of a
    /// target section of [`HIDDEN_SECTION`] pages.
    EnglishFronted(u32),
    /// `/<tag>/` directories for the target, English and one more language.
    Multilingual(usize),
}

struct Server {
    kind: Kind,
    first: u32,
    pages: u32,
}

/// What generating a web gave: its topology (for the statistics that walk
/// it), its seeds, and how many pages and links were written.
pub struct Generated {
    pub topology: Topology,
    pub seeds: Vec<String>,
    pub pages: usize,
    pub links: usize,
}

/// Generates a calibrated web graph into `web`'s pages and links, a batch
/// at a time; the same spec gives the same graph.
pub fn generate_into(spec: CalibratedSpec, web: &WebDir) -> Result<Generated> {
    Generator::new(spec).run(web)
}

struct Generator {
    spec: CalibratedSpec,
    rng: Rng,
    servers: Vec<Server>,
    hosts: Vec<GraphHost>,
    /// Server of each page.
    server_of: Vec<u32>,
    /// `corpus::LANGS` index of each page's language.
    page_lang: Vec<usize>,
    /// HTTP status of each page, and the page a redirect leads to
    /// (`UNREACHABLE` if none).
    status: Vec<u16>,
    redirect: Vec<u32>,
    content: Vec<bool>,
    /// Content pages of each server: `[other languages, target]`.
    server_content: Vec<[Vec<u32>; 2]>,
    /// Pages behind an English front (its chain and target section): no
    /// other server links to them.
    hidden: Vec<bool>,
    /// Home pages of sites behind an English front: target pages elsewhere
    /// link to some of them (a portal linking a company's English home).
    fronts: Vec<u32>,
    /// Target pages other servers may link to (not behind an English chain).
    visible_targets: Vec<u32>,
    anchor_pool: Vec<Anchor>,
}

impl Generator {
    fn new(spec: CalibratedSpec) -> Self {
        Generator {
            spec,
            rng: Rng::new(&[spec.seed, spec.target as u64, spec.pages as u64, 5]),
            servers: Vec::new(),
            hosts: Vec::new(),
            server_of: Vec::new(),
            status: Vec::new(),
            redirect: Vec::new(),
            page_lang: Vec::new(),
            content: Vec::new(),
            hidden: Vec::new(),
            server_content: Vec::new(),
            fronts: Vec::new(),
            visible_targets: Vec::new(),
            anchor_pool: Vec::new(),
        }
    }

    fn run(mut self, web: &WebDir) -> Result<Generated> {
        self.plan_servers();
        self.anchor_pool = links::anchor_pool();
        for s in 0..self.servers.len() {
            self.add_server_pages(s);
        }
        let on_cctld = self.target_servers_on_cctld();
        self.hosts = (0..self.servers.len())
            .map(|s| self.host(s, on_cctld[s]))
            .collect();
        let mut topology = Topology::default();
        let pages = self.write_pages(&web.pages(), &mut topology)?;
        let links = self.write_links(&web.links(), &mut topology)?;
        Ok(Generated {
            topology,
            seeds: self.seeds(),
            pages,
            links,
        })
    }

    fn target(&self) -> usize {
        self.spec.target
    }

    fn is_target(&self, page: u32) -> bool {
        self.content[page as usize] && self.page_lang[page as usize] == self.target()
    }

    /// Front pages (in the target language) of the three largest target
    /// servers, as Tamura seeded from three Thai servers (target pages of
    /// other target servers where a shape has none).
    fn seeds(&self) -> Vec<String> {
        let mut servers: Vec<&Server> = self
            .servers
            .iter()
            .filter(|s| matches!(s.kind, Kind::Target | Kind::TargetWithEnglish))
            .collect();
        servers.sort_by_key(|s| (std::cmp::Reverse(s.pages), s.first));
        let seeds: Vec<String> = servers
            .into_iter()
            .take(3)
            .map(|s| self.page_url(s.first).0)
            .collect();
        if !seeds.is_empty() {
            return seeds;
        }
        // A shape whose every target server is multilingual or fronted:
        // the first target page of up to three servers.
        let mut seen = std::collections::HashSet::new();
        (0..self.content.len() as u32)
            .filter(|&p| self.is_target(p) && seen.insert(self.server_of[p as usize]))
            .take(3)
            .map(|p| self.page_url(p).0)
            .collect()
    }
}

/// The expected share of target pages on a server of `kind`.
fn target_fraction(kind: Kind) -> f64 {
    match kind {
        Kind::Other(_) => 0.0,
        Kind::Target => 0.95,
        Kind::TargetWithEnglish => 0.5,
        Kind::EnglishFronted(chain) => HIDDEN_SECTION as f64 / (1 + chain + HIDDEN_SECTION) as f64,
        Kind::Multilingual(_) => 1.0 / 3.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::webgraph::Graph;
    use crate::websim::corpus;

    /// A calibrated web of `pages` in `lang` written under `dir/name`, read
    /// back, and what generating it gave.
    fn generated(
        lang: &str,
        pages: usize,
        dir: &std::path::Path,
        name: &str,
    ) -> (Graph, Generated) {
        let spec = CalibratedSpec {
            target: corpus::lang_index(lang).unwrap(),
            pages,
            seed: 3,
            shape: Shape::TAMURA,
            shape_seed: None,
        };
        let web = WebDir::create(dir.join(name)).unwrap();
        let generated = generate_into(spec, &web).unwrap();
        (web.read().unwrap(), generated)
    }

    #[test]
    fn generation_is_deterministic() {
        let tmp = tempfile::tempdir().unwrap();
        let (a, generated_a) = generated("tha", 2_000, tmp.path(), "a");
        let (b, generated_b) = generated("tha", 2_000, tmp.path(), "b");
        assert_eq!(a.pages, b.pages);
        assert_eq!(generated_a.seeds, generated_b.seeds);
        assert_eq!(a.link_count(), b.link_count());
        assert_eq!(generated_a.links, a.link_count());
        assert_eq!(generated_a.seeds.len(), 3);
        // The topology built while writing is the written graph's.
        assert_eq!(generated_a.topology, a.topology("tha"));
    }

    #[test]
    fn page_urls_have_the_parts_a_crawl_gives_them() {
        let tmp = tempfile::tempdir().unwrap();
        let (graph, _) = generated("jpn", 3_000, tmp.path(), "web");
        let mut dirs = std::collections::HashSet::new();
        for page in &graph.pages {
            let url = crate::urls::normalize(&page.url).unwrap();
            assert_eq!(url.as_str(), page.url, "generated URLs are normalized");
            let parts = crate::urls::parts(&url);
            assert_eq!(parts.dir, page.dir);
            assert_eq!(parts.host, graph.hosts[page.host as usize].name);
            dirs.insert(page.dir.clone());
        }
        assert!(dirs.iter().any(|d| d.ends_with("/p/")));
        assert!(
            dirs.iter().any(|d| d.matches('/').count() == 1),
            "home pages"
        );
    }

    #[test]
    fn a_shape_without_plain_target_servers_still_has_seeds_among_target_pages() {
        // every target server multilingual or behind an English front
        let shape = Shape {
            multilingual: 0.5,
            fronted: 0.5,
            ..Shape::drawn(10)
        };
        let tmp = tempfile::tempdir().unwrap();
        let spec = CalibratedSpec {
            target: corpus::lang_index("jpn").unwrap(),
            pages: 3_000,
            seed: 3,
            shape,
            shape_seed: None,
        };
        let web = WebDir::create(tmp.path().join("web")).unwrap();
        let generated = generate_into(spec, &web).unwrap();
        let graph = web.read().unwrap();
        assert!(!generated.seeds.is_empty());
        for seed in &generated.seeds {
            let page = graph.pages.iter().find(|p| &p.url == seed).unwrap();
            assert_eq!(
                page.lang.map(|l| graph.langs[l as usize].as_str()),
                Some("jpn")
            );
        }
    }
}
