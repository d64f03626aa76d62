//! What only the whole web graph knows: which target pages the seeds can
//! reach and how far away they are (the denominator of coverage and the
//! axis of the miss ratio), and which pages lead to target pages (the
//! `perfect` strategy's oracle). Walked over the web's [`Topology`] (ids,
//! no URLs) and written as the simulation's tables `oracle` and
//! `target_distance`, so no URL of the web is held in memory.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, BooleanArray, Int32Array, RecordBatch, StringBuilder};
use datafusion::arrow::datatypes::SchemaRef;

use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::store::schema::{ORACLE, TARGET_DISTANCE};
use crate::store::{read_columns, rows::column, SegmentWriter};
use crate::webgraph::{Target, Topology, UrlIds, WebDir, UNREACHABLE};

/// Rows per batch of the oracle's tables.
const BATCH_ROWS: usize = 65_536;

/// A graph's answers for one target language and set of seeds.
pub struct Oracle {
    /// Hops from the seeds, per page ([`UNREACHABLE`] if none leads there).
    pub distance: Vec<u32>,
    /// Pages a perfect crawler follows links to.
    pub follow: Vec<bool>,
    /// Target pages the seeds reach.
    pub reachable_targets: usize,
    is_target: Vec<bool>,
}

impl Oracle {
    /// Walks `topology` from `seeds` (page ids).
    pub fn new(topology: &Topology, seeds: &[u32]) -> Self {
        let n = topology.len();
        let (distance, parent) = topology.walk_from(seeds);
        // The target pages a crawler reaches following target pages only.
        let mut by_targets = vec![false; n];
        let mut queue: VecDeque<u32> = seeds.iter().copied().collect();
        for &s in seeds {
            by_targets[s as usize] = true;
        }
        while let Some(page) = queue.pop_front() {
            for dst in topology.next_pages(page) {
                if topology.is_target(dst) && !by_targets[dst as usize] {
                    by_targets[dst as usize] = true;
                    queue.push_back(dst);
                }
            }
        }
        // Every other reachable target page: follow the shortest way to it.
        let is_target: Vec<bool> = (0..n as u32).map(|p| topology.is_target(p)).collect();
        let mut follow = is_target.clone();
        let mut reachable_targets = 0;
        for page in 0..n as u32 {
            if !is_target[page as usize] || distance[page as usize] == UNREACHABLE {
                continue;
            }
            reachable_targets += 1;
            let mut at = page;
            while !by_targets[at as usize] && parent[at as usize] != UNREACHABLE {
                follow[at as usize] = true;
                at = parent[at as usize];
            }
        }
        Oracle {
            distance,
            follow,
            reachable_targets,
            is_target,
        }
    }

    /// Writes the tables `oracle` (url, follow: the pages a perfect crawler
    /// follows links to; the others are left out) and `target_distance`
    /// (url, distance of each reachable target page) as the segments
    /// `oracle_dir` and `distance_dir`, streaming the URLs of `web`'s pages.
    pub fn write(
        &self,
        web: &WebDir,
        ids: &UrlIds,
        oracle_dir: &Path,
        distance_dir: &Path,
    ) -> Result<()> {
        let flags = |v: Vec<i32>| -> ArrayRef {
            Arc::new(v.iter().map(|&f| Some(f != 0)).collect::<BooleanArray>())
        };
        let numbers = |v: Vec<i32>| -> ArrayRef { Arc::new(Int32Array::from(v)) };
        let mut follows = TableOut::create(oracle_dir, &ORACLE, flags)?;
        let mut targets = TableOut::create(distance_dir, &TARGET_DISTANCE, numbers)?;
        // A URL listed twice in the pages is written once.
        let mut written = vec![false; self.follow.len()];
        for batch in read_columns(&web.pages(), BATCH_ROWS, &["url"])? {
            let batch = batch?;
            let urls = column::<datafusion::arrow::array::StringArray>(&batch, "url")?;
            for url in urls.iter().flatten() {
                let Some(id) = ids.get(url).map(|id| id as usize) else {
                    continue;
                };
                if std::mem::replace(&mut written[id], true) {
                    continue;
                }
                if self.follow[id] {
                    follows.push(url, 1)?;
                }
                if self.is_target[id] && self.distance[id] != UNREACHABLE {
                    targets.push(url, self.distance[id] as i32)?;
                }
            }
        }
        follows.commit()?;
        targets.commit()
    }
}

/// The oracle of a web, walked and ready to be written.
pub struct Walked {
    oracle: Oracle,
    ids: UrlIds,
    /// Pages and links of the web.
    pub pages: usize,
    pub links: usize,
}

impl Walked {
    pub fn reachable_targets(&self) -> usize {
        self.oracle.reachable_targets
    }
}

/// Reads `web`'s topology for target language `code` and walks it from
/// `seeds` (the topology is dropped after; the URLs' ids are kept for
/// [`register`]). Fails if no seed is a page of the web.
pub fn walk(web: &WebDir, seeds: &[String], target: Target<'_>) -> Result<Walked> {
    let (topology, ids) = Topology::read(web, target)?;
    let seeds: Vec<u32> = seeds.iter().filter_map(|s| ids.get(s)).collect();
    if seeds.is_empty() {
        return Err(Error::Usage(format!(
            "{}: web.json names no seed that is a page of the graph",
            web.root().display()
        )));
    }
    Ok(Walked {
        oracle: Oracle::new(&topology, &seeds),
        ids,
        pages: topology.len(),
        links: topology.link_count(),
    })
}

/// Writes the oracle's tables into the simulation `sim` and registers them
/// as `oracle` and `target_distance`.
pub async fn register(
    engine: &Engine,
    web: &WebDir,
    walked: Walked,
    sim: &super::SimDir,
) -> Result<()> {
    let (oracle_dir, distance_dir) = (sim.oracle(), sim.target_distance());
    walked
        .oracle
        .write(web, &walked.ids, &oracle_dir, &distance_dir)?;
    engine.register_segment("oracle", &oracle_dir).await?;
    engine
        .register_segment("target_distance", &distance_dir)
        .await
}

/// One of the oracle's tables, a URL and a number (or flag) per row,
/// written a batch at a time.
struct TableOut {
    writer: SegmentWriter,
    schema: SchemaRef,
    urls: StringBuilder,
    values: Vec<i32>,
    to_array: fn(Vec<i32>) -> ArrayRef,
}

impl TableOut {
    fn create(dir: &Path, schema: &SchemaRef, to_array: fn(Vec<i32>) -> ArrayRef) -> Result<Self> {
        Ok(TableOut {
            writer: SegmentWriter::create(dir, schema.clone())?,
            schema: schema.clone(),
            urls: StringBuilder::new(),
            values: Vec::new(),
            to_array,
        })
    }

    fn push(&mut self, url: &str, value: i32) -> Result<()> {
        self.urls.append_value(url);
        self.values.push(value);
        if self.values.len() == BATCH_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.values.is_empty() {
            return Ok(());
        }
        let value = (self.to_array)(std::mem::take(&mut self.values));
        let batch = RecordBatch::try_new(
            self.schema.clone(),
            vec![Arc::new(self.urls.finish()), value],
        )
        .map_err(Error::arrow("a batch of the oracle"))?;
        self.writer.write(&batch)
    }

    fn commit(mut self) -> Result<()> {
        self.flush()?;
        self.writer.finish()?.commit().map(|_| ())
    }
}
