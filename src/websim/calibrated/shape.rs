//! The shape of a calibrated web: the shares Tamura measured (the
//! default), or a shape drawn from seeded ranges around them, so that a
//! strategy is judged on a family of webs, never on one
//! (`websim generate --shape-seed N`).

use super::aims;
use crate::websim::rng::Rng;

/// What varies between the webs of the family.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    /// Target pages among all pages.
    pub target_pages: f64,
    /// Target pages outside the target ccTLDs.
    pub off_cctld: f64,
    /// Links from target pages that lead to target pages (link locality).
    pub from_target: f64,
    /// Links from other pages to target pages whose anchor is in the target
    /// language.
    pub anchor_to_target: f64,
    /// Target servers that are multilingual sites (a directory per
    /// language, half with hreflang switchers): the hreflang and URL
    /// language signals.
    pub multilingual: f64,
    /// Target servers whose target section sits behind a chain of English
    /// pages ...
    pub fronted: f64,
    /// ... of up to this many pages (the tunnel length).
    pub max_chain: u32,
}

impl Shape {
    /// Tamura's Thai web (the default).
    pub const TAMURA: Shape = Shape {
        target_pages: aims::TARGET_PAGES,
        off_cctld: aims::OFF_CCTLD,
        from_target: aims::FROM_TARGET,
        anchor_to_target: 0.5,
        multilingual: 0.10,
        fronted: 0.20,
        max_chain: 8,
    };

    /// A shape drawn from the family's ranges: target share 2–20%, target
    /// pages outside the ccTLDs 10–90%, locality 50–90%, target anchors
    /// 10–90%, multilingual sites 0–40% and fronted sites 5–40% of the
    /// target servers, tunnels of 1–10 pages. The same seed, the same shape.
    pub fn drawn(seed: u64) -> Shape {
        let mut rng = Rng::new(&[seed, 31]);
        let mut within = |low: f64, high: f64| low + (high - low) * rng.unit();
        Shape {
            target_pages: within(0.02, 0.20),
            off_cctld: within(0.10, 0.90),
            from_target: within(0.50, 0.90),
            anchor_to_target: within(0.10, 0.90),
            multilingual: within(0.0, 0.40),
            fronted: within(0.05, 0.40),
            max_chain: 1 + (within(0.0, 10.0) as u32).min(9),
        }
    }

    /// The shape as `websim generate`'s web.json records it.
    pub fn describe(&self) -> String {
        format!(
            "target pages {:.3}, off ccTLD {:.3}, locality {:.3}, target anchors {:.3}, multilingual {:.3}, fronted {:.3}, tunnels up to {}",
            self.target_pages,
            self.off_cctld,
            self.from_target,
            self.anchor_to_target,
            self.multilingual,
            self.fronted,
            self.max_chain
        )
    }

    /// The share of the target servers of each kind: plain target, target
    /// with English, behind an English front, multilingual.
    /// A shape whose fronted and multilingual shares add up past 1 has them
    /// scaled to 1 and no plain target server.
    fn kind_shares(&self) -> [f64; 4] {
        let special = self.multilingual + self.fronted;
        let scale = if special > 1.0 { 1.0 / special } else { 1.0 };
        let plain = (1.0 - special).max(0.0);
        [
            plain * 5.0 / 7.0,
            plain * 2.0 / 7.0,
            self.fronted * scale,
            self.multilingual * scale,
        ]
    }

    /// How many of `servers` target servers are of each kind (in
    /// [`kind_shares`](Shape::kind_shares)' order): the shares as whole
    /// servers, the largest remainders rounded up, so that a small web has
    /// the kinds of its shape and not a draw of them (six target servers
    /// drawn one by one were all fronted or multilingual often enough to
    /// give webs without a plain target site).
    pub(super) fn kind_counts(&self, servers: usize) -> [usize; 4] {
        let wanted = self.kind_shares().map(|share| share * servers as f64);
        let mut counts = wanted.map(|w| w.floor() as usize);
        let mut by_remainder: Vec<usize> = (0..4).collect();
        by_remainder.sort_by(|&a, &b| {
            let rest = |k: usize| wanted[k] - counts[k] as f64;
            rest(b).total_cmp(&rest(a)).then(a.cmp(&b))
        });
        let short = servers.saturating_sub(counts.iter().sum());
        for &k in by_remainder.iter().cycle().take(short) {
            counts[k] += 1;
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tamuras_shape_keeps_the_kinds_of_target_server_as_they_were() {
        assert_eq!(Shape::TAMURA.kind_counts(100), [50, 20, 20, 10]);
        assert_eq!(Shape::TAMURA.kind_counts(9), [4, 2, 2, 1]);
        assert_eq!(Shape::TAMURA.kind_counts(3), [1, 1, 1, 0]);
    }

    #[test]
    fn shares_past_the_whole_are_scaled_to_it() {
        let shape = Shape {
            multilingual: 0.6,
            fronted: 0.6,
            ..Shape::TAMURA
        };
        assert_eq!(shape.kind_counts(10), [0, 0, 5, 5]);
    }

    #[test]
    fn drawn_shapes_stay_in_their_ranges_and_vary() {
        let shapes: Vec<Shape> = (0..50).map(Shape::drawn).collect();
        for s in &shapes {
            assert!((0.02..=0.20).contains(&s.target_pages), "{s:?}");
            assert!((0.10..=0.90).contains(&s.off_cctld), "{s:?}");
            assert!((1..=10).contains(&s.max_chain), "{s:?}");
            for servers in [3, 6, 40] {
                let counts = s.kind_counts(servers);
                assert_eq!(counts.iter().sum::<usize>(), servers, "{s:?}");
                // each kind within one server of its share
                for (count, share) in counts.iter().zip(s.kind_shares()) {
                    assert!(
                        (*count as f64 - share * servers as f64).abs() < 1.0,
                        "{s:?}"
                    );
                }
            }
        }
        assert_eq!(Shape::drawn(7), Shape::drawn(7));
        let chains: std::collections::BTreeSet<u32> = shapes.iter().map(|s| s.max_chain).collect();
        assert!(chains.len() >= 8, "{chains:?}");
    }
}
