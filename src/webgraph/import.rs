//! `graph import`: a web described as tab-separated files — the format of
//! the independent generator in `shared/webgen/` (`truth.tsv`: one row per
//! URL with its language, HTTP status, redirect and robots.txt verdict;
//! `links.tsv`: `src dst anchor kind`; `seeds.txt`; `stats.json` naming
//! the target) — written as a web graph, so `simulate` replays it as it
//! replays our own. Anchor languages are identified as parse does for the
//! web's target; `js` links (no HTML crawler sees them) are left out.

use std::collections::HashMap;
use std::io::{BufRead, Read};
use std::path::Path;

use super::{Anchor, GraphHost, LinkRow, LinksWriter, PageRow, PagesWriter, WebDir, WebInfo};
use crate::error::{Error, Result};

/// What an import wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    pub pages: usize,
    pub links: usize,
    pub seeds: usize,
    pub target_lang: String,
}

/// Writes the web described in folder `from` as the web graph `out`.
pub fn run(from: &Path, out: &Path) -> Result<Imported> {
    let target_lang = target_of(from)?;
    let seeds = read_lines(&from.join("seeds.txt"))?;
    let seeds: Vec<String> = seeds.iter().filter_map(|s| normalized(s)).collect();
    check_header(&from.join("truth.tsv"), TRUTH_COLUMNS)?;
    check_header(&from.join("links.tsv"), LINKS_COLUMNS)?;
    let web = WebDir::create(out)?;
    let mut hosts = HostCache::default();
    let pages = write_pages(from, &web, &mut hosts)?;
    let links = write_links(from, &web, &mut hosts, &target_lang)?;
    let info = WebInfo {
        target_lang: target_lang.clone(),
        target_class: None,
        seeds: seeds.clone(),
        made_by: format!("graph import {}", from.display()),
        pages,
        links,
        stats: Vec::new(),
    };
    web.save_info(&info)?;
    Ok(Imported {
        pages,
        links,
        seeds: seeds.len(),
        target_lang,
    })
}

/// The target language `stats.json` names.
fn target_of(from: &Path) -> Result<String> {
    let path = from.join("stats.json");
    let stats: serde_json::Value = crate::store::crawl_json::read_json(&path)?;
    let lang = stats["target_lang"]
        .as_str()
        .ok_or_else(|| Error::SegmentRead {
            path: path.clone(),
            message: "no target_lang".into(),
        })?;
    Ok(crate::lang::TargetLang::parse(lang)?.code().to_string())
}

fn read_lines(path: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(path).map_err(Error::io(path))?;
    Ok(text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect())
}

fn normalized(url: &str) -> Option<String> {
    crate::urls::normalize(url).ok().map(|u| u.to_string())
}

/// Host parts (registrable domain, public suffix) by host name.
#[derive(Default)]
struct HostCache(HashMap<String, GraphHost>);

impl HostCache {
    /// The URL's normalized form, its host and its top-level directory.
    fn parts(&mut self, url: &str) -> Option<(String, GraphHost, String)> {
        let parsed = crate::urls::normalize(url).ok()?;
        let parts = crate::urls::parts(&parsed);
        let host = self
            .0
            .entry(parts.host.clone())
            .or_insert_with(|| GraphHost {
                name: parts.host.clone(),
                domain: parts.domain.clone(),
                tld: parts.tld.clone(),
            })
            .clone();
        Some((parts.url, host, parts.dir))
    }
}

/// The rows of a TSV file with a header (checked by [`check_header`]),
/// as maps from column to cell, each handed to `row`; `path` names the
/// file in errors.
fn each_row(path: &Path, mut row: impl FnMut(&HashMap<&str, &str>) -> Result<()>) -> Result<()> {
    let file = std::fs::File::open(path).map_err(Error::io(path))?;
    let mut lines = std::io::BufReader::new(file).lines();
    let header = match lines.next() {
        Some(line) => line.map_err(Error::io(path))?,
        None => return Ok(()),
    };
    let names: Vec<String> = header.split('\t').map(str::to_string).collect();
    for line in lines {
        let line = line.map_err(Error::io(path))?;
        let cells: HashMap<&str, &str> = names
            .iter()
            .map(String::as_str)
            .zip(line.split('\t'))
            .collect();
        row(&cells)?;
    }
    Ok(())
}

/// Checks that `path`'s first line names the columns `required`, before
/// anything is written.
fn check_header(path: &Path, required: &[&str]) -> Result<()> {
    let file = std::fs::File::open(path).map_err(Error::io(path))?;
    let mut header = String::new();
    std::io::BufReader::new(file)
        .take(1 << 20)
        .read_line(&mut header)
        .map_err(Error::io(path))?;
    let names: Vec<&str> = header.trim_end_matches(['\n', '\r']).split('\t').collect();
    let missing: Vec<&str> = required
        .iter()
        .copied()
        .filter(|r| !names.contains(r))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::WebGraph {
        path: path.to_path_buf(),
        message: format!(
            "its header has no column {} (a webgen file's first line names its columns, \
             tab-separated, among them {})",
            missing.join(", "),
            required.join(", ")
        ),
    })
}

/// The columns of webgen's files that an import reads.
const TRUTH_COLUMNS: &[&str] = &["url", "status", "true_lang"];
const LINKS_COLUMNS: &[&str] = &["src", "dst"];

fn write_pages(from: &Path, web: &WebDir, hosts: &mut HostCache) -> Result<usize> {
    let mut writer = PagesWriter::create(&web.pages())?;
    each_row(&from.join("truth.tsv"), |cells| {
        let cell = |name: &str| cells.get(name).copied().unwrap_or("");
        let Some((url, host, dir)) = hosts.parts(cell("url")) else {
            return Ok(());
        };
        let status = cell("status").parse::<u16>().ok();
        let lang = cell("true_lang");
        let lang = (status == Some(200) && !lang.is_empty() && lang != "und").then_some(lang);
        let redirect_to = normalized(cell("location"));
        writer.push(&PageRow {
            url: &url,
            host: &host,
            dir: &dir,
            lang,
            status,
            redirect_to: redirect_to.as_deref(),
            robots_allowed: cell("robots_allowed") != "0",
            class: None,
            text: None,
        })
    })?;
    writer.commit()
}

fn write_links(from: &Path, web: &WebDir, hosts: &mut HostCache, target: &str) -> Result<usize> {
    let mut writer = LinksWriter::create(&web.links())?;
    each_row(&from.join("links.tsv"), |cells| {
        let cell = |name: &str| cells.get(name).copied().unwrap_or("");
        let kind = match cell("kind") {
            "js" => return Ok(()),
            "" => "a",
            kind => kind,
        };
        let (Some((src, src_host, _)), Some((dst, dst_host, dst_dir))) =
            (hosts.parts(cell("src")), hosts.parts(cell("dst")))
        else {
            return Ok(());
        };
        let text = cell("anchor");
        let anchor = Anchor {
            text: text.to_string(),
            // anchors repeat: the recent ones are identified once
            lang: crate::lang::recent_anchor_lang(text, Some(target)),
            kind: kind.to_string(),
            hreflang: None,
        };
        writer.push(&LinkRow {
            src_url: &src,
            src_host: &src_host.name,
            dst_url: &dst,
            dst_host: &dst_host,
            dst_dir: &dst_dir,
            anchor: &anchor,
            context: None,
            heading: None,
        })
    })?;
    writer.commit()
}
