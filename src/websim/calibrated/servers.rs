//! The servers of a calibrated web: their kinds and sizes, so that target
//! pages come to their share; their host names (under the target's ccTLDs
//! or not, as Tamura found); and their pages — language, path, HTTP
//! status, redirects, pages robots.txt keeps out.

use super::{aims, target_fraction, Generator, Kind, Server, HIDDEN_SECTION};
use crate::webgraph::{GraphHost, UNREACHABLE};
use crate::websim::corpus::{self, GENERIC_TLDS, LANGS};
use crate::websim::rng::Rng;

/// Pages per server on average, over all servers.
const MEAN_SERVER_PAGES: usize = 25;

impl Generator {
    /// Chooses each server's kind and size so that target pages come to
    /// about the shape's share of all ([`aims::TARGET_PAGES`] by default).
    pub(super) fn plan_servers(&mut self) {
        let total = self.spec.pages.max(40);
        let count = (total / MEAN_SERVER_PAGES).max(10);
        let target_count = ((count as f64 * aims::TARGET_SERVERS).round() as usize).max(3);
        let mut kinds = self.target_kinds(target_count);
        for _ in target_count..count {
            let lang = self.other_lang();
            kinds.push(Kind::Other(lang));
        }
        // Sizes are exponential; the target servers' are scaled so that
        // their target pages come to TARGET_PAGES of all, the others' to
        // the remaining pages.
        let raw: Vec<f64> = kinds.iter().map(|_| self.rng.exponential()).collect();
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
        let wanted = (self.spec.shape.target_pages * total as f64 - fixed_target).max(0.0);
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

    /// The kinds of `count` target servers, as many of each as the shape's
    /// shares make ([`Shape::kind_counts`](super::Shape::kind_counts)).
    fn target_kinds(&mut self, count: usize) -> Vec<Kind> {
        let [target, with_english, fronted, multilingual] = self.spec.shape.kind_counts(count);
        let mut kinds = vec![Kind::Target; target];
        kinds.resize(target + with_english, Kind::TargetWithEnglish);
        for _ in 0..fronted {
            // Chains of 0 to max_chain English pages past the home page
            // (Tamura found target pages up to 10 hops from the nearest
            // other one), each length 0.7 times as likely as the one before.
            let mut chain = 0;
            while chain < self.spec.shape.max_chain && self.rng.chance(0.7) {
                chain += 1;
            }
            kinds.push(Kind::EnglishFronted(chain));
        }
        for _ in 0..multilingual {
            let lang = self.other_lang();
            kinds.push(Kind::Multilingual(lang));
        }
        kinds
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

    /// Which target servers sit under the target's ccTLDs (after their
    /// pages are planned, so their target pages are counted): in turn, each
    /// where it leaves the share of the target pages under them so far
    /// nearer their aim (half its pages short of the aim, it goes under).
    pub(super) fn target_servers_on_cctld(&self) -> Vec<bool> {
        let (mut seen, mut under) = (0.0, 0.0);
        (0..self.servers.len())
            .map(|s| {
                let pages = self.server_content.get(s).map_or(0, |c| c[1].len()) as f64;
                if pages == 0.0 {
                    return false;
                }
                let on = under + pages / 2.0 < (1.0 - self.spec.shape.off_cctld) * (seen + pages);
                seen += pages;
                if on {
                    under += pages;
                }
                on
            })
            .collect()
    }

    pub(super) fn host(&mut self, s: usize, on_cctld: bool) -> GraphHost {
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
        let stem = *self.rng.pick(NAMES);
        let name = format!("{www}{stem}{s}.{tld}");
        let domain = psl::domain_str(&name).unwrap_or(&name).to_string();
        GraphHost {
            tld: psl::suffix_str(&name).unwrap_or(tld).to_string(),
            domain,
            name,
        }
    }

    /// Plans the pages of server `s`: language, status, redirect, whether
    /// robots.txt keeps them out; their URLs are made when written
    /// ([`page_url`](Generator::page_url)).
    pub(super) fn add_server_pages(&mut self, s: usize) {
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
        if self.server_content.len() <= s {
            self.server_content.resize_with(s + 1, Default::default);
        }
        for j in 0..count {
            let id = first + j;
            let private = robots && j % 10 == 7 && statuses[j as usize] == 200 && !fixed(j);
            let status = statuses[j as usize];
            let redirect_to = (status == 301).then(|| {
                let k = (1..count)
                    .map(|step| (j + step) % count)
                    .find(|&k| statuses[k as usize] == 200)
                    .unwrap_or(0);
                first + k
            });
            let content = status == 200 && !private;
            self.server_of.push(s as u32);
            self.page_lang.push(langs[j as usize]);
            self.status.push(status);
            self.redirect.push(redirect_to.unwrap_or(UNREACHABLE));
            self.content.push(content);
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

    /// The URL of page `id`, and its top-level directory.
    pub(super) fn page_url(&self, id: u32) -> (String, String) {
        let s = self.server_of[id as usize] as usize;
        let server = &self.servers[s];
        let j = id - server.first;
        // A page that answers 200 but is not content is one robots.txt keeps out.
        let private = self.status[id as usize] == 200 && !self.content[id as usize];
        let path = self.path(server.kind, j, self.page_lang[id as usize], private);
        let host = &self.hosts[s].name;
        (
            format!("http://{host}{path}"),
            crate::urls::top_dir(host, &path),
        )
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
}

const NAMES: &[&str] = &[
    "siam", "chao", "sakura", "hana", "hanok", "seoul", "lotus", "ganga", "berg", "fleur", "volga",
    "river", "stone", "cloud", "bridge", "garden", "harbor", "market", "forest", "valley",
    "island", "meadow", "temple", "orchid", "monsoon", "delta", "summit", "canal",
];
