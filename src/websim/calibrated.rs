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

use std::collections::HashMap;

use super::corpus::{self, GENERIC_TLDS, LANGS};
use super::generator::Rng;
use super::graph::{Anchor, Graph, GraphHost, GraphLink, GraphPage};
use crate::lang::anchor_lang;

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

/// Pages per server on average, over all servers.
const MEAN_SERVER_PAGES: usize = 25;
/// Anchor texts drawn per language.
const ANCHORS_PER_LANG: usize = 400;
/// Longest chain of English pages in front of a target section (Tamura
/// found target pages up to 10 hops from the nearest other one).
const MAX_CHAIN: u32 = 8;
/// The share of all links from non-target pages on target servers that the
/// last page of each English chain adds by listing its target section;
/// the drawn links leave it out, so that the total comes to the aim.
const CHAIN_END_TARGET_LINKS: f64 = 0.03;
/// Share of intra-server links drawn to pages that are not content.
const BROKEN_LINKS: f64 = 0.03;
/// Target pages behind an English front.
/// Of the links from target pages to other servers' non-target pages, the
/// share that go to the English home page of a site with a target section.
const FRONT_LINKS: f64 = 0.05;
const HIDDEN_SECTION: u32 = 12;

/// The size, target and seed of a calibrated web.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CalibratedSpec {
    /// Index of the target language in `corpus::LANGS`.
    pub target: usize,
    pub pages: usize,
    pub seed: u64,
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

/// Generates a calibrated web graph; the same spec gives the same graph.
pub fn generate(spec: CalibratedSpec) -> (Graph, Vec<String>) {
    Generator::new(spec).run()
}

