//! The deterministic web graph: hosts with a language profile (some with a
//! second language under a top-level directory), pages whose text comes from
//! the corpus, links that mostly stay within a language, legacy charsets,
//! robots.txt, redirects, errors, a calendar-style crawler trap, and the
//! real web's awkward markup (`shapes`: image links, framesets, refresh
//! pages, image maps, hreflang alternates, junk). Every answer is a pure
//! function of the seed, the host and the path.

use encoding_rs::{Encoding, UTF_8};

use super::corpus::{self, GENERIC_TLDS, LANGS};
use super::render::{
    redirect, render_with, text_response, Extras, PageStyle, SimLink, DECLARATIONS,
};
pub use super::render::{Declared, SimResponse};
use super::rng::Rng;
use super::server::SimRequest;
use super::shapes::{self, Front, HostShapes};
use super::traps::TrapPage;

/// The size and seed of a synthetic web.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WebSpec {
    pub seed: u64,
    pub hosts: usize,
    /// Pages in all, spread unevenly over the hosts.
    pub pages: usize,
    /// Every page carries its site's menu and footer (the same on every
    /// page of a host), and the menu links pages with `?from=menu`: the
    /// same page under a second URL (see `shapes::chrome`).
    pub chrome: bool,
    /// Some sites list pages in sitemaps that no page links to, and some
    /// negotiate the language (see `discovery`).
    pub discovery: bool,
    /// Some pages change between visits, and hosts answer conditional
    /// requests (see `revisions`).
    pub changes: bool,
}

impl Default for WebSpec {
    fn default() -> Self {
        WebSpec {
            seed: 1,
            hosts: 300,
            pages: 6000,
            chrome: false,
            discovery: false,
            changes: false,
        }
    }
}

/// What a host's `/robots.txt` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RobotsKind {
    DisallowPrivate,
    AllowAll,
    Missing,
    Unavailable,
}

#[derive(Debug, Clone)]
pub struct Host {
    pub name: String,
    /// Index into `corpus::LANGS`.
    pub lang: usize,
    /// A second language, served under `/<tag>/`.
    pub second: Option<usize>,
    pub pages: u32,
    pub encoding: &'static Encoding,
    pub declared: Declared,
    pub robots: RobotsKind,
    pub html_lang: bool,
    /// Answers 500 for some pages.
    pub flaky: bool,
    /// Serves an endless `/cal/N.html` chain.
    pub trap: bool,
    /// The real web's shapes it shows (see `shapes`).
    pub shapes: HostShapes,
}

/// A generated web.
#[derive(Debug, Clone)]
pub struct Web {
    pub spec: WebSpec,
    pub hosts: Vec<Host>,
    by_lang: Vec<Vec<usize>>,
}

const NAMES: &[&str] = &[
    "sakura", "hana", "umi", "yama", "kawa", "sora", "mori", "tori", "nami", "kaze", "siam",
    "chao", "hanok", "seoul", "berg", "fleur", "volga", "ganga", "lotus", "river", "stone",
    "cloud", "bridge", "garden", "harbor", "market", "forest", "valley", "island", "meadow",
];

impl Web {
    pub fn generate(spec: WebSpec) -> Web {
        let hosts: Vec<Host> = (0..spec.hosts).map(|i| make_host(spec, i)).collect();
        let mut by_lang = vec![Vec::new(); LANGS.len()];
        for (i, host) in hosts.iter().enumerate() {
            by_lang[host.lang].push(i);
            if let Some(second) = host.second {
                by_lang[second].push(i);
            }
        }
        Web {
            spec,
            hosts,
            by_lang,
        }
    }

    pub fn host(&self, name: &str) -> Option<(usize, &Host)> {
        let name = name.split(':').next().unwrap_or(name);
        let index = name
            .trim_start_matches("www.")
            .split('.')
            .next()
            .map(|label| label.trim_start_matches(|c: char| c.is_ascii_alphabetic()))
            .and_then(|digits| digits.parse::<usize>().ok())?;
        self.hosts
            .get(index)
            .filter(|h| h.name == name)
            .map(|h| (index, h))
    }

    /// The front pages of hosts in language `code`, with text: good seeds.
    pub fn seeds(&self, code: &str, n: usize) -> Vec<String> {
        let Some(lang) = corpus::lang_index(code) else {
            return Vec::new();
        };
        self.by_lang[lang]
            .iter()
            .filter(|&&h| {
                self.hosts[h].lang == lang
                    && self.hosts[h].robots != RobotsKind::Unavailable
                    && self.hosts[h].shapes.front == Front::Page
            })
            .take(n)
            .map(|&h| format!("http://{}/", self.hosts[h].name))
            .collect()
    }

