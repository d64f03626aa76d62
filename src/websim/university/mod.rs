//! Kumar & Vig's test web (`websim generate --kind university`): the site
//! of an engineering university whose pages are in four classes — CSE,
//! IT, ENGG, COMP — and link each other with the probabilities of the
//! paper's Table 2/3 ([`RULES`]). A fifth of the pages are mixed Hindi–
//! English, their important terms and the words around their links in
//! Hindi; some English CSE pages are linked only from mixed pages, so a
//! crawler reaches them only by reading Hindi. A simulation of it seeks
//! class CSE: its target pages are the CSE pages (`web.json`'s
//! `target_class`), whatever their language.

mod text;

use url::Url;

use self::text::{LinkText, Nav, Writing, CLASSES};
use crate::error::Result;
use crate::webgraph::{Anchor, GraphHost, LinkRow, LinksWriter, PageRow, PagesWriter, WebDir};
use crate::websim::rng::Rng;

/// The class a crawl of the university web seeks.
pub const TARGET_CLASS: &str = "CSE";
/// Table 3 (Table 2's counts over 10): `RULES[i][j]` is the probability
/// that a link of a class-`i` page leads to a class-`j` page, classes in
/// the order of [`CLASSES`] (CSE, IT, ENGG, COMP).
pub const RULES: [[f64; 4]; 4] = [
    [0.0, 0.8, 0.1, 0.1],
    [0.2, 0.4, 0.4, 0.0],
    [0.3, 0.4, 0.3, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];
/// Share of the pages in each class.
const CLASS_SHARE: [f64; 4] = [0.3, 0.3, 0.25, 0.15];
/// Share of the pages written mixed Hindi–English (the paper's 0.2 X).
const MIXED_SHARE: f64 = 0.2;
/// Share of the English CSE pages that only mixed pages link to.
const HIDDEN_SHARE: f64 = 0.4;
/// Chance that a mixed page's link to a CSE page leads to a hidden one.
const TO_HIDDEN: f64 = 0.8;
/// Chance that a link's anchor names the class of the page it leads to.
const NAMED: f64 = 0.7;
const HOST: &str = "www.uiet.ac.in";

/// What `websim generate --kind university` makes.
#[derive(Debug, Clone, Copy)]
pub struct UniversitySpec {
    pub pages: usize,
    pub seed: u64,
}

/// The web written: its seeds and size.
pub struct Generated {
    pub seeds: Vec<String>,
    pub pages: usize,
    pub links: usize,
}

#[derive(Debug, Clone, Copy)]
struct Page {
    class: usize,
    writing: Writing,
    /// An English CSE page that only mixed pages link to.
    hidden: bool,
}

/// The pages of each class that any page may link to (not hidden), and
/// the hidden ones.
#[derive(Default)]
struct Departments {
    open: [Vec<u32>; 4],
    /// Each page's place in its class's `open` list.
    place: Vec<Option<usize>>,
    hidden: Vec<u32>,
}

/// Each page's links: destination and texts.
type PlannedLinks = Vec<Vec<(u32, LinkText)>>;

/// Writes a university web of `spec.pages` pages into `web`; the same spec
/// gives the same web.
pub fn generate_into(spec: UniversitySpec, web: &WebDir) -> Result<Generated> {
    let mut rng = Rng::new(&[spec.seed, 0x756e_6976]);
    let pages = plan_pages(&mut rng, spec.pages);
    let departments = departments(&pages);
    let links = plan_links(&mut rng, &pages, &departments);
    let host = host();
    let mut page_writer = PagesWriter::create(&web.pages())?;
    let mut link_writer = LinksWriter::create(&web.links())?;
    for (id, page) in pages.iter().enumerate() {
        let url = page_url(id, page);
        let parts = crate::urls::parts(&url);
        let mut text = text::page_body(&mut rng, page.class, page.writing);
        for (dst, link) in &links[id] {
            text.push_str(&format!(" {} {}", link.heading, link.context));
            let dst_url = page_url(*dst as usize, &pages[*dst as usize]);
            let anchor = Anchor::text(&link.anchor, crate::lang::anchor_lang(&link.anchor));
            link_writer.push(&LinkRow {
                src_url: parts.url.as_str(),
                src_host: &host.name,
                dst_url: dst_url.as_str(),
                dst_host: &host,
                dst_dir: &crate::urls::parts(&dst_url).dir,
                anchor: &anchor,
                context: Some(&link.context),
                heading: Some(&link.heading),
            })?;
        }
        page_writer.push(&PageRow {
            url: &parts.url,
            host: &host,
            dir: &parts.dir,
            lang: Some(page.writing.lang()),
            status: Some(200),
            redirect_to: None,
            robots_allowed: true,
            class: Some(CLASSES[page.class]),
            text: Some(&text),
        })?;
    }
    let pages_written = page_writer.commit()?;
    let links_written = link_writer.commit()?;
    Ok(Generated {
        seeds: vec![page_url(0, &pages[0]).to_string()],
        pages: pages_written,
        links: links_written,
    })
}

fn host() -> GraphHost {
    let parts = crate::urls::parts(&Url::parse(&format!("http://{HOST}/")).expect("a URL"));
    GraphHost {
        name: parts.host,
        domain: parts.domain,
        tld: parts.tld,
    }
}

/// A page's URL: `http://www.uiet.ac.in/cse/` for a department's home
/// (pages 0–3), `/cse/page-17.html` for the others.
fn page_url(id: usize, page: &Page) -> Url {
    let dept = CLASSES[page.class].to_ascii_lowercase();
    let path = if id < CLASSES.len() {
        format!("/{dept}/")
    } else {
        format!("/{dept}/page-{id}.html")
    };
    Url::parse(&format!("http://{HOST}{path}")).expect("a URL")
}

/// The pages: the four department homes (English), then pages of a class
/// drawn by [`CLASS_SHARE`], a fifth of them mixed.
fn plan_pages(rng: &mut Rng, count: usize) -> Vec<Page> {
    let mut pages: Vec<Page> = (0..CLASSES.len())
        .map(|class| Page {
            class,
            writing: Writing::English,
            hidden: false,
        })
        .collect();
    while pages.len() < count {
        let class = draw(rng, &CLASS_SHARE);
        let writing = if rng.chance(MIXED_SHARE) {
            Writing::Mixed
        } else {
            Writing::English
        };
        let hidden = class == 0 && writing == Writing::English && rng.chance(HIDDEN_SHARE);
        pages.push(Page {
            class,
            writing,
            hidden,
        });
    }
    pages
}

fn departments(pages: &[Page]) -> Departments {
    let mut departments = Departments {
        place: vec![None; pages.len()],
        ..Departments::default()
    };
    for (id, page) in pages.iter().enumerate() {
        if page.hidden {
            departments.hidden.push(id as u32);
        } else {
            let open = &mut departments.open[page.class];
            departments.place[id] = Some(open.len());
            open.push(id as u32);
        }
    }
    departments
}

/// An index drawn with the probabilities `weights` (summing to 1).
fn draw(rng: &mut Rng, weights: &[f64]) -> usize {
    let mut left = rng.unit();
    for (i, w) in weights.iter().enumerate() {
        if left < *w {
            return i;
        }
        left -= w;
    }
    weights.iter().rposition(|w| *w > 0.0).unwrap_or(0)
}

/// Each page's links with their texts: its department's home and next
/// page (navigation, open pages only), and 5 to 8 links to classes drawn
/// from [`RULES`]; then one more link from a mixed page to each hidden
/// page no mixed page linked.
fn plan_links(rng: &mut Rng, pages: &[Page], departments: &Departments) -> PlannedLinks {
    let mut links: PlannedLinks = Vec::with_capacity(pages.len());
    let mut linked = vec![false; pages.len()];
    for (id, page) in pages.iter().enumerate() {
        let mut out = navigation(id as u32, page, departments);
        for _ in 0..5 + rng.below(4) {
            let to = draw(rng, &RULES[page.class]);
            let dst = destination(rng, page, to, departments);
            out.push((dst, text::link_text(rng, to, page.writing, NAMED)));
        }
        for (dst, _) in &out {
            linked[*dst as usize] = true;
        }
        links.push(out);
    }
    let mixed: Vec<u32> = (0..pages.len() as u32)
        .filter(|&p| {
            pages[p as usize].writing == Writing::Mixed && RULES[pages[p as usize].class][0] > 0.0
        })
        .collect();
    for &hidden in &departments.hidden {
        if !linked[hidden as usize] && !mixed.is_empty() {
            let src = *rng.pick(&mixed);
            let writing = pages[src as usize].writing;
            links[src as usize].push((hidden, text::link_text(rng, 0, writing, NAMED)));
        }
    }
    links
}

fn navigation(id: u32, page: &Page, departments: &Departments) -> Vec<(u32, LinkText)> {
    let open = &departments.open[page.class];
    let mut out = Vec::new();
    let home = page.class as u32;
    if id != home {
        out.push((home, text::nav_text(page.writing, Nav::Home)));
    }
    if let Some(at) = departments.place[id as usize] {
        let next = open[(at + 1) % open.len()];
        if next != id && next != home {
            out.push((next, text::nav_text(page.writing, Nav::Next)));
        }
    }
    out
}

/// A page of class `to` for a link of `page`: a mixed page's link to CSE
/// mostly leads to a hidden page; any other link to an open one.
fn destination(rng: &mut Rng, page: &Page, to: usize, departments: &Departments) -> u32 {
    let hidden = &departments.hidden;
    if to == 0 && page.writing == Writing::Mixed && !hidden.is_empty() && rng.chance(TO_HIDDEN) {
        return *rng.pick(hidden);
    }
    *rng.pick(&departments.open[to])
}

#[cfg(test)]
mod tests;