struct Generator {
    spec: CalibratedSpec,
    rng: Rng,
    servers: Vec<Server>,
    /// Server of each page.
    server_of: Vec<u32>,
    /// `corpus::LANGS` index of each page's language.
    page_lang: Vec<usize>,
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
            server_of: Vec::new(),
            page_lang: Vec::new(),
            content: Vec::new(),
            hidden: Vec::new(),
            server_content: Vec::new(),
            fronts: Vec::new(),
            visible_targets: Vec::new(),
            anchor_pool: Vec::new(),
        }
    }

    fn run(mut self) -> (Graph, Vec<String>) {
        self.plan_servers();
        self.anchor_pool = anchor_pool();
        let on_cctld = self.target_servers_on_cctld();
        let hosts: Vec<GraphHost> = (0..self.servers.len())
            .map(|s| self.host(s, on_cctld[s]))
            .collect();
        let mut pages = Vec::with_capacity(self.spec.pages);
        for (s, host) in hosts.iter().enumerate() {
            self.add_server_pages(s, host, &mut pages);
        }
        let outlinks: Vec<Vec<GraphLink>> =
            (0..pages.len() as u32).map(|p| self.outlinks(p)).collect();
        let seeds = self.seeds(&pages);
        let langs = LANGS.iter().map(|l| l.code.to_string()).collect();
        let anchors = std::mem::take(&mut self.anchor_pool);
        (Graph::new(hosts, pages, langs, anchors, outlinks), seeds)
    }

    fn target(&self) -> usize {
        self.spec.target
    }

    /// Chooses each server's kind and size so that target pages come to
    /// about [`aims::TARGET_PAGES`] of all.
    fn plan_servers(&mut self) {
        let total = self.spec.pages.max(40);
        let count = (total / MEAN_SERVER_PAGES).max(10);
        let target_count = ((count as f64 * aims::TARGET_SERVERS).round() as usize).max(3);
        let kinds: Vec<Kind> = (0..count)
            .map(|s| {
                if s < target_count {
                    self.target_kind()
                } else {
                    Kind::Other(self.other_lang())
                }
            })
            .collect();
        // Sizes are exponential; the target servers' are scaled so that
        // their target pages come to TARGET_PAGES of all, the others' to
        // the remaining pages.
        let raw: Vec<f64> = kinds.iter().map(|_| self.exponential()).collect();
        let (mut target_weight, mut other_weight) = (0.0, 0.0);
        let (mut fixed_target, mut fixed_pages) = (0.0, 0.0);
        for (&kind, &r) in kinds.iter().zip(&raw) {
            match kind {
                Kind::Other(_) => other_weight += r,
                Kind::EnglishFronted(chain) => {
                    fixed_target += HIDDEN_SECTION as f64;
                    fixed_pages += (1 + chain + HIDDEN_SECTION) as f64;
                }
                _ => target_weight += r * target_fraction(kind),
            }
        }
        let wanted = (aims::TARGET_PAGES * total as f64 - fixed_target).max(0.0);
        let target_scale = wanted / target_weight.max(1e-9);
        let target_pages: f64 = kinds
            .iter()
            .zip(&raw)
            .filter(|(k, _)| !matches!(k, Kind::Other(_) | Kind::EnglishFronted(_)))
            .map(|(_, r)| r * target_scale)
            .sum();
        let other_scale =
            (total as f64 - target_pages - fixed_pages).max(0.0) / other_weight.max(1e-9);
        for (kind, r) in kinds.into_iter().zip(raw) {
            let pages = match kind {
                Kind::Other(_) => ((r * other_scale).round() as u32).max(1),
                Kind::EnglishFronted(chain) => 1 + chain + HIDDEN_SECTION,
                _ => ((r * target_scale).round() as u32).max(4),
            };
            self.servers.push(Server {
                kind,
                first: 0,
                pages,
            });
        }
        // Shuffle target servers among the rest, so host indexes say nothing.
        for i in (1..self.servers.len()).rev() {
            let j = self.rng.below(i + 1);
            self.servers.swap(i, j);
        }
        let mut first = 0;
        for server in &mut self.servers {
            server.first = first;
            first += server.pages;
        }
    }

    fn target_kind(&mut self) -> Kind {
        match self.rng.below(100) {
            0..=49 => Kind::Target,
            50..=69 => Kind::TargetWithEnglish,
            70..=89 => {
                // Chains of 0 to 8 English pages past the home page, each
                // length 0.7 times as likely as the one before.
                let mut chain = 0;
                while chain < MAX_CHAIN && self.rng.chance(0.7) {
                    chain += 1;
                }
                Kind::EnglishFronted(chain)
            }
            _ => Kind::Multilingual(self.other_lang()),
        }
    }

    /// A language other than the target: English most often.
    fn other_lang(&mut self) -> usize {
        let english = corpus::lang_index("eng").expect("English is in the corpus");
        if self.target() != english && self.rng.chance(0.55) {
            return english;
        }
        loop {
            let lang = self.rng.below(LANGS.len());
            if lang != self.target() {
                return lang;
            }
        }
    }

    fn exponential(&mut self) -> f64 {
        let u = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        -(1.0 - u).max(1e-12).ln()
    }

    /// Which target servers sit under the target's ccTLDs: in turn, as long
    /// as those hold less than their share of the target pages so far.
    fn target_servers_on_cctld(&self) -> Vec<bool> {
        let (mut seen, mut under) = (0.0, 0.0);
        self.servers
            .iter()
            .map(|server| {
                let pages = server.pages as f64 * target_fraction(server.kind);
                if pages == 0.0 {
                    return false;
                }
                let on = under < (1.0 - aims::OFF_CCTLD) * (seen + pages);
                seen += pages;
                if on {
                    under += pages;
                }
                on
            })
            .collect()
    }

    fn host(&mut self, s: usize, on_cctld: bool) -> GraphHost {
        let target = &LANGS[self.target()];
        let tld = match self.servers[s].kind {
            Kind::Other(lang) => {
                let cctlds = LANGS[lang].cctlds;
                if self.rng.chance(0.01) {
                    *self.rng.pick(target.cctlds)
                } else if !cctlds.is_empty() && self.rng.chance(0.5) {
                    *self.rng.pick(cctlds)
                } else {
                    *self.rng.pick(GENERIC_TLDS)
                }
            }
            _ if on_cctld => *self.rng.pick(target.cctlds),
            _ => *self.rng.pick(GENERIC_TLDS),
        };
        let www = if self.rng.chance(0.5) { "www." } else { "" };
        let stem = NAMES[self.rng.below(NAMES.len())];
        let name = format!("{www}{stem}{s}.{tld}");
        let domain = psl::domain_str(&name).unwrap_or(&name).to_string();
        GraphHost {
            tld: psl::suffix_str(&name).unwrap_or(tld).to_string(),
            domain,
            name,
        }
    }

    fn add_server_pages(&mut self, s: usize, host: &GraphHost, pages: &mut Vec<GraphPage>) {
        let server = &self.servers[s];
        let (kind, first, count) = (server.kind, server.first, server.pages);
        let mut rng = Rng::new(&[self.spec.seed, s as u64, 7]);
        let robots = rng.chance(0.3);
        let langs: Vec<usize> = (0..count).map(|j| self.lang_of(kind, j)).collect();
        // Statuses first: a redirect points to a page that answers 200.
        let fixed = |j: u32| j == 0 || matches!(kind, Kind::EnglishFronted(c) if j <= c + 1);
        let statuses: Vec<u16> = (0..count)
            .map(|j| match (fixed(j), rng.below(100)) {
                (true, _) => 200,
                (false, 0..=1) => 404,
                (false, 2) => 500,
                (false, 3..=4) => 301,
                _ => 200,
            })
            .collect();
        for j in 0..count {
            let id = first + j;
            let private = robots && j % 10 == 7 && statuses[j as usize] == 200 && !fixed(j);
            let path = self.path(kind, j, langs[j as usize], private);
            let status = statuses[j as usize];
            let redirect_to = (status == 301).then(|| {
                let k = (1..count)
                    .map(|step| (j + step) % count)
                    .find(|&k| statuses[k as usize] == 200)
                    .unwrap_or(0);
                first + k
            });
            let content = status == 200 && !private;
            let url = format!("http://{}{path}", host.name);
            let dir = crate::urls::parts(&url::Url::parse(&url).expect("generated URLs parse")).dir;
            pages.push(GraphPage {
                url,
                host: s as u32,
                dir,
                lang: (status == 200).then_some(langs[j as usize] as u16),
                status: Some(status),
                redirect_to,
                robots_allowed: !private,
            });
            self.server_of.push(s as u32);
            self.page_lang.push(langs[j as usize]);
            self.content.push(content);
            if self.server_content.len() <= s {
                self.server_content.resize_with(s + 1, Default::default);
            }
            if content {
                let target = usize::from(langs[j as usize] == self.target());
                self.server_content[s][target].push(id);
            }
            let hidden =
                matches!(kind, Kind::EnglishFronted(c) if j > 0 && j <= c + HIDDEN_SECTION);
            self.hidden.push(hidden);
            if j == 0 && matches!(kind, Kind::EnglishFronted(_)) {
                self.fronts.push(id);
            }
            if content && langs[j as usize] == self.target() && !hidden {
                self.visible_targets.push(id);
            }
        }
    }

    fn lang_of(&self, kind: Kind, j: u32) -> usize {
        let english = corpus::lang_index("eng").unwrap_or(0);
        let target = self.target();
        match kind {
            Kind::Other(lang) => lang,
            Kind::Target if j % 20 == 19 => english,
            Kind::Target => target,
            Kind::TargetWithEnglish if j % 2 == 1 => english,
            Kind::TargetWithEnglish => target,
            Kind::EnglishFronted(chain) if j > chain => target,
            Kind::EnglishFronted(_) => english,
            Kind::Multilingual(_) if j == 0 || j % 3 == 2 => english,
            Kind::Multilingual(_) if j % 3 == 1 => target,
            Kind::Multilingual(other) => other,
        }
    }

    fn path(&self, kind: Kind, j: u32, lang: usize, private: bool) -> String {
        if j == 0 {
            return "/".into();
        }
        if private {
            return format!("/private/{j}.html");
        }
        match kind {
            Kind::EnglishFronted(_) | Kind::Multilingual(_) => {
                format!("/{}/{j}.html", LANGS[lang].tag)
            }
            _ => format!("/p/{j}.html"),
        }
    }

    fn is_target(&self, page: u32) -> bool {
        self.content[page as usize] && self.page_lang[page as usize] == self.target()
    }

    /// The links of page `p`: none unless it is content.
    fn outlinks(&mut self, p: u32) -> Vec<GraphLink> {
        if !self.content[p as usize] {
            return Vec::new();
        }
        let s = self.server_of[p as usize] as usize;
        let (kind, first) = (self.servers[s].kind, self.servers[s].first);
        let j = p - first;
        let mut rng = Rng::new(&[self.spec.seed, p as u64, 11]);
        let mut dsts: Vec<u32> = Vec::new();
        if let Kind::EnglishFronted(chain) = kind {
            if j < chain {
                dsts.push(p + 1);
            } else if j == chain {
                dsts.extend((1..=HIDDEN_SECTION).map(|k| p + k));
            }
        }
        let on_target_server = !matches!(kind, Kind::Other(_));
        let from_target = self.is_target(p);
        let inter_chance = if on_target_server {
            aims::INTER_ON_TARGET_SERVER
        } else {
            aims::INTER_ELSEWHERE
        };
        for _ in 6..18 + rng.below(2) {
            let inter = rng.chance(inter_chance);
            let chance = target_link_chance(from_target, on_target_server, inter);
            let want_target = rng.chance(chance);
            let dst = if inter && from_target && !want_target && rng.chance(FRONT_LINKS) {
                self.fronts
                    .get(rng.below(self.fronts.len().max(1)))
                    .copied()
            } else if inter {
                self.inter_target(s, want_target, &mut rng)
            } else {
                self.intra_target(s, j, want_target, &mut rng)
            };
            if let Some(dst) = dst.filter(|&d| d != p && !dsts.contains(&d)) {
                dsts.push(dst);
            }
        }
        dsts.into_iter()
            .map(|dst| GraphLink {
                dst,
                anchor: self.anchor_for(p, dst, &mut rng),
            })
            .collect()
    }

    /// A page of server `s` (not the caller): target or not as wanted, if
    /// the server has one, else on another server; now and then a page
    /// that is not content (a broken link, say).
    /// Behind an English front, the chain links only backwards and the
    /// target pages only to the home page; the chain's last page lists the
    /// target pages, so none is nearer to another target page than the
    /// chain is long.
    fn intra_target(&self, s: usize, j: u32, want_target: bool, rng: &mut Rng) -> Option<u32> {
        let server = &self.servers[s];
        if let Kind::EnglishFronted(chain) = server.kind {
            return Some(if j <= chain {
                server.first + rng.below(j as usize + 1) as u32
            } else {
                server.first
            });
        }
        if server.pages < 2 {
            return None;
        }
        if rng.chance(BROKEN_LINKS) {
            // A link to a page that is not content: gone, failing, moved, private.
            return (0..8)
                .map(|_| server.first + rng.below(server.pages as usize) as u32)
                .find(|&page| !self.content[page as usize]);
        }
        let wanted = &self.server_content[s][usize::from(want_target)];
        if wanted.is_empty() {
            // None of that kind here: the link leaves the server.
            return self.inter_target(s, want_target, rng);
        }
        Some(wanted[rng.below(wanted.len())])
    }

    /// A page on another server: a visible target page, or a content page
    /// in another language.
    fn inter_target(&self, s: usize, want_target: bool, rng: &mut Rng) -> Option<u32> {
        let total = self.server_of.len();
        for _ in 0..16 {
            let page = if want_target && !self.visible_targets.is_empty() {
                self.visible_targets[rng.below(self.visible_targets.len())]
            } else {
                rng.below(total) as u32
            };
            let elsewhere = self.server_of[page as usize] as usize != s;
            let open = self.content[page as usize] && !self.hidden[page as usize];
            if elsewhere && open && self.is_target(page) == want_target {
                return Some(page);
            }
        }
        None
    }

    /// The anchor of a link: in the source page's language mostly; links to
    /// target pages often carry a target-language anchor.
    fn anchor_for(&self, src: u32, dst: u32, rng: &mut Rng) -> u32 {
        let target = self.target();
        let src_lang = self.page_lang[src as usize];
        let dst_lang = self.content[dst as usize].then(|| self.page_lang[dst as usize]);
        let lang = if src_lang == target {
            if rng.chance(0.9) {
                target
            } else {
                dst_lang.unwrap_or(src_lang)
            }
        } else if dst_lang == Some(target) {
            if rng.chance(0.5) {
                target
            } else {
                src_lang
            }
        } else if rng.chance(0.8) {
            src_lang
        } else {
            dst_lang.unwrap_or(src_lang)
        };
        (lang * ANCHORS_PER_LANG + rng.below(ANCHORS_PER_LANG)) as u32
    }

    /// Front pages (in the target language) of the three largest target
    /// servers, as Tamura seeded from three Thai servers.
    fn seeds(&self, pages: &[GraphPage]) -> Vec<String> {
        let mut servers: Vec<&Server> = self
            .servers
            .iter()
            .filter(|s| matches!(s.kind, Kind::Target | Kind::TargetWithEnglish))
            .collect();
        servers.sort_by_key(|s| (std::cmp::Reverse(s.pages), s.first));
        servers
            .into_iter()
            .take(3)
            .map(|s| pages[s.first as usize].url.clone())
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

/// The chance that a link leads to a target page, chosen so that the totals
/// of Table 4 come out: the intra-server share is what the inter-server
/// share leaves of the row's total.
fn target_link_chance(from_target: bool, on_target_server: bool, inter: bool) -> f64 {
    let (total, inter_share, inter_rate) = if from_target {
        (
            aims::FROM_TARGET,
            aims::INTER_ON_TARGET_SERVER,
            aims::FROM_TARGET_INTER,
        )
    } else if on_target_server {
        (
            aims::FROM_OTHER_ON_TARGET_SERVER - CHAIN_END_TARGET_LINKS,
            aims::INTER_ON_TARGET_SERVER,
            aims::FROM_OTHER_ON_TARGET_SERVER_INTER,
        )
    } else {
        return if inter {
            aims::FROM_OTHER_ELSEWHERE_INTER
        } else {
            0.0
        };
    };
    if inter {
        inter_rate
    } else {
        ((total - inter_share * inter_rate) / (1.0 - inter_share)).clamp(0.0, 1.0)
    }
}

/// [`ANCHORS_PER_LANG`] anchors per corpus language — runs of 2 to 5 words,
/// or 2 to 8 characters for unspaced scripts — with the language
/// `lang::anchor_lang` gives each.
fn anchor_pool() -> Vec<Anchor> {
    let mut seen: HashMap<String, String> = HashMap::new();
    let mut pool = Vec::with_capacity(LANGS.len() * ANCHORS_PER_LANG);
    for (lang, profile) in LANGS.iter().enumerate() {
        let sentences = corpus::sentences(lang);
        for k in 0..ANCHORS_PER_LANG {
            let sentence = sentences[(k * 7919) % sentences.len()];
            let size = if profile.unspaced {
                1 + k % 4
            } else {
                2 + k % 4
            };
            let words: Vec<&str> = sentence.split_whitespace().collect();
            let text = if profile.unspaced {
                corpus::snippet(lang, sentence, size)
            } else {
                let start = (k * 31) % words.len().saturating_sub(size).max(1);
                words[start..(start + size).min(words.len())].join(" ")
            };
            let detected = seen
                .entry(text.clone())
                .or_insert_with(|| anchor_lang(&text))
                .clone();
            pool.push(Anchor {
                text,
                lang: detected,
            });
        }
    }
    pool
}

const NAMES: &[&str] = &[
    "siam", "chao", "sakura", "hana", "hanok", "seoul", "lotus", "ganga", "berg", "fleur", "volga",
    "river", "stone", "cloud", "bridge", "garden", "harbor", "market", "forest", "valley",
    "island", "meadow", "temple", "orchid", "monsoon", "delta", "summit", "canal",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_4_rows_add_up() {
        let total = |from_target, on_target_server| {
            let inter = aims::INTER_ON_TARGET_SERVER;
            inter * target_link_chance(from_target, on_target_server, true)
                + (1.0 - inter) * target_link_chance(from_target, on_target_server, false)
        };
        assert!((total(true, true) - aims::FROM_TARGET).abs() < 1e-9);
        let drawn = aims::FROM_OTHER_ON_TARGET_SERVER - CHAIN_END_TARGET_LINKS;
        assert!((total(false, true) - drawn).abs() < 1e-9);
    }

    #[test]
    fn generation_is_deterministic() {
        let spec = CalibratedSpec {
            target: corpus::lang_index("tha").unwrap(),
            pages: 2_000,
            seed: 3,
        };
        let (a, seeds_a) = generate(spec);
        let (b, seeds_b) = generate(spec);
        assert_eq!(a.pages, b.pages);
        assert_eq!(seeds_a, seeds_b);
        assert_eq!(a.link_count(), b.link_count());
        assert_eq!(seeds_a.len(), 3);
    }
}
