//! A web graph's shape without its text: pages as ids, which of them are
//! target content, and where each leads a crawler on to (its outlinks if it
//! is content, its redirect target if it redirects) — what the walks need
//! (`walk`), in about 6 bytes a page and 4 a link, never a URL. The
//! generator builds it as it writes a web; `simulate` reads it from a web's
//! Parquet files ([`Topology::read`]), so a web of ten million pages walks
//! in well under a gigabyte.

use std::collections::HashMap;
use std::hash::Hasher;

use datafusion::arrow::array::{Array, BooleanArray, Int32Array, RecordBatch, StringArray};

use super::graph::UNREACHABLE;
use super::{WebDir, BATCH_ROWS};
use crate::error::{Error, Result};
use crate::store::rows::{column, opt_str};
use crate::store::{read_columns, row_count};

const CONTENT: u8 = 1;
const TARGET: u8 = 2;

/// Pages by id and their outlinks as ids.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Topology {
    flags: Vec<u8>,
    /// Page a redirect leads to, or [`UNREACHABLE`].
    redirect: Vec<u32>,
    /// Outlinks of page `i` are `dsts[offsets[i]..offsets[i + 1]]` (pages
    /// past the end of `offsets` have none).
    offsets: Vec<u32>,
    dsts: Vec<u32>,
}

impl Topology {
    /// Adds the next page: content (a crawler reads it: 200, robots allow,
    /// a language) and in the target language or not, and where it
    /// redirects (if robots allow following it).
    pub fn push_page(&mut self, content: bool, target: bool, redirect: Option<u32>) -> u32 {
        let flags = if content { CONTENT } else { 0 } | if target { TARGET } else { 0 };
        self.flags.push(flags);
        self.redirect.push(redirect.unwrap_or(UNREACHABLE));
        self.flags.len() as u32 - 1
    }

    /// Sets the outlinks of `page`; pages must come in increasing order
    /// (a page left out has none), fewer than 2^32 links in all.
    pub fn push_outlinks(&mut self, page: u32, dsts: impl IntoIterator<Item = u32>) {
        debug_assert!(page as usize + 1 >= self.offsets.len(), "pages in order");
        let start = self.dsts.len() as u32;
        self.dsts.extend(dsts);
        let end = u32::try_from(self.dsts.len()).expect("fewer than 2^32 links");
        if end == start {
            return;
        }
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        while self.offsets.len() <= page as usize {
            self.offsets.push(start);
        }
        self.offsets.push(end);
    }

    pub fn len(&self) -> usize {
        self.flags.len()
    }

    pub fn is_empty(&self) -> bool {
        self.flags.is_empty()
    }

    pub fn link_count(&self) -> usize {
        self.dsts.len()
    }

    /// True if a crawler can fetch `page` and read its language.
    pub fn is_content(&self, page: u32) -> bool {
        self.flags[page as usize] & CONTENT != 0
    }

    /// True if `page` is content in the target language.
    pub fn is_target(&self, page: u32) -> bool {
        self.flags[page as usize] & (CONTENT | TARGET) == CONTENT | TARGET
    }

