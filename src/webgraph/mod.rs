//! The web-graph format: a web as a directory of Parquet files that
//! `websim generate` and `graph export` write, `websim serve --web` serves
//! and `simulate` replays.
//!
//! ```text
//! <web>/web.json        target language, seeds, how it was made, its statistics
//! <web>/pages/*.parquet url, host, domain, tld, dir, lang, status, redirect_to, robots_allowed
//! <web>/links/*.parquet src_url, src_host, dst_url, dst_host, dst_domain, dst_tld, dst_dir, anchor, anchor_lang
//! ```
//!
//! The Parquet schemas are `store::schema::WEB_PAGES` and `WEB_LINKS`,
//! beside the crawl's. This module holds the directory ([`WebDir`]) and
//! `web.json` ([`WebInfo`]); `graph` is the graph in memory, `topology`
//! its shape as ids (what `walk` walks, read without the URLs for webs
//! too large for memory), `write` and `read` its Parquet form.

mod graph;
pub mod import;
mod read;
mod topology;
mod walk;
mod write;

use std::path::{Path, PathBuf};

use datafusion::dataframe::DataFrame;
use serde::{Deserialize, Serialize};

use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::store::crawl_json::{read_json, write_json};
use crate::store::schema::{WEB_LINKS, WEB_PAGES};

pub use graph::{Anchor, Graph, GraphHost, GraphLink, GraphPage, UNREACHABLE};
pub use topology::{Target, Topology, UrlIds};
pub use write::{LinkRow, LinksWriter, PageRow, PagesWriter};

/// Rows per Parquet batch written and read.
const BATCH_ROWS: usize = 65_536;

/// `web.json`: what the graph is for and how it was made.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct WebInfo {
    /// ISO 639-3 code of the target language.
    pub target_lang: String,
    /// A topic web's target: the pages of this class (`web_pages.class`)
    /// rather than the pages in the target language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_class: Option<String>,
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

impl WebInfo {
    /// The web's target pages: its class's, or its language's.
    pub fn target(&self) -> Target<'_> {
        match &self.target_class {
            Some(class) => Target::Class(class),
            None => Target::Lang(&self.target_lang),
        }
    }
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

    /// Prepares `root` for a new graph: it must not exist yet, be empty,
    /// or hold an unfinished graph (one a killed run left: pages and links
    /// or their temp folders, no web.json), which is removed.
    pub fn create(root: impl Into<PathBuf>) -> Result<Self> {
        let web = WebDir::new(root);
        crate::store::refuse_a_file(&web.root)?;
        if web.root.exists() {
            let names: Vec<std::ffi::OsString> = std::fs::read_dir(&web.root)
                .map_err(Error::io(&web.root))?
                .map(|entry| entry.map(|e| e.file_name()))
                .collect::<std::io::Result<_>>()
                .map_err(Error::io(&web.root))?;
            // a temp folder of ours says a run was cut off writing here
            let cut_off = names.iter().any(|n| n.to_string_lossy().contains(".tmp-"));
            let unfinished = cut_off && names.iter().all(|name| is_graph_part(&web.root, name));
            if unfinished {
                for name in &names {
                    let path = web.root.join(name);
                    std::fs::remove_dir_all(&path).map_err(Error::io(&path))?;
                }
            } else {
                return Err(Error::Usage(format!(
                    "{} exists and is not empty; give another -o DIR or remove it",
                    web.root.display()
                )));
            }
        }
        crate::store::create_folder(&web.root)?;
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
        write::write_pages(graph, &self.pages())?;
        write::write_links(graph, &self.links())?;
        self.save_info(info)
    }

    /// Writes the pages of a query whose columns are those of
    /// [`WEB_PAGES`](crate::store::schema::WEB_PAGES) (temp folder, then
    /// rename); returns the rows written.
    pub async fn write_pages_from(&self, engine: &Engine, pages: DataFrame) -> Result<usize> {
        write::write_frame(engine, pages, WEB_PAGES.clone(), &self.pages()).await
    }

    /// Writes the links of a query whose columns are those of
    /// [`WEB_LINKS`](crate::store::schema::WEB_LINKS) (temp folder, then
    /// rename); returns the rows written.
    pub async fn write_links_from(&self, engine: &Engine, links: DataFrame) -> Result<usize> {
        write::write_frame(engine, links, WEB_LINKS.clone(), &self.links()).await
    }

    /// Reads the whole graph into memory.
    pub fn read(&self) -> Result<Graph> {
        read::read_graph(self)
    }
}

