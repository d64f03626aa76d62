//! Writing a calibrated web: its pages, then each page's links as they are
//! drawn, streamed into the web directory a batch at a time (the URLs made
//! as they are written), while the topology the statistics walk is built.

use std::path::Path;

use super::Generator;
use crate::error::Result;
use crate::webgraph::{LinkRow, LinksWriter, PageRow, PagesWriter, Topology, UNREACHABLE};
use crate::websim::corpus::LANGS;

impl Generator {
    /// Writes every page into `dir` and adds it to `topology`; returns the
    /// pages written.
    pub(super) fn write_pages(&self, dir: &Path, topology: &mut Topology) -> Result<usize> {
        let mut writer = PagesWriter::create(dir)?;
        for id in 0..self.server_of.len() as u32 {
            let p = id as usize;
            let (url, page_dir) = self.page_url(id);
            let status = self.status[p];
            let redirect = (self.redirect[p] != UNREACHABLE).then_some(self.redirect[p]);
            let redirect_url = redirect.map(|to| self.page_url(to).0);
            // A page that answers 200 but is not content is one robots.txt keeps out.
            let robots_allowed = status != 200 || self.content[p];
            writer.push(&PageRow {
                url: &url,
                host: &self.hosts[self.server_of[p] as usize],
                dir: &page_dir,
                lang: (status == 200).then(|| LANGS[self.page_lang[p]].code),
                status: Some(status),
                redirect_to: redirect_url.as_deref(),
                robots_allowed,
                class: None,
                text: None,
            })?;
            topology.push_page(self.content[p], self.is_target(id), redirect);
        }
        writer.commit()
    }

    /// Draws the links of every page, writes them into `dir` and adds them
    /// to `topology`; returns the links written.
    pub(super) fn write_links(&mut self, dir: &Path, topology: &mut Topology) -> Result<usize> {
        let mut writer = LinksWriter::create(dir)?;
        for src in 0..self.server_of.len() as u32 {
            let links = self.outlinks(src);
            if links.is_empty() {
                continue;
            }
            let (src_url, _) = self.page_url(src);
            let src_host = &self.hosts[self.server_of[src as usize] as usize].name;
            for link in &links {
                let (dst_url, dst_dir) = self.page_url(link.dst);
                writer.push(&LinkRow {
                    src_url: &src_url,
                    src_host,
                    dst_url: &dst_url,
                    dst_host: &self.hosts[self.server_of[link.dst as usize] as usize],
                    dst_dir: &dst_dir,
                    anchor: &self.anchor_pool[link.anchor as usize],
                    context: None,
                    heading: None,
                })?;
            }
            topology.push_outlinks(src, links.iter().map(|l| l.dst));
        }
        writer.commit()
    }
}