    fn outlinks(&self, page: u32) -> &[u32] {
        let p = page as usize;
        match (self.offsets.get(p), self.offsets.get(p + 1)) {
            (Some(&a), Some(&b)) => &self.dsts[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The pages a crawler follows on from `page`: its outlinks if it is
    /// content, its redirect target if it redirects; nothing otherwise.
    pub fn next_pages(&self, page: u32) -> impl Iterator<Item = u32> + '_ {
        let links = if self.is_content(page) {
            self.outlinks(page)
        } else {
            &[]
        };
        let redirect = self.redirect[page as usize];
        links
            .iter()
            .copied()
            .chain((redirect != UNREACHABLE).then_some(redirect))
    }

    /// Reads the topology of `web` for `target`, streaming its pages and
    /// links (URL and destination columns only); returns it with the ids
    /// of the URLs. A page's links keep their order in the links files.
    pub fn read(web: &WebDir, target: Target<'_>) -> Result<(Topology, UrlIds)> {
        Topology::read_from(web, target).map_err(|e| match e {
            Error::WebGraph { .. } => e,
            other => Error::WebGraph {
                path: web.root().to_path_buf(),
                message: other.to_string(),
            },
        })
    }

    fn read_from(web: &WebDir, target: Target<'_>) -> Result<(Topology, UrlIds)> {
        let mut topology = Topology::default();
        let mut ids = UrlIds::default();
        let mut redirects: Vec<(u32, u64)> = Vec::new();
        let mut columns = vec!["url", "lang", "status", "redirect_to", "robots_allowed"];
        if let Target::Class(_) = target {
            columns.push("class");
        }
        for batch in read_columns(&web.pages(), BATCH_ROWS, &columns)? {
            topology.add_pages(&batch?, target, &mut ids, &mut redirects)?;
        }
        for (page, key) in redirects {
            topology.redirect[page as usize] = ids.id_of_key(key, &mut topology);
        }
        let links = row_count(&web.links())?;
        if u32::try_from(links).is_err() {
            return Err(Error::Usage(format!("{links} links: more than 2^32")));
        }
        // Links as (src, dst) pairs, put in order of source (stable: each
        // page's links keep their order) for the adjacency lists.
        let mut edges: Vec<u64> = Vec::new();
        let _ = edges.try_reserve_exact(links);
        for batch in read_columns(&web.links(), BATCH_ROWS, &["src_url", "dst_url"])? {
            let batch = batch?;
            let src = non_null(&batch, "src_url")?;
            let dst = non_null(&batch, "dst_url")?;
            for row in 0..batch.num_rows() {
                let s = ids.id_of(src.value(row), &mut topology);
                let d = ids.id_of(dst.value(row), &mut topology);
                edges.push(u64::from(s) << 32 | u64::from(d));
            }
        }
        edges.sort_by_key(|e| e >> 32);
        let _ = topology.dsts.try_reserve_exact(edges.len());
        let mut at = 0;
        while at < edges.len() {
            let src = (edges[at] >> 32) as u32;
            let end = at + edges[at..].partition_point(|e| (e >> 32) as u32 == src);
            topology.push_outlinks(src, edges[at..end].iter().map(|e| *e as u32));
            at = end;
        }
        Ok((topology, ids))
    }

    fn add_pages(
        &mut self,
        batch: &RecordBatch,
        target: Target<'_>,
        ids: &mut UrlIds,
        redirects: &mut Vec<(u32, u64)>,
    ) -> Result<()> {
        let url = non_null(batch, "url")?;
        let lang = column::<StringArray>(batch, "lang")?;
        let status = column::<Int32Array>(batch, "status")?;
        let redirect = column::<StringArray>(batch, "redirect_to")?;
        let robots = column::<BooleanArray>(batch, "robots_allowed")?;
        let (marks, value) = match target {
            Target::Lang(code) => (lang, code),
            Target::Class(class) => (column::<StringArray>(batch, "class")?, class),
        };
        for row in 0..batch.num_rows() {
            let allowed = robots.is_valid(row) && robots.value(row);
            let status = status.is_valid(row).then(|| status.value(row));
            let lang = opt_str(lang, row);
            let content = allowed && status == Some(200) && lang.is_some();
            let id = ids.id_of(url.value(row), self);
            let flags = &mut self.flags[id as usize];
            let is_target = opt_str(marks, row) == Some(value);
            *flags = if content { CONTENT } else { 0 } | if is_target { TARGET } else { 0 };
            if let Some(to) = opt_str(redirect, row).filter(|_| allowed) {
                redirects.push((id, url_key(to)));
            }
        }
        Ok(())
    }
}

/// Which pages of a web are its target pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target<'a> {
    /// The pages in this language (ISO 639-3).
    Lang(&'a str),
    /// The pages of this class (a topic web's `class` column).
    Class(&'a str),
}

/// Page ids by URL, kept as 64-bit hashes of the URLs (16 bytes a page
/// rather than the URL; two URLs of a ten-million-page web share a hash
/// with a chance of about one in three hundred thousand).
#[derive(Debug, Default)]
pub struct UrlIds {
    ids: HashMap<u64, u32>,
}

impl UrlIds {
    /// The id of `url`, if the web has it.
    pub fn get(&self, url: &str) -> Option<u32> {
        self.ids.get(&url_key(url)).copied()
    }

    /// The id of `url`, adding it to `topology` as a page that is not
    /// content if it is new (a URL only a link names).
    fn id_of(&mut self, url: &str, topology: &mut Topology) -> u32 {
        self.id_of_key(url_key(url), topology)
    }

    fn id_of_key(&mut self, key: u64, topology: &mut Topology) -> u32 {
        *self
            .ids
            .entry(key)
            .or_insert_with(|| topology.push_page(false, false, None))
    }
}

/// A column of URLs, none of them NULL.
fn non_null<'a>(batch: &'a RecordBatch, name: &str) -> Result<&'a StringArray> {
    let urls = column::<StringArray>(batch, name)?;
    if urls.null_count() > 0 {
        return Err(Error::Usage(format!(
            "{} rows without a {name}",
            urls.null_count()
        )));
    }
    Ok(urls)
}

fn url_key(url: &str) -> u64 {
    let mut hasher = twox_hash::XxHash64::with_seed(0);
    hasher.write(url.as_bytes());
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outlinks_of_pages_in_order_and_skipped() {
        let mut t = Topology::default();
        for _ in 0..5 {
            t.push_page(true, false, None);
        }
        t.push_outlinks(0, []);
        t.push_outlinks(1, [2, 3]);
        t.push_outlinks(3, [0]);
        t.push_outlinks(4, []);
        assert_eq!(t.next_pages(0).count(), 0);
        assert_eq!(t.next_pages(1).collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(t.next_pages(2).count(), 0);
        assert_eq!(t.next_pages(3).collect::<Vec<_>>(), vec![0]);
        assert_eq!(t.next_pages(4).count(), 0);
        // Empty lists leave no trace: the same topology as without them.
        let mut u = Topology::default();
        for _ in 0..5 {
            u.push_page(true, false, None);
        }
        u.push_outlinks(1, [2, 3]);
        u.push_outlinks(3, [0]);
        assert_eq!(t, u);
        assert_eq!(t.link_count(), 3);
    }
}
