//! Writing a web graph's Parquet form: the pages and links of a graph in
//! memory (the generator's), or of queries (`graph export`'s), each into a
//! temp folder renamed into place when complete.

use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, BooleanArray, Int32Array, RecordBatch, StringArray};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::dataframe::DataFrame;

use super::graph::{Graph, GraphLink, GraphPage};
use super::BATCH_ROWS;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::store::schema::{WEB_LINKS, WEB_PAGES};
use crate::store::SegmentWriter;

fn strings(values: impl Iterator<Item = Option<String>>) -> ArrayRef {
    Arc::new(values.collect::<StringArray>())
}

pub(super) fn write_pages(graph: &Graph, dir: &Path) -> Result<()> {
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
            .map_err(Error::arrow("a batch of web pages"))?;
        writer.write(&batch)?;
    }
    writer.finish()?.commit().map(|_| ())
}

pub(super) fn write_links(graph: &Graph, dir: &Path) -> Result<()> {
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
            strings(rows.iter().map(|(_, l)| Some(anchor(l).kind.clone()))),
            strings(rows.iter().map(|(_, l)| anchor(l).hreflang.clone())),
        ];
        let batch = RecordBatch::try_new(WEB_LINKS.clone(), columns)
            .map_err(Error::arrow("a batch of web links"))?;
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
