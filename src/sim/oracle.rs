//! What only the whole web graph knows: which target pages the seeds can
//! reach and how far away they are (the denominator of coverage and the
//! axis of the miss ratio), and which pages lead to target pages (the
//! `perfect` strategy's oracle).

use std::collections::VecDeque;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, BooleanArray, Int32Array, RecordBatch, StringArray};

use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::store::schema::{ORACLE, TARGET_DISTANCE};
use crate::webgraph::{Graph, UNREACHABLE};

/// A graph's answers for one target language and set of seeds.
pub struct Oracle {
    /// Hops from the seeds, per page ([`UNREACHABLE`] if none leads there).
    pub distance: Vec<u32>,
    /// Pages a perfect crawler follows links to.
    pub follow: Vec<bool>,
    /// Target pages the seeds reach.
    pub reachable_targets: usize,
}

impl Oracle {
    /// Walks `graph` from `seeds` (page ids) for target language `code`.
    pub fn new(graph: &Graph, seeds: &[u32], code: &str) -> Self {
        let n = graph.pages.len();
        let is_target = |p: u32| graph.is_target(p, code);
        let (distance, parent) = graph.walk_from(seeds);
        // The target pages a crawler reaches following target pages only.
        let mut by_targets = vec![false; n];
        let mut queue: VecDeque<u32> = seeds.iter().copied().collect();
        for &s in seeds {
            by_targets[s as usize] = true;
        }
        while let Some(page) = queue.pop_front() {
            for dst in graph.next_pages(page) {
                if is_target(dst) && !by_targets[dst as usize] {
                    by_targets[dst as usize] = true;
                    queue.push_back(dst);
                }
            }
        }
        // Every other reachable target page: follow the shortest way to it.
        let mut follow: Vec<bool> = (0..n as u32).map(is_target).collect();
        let mut reachable_targets = 0;
        for page in 0..n as u32 {
            if !is_target(page) || distance[page as usize] == UNREACHABLE {
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
        }
    }

    /// Registers tables `oracle` (url, follow) and `target_distance` (url,
    /// distance of each reachable target page).
    pub fn register(&self, engine: &Engine, graph: &Graph, code: &str) -> Result<()> {
        let urls: Vec<&str> = graph.pages.iter().map(|p| p.url.as_str()).collect();
        let oracle = batch(
            &ORACLE,
            vec![
                Arc::new(StringArray::from(urls.clone())),
                Arc::new(BooleanArray::from(self.follow.clone())),
            ],
        )?;
        engine.register_batches("oracle", ORACLE.clone(), vec![oracle])?;
        let (reached, distances): (Vec<&str>, Vec<i32>) = (0..graph.pages.len() as u32)
            .filter(|&p| graph.is_target(p, code) && self.distance[p as usize] != UNREACHABLE)
            .map(|p| (urls[p as usize], self.distance[p as usize] as i32))
            .unzip();
        let targets = batch(
            &TARGET_DISTANCE,
            vec![
                Arc::new(StringArray::from(reached)),
                Arc::new(Int32Array::from(distances)),
            ],
        )?;
        engine.register_batches("target_distance", TARGET_DISTANCE.clone(), vec![targets])
    }
}

fn batch(
    schema: &datafusion::arrow::datatypes::SchemaRef,
    columns: Vec<ArrayRef>,
) -> Result<RecordBatch> {
    RecordBatch::try_new(schema.clone(), columns).map_err(Error::arrow("table oracle"))
}
