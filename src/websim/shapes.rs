//! The real web's awkward shapes in the procedural web, so the crawler
//! meets them before the real web does: links with no text (image links,
//! empty anchors, icon glyphs), markup nested inside anchors, framesets and
//! refresh-only front pages (no visible text at all), iframes, image maps,
//! `/moved/N.html` pages that answer with a meta refresh, hreflang
//! alternates (in `<head>` or as HTTP `Link:` headers) and language
//! switchers on multilingual hosts, canonical and icon `<link>`s, and a few
//! junk pages (unclosed tags, stray `</a>`, NUL bytes, split entities,
//! `<a>` inside `<a>`).
//!
//! Every choice is drawn from its own random stream (per host, per page),
//! so the page text and the `<a>` link graph are those of the plain web.

use super::corpus::{self, LANGS};
use super::generator::Web;
use super::render::{escape, head_start, html_response, Extras, LinkForm, SimLink, SimResponse};
use super::rng::Rng;

/// What a host's front page (`/`) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Front {
    /// An ordinary page with text.
    #[default]
    Page,
    /// A `<frameset>` whose frames are pages 1 and 2 (page 1 then lists
    /// the host's pages, as a front page does). No visible text.
    Frameset,
    /// A meta refresh to page 1 (which lists the host's pages). No text.
    Refresh,
}

/// The shapes a host shows, drawn once per host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HostShapes {
    pub front: Front,
    /// `<link rel=icon>` (and a stylesheet) in every head.
    pub icon: bool,
    /// `<link rel=canonical>` to the page itself.
    pub canonical: bool,
    /// Translations name each other as hreflang alternates (multilingual
    /// hosts only) ...
    pub alternates: bool,
    /// ... in HTTP `Link:` headers instead of `<link>` elements.
    pub link_header: bool,
    /// hreflang values carry a region (`ja-JP`, not `ja`).
    pub regions: bool,
}

/// The shapes of host `i` of a web with `seed`, which has `pages` pages
/// and a second language or not.
pub fn host_shapes(seed: u64, i: usize, pages: u32, multilingual: bool) -> HostShapes {
    let mut rng = Rng::new(&[seed, i as u64, 5]);
    let front = match rng.below(100) {
        0..=4 if pages >= 3 => Front::Frameset,
        5..=8 if pages >= 2 => Front::Refresh,
        _ => Front::Page,
    };
    let alternates = multilingual && rng.chance(0.75);
    HostShapes {
        front,
        icon: rng.chance(0.6),
        canonical: rng.chance(0.3),
        alternates,
        link_header: alternates && rng.chance(0.4),
        regions: rng.chance(0.3),
    }
}

/// Each language's own name (for a language switcher) and the region an
/// hreflang with a region gives it.
const ENDONYMS: &[(&str, &str, &str)] = &[
    ("jpn", "日本語", "JP"),
    ("eng", "English", "US"),
    ("kor", "한국어", "KR"),
    ("tha", "ไทย", "TH"),
    ("cmn", "中文", "CN"),
    ("deu", "Deutsch", "DE"),
    ("fra", "Français", "FR"),
    ("rus", "Русский", "RU"),
    ("hin", "हिन्दी", "IN"),
];

fn endonym(lang: usize) -> (&'static str, &'static str) {
    ENDONYMS
        .iter()
        .find(|(code, _, _)| *code == LANGS[lang].code)
        .map_or((LANGS[lang].tag, "US"), |(_, name, region)| (name, region))
}

/// The hreflang value of corpus language `lang`: `th`, or `th-TH`.
fn hreflang(lang: usize, regions: bool) -> String {
    if regions {
        format!("{}-{}", LANGS[lang].tag, endonym(lang).1)
    } else {
        LANGS[lang].tag.to_string()
    }
}

