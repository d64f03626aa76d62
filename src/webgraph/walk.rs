//! Walks over a web graph's topology as a crawler follows it
//! ([`Topology::next_pages`]): hops from a set of sources, and each target
//! page's distance from the nearest other (Tamura §3.3).

use std::collections::VecDeque;

use super::graph::UNREACHABLE;
use super::topology::Topology;

impl Topology {
    /// Hops from the nearest of `sources` to every page, as a crawler walks
    /// ([`next_pages`](Self::next_pages)), and the page each was first
    /// reached from; [`UNREACHABLE`] where none leads.
    pub fn walk_from(&self, sources: &[u32]) -> (Vec<u32>, Vec<u32>) {
        let mut distance = vec![UNREACHABLE; self.len()];
        let mut parent = vec![UNREACHABLE; self.len()];
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

    /// For every target page, the hops from the nearest other target page
    /// (Tamura §3.3, Fig. 2): 1 if one links to it, more if the way passes
    /// through pages in other languages.
    pub fn nearest_target_distances(&self) -> Vec<u32> {
        let reverse = self.reverse_adjacency();
        let mut seen = vec![u32::MAX; self.len()];
        let mut distances = Vec::new();
        for v in (0..self.len() as u32).filter(|&v| self.is_target(v)) {
            // Backwards from v, level by level, until a page in the language.
            let mut frontier = vec![v];
            seen[v as usize] = v;
            let mut depth = 0;
            let found = 'search: loop {
                depth += 1;
                let mut next = Vec::new();
                for &page in &frontier {
                    for &src in reverse.predecessors(page) {
                        if self.is_target(src) && src != v {
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
        let mut counts = vec![0u32; self.len() + 1];
        for page in 0..self.len() as u32 {
            for dst in self.next_pages(page) {
                counts[dst as usize + 1] += 1;
            }
        }
        for i in 1..counts.len() {
            counts[i] += counts[i - 1];
        }
        let mut fill = counts.clone();
        let mut sources = vec![0u32; *counts.last().unwrap_or(&0) as usize];
        for page in 0..self.len() as u32 {
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