    /// The language of page `j` of host `h` (ISO 639-3): of its text, or,
    /// for a page without text, of the host's pages it leads to.
    pub fn page_lang(&self, h: usize, j: u32) -> &'static str {
        LANGS[self.page_lang_index(h, j)].code
    }

    pub(super) fn page_lang_index(&self, h: usize, j: u32) -> usize {
        let host = &self.hosts[h];
        match host.second {
            Some(second) if j % 3 == 1 => second,
            _ => host.lang,
        }
    }

    /// The first `limit` page URLs, host by host, that robots.txt lets a
    /// crawler fetch (no `/private/` page, no host whose robots.txt is
    /// unavailable): a fetch list for benchmarks.
    pub fn fetchable_urls(&self, limit: usize) -> Vec<String> {
        let mut urls = Vec::with_capacity(limit);
        for (h, host) in self.hosts.iter().enumerate() {
            if host.robots == RobotsKind::Unavailable {
                continue;
            }
            for j in 0..host.pages {
                let path = self.page_path(h, j);
                if !path.starts_with("/private/") {
                    urls.push(format!("http://{}{path}", host.name));
                }
            }
        }
        urls.truncate(limit);
        urls
    }

    /// The path of page `j` of host `h`.
    pub fn page_path(&self, h: usize, j: u32) -> String {
        let host = &self.hosts[h];
        if j == 0 {
            return "/".into();
        }
        if host.robots == RobotsKind::DisallowPrivate && j % 10 == 7 {
            return format!("/private/{j}.html");
        }
        match host.second {
            Some(second) if j % 3 == 1 => format!("/{}/p/{j}.html", LANGS[second].tag),
            _ => format!("/p/{j}.html"),
        }
    }

    /// The ground truth for a URL: the language of its text if it is a page
    /// that answers 200 with text; `None` for anything else, including the
    /// pages without visible text (see [`Web::no_text`]).
    pub fn truth(&self, url: &str) -> Option<&'static str> {
        if let Some(hidden) = self.hidden_truth(url) {
            return hidden;
        }
        let (h, route) = self.locate(url)?;
        match route {
            Route::Page(j) if self.page_status(h, j) == 200 && !self.textless(h, j) => {
                Some(self.page_lang(h, j))
            }
            Route::Trap(_) => Some(LANGS[self.hosts[h].lang].code),
            _ => None,
        }
    }

    /// Whether `url` answers 200 with a page that has no visible text: a
    /// frameset or refresh front page, or a `/moved/N.html` refresh page.
    /// A parser should give it no language.
    pub fn no_text(&self, url: &str) -> bool {
        match self.locate(url) {
            Some((h, Route::Page(j))) => self.page_status(h, j) == 200 && self.textless(h, j),
            Some((_, Route::Moved(_))) => true,
            _ => false,
        }
    }

    fn locate(&self, url: &str) -> Option<(usize, Route)> {
        let url = url::Url::parse(url).ok()?;
        let (h, _) = self.host(url.host_str()?)?;
        Some((h, self.route(h, url.path())))
    }

    fn page_status(&self, h: usize, j: u32) -> u16 {
        if self.hosts[h].flaky && j % 13 == 5 {
            500
        } else {
            200
        }
    }

    /// Answers `GET http://<host><path>` asked with `request`'s headers:
    /// its Accept-Language (which only a negotiating site reads, see
    /// `discovery`) and validators (with `--changes`, see `revisions`).
    pub fn respond_to(&self, host: &str, path: &str, request: &SimRequest) -> SimResponse {
        let Some((h, _)) = self.host(host) else {
            return self.respond(host, path);
        };
        let accept_language = request.accept_language.as_deref();
        let answer = self
            .discovery_answer(h, path, accept_language)
            .unwrap_or_else(|| self.respond(host, path));
        if self.spec.changes {
            return self.revised(h, path, request, answer);
        }
        answer
    }

    /// Answers `GET http://<host><path>`.
    pub fn respond(&self, host: &str, path: &str) -> SimResponse {
        let Some((h, host)) = self.host(host) else {
            return text_response(502, "unknown host");
        };
        match self.route(h, path) {
            Route::Robots => self.robots(host),
            Route::Page(j) if self.page_status(h, j) != 200 => text_response(500, "internal error"),
            Route::Page(j) if self.textless(h, j) => self.front_page(h),
            Route::Page(j) => self.page(h, j),
            Route::Moved(k) => self.moved_page(h, k),
            Route::Trap(n) => self.trap_page(h, n),
            Route::Redirect(j) => redirect(self.page_path(h, j)),
            Route::NotFound => text_response(404, "not found"),
        }
    }

    /// The page `path` of host `h` names, if it answers 200 with text.
    pub(super) fn text_page_at(&self, h: usize, path: &str) -> Option<u32> {
        match self.route(h, path) {
            Route::Page(j) if self.page_status(h, j) == 200 && !self.textless(h, j) => Some(j),
            _ => None,
        }
    }

    fn route(&self, h: usize, path: &str) -> Route {
        let host = &self.hosts[h];
        let number = |prefix: &str| {
            path.strip_prefix(prefix)
                .and_then(|rest| rest.strip_suffix(".html").or(Some(rest)))
                .and_then(|n| n.parse::<u32>().ok())
        };
        if path == "/robots.txt" {
            return Route::Robots;
        }
        if let Some(j) = number("/old/").filter(|&j| j < host.pages) {
            return Route::Redirect(j);
        }
        if let Some(j) = number("/moved/").filter(|&j| j < host.pages) {
            return Route::Moved(j);
        }
        if let Some(trap) = TrapPage::at(path).filter(|_| host.trap) {
            return Route::Trap(trap);
        }
        let j = if path == "/" {
            Some(0)
        } else {
            path.rsplit('/')
                .next()
                .and_then(|f| f.strip_suffix(".html"))
                .and_then(|n| n.parse().ok())
        };
        match j {
            Some(j) if j < host.pages && self.page_path(h, j) == path => Route::Page(j),
            _ => Route::NotFound,
        }
    }

    fn robots(&self, host: &Host) -> SimResponse {
        match host.robots {
            RobotsKind::DisallowPrivate => {
                text_response(200, "User-agent: *\nDisallow: /private/\n")
            }
            RobotsKind::AllowAll => text_response(200, "User-agent: *\nDisallow:\n"),
            RobotsKind::Missing => text_response(404, "not found"),
            RobotsKind::Unavailable => text_response(503, "unavailable"),
        }
    }

    fn page(&self, h: usize, j: u32) -> SimResponse {
        self.page_in(h, j, self.page_lang_index(h, j))
    }

    /// Page `j` of host `h` written in corpus language `lang`.
    pub(super) fn page_in(&self, h: usize, j: u32, lang: usize) -> SimResponse {
        let mut rng = Rng::new(&[self.spec.seed, h as u64, j as u64, 1]);
        let mut links = self.links(h, j, &mut rng);
        let extras = self.dress(h, j, &mut links);
        self.render(h, lang, &mut rng, &links, extras)
    }

    fn trap_page(&self, h: usize, trap: TrapPage) -> SimResponse {
        let mut rng = Rng::new(&[self.spec.seed, h as u64, trap.key(), 2]);
        let lang = self.hosts[h].lang;
        self.render(h, lang, &mut rng, &trap.links(), Extras::default())
    }

    /// The outlinks of page `j` of host `h`.
    fn links(&self, h: usize, j: u32, rng: &mut Rng) -> Vec<SimLink> {
        let host = &self.hosts[h];
        let lang = self.page_lang_index(h, j);
        let mut links = Vec::new();
        if j == self.home(h) {
            // The front page lists the host's first pages, so a host can be explored.
            links.extend((1..host.pages.min(16)).map(|k| self.link_to(h, k, lang, rng)));
        }
        for _ in 0..4 + rng.below(8) {
            let (dh, dj) = self.pick_target(h, lang, rng);
            links.push(self.link_to(dh, dj, lang, rng));
        }
        if rng.chance(0.15) {
            let k = rng.below(host.pages as usize) as u32;
            links.push(SimLink::text(format!("/old/{k}"), self.anchor(lang, rng)));
        }
        if rng.chance(0.05) {
            let href = format!("/missing/{}.html", rng.below(1000));
            links.push(SimLink::text(href, self.anchor(lang, rng)));
        }
        if host.trap && rng.chance(0.3) {
            let href = if rng.chance(0.5) {
                super::traps::calendar_entry(rng.below(24) as u32)
            } else {
                "/loop/".to_string()
            };
            links.push(SimLink::text(href, "calendar"));
        }
        links
    }

    /// A link target: mostly the same host or the same language.
    pub(super) fn pick_target(&self, h: usize, lang: usize, rng: &mut Rng) -> (usize, u32) {
        let roll = rng.below(100);
        let dh = if roll < 45 {
            h
        } else if roll < 82 {
            *rng.pick(&self.by_lang[lang])
        } else {
            rng.below(self.hosts.len())
        };
        (dh, rng.below(self.hosts[dh].pages as usize) as u32)
    }

    fn link_to(&self, dh: usize, dj: u32, src_lang: usize, rng: &mut Rng) -> SimLink {
        let dst_lang = self.page_lang_index(dh, dj);
        // Some cross-language links carry an anchor in the source's language.
        let anchor_lang = if dst_lang != src_lang && rng.chance(0.3) {
            src_lang
        } else {
            dst_lang
        };
        SimLink::text(
            format!("http://{}{}", self.hosts[dh].name, self.page_path(dh, dj)),
            self.anchor(anchor_lang, rng),
        )
    }

    pub(super) fn anchor(&self, lang: usize, rng: &mut Rng) -> String {
        let sentence = rng.pick(corpus::sentences(lang));
        corpus::snippet(lang, sentence, 3 + rng.below(3))
    }

    pub(super) fn render(
        &self,
        h: usize,
        lang: usize,
        rng: &mut Rng,
        links: &[SimLink],
        extras: Extras,
    ) -> SimResponse {
        render_with(&self.style(h, lang), lang, rng, links, extras)
    }

    /// How host `h` writes its pages in corpus language `lang`.
    pub(super) fn style(&self, h: usize, lang: usize) -> PageStyle {
        let host = &self.hosts[h];
        PageStyle {
            encoding: if lang == host.lang {
                host.encoding
            } else {
                UTF_8
            },
            declared: host.declared,
            html_lang: host.html_lang,
        }
    }
}

