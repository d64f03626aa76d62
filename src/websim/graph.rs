//! A web graph in memory — pages by id, links as adjacency lists — and its
//! on-disk form, a web directory:
//!
//! ```text
//! <web>/web.json        target language, seeds, how it was made, its statistics
//! <web>/pages/*.parquet url, host, domain, tld, dir, lang, status, redirect_to, robots_allowed
//! <web>/links/*.parquet src_url, src_host, dst_url, dst_host, dst_domain, dst_tld, dst_dir, anchor, anchor_lang
//! ```
//!
//! The calibrated generator writes one, the websim serves one over HTTP,
//! `simulate` replays one, `graph export` makes one from a crawl.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, Int32Array, RecordBatch, StringArray,
};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::store::crawl_json::{read_json, write_json};
use crate::store::rows::{column, opt_str};
use crate::store::schema::{WEB_LINKS, WEB_PAGES};
use crate::store::{read_batches, SegmentWriter};
use crate::urls;

/// Rows per Parquet batch written.
const BATCH_ROWS: usize = 65_536;
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

/// An anchor text and the language `lang::anchor_lang` gives it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Anchor {
    pub text: String,
    pub lang: String,
}

/// `web.json`: what the graph is for and how it was made.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct WebInfo {
    /// ISO 639-3 code of the target language.
    pub target_lang: String,
    /// The seed URLs a crawl of it starts from.
    pub seeds: Vec<String>,
    /// How the graph was made (`websim generate ...` or `graph export ...`).
    pub made_by: String,
    /// Pages and links in the graph.
    #[serde(default)]
    pub pages: usize,
    #[serde(default)]
    pub links: usize,
    /// The achieved statistics, when the generator measured them.
    #[serde(default)]
    pub stats: Vec<Statistic>,
}

/// One measured property of a graph beside the value aimed at.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Statistic {
    pub name: String,
    /// The value aimed at, if there is one.
    pub target: Option<f64>,
    pub achieved: f64,
    /// `%` for a share (kept as 0 to 1), else the unit of a count.
    pub unit: String,
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

    /// The pages a crawler follows on from `page`: its outlinks if it is
    /// content, its redirect target if it redirects; nothing otherwise.
    pub fn next_pages(&self, page: u32) -> impl Iterator<Item = u32> + '_ {
        let p = &self.pages[page as usize];
        let links = if p.is_content() {
            self.outlinks(page)
        } else {
            &[]
        };
        links
            .iter()
            .map(|l| l.dst)
            .chain(p.redirect_to.filter(|_| p.robots_allowed))
    }

    /// Hops from the nearest of `sources` to every page, as a crawler walks
    /// ([`next_pages`](Self::next_pages)), and the page each was first
    /// reached from; [`UNREACHABLE`] where none leads.
    pub fn walk_from(&self, sources: &[u32]) -> (Vec<u32>, Vec<u32>) {
        let mut distance = vec![UNREACHABLE; self.pages.len()];
        let mut parent = vec![UNREACHABLE; self.pages.len()];
        let mut queue = VecDeque::new();
        for &s in sources {
            if distance[s as usize] == UNREACHABLE {
                distance[s as usize] = 0;
                queue.push_back(s);
            }
        }
        while let Some(page) = queue.pop_front() {
            for dst in self.next_pages(page) {
                if distance[dst as usize] == UNREACHABLE {
                    distance[dst as usize] = distance[page as usize] + 1;
                    parent[dst as usize] = page;
                    queue.push_back(dst);
                }
            }
        }
        (distance, parent)
    }

    /// For every page in language `code`, the hops from the nearest other
    /// page in that language (Tamura §3.3, Fig. 2): 1 if one links to it,
    /// more if the way passes through pages in other languages.
    pub fn nearest_target_distances(&self, code: &str) -> Vec<u32> {
        let reverse = self.reverse_adjacency();
        let mut seen = vec![u32::MAX; self.pages.len()];
        let mut distances = Vec::new();
        for v in (0..self.pages.len() as u32).filter(|&v| self.is_target(v, code)) {
            // Backwards from v, level by level, until a page in the language.
            let mut frontier = vec![v];
            seen[v as usize] = v;
            let mut depth = 0;
            let found = 'search: loop {
                depth += 1;
                let mut next = Vec::new();
                for &page in &frontier {
                    for &src in reverse.predecessors(page) {
                        if self.is_target(src, code) && src != v {
                            break 'search Some(depth);
                        }
                        if seen[src as usize] != v {
                            seen[src as usize] = v;
                            next.push(src);
                        }
                    }
                }
                if next.is_empty() {
                    break None;
                }
                frontier = next;
            };
            distances.push(found.unwrap_or(UNREACHABLE));
        }
        distances
    }

    fn reverse_adjacency(&self) -> Reverse {
        let mut counts = vec![0u32; self.pages.len() + 1];
        for page in 0..self.pages.len() as u32 {
            for dst in self.next_pages(page) {
                counts[dst as usize + 1] += 1;
            }
        }
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        let mut fill = counts.clone();
        let mut sources = vec![0u32; *counts.last().unwrap_or(&0) as usize];
        for page in 0..self.pages.len() as u32 {
            for dst in self.next_pages(page) {
                sources[fill[dst as usize] as usize] = page;
                fill[dst as usize] += 1;
            }
        }
        Reverse {
            offsets: counts,
            sources,
        }
    }
}