/// The markup of a link (`<a>` with `link.form`'s content).
pub fn link_html(link: &SimLink) -> String {
    let href = escape(&link.href);
    let hreflang = link
        .hreflang
        .as_ref()
        .map(|tag| format!(" hreflang=\"{}\"", escape(tag)))
        .unwrap_or_default();
    let anchor = escape(&link.anchor);
    // Variants picked by the link itself, so the markup stays deterministic.
    let odd = link.anchor.len() % 2 == 1;
    match link.form {
        LinkForm::Text => format!("<a href=\"{href}\"{hreflang}>{anchor}</a>"),
        LinkForm::Image { alt } => {
            let image = ["banner", "button", "logo", "thumb"][link.href.len() % 4];
            let alt = if alt { anchor } else { String::new() };
            format!("<a href=\"{href}\"{hreflang}><img src=\"/img/{image}.png\" alt=\"{alt}\" width=\"88\" height=\"31\"></a>")
        }
        LinkForm::Empty if odd => format!("<a href=\"{href}\"{hreflang}> </a>"),
        LinkForm::Empty => format!("<a href=\"{href}\"{hreflang}></a>"),
        LinkForm::Icon if odd => {
            format!("<a href=\"{href}\" class=\"icon-link\"{hreflang}><i class=\"icon icon-arrow\"></i></a>")
        }
        LinkForm::Icon => format!(
            "<a href=\"{href}\" title=\"{anchor}\"{hreflang}><i class=\"fa fa-home\" aria-hidden=\"true\"></i></a>"
        ),
        LinkForm::Nested => {
            let text = link.anchor.trim();
            let (first, rest, gap) = match text.split_once(' ') {
                Some((first, rest)) => (first.to_string(), rest.to_string(), " "),
                None => {
                    let half = text.chars().count() / 2;
                    let first: String = text.chars().take(half).collect();
                    (first, text.chars().skip(half).collect(), "")
                }
            };
            format!(
                "<a href=\"{href}\"{hreflang}><span class=\"label\"><b>{}</b>{gap}<em>{}</em></span></a>",
                escape(&first),
                escape(&rest)
            )
        }
    }
}

/// How an `<a>` link is marked up: mostly text, else an image (with or
/// without alt text), nested markup, an icon glyph, or nothing.
fn pick_form(rng: &mut Rng) -> LinkForm {
    match rng.below(100) {
        0..=69 => LinkForm::Text,
        70..=75 => LinkForm::Image { alt: true },
        76..=81 => LinkForm::Image { alt: false },
        82..=89 => LinkForm::Nested,
        90..=94 => LinkForm::Icon,
        _ => LinkForm::Empty,
    }
}

/// The defects a junk page may have.
const DEFECTS: usize = 6;

/// Garbles a page's markup: one or more of an unclosed tag, a stray
/// `</a>`, a NUL byte, an entity split across tags, an `<a>` left open so
/// the next one opens inside it, and links that are no links. The text
/// stays in the page's language.
pub fn garble(html: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = html.lines().map(str::to_string).collect();
    let paragraphs: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("<p>"))
        .collect();
    if paragraphs.is_empty() {
        return html.to_string();
    }
    let mut defects: Vec<usize> = (0..DEFECTS).filter(|_| rng.chance(0.4)).collect();
    if defects.is_empty() {
        defects.push(rng.below(DEFECTS));
    }
    for defect in defects {
        let line = &mut lines[*rng.pick(&paragraphs)];
        match defect {
            0 => {
                if let Some(open) = line.strip_suffix("</p>") {
                    *line = format!("{open}<div><b>");
                }
            }
            1 => line.insert_str(3, "</a>"),
            2 => line.insert_str(3, "\0 "),
            3 => line.insert_str(3, "&am<span>p;</span> "),
            4 => {
                if let Some(at) = line.find("</a>") {
                    line.replace_range(at..at + 4, "");
                }
            }
            _ => line.push_str(
                " <a href=\"javascript:void(0)\">&#9650;</a> <a href=\"mailto:info@example.com\">mail</a> <a>no href</a>",
            ),
        }
    }
    lines.join("\n") + "\n"
}

impl Web {
    /// Whether page `j` of host `h` has no visible text (a frameset or
    /// refresh front page).
    pub(super) fn textless(&self, h: usize, j: u32) -> bool {
        j == 0 && self.hosts[h].shapes.front != Front::Page
    }

    /// The page that lists a host's pages: the front page, or page 1 when
    /// the front page is a frameset or a refresh.
    pub(super) fn home(&self, h: usize) -> u32 {
        u32::from(self.textless(h, 0))
    }

    /// Page `j`'s translation on a multilingual host: pages `3m` and
    /// `3m + 1` (in the second language) are one text in two languages.
    fn translation(&self, h: usize, j: u32) -> Option<u32> {
        let host = &self.hosts[h];
        host.second?;
        let partner = match j % 3 {
            0 => j + 1,
            1 => j - 1,
            _ => return None,
        };
        (partner < host.pages && !self.textless(h, partner) && !self.textless(h, j))
            .then_some(partner)
    }