/// Whether `name` in `root` is a part of a graph being written, before
/// its web.json: its pages or links segment, done or in its temp folder
/// (`pages.tmp-<pid>`), holding Parquet parts only.
fn is_graph_part(root: &Path, name: &std::ffi::OsStr) -> bool {
    let text = name.to_string_lossy();
    let segment = text
        .split_once(".tmp-")
        .map_or(&*text, |(segment, _)| segment);
    let parts_only = || {
        let Ok(entries) = std::fs::read_dir(root.join(name)) else {
            return false;
        };
        entries.flatten().all(|e| {
            let file = e.file_name().to_string_lossy().into_owned();
            file.starts_with("part-") && file.ends_with(".parquet")
        })
    };
    (segment == "pages" || segment == "links") && parts_only()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_graph_a_killed_run_left_is_replaced_and_nothing_else_is() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = |name: &str, files: &[&str]| {
            let root = tmp.path().join(name);
            for file in files {
                let path = root.join(file);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, b"x").unwrap();
            }
            root
        };
        let cut = dir(
            "cut",
            &["pages/part-1.parquet", "links.tmp-77/part-2.parquet"],
        );
        WebDir::create(&cut).unwrap();
        assert_eq!(std::fs::read_dir(&cut).unwrap().count(), 0, "emptied");
        for (name, files) in [
            (
                "notes",
                &[
                    "pages/part-1.parquet",
                    "links.tmp-77/part-2.parquet",
                    "notes.txt",
                ][..],
            ),
            (
                "own",
                &["pages/summary.txt", "links.tmp-77/part-2.parquet"][..],
            ),
            (
                "whole",
                &["pages/part-1.parquet", "links/part-2.parquet"][..],
            ),
        ] {
            let root = dir(name, files);
            let err = WebDir::create(&root).unwrap_err().to_string();
            assert!(err.contains("exists and is not empty"), "{name}: {err}");
            assert!(root.join(files[0]).exists(), "{name}: kept");
        }
    }

    /// Two hosts: a home page linking to a page that redirects, its target,
    /// and a page only a link names (never fetched).
    fn small_graph() -> Graph {
        let host = |name: &str| GraphHost {
            name: name.into(),
            domain: name.into(),
            tld: "jp".into(),
        };
        let page = |url: &str, host, dir: &str, status, redirect_to| GraphPage {
            url: url.into(),
            host,
            dir: dir.into(),
            lang: (status == Some(200)).then_some(0),
            status,
            redirect_to,
            robots_allowed: true,
        };
        let anchor = |text: &str| Anchor::text(text, "jpn");
        Graph::new(
            vec![host("a.jp"), host("b.jp")],
            vec![
                page("http://a.jp/", 0, "a.jp/", Some(200), None),
                page("http://a.jp/old", 0, "a.jp/", Some(301), Some(2)),
                page("http://b.jp/p/1.html", 1, "b.jp/p/", Some(200), None),
                page("http://b.jp/p/2.html", 1, "b.jp/p/", None, None),
            ],
            vec!["jpn".into()],
            vec![anchor("old"), anchor("two")],
            vec![
                vec![GraphLink { dst: 1, anchor: 0 }],
                vec![],
                vec![GraphLink { dst: 3, anchor: 1 }],
            ],
        )
    }

    /// `graph` written as the web `dir/web`, and its web.json.
    fn written(graph: &Graph, dir: &Path) -> (WebDir, WebInfo) {
        let info = WebInfo {
            target_lang: "jpn".into(),
            target_class: None,
            seeds: vec!["http://a.jp/".into()],
            made_by: "test".into(),
            pages: graph.pages.len(),
            links: graph.link_count(),
            stats: Vec::new(),
        };
        let web = WebDir::create(dir.join("web")).unwrap();
        web.write(graph, &info).unwrap();
        (web, info)
    }

    #[test]
    fn a_graph_reads_back_as_written() {
        let tmp = tempfile::tempdir().unwrap();
        let graph = small_graph();
        let (web, info) = written(&graph, tmp.path());
        let web = WebDir::open(web.root()).unwrap();
        assert_eq!(web.info().unwrap(), info);
        let back = web.read().unwrap();
        assert_eq!(back.hosts, graph.hosts);
        assert_eq!(back.pages, graph.pages);
        assert_eq!(back.langs, graph.langs);
        assert_eq!(back.anchors, graph.anchors);
        for page in 0..graph.pages.len() as u32 {
            assert_eq!(back.outlinks(page), graph.outlinks(page));
        }
        assert!(WebDir::create(web.root()).is_err(), "not empty");
    }

    #[test]
    fn the_topology_read_without_urls_is_the_graphs() {
        let tmp = tempfile::tempdir().unwrap();
        let graph = small_graph();
        let (web, _) = written(&graph, tmp.path());
        let (topology, ids) = Topology::read(&web, Target::Lang("jpn")).unwrap();
        assert_eq!(topology, graph.topology("jpn"));
        assert_eq!(ids.get("http://b.jp/p/1.html"), Some(2));
        assert_eq!(ids.get("http://c.jp/"), None);
        // The home page leads on through the redirect to the page it names.
        let (distance, _) = topology.walk_from(&[0]);
        assert_eq!(distance, vec![0, 1, 2, 3]);
        assert_eq!(topology.nearest_target_distances(), vec![UNREACHABLE, 2]);
    }
}