struct Reverse {
    offsets: Vec<u32>,
    sources: Vec<u32>,
}

impl Reverse {
    fn predecessors(&self, page: u32) -> &[u32] {
        let (a, b) = (self.offsets[page as usize], self.offsets[page as usize + 1]);
        &self.sources[a as usize..b as usize]
    }
}

/// The paths of a web directory.
#[derive(Debug, Clone)]
pub struct WebDir {
    root: PathBuf,
}

const WEB_JSON: &str = "web.json";

impl WebDir {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        WebDir { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn pages(&self) -> PathBuf {
        self.root.join("pages")
    }

    pub fn links(&self) -> PathBuf {
        self.root.join("links")
    }

    pub fn web_json(&self) -> PathBuf {
        self.root.join(WEB_JSON)
    }

    /// Opens an existing web directory: one with web.json, pages and links.
    pub fn open(root: impl Into<PathBuf>) -> Result<Self> {
        let web = WebDir::new(root);
        if !web.web_json().is_file() || !web.pages().is_dir() || !web.links().is_dir() {
            return Err(Error::Usage(format!(
                "{} is not a web graph (no web.json, pages/ and links/); make one with \
                 `langcrawl websim generate -o DIR` or `langcrawl graph export -o DIR`",
                web.root.display()
            )));
        }
        Ok(web)
    }

    /// Prepares `root` for a new graph: it must not exist yet, or be empty.
    pub fn create(root: impl Into<PathBuf>) -> Result<Self> {
        let web = WebDir::new(root);
        if web.root.exists() {
            let empty = std::fs::read_dir(&web.root)
                .map_err(Error::io(&web.root))?
                .next()
                .is_none();
            if !empty {
                return Err(Error::Usage(format!(
                    "{} exists and is not empty; give another -o DIR or remove it",
                    web.root.display()
                )));
            }
        }
        std::fs::create_dir_all(&web.root).map_err(Error::io(&web.root))?;
        Ok(web)
    }

    pub fn info(&self) -> Result<WebInfo> {
        read_json(&self.web_json())
    }

    /// Writes web.json (temp file, then rename).
    pub fn save_info(&self, info: &WebInfo) -> Result<()> {
        write_json(&self.web_json(), info)
    }

    /// Writes the pages and links of `graph`, each segment into a temp
    /// folder renamed into place when complete, then `info` as web.json.
    pub fn write(&self, graph: &Graph, info: &WebInfo) -> Result<()> {
        write_pages(graph, &self.pages())?;
        write_links(graph, &self.links())?;
        self.save_info(info)
    }

