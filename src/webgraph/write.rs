//! Writing a web graph's Parquet form: rows streamed a batch at a time
//! (the generator's), the pages and links of a graph in memory, or of
//! queries (`graph export`'s), each into a temp folder renamed into place
//! when complete.

use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, BooleanBuilder, Int32Builder, RecordBatch, StringBuilder,
};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::dataframe::DataFrame;

use super::graph::{Anchor, Graph, GraphHost};
use super::BATCH_ROWS;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::store::schema::{WEB_LINKS, WEB_PAGES};
use crate::store::SegmentWriter;

/// One row of a web's pages.
pub struct PageRow<'a> {
    pub url: &'a str,
    pub host: &'a GraphHost,
    pub dir: &'a str,
    /// `None` unless the page answers 200.
    pub lang: Option<&'a str>,
    /// `None` for a page never fetched.
    pub status: Option<u16>,
    pub redirect_to: Option<&'a str>,
    pub robots_allowed: bool,
    /// The page's topic class and text, where the web records them.
    pub class: Option<&'a str>,
    pub text: Option<&'a str>,
}

/// One row of a web's links.
pub struct LinkRow<'a> {
    pub src_url: &'a str,
    pub src_host: &'a str,
    pub dst_url: &'a str,
    pub dst_host: &'a GraphHost,
    pub dst_dir: &'a str,
    pub anchor: &'a Anchor,
    /// The text around the link and its heading, where the web records them.
    pub context: Option<&'a str>,
    pub heading: Option<&'a str>,
}

/// Writes a segment of rows a batch at a time (temp folder, renamed into
/// place by [`commit`](RowsOut::commit)), so a web of any size streams out.
struct RowsOut {
    writer: SegmentWriter,
    schema: SchemaRef,
    rows: usize,
}

impl RowsOut {
    fn create(dir: &Path, schema: &SchemaRef) -> Result<Self> {
        Ok(RowsOut {
            writer: SegmentWriter::create(dir, schema.clone())?,
            schema: schema.clone(),
            rows: 0,
        })
    }

    /// Counts a row; true when a batch is full.
    fn added(&mut self) -> bool {
        self.rows += 1;
        self.rows % BATCH_ROWS == 0
    }

    fn write(&mut self, columns: Vec<ArrayRef>) -> Result<()> {
        let batch = RecordBatch::try_new(self.schema.clone(), columns)
            .map_err(Error::arrow("a batch of a web graph"))?;
        if batch.num_rows() > 0 {
            self.writer.write(&batch)?;
        }
        Ok(())
    }

    fn commit(self) -> Result<usize> {
        self.writer.finish()?.commit()?;
        Ok(self.rows)
    }
}

fn finish_all(builders: &mut [&mut StringBuilder]) -> Vec<ArrayRef> {
    builders
        .iter_mut()
        .map(|b| Arc::new(b.finish()) as ArrayRef)
        .collect()
}

/// Streams page rows into a web's `pages/`.
pub struct PagesWriter {
    out: RowsOut,
    text: [StringBuilder; 9],
    status: Int32Builder,
    robots: BooleanBuilder,
}

impl PagesWriter {
    pub fn create(dir: &Path) -> Result<Self> {
        Ok(PagesWriter {
            out: RowsOut::create(dir, &WEB_PAGES)?,
            text: Default::default(),
            status: Int32Builder::new(),
            robots: BooleanBuilder::new(),
        })
    }

