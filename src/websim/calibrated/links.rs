//! The links of a calibrated web: each drawn as intra- or inter-server and
//! as leading to a target page or not, with the chances that make Table 4's
//! totals come out, and English fronts wired so their target sections sit
//! far from other target pages; and the anchors, from a pool per corpus
//! language, mostly in the source page's language.

use std::collections::HashMap;

use super::{aims, Generator, Kind, HIDDEN_SECTION};
use crate::lang::anchor_lang;
use crate::webgraph::{Anchor, GraphLink};
use crate::websim::corpus::{self, LANGS};
use crate::websim::rng::Rng;

/// Anchor texts drawn per language.
const ANCHORS_PER_LANG: usize = 400;
/// The share of all links from non-target pages on target servers that the
/// last page of each English chain adds by listing its target section;
/// the drawn links leave it out, so that the total comes to the aim.
const CHAIN_END_TARGET_LINKS: f64 = 0.03;
/// Share of intra-server links drawn to pages that are not content.
const BROKEN_LINKS: f64 = 0.03;
/// Of the links from target pages to other servers' non-target pages, the
/// share that go to the English home page of a site with a target section.
const FRONT_LINKS: f64 = 0.05;
/// Multilingual sites with a language switcher: each page links to its
/// translations with `hreflang` (most sites of the web have none).
const SWITCHER_SITES: f64 = 0.5;

impl Generator {
    /// The links of page `p`: none unless it is content.
    pub(super) fn outlinks(&mut self, p: u32) -> Vec<GraphLink> {
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
            let chance = target_link_chance(
                self.spec.shape.from_target,
                from_target,
                on_target_server,
                inter,
            );
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
        let mut links: Vec<GraphLink> = dsts
            .iter()
            .map(|&dst| GraphLink {
                dst,
                anchor: self.anchor_for(p, dst, &mut rng),
            })
            .collect();
        let alternates = self.translations(s, j);
        links.extend(
            alternates
                .into_iter()
                .filter(|d| *d != p && !dsts.contains(d))
                .map(|dst| GraphLink {
                    dst,
                    anchor: switcher_anchor(self.page_lang[dst as usize]),
                }),
        );
        links
    }

    /// On a multilingual site with a language switcher, the translations
    /// of its page `j`: pages `3k + 1..=3k + 3` are one text in the
    /// target language, English and the site's other language.
    fn translations(&self, s: usize, j: u32) -> Vec<u32> {
        let server = &self.servers[s];
        let switcher = Rng::new(&[self.spec.seed, s as u64, 13]).chance(SWITCHER_SITES);
        if !matches!(server.kind, Kind::Multilingual(_)) || !switcher || j == 0 {
            return Vec::new();
        }
        let base = (j - 1) / 3 * 3 + 1;
        (base..(base + 3).min(server.pages))
            .map(|k| server.first + k)
            .filter(|&page| self.content[page as usize])
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
            if rng.chance(self.spec.shape.anchor_to_target) {
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
}

/// The chance that a link leads to a target page, chosen so that the totals
/// of Table 4 come out: the intra-server share is what the inter-server
/// share leaves of the row's total. `locality` is the row total of links
/// from target pages ([`aims::FROM_TARGET`] in Tamura's shape).
fn target_link_chance(
    locality: f64,
    from_target: bool,
    on_target_server: bool,
    inter: bool,
) -> f64 {
    let (total, inter_share, inter_rate) = if from_target {
        (
            locality,
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
pub(super) fn anchor_pool() -> Vec<Anchor> {
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
            pool.push(Anchor::text(text, detected));
        }
    }
    // A language switcher's links: the language's own name, with hreflang.
    for profile in LANGS {
        let name = native_name(profile.tag);
        pool.push(Anchor {
            hreflang: Some(profile.code.to_string()),
            ..Anchor::text(name, anchor_lang(name))
        });
    }
    pool
}

/// The anchor of a language switcher's link to a page in `lang` (after
/// the drawn anchors in the pool).
fn switcher_anchor(lang: usize) -> u32 {
    (LANGS.len() * ANCHORS_PER_LANG + lang) as u32
}

/// A language's name in itself, as a language switcher shows it.
fn native_name(tag: &str) -> &'static str {
    match tag {
        "ja" => "日本語",
        "ko" => "한국어",
        "th" => "ไทย",
        "zh" => "中文",
        "de" => "Deutsch",
        "fr" => "Français",
        "ru" => "Русский",
        "hi" => "हिन्दी",
        _ => "English",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_4_rows_add_up() {
        let total = |from_target, on_target_server| {
            let inter = aims::INTER_ON_TARGET_SERVER;
            let locality = aims::FROM_TARGET;
            inter * target_link_chance(locality, from_target, on_target_server, true)
                + (1.0 - inter) * target_link_chance(locality, from_target, on_target_server, false)
        };
        assert!((total(true, true) - aims::FROM_TARGET).abs() < 1e-9);
        let drawn = aims::FROM_OTHER_ON_TARGET_SERVER - CHAIN_END_TARGET_LINKS;
        assert!((total(false, true) - drawn).abs() < 1e-9);
    }
}