    /// Reads the whole graph into memory.
    pub fn read(&self) -> Result<Graph> {
        GraphReader::default().read(self)
    }
}

fn strings(values: impl Iterator<Item = Option<String>>) -> ArrayRef {
    Arc::new(values.collect::<StringArray>())
}

fn write_pages(graph: &Graph, dir: &Path) -> Result<()> {
    let mut writer = SegmentWriter::create(dir, WEB_PAGES.clone())?;
    for chunk in graph.pages.chunks(BATCH_ROWS) {
        let host = |p: &GraphPage| &graph.hosts[p.host as usize];
        let columns: Vec<ArrayRef> = vec![
            strings(chunk.iter().map(|p| Some(p.url.clone()))),
            strings(chunk.iter().map(|p| Some(host(p).name.clone()))),
            strings(chunk.iter().map(|p| Some(host(p).domain.clone()))),
            strings(chunk.iter().map(|p| Some(host(p).tld.clone()))),
            strings(chunk.iter().map(|p| Some(p.dir.clone()))),
            strings(
                chunk
                    .iter()
                    .map(|p| p.lang.map(|l| graph.langs[l as usize].clone())),
            ),
            Arc::new(
                chunk
                    .iter()
                    .map(|p| p.status.map(i32::from))
                    .collect::<Int32Array>(),
            ),
            strings(
                chunk
                    .iter()
                    .map(|p| p.redirect_to.map(|t| graph.pages[t as usize].url.clone())),
            ),
            Arc::new(
                chunk
                    .iter()
                    .map(|p| Some(p.robots_allowed))
                    .collect::<BooleanArray>(),
            ),
        ];
        let batch = RecordBatch::try_new(WEB_PAGES.clone(), columns)
            .map_err(|e| Error::Other(format!("web pages batch: {e}")))?;
        writer.write(&batch)?;
    }
    writer.finish()?.commit().map(|_| ())
}

fn write_links(graph: &Graph, dir: &Path) -> Result<()> {
    let mut writer = SegmentWriter::create(dir, WEB_LINKS.clone())?;
    let mut rows: Vec<(u32, GraphLink)> = Vec::with_capacity(BATCH_ROWS);
    let flush = |rows: &mut Vec<(u32, GraphLink)>, writer: &mut SegmentWriter| -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let page = |id: u32| &graph.pages[id as usize];
        let host = |id: u32| &graph.hosts[page(id).host as usize];
        let anchor = |l: &GraphLink| &graph.anchors[l.anchor as usize];
        let columns: Vec<ArrayRef> = vec![
            strings(rows.iter().map(|(s, _)| Some(page(*s).url.clone()))),
            strings(rows.iter().map(|(s, _)| Some(host(*s).name.clone()))),
            strings(rows.iter().map(|(_, l)| Some(page(l.dst).url.clone()))),
            strings(rows.iter().map(|(_, l)| Some(host(l.dst).name.clone()))),
            strings(rows.iter().map(|(_, l)| Some(host(l.dst).domain.clone()))),
            strings(rows.iter().map(|(_, l)| Some(host(l.dst).tld.clone()))),
            strings(rows.iter().map(|(_, l)| Some(page(l.dst).dir.clone()))),
            strings(rows.iter().map(|(_, l)| Some(anchor(l).text.clone()))),
            strings(rows.iter().map(|(_, l)| Some(anchor(l).lang.clone()))),
        ];
        let batch = RecordBatch::try_new(WEB_LINKS.clone(), columns)
            .map_err(|e| Error::Other(format!("web links batch: {e}")))?;
        rows.clear();
        writer.write(&batch)
    };
    for src in 0..graph.pages.len() as u32 {
        for link in graph.outlinks(src) {
            rows.push((src, *link));
            if rows.len() == BATCH_ROWS {
                flush(&mut rows, &mut writer)?;
            }
        }
    }
    flush(&mut rows, &mut writer)?;
    writer.finish()?.commit().map(|_| ())
}

/// Builds a [`Graph`] from a web directory's Parquet files, interning hosts,
/// languages and anchors.
#[derive(Default)]
struct GraphReader {
    graph: Graph,
    ids: HashMap<String, u32>,
    hosts: HashMap<String, u32>,
    langs: HashMap<String, u16>,
    anchors: HashMap<Anchor, u32>,
    redirects: Vec<(u32, String)>,
}