    fn url(&self, h: usize, j: u32) -> String {
        format!("http://{}{}", self.hosts[h].name, self.page_path(h, j))
    }

    /// Gives page `j` of host `h` its shapes: marks up its `links` and
    /// adds a switcher link, a `/moved/` link, head links, alternates,
    /// an iframe, an image map, junk.
    pub(super) fn dress(&self, h: usize, j: u32, links: &mut Vec<SimLink>) -> Extras {
        let host = &self.hosts[h];
        let mut rng = Rng::new(&[self.spec.seed, h as u64, j as u64, 6]);
        let lang = self.page_lang_index(h, j);
        for link in links.iter_mut() {
            link.form = pick_form(&mut rng);
        }
        let mut extras = Extras::default();
        if host.shapes.icon {
            extras.head.push_str(
                "<link rel=\"stylesheet\" href=\"/style.css\"><link rel=\"icon\" href=\"/favicon.ico\" type=\"image/x-icon\">",
            );
        }
        if host.shapes.canonical {
            extras.head.push_str(&format!(
                "<link rel=\"canonical\" href=\"{}\">",
                self.url(h, j)
            ));
        }
        if let Some(partner) = self.translation(h, j) {
            let other = self.page_lang_index(h, partner);
            let mut switcher = SimLink::text(self.page_path(h, partner), endonym(other).0);
            switcher.hreflang = Some(hreflang(other, host.shapes.regions));
            links.push(switcher);
            if host.shapes.alternates {
                let primary = j.min(partner);
                let mut alternates = vec![
                    (hreflang(lang, host.shapes.regions), self.url(h, j)),
                    (hreflang(other, host.shapes.regions), self.url(h, partner)),
                    ("x-default".to_string(), self.url(h, primary)),
                ];
                alternates.sort();
                self.alternates(h, &alternates, &mut extras);
            }
        }
        if rng.chance(0.05) {
            let k = rng.below(host.pages as usize);
            links.push(SimLink::text(
                format!("/moved/{k}.html"),
                self.anchor(lang, &mut rng),
            ));
        }
        if rng.chance(0.06) {
            let (dh, dj) = self.pick_target(h, lang, &mut rng);
            extras.body.push_str(&format!(
                "<iframe src=\"{}\" width=\"480\" height=\"270\" title=\"{}\"></iframe>\n",
                self.url(dh, dj),
                escape(&self.anchor(lang, &mut rng))
            ));
        }
        if rng.chance(0.04) {
            extras.body.push_str(&self.image_map(h, j, lang, &mut rng));
        }
        if rng.chance(0.1) {
            extras.body.push_str(
                "<p class=\"top\"><a href=\"#top\">&#9650;</a><a name=\"end\"></a></p>\n",
            );
        }
        extras.junk = rng.chance(0.02);
        if self.spec.chrome {
            self.chrome(h, lang, &mut extras);
        }
        extras
    }

    /// The host's menu and footer in language `lang`, drawn from the
    /// host's own stream so they are the same on every page: the menu
    /// links the home page and pages 1 to 3 with `?from=menu` (a second URL
    /// for the same page); the footer has a copyright line and a sentence.
    fn chrome(&self, h: usize, lang: usize, extras: &mut Extras) {
        let host = &self.hosts[h];
        let mut rng = Rng::new(&[self.spec.seed, h as u64, lang as u64, 7]);
        let mut menu = format!("<nav class=\"menu\"><a href=\"/\">{}</a>", host.name);
        for j in (1..host.pages.min(4)).filter(|&j| self.page_lang_index(h, j) == lang) {
            let path = self.page_path(h, j);
            let words = escape(&self.anchor(lang, &mut rng));
            menu.push_str(&format!(" | <a href=\"{path}?from=menu\">{words}</a>"));
        }
        extras.top = menu + "</nav>\n";
        let sentences = corpus::sentences(lang);
        let sentence = sentences[rng.below(sentences.len())];
        extras.body.push_str(&format!(
            "<footer><p>&copy; 2026 {}. {}</p></footer>\n",
            host.name,
            escape(sentence)
        ));
    }