    pub fn push(&mut self, row: &PageRow) -> Result<()> {
        let [url, host, domain, tld, dir, lang, redirect, class, text] = &mut self.text;
        url.append_value(row.url);
        host.append_value(&row.host.name);
        domain.append_value(&row.host.domain);
        tld.append_value(&row.host.tld);
        dir.append_value(row.dir);
        lang.append_option(row.lang);
        redirect.append_option(row.redirect_to);
        class.append_option(row.class);
        text.append_option(row.text);
        self.status.append_option(row.status.map(i32::from));
        self.robots.append_value(row.robots_allowed);
        if self.out.added() {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        let [url, host, domain, tld, dir, lang, redirect, class, text] = &mut self.text;
        let mut columns = finish_all(&mut [url, host, domain, tld, dir, lang]);
        columns.push(Arc::new(self.status.finish()));
        columns.push(Arc::new(redirect.finish()));
        columns.push(Arc::new(self.robots.finish()));
        columns.extend(finish_all(&mut [class, text]));
        self.out.write(columns)
    }

    /// Writes the last batch and renames the segment into place; returns
    /// the rows written.
    pub fn commit(mut self) -> Result<usize> {
        self.flush()?;
        self.out.commit()
    }
}

/// Streams link rows into a web's `links/`.
pub struct LinksWriter {
    out: RowsOut,
    text: [StringBuilder; 14],
}

impl LinksWriter {
    pub fn create(dir: &Path) -> Result<Self> {
        Ok(LinksWriter {
            out: RowsOut::create(dir, &WEB_LINKS)?,
            text: Default::default(),
        })
    }

    pub fn push(&mut self, row: &LinkRow) -> Result<()> {
        let [src_url, src_host, dst_url, dst_host, domain, tld, dir, anchor, lang, kind, hreflang, context, heading, source] =
            &mut self.text;
        src_url.append_value(row.src_url);
        src_host.append_value(row.src_host);
        dst_url.append_value(row.dst_url);
        dst_host.append_value(&row.dst_host.name);
        domain.append_value(&row.dst_host.domain);
        tld.append_value(&row.dst_host.tld);
        dir.append_value(row.dst_dir);
        anchor.append_value(&row.anchor.text);
        lang.append_value(&row.anchor.lang);
        kind.append_value(&row.anchor.kind);
        hreflang.append_option(row.anchor.hreflang.as_deref());
        context.append_option(row.context);
        heading.append_option(row.heading);
        // a graph in memory does not record where its anchors are from
        source.append_null();
        if self.out.added() {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        let columns = finish_all(&mut self.text.each_mut());
        self.out.write(columns)
    }

    /// Writes the last batch and renames the segment into place; returns
    /// the rows written.
    pub fn commit(mut self) -> Result<usize> {
        self.flush()?;
        self.out.commit()
    }
}

pub(super) fn write_pages(graph: &Graph, dir: &Path) -> Result<()> {
    let mut writer = PagesWriter::create(dir)?;
    for p in &graph.pages {
        writer.push(&PageRow {
            url: &p.url,
            host: &graph.hosts[p.host as usize],
            dir: &p.dir,
            lang: p.lang.map(|l| graph.langs[l as usize].as_str()),
            status: p.status,
            redirect_to: p.redirect_to.map(|t| graph.pages[t as usize].url.as_str()),
            robots_allowed: p.robots_allowed,
            class: None,
            text: None,
        })?;
    }
    writer.commit().map(|_| ())
}

pub(super) fn write_links(graph: &Graph, dir: &Path) -> Result<()> {
    let mut writer = LinksWriter::create(dir)?;
    for (src, page) in graph.pages.iter().enumerate() {
        for link in graph.outlinks(src as u32) {
            let dst = &graph.pages[link.dst as usize];
            writer.push(&LinkRow {
                src_url: &page.url,
                src_host: &graph.hosts[page.host as usize].name,
                dst_url: &dst.url,
                dst_host: &graph.hosts[dst.host as usize],
                dst_dir: &dst.dir,
                anchor: &graph.anchors[link.anchor as usize],
                context: None,
                heading: None,
            })?;
        }
    }
    writer.commit().map(|_| ())
}

/// Writes the rows of `df`, cast to `schema`, as the segment `dir`; returns
/// how many.
pub(super) async fn write_frame(
    engine: &Engine,
    df: DataFrame,
    schema: SchemaRef,
    dir: &Path,
) -> Result<usize> {
    let staged = engine
        .write(df, SegmentWriter::create(dir, schema)?)
        .await?;
    staged.commit()
}