impl GraphReader {
    fn read(mut self, web: &WebDir) -> Result<Graph> {
        for batch in read_batches(&web.pages(), BATCH_ROWS)? {
            self.add_pages(&batch?)?;
        }
        for (page, target) in std::mem::take(&mut self.redirects) {
            let id = self.page_id(&target, None)?;
            self.graph.pages[page as usize].redirect_to = Some(id);
        }
        let mut outlinks: Vec<Vec<GraphLink>> = Vec::new();
        for batch in read_batches(&web.links(), BATCH_ROWS)? {
            self.add_links(&batch?, &mut outlinks)?;
        }
        let g = self.graph;
        Ok(Graph::new(g.hosts, g.pages, g.langs, g.anchors, outlinks))
    }

    fn add_pages(&mut self, batch: &RecordBatch) -> Result<()> {
        let url = column::<StringArray>(batch, "url")?;
        let dir = column::<StringArray>(batch, "dir")?;
        let lang = column::<StringArray>(batch, "lang")?;
        let status = column::<Int32Array>(batch, "status")?;
        let redirect = column::<StringArray>(batch, "redirect_to")?;
        let robots = column::<BooleanArray>(batch, "robots_allowed")?;
        let host = column::<StringArray>(batch, "host")?;
        let domain = column::<StringArray>(batch, "domain")?;
        let tld = column::<StringArray>(batch, "tld")?;
        for row in 0..batch.num_rows() {
            let parts = urls::UrlParts {
                url: url.value(row).to_string(),
                host: host.value(row).to_string(),
                domain: domain.value(row).to_string(),
                tld: tld.value(row).to_string(),
                dir: dir.value(row).to_string(),
            };
            let id = self.page_id(url.value(row), Some(parts))?;
            let page = &mut self.graph.pages[id as usize];
            page.status = (!status.is_null(row)).then(|| status.value(row) as u16);
            page.robots_allowed = robots.value(row);
            if let Some(target) = opt_str(redirect, row) {
                self.redirects.push((id, target.to_string()));
            }
            if let Some(code) = opt_str(lang, row) {
                let next = self.langs.len() as u16;
                let l = *self.langs.entry(code.to_string()).or_insert(next);
                if l == next {
                    self.graph.langs.push(code.to_string());
                }
                self.graph.pages[id as usize].lang = Some(l);
            }
        }
        Ok(())
    }

    fn add_links(&mut self, batch: &RecordBatch, outlinks: &mut Vec<Vec<GraphLink>>) -> Result<()> {
        let src = column::<StringArray>(batch, "src_url")?;
        let dst = column::<StringArray>(batch, "dst_url")?;
        let anchor = column::<StringArray>(batch, "anchor")?;
        let anchor_lang = column::<StringArray>(batch, "anchor_lang")?;
        for row in 0..batch.num_rows() {
            let s = self.page_id(src.value(row), None)?;
            let d = self.page_id(dst.value(row), None)?;
            let key = Anchor {
                text: anchor.value(row).to_string(),
                lang: anchor_lang.value(row).to_string(),
            };
            let next = self.anchors.len() as u32;
            let a = *self.anchors.entry(key.clone()).or_insert(next);
            if a == next {
                self.graph.anchors.push(key);
            }
            if outlinks.len() <= s as usize {
                outlinks.resize_with(s as usize + 1, Vec::new);
            }
            outlinks[s as usize].push(GraphLink { dst: d, anchor: a });
        }
        Ok(())
    }

    /// The id of `url`, adding a page (never fetched) if it is new.
    fn page_id(&mut self, url: &str, parts: Option<urls::UrlParts>) -> Result<u32> {
        if let Some(&id) = self.ids.get(url) {
            return Ok(id);
        }
        let parts = match parts {
            Some(parts) => parts,
            None => urls::normalize(url)
                .map(|u| urls::parts(&u))
                .map_err(|why| Error::Other(format!("web graph: {url}: {why}")))?,
        };
        let next = self.hosts.len() as u32;
        let host = *self.hosts.entry(parts.host.clone()).or_insert(next);
        if host == next {
            self.graph.hosts.push(GraphHost {
                name: parts.host,
                domain: parts.domain,
                tld: parts.tld,
            });
        }
        let id = self.graph.pages.len() as u32;
        self.graph.pages.push(GraphPage {
            url: url.to_string(),
            host,
            dir: parts.dir,
            lang: None,
            status: None,
            redirect_to: None,
            robots_allowed: true,
        });
        self.ids.insert(url.to_string(), id);
        Ok(id)
    }
}
