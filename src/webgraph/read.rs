//! Reading a web graph's Parquet form into memory: pages first (hosts,
//! languages interned; redirects resolved once all are known), then links
//! (anchors interned). A URL that only a link names becomes a page never
//! fetched.

use std::collections::HashMap;

use datafusion::arrow::array::{Array, BooleanArray, Int32Array, RecordBatch, StringArray};

use super::graph::{Anchor, Graph, GraphHost, GraphLink, GraphPage};
use super::{WebDir, BATCH_ROWS};
use crate::error::{Error, Result};
use crate::store::read_batches;
use crate::store::rows::{column, opt_str};
use crate::urls;

/// Builds a [`Graph`] from a web directory's Parquet files, interning hosts,
/// languages and anchors.
#[derive(Default)]
struct GraphReader {
    /// The web directory, for errors.
    root: std::path::PathBuf,
    graph: Graph,
    ids: HashMap<String, u32>,
    hosts: HashMap<String, u32>,
    langs: HashMap<String, u16>,
    anchors: HashMap<Anchor, u32>,
    redirects: Vec<(u32, String)>,
}

/// Reads the whole graph of `web` into memory.
pub(super) fn read_graph(web: &WebDir) -> Result<Graph> {
    let reader = GraphReader {
        root: web.root().to_path_buf(),
        ..GraphReader::default()
    };
    reader.read(web)
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
        // Webs written before links kept their kind and hreflang: plain `a`.
        let optional = |name| {
            use datafusion::arrow::array::AsArray;
            batch
                .column_by_name(name)
                .and_then(|c| c.as_string_opt::<i32>())
        };
        let (kind, hreflang) = (optional("kind"), optional("hreflang"));
        for row in 0..batch.num_rows() {
            let s = self.page_id(src.value(row), None)?;
            let d = self.page_id(dst.value(row), None)?;
            let text = |column: Option<&StringArray>| {
                column
                    .filter(|c| c.is_valid(row))
                    .map(|c| c.value(row).to_string())
            };
            let key = Anchor {
                text: anchor.value(row).to_string(),
                lang: anchor_lang.value(row).to_string(),
                kind: text(kind).unwrap_or_else(|| "a".into()),
                hreflang: text(hreflang),
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
                .map_err(|why| Error::WebGraph {
                    path: self.root.clone(),
                    message: format!("{url}: {why}"),
                })?,
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