    /// Alternates as `<link>` elements, or as `Link:` headers (one header
    /// with every value on even hosts, one header each on odd ones).
    fn alternates(&self, h: usize, alternates: &[(String, String)], extras: &mut Extras) {
        if !self.hosts[h].shapes.link_header {
            for (lang, url) in alternates {
                extras.head.push_str(&format!(
                    "<link rel=\"alternate\" hreflang=\"{lang}\" href=\"{url}\">"
                ));
            }
            return;
        }
        let values: Vec<String> = alternates
            .iter()
            .map(|(lang, url)| format!("<{url}>; rel=\"alternate\"; hreflang=\"{lang}\""))
            .collect();
        if h % 2 == 0 {
            extras.headers.push(("Link".into(), values.join(", ")));
        } else {
            extras
                .headers
                .extend(values.into_iter().map(|v| ("Link".to_string(), v)));
        }
    }

    /// `<img usemap>` and its `<map>`: two to four areas linking out, and
    /// sometimes a default area without a link.
    fn image_map(&self, h: usize, j: u32, lang: usize, rng: &mut Rng) -> String {
        let mut html = format!(
            "<p><img src=\"/img/map{j}.png\" usemap=\"#nav{j}\" alt=\"\" width=\"400\" height=\"40\"></p><map name=\"nav{j}\">"
        );
        for k in 0..2 + rng.below(3) {
            let (dh, dj) = self.pick_target(h, lang, rng);
            let alt = if rng.chance(0.5) {
                escape(&self.anchor(lang, rng))
            } else {
                String::new()
            };
            html.push_str(&format!(
                "<area shape=\"rect\" coords=\"{},0,{},40\" href=\"{}\" alt=\"{alt}\">",
                k * 100,
                k * 100 + 99,
                self.url(dh, dj)
            ));
        }
        if rng.chance(0.3) {
            html.push_str("<area shape=\"default\" nohref alt=\"\">");
        }
        html.push_str("</map>\n");
        html
    }

    /// The front page of a host whose front page has no text.
    pub(super) fn front_page(&self, h: usize) -> SimResponse {
        let host = &self.hosts[h];
        let lang = self.page_lang_index(h, 0);
        let style = self.style(h, lang);
        let mut rng = Rng::new(&[self.spec.seed, h as u64, 7]);
        let sentences = corpus::sentences(lang);
        let title = corpus::snippet(lang, sentences[rng.below(sentences.len())], 4);
        let head = format!(
            "{}<title>{}</title>",
            head_start(&style, lang),
            escape(&title)
        );
        let html = match host.shapes.front {
            Front::Frameset => format!(
                "<!DOCTYPE HTML PUBLIC \"-//W3C//DTD HTML 4.01 Frameset//EN\" \"http://www.w3.org/TR/html4/frameset.dtd\">\n\
                 {head}</head>\n<frameset cols=\"25%,*\" frameborder=\"0\">\
                 <frame src=\"{}\" name=\"menu\"><frame src=\"{}\" name=\"main\" scrolling=\"auto\">\
                 </frameset>\n</html>\n",
                self.page_path(h, 1),
                self.page_path(h, 2)
            ),
            _ => refresh_html(&head, h, &self.page_path(h, 1), &self.url(h, 1)),
        };
        html_response(&style, &html, Vec::new())
    }

    /// `/moved/<k>.html`: a page that only refreshes to page `k`.
    pub(super) fn moved_page(&self, h: usize, k: u32) -> SimResponse {
        let lang = self.page_lang_index(h, k);
        let style = self.style(h, lang);
        let head = head_start(&style, lang);
        let html = refresh_html(&head, k as usize, &self.page_path(h, k), &self.url(h, k));
        html_response(&style, &html, Vec::new())
    }
}

/// A page with no text that refreshes to `path` (or the same as `url`):
/// the `content` attribute in one of the forms pages use, picked by `n`.
fn refresh_html(head: &str, n: usize, path: &str, url: &str) -> String {
    let (equiv, content, body) = match n % 3 {
        0 => ("refresh", format!("0; url={path}"), String::new()),
        1 => ("Refresh", format!("0;URL='{url}'"), String::new()),
        _ => (
            "refresh",
            format!("1; URL={path}"),
            format!("<script>location.replace(\"{path}\");</script>"),
        ),
    };
    format!(
        "<!DOCTYPE html>\n{head}<meta http-equiv=\"{equiv}\" content=\"{content}\"></head>\n<body>{body}</body></html>\n"
    )
}

#[cfg(test)]
#[path = "shapes_tests.rs"]
mod tests;