enum Route {
    Robots,
    Page(u32),
    Redirect(u32),
    /// `/moved/N.html`: a meta refresh to page N.
    Moved(u32),
    Trap(TrapPage),
    NotFound,
}

fn make_host(spec: WebSpec, i: usize) -> Host {
    let mut rng = Rng::new(&[spec.seed, i as u64, 0]);
    let lang = pick_lang(&mut rng);
    let profile = &LANGS[lang];
    let on_cctld =
        !profile.cctlds.is_empty() && rng.chance(if profile.code == "eng" { 0.15 } else { 0.75 });
    let tld = if on_cctld {
        *rng.pick(profile.cctlds)
    } else {
        *rng.pick(GENERIC_TLDS)
    };
    let www = if rng.chance(0.5) { "www." } else { "" };
    // The host index is in the first label, so lookups need no table.
    let name = format!("{www}{}{i}.{tld}", NAMES[rng.below(NAMES.len())]);
    let mean = (spec.pages / spec.hosts.max(1)).max(1);
    let second = (!on_cctld && rng.chance(0.25))
        .then(|| pick_lang(&mut rng))
        .filter(|&s| s != lang);
    let encoding = if !profile.legacy.is_empty() && rng.chance(0.4) {
        *rng.pick(profile.legacy)
    } else {
        UTF_8
    };
    let mut host = Host {
        name,
        lang,
        second,
        pages: (1 + rng.below(2 * mean)) as u32,
        encoding,
        declared: *rng.pick(&DECLARATIONS),
        robots: match rng.below(100) {
            0..=39 => RobotsKind::DisallowPrivate,
            40..=84 => RobotsKind::AllowAll,
            85..=97 => RobotsKind::Missing,
            _ => RobotsKind::Unavailable,
        },
        html_lang: rng.chance(0.6),
        flaky: rng.chance(0.05),
        trap: rng.chance(0.02),
        shapes: HostShapes::default(),
    };
    host.shapes = shapes::host_shapes(spec.seed, i, host.pages, host.second.is_some());
    host
}

fn pick_lang(rng: &mut Rng) -> usize {
    let total: u32 = LANGS.iter().map(|l| l.weight).sum();
    let mut roll = rng.below(total as usize) as u32;
    for (index, lang) in LANGS.iter().enumerate() {
        if roll < lang.weight {
            return index;
        }
        roll -= lang.weight;
    }
    0
}

#[cfg(test)]
#[path = "generator_tests.rs"]
mod tests;
