//! Duplicate removal for the text corpus: exact duplicates by the digest
//! of the text, near duplicates by SimHash (Charikar) over shingles of
//! three tokens — two texts whose 64-bit fingerprints differ in at most
//! `max_distance` bits are one text. Candidates are found by splitting the
//! fingerprint into `max_distance + 1` bands: two fingerprints that close
//! agree exactly on at least one band (Manku et al., WWW 2007).

use std::collections::{HashMap, HashSet};

use twox_hash::XxHash64;

use super::main_text::tokens;

/// Tokens per shingle.
const SHINGLE: usize = 3;

/// The 64-bit SimHash of `text`.
pub fn simhash(text: &str) -> u64 {
    let tokens = tokens(text);
    let mut weights = [0i64; 64];
    let mut add = |shingle: &[String]| {
        let hash = XxHash64::oneshot(0, shingle.join(" ").as_bytes());
        for (bit, weight) in weights.iter_mut().enumerate() {
            *weight += if hash >> bit & 1 == 1 { 1 } else { -1 };
        }
    };
    if tokens.len() < SHINGLE {
        add(&tokens);
    } else {
        tokens.windows(SHINGLE).for_each(&mut add);
    }
    weights
        .iter()
        .enumerate()
        .filter(|(_, &w)| w > 0)
        .fold(0u64, |hash, (bit, _)| hash | 1 << bit)
}

/// What the deduplicator made of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Keep,
    Exact,
    Near,
}

/// The texts kept so far.
#[derive(Debug)]
pub struct Dedup {
    max_distance: u32,
    digests: HashSet<String>,
    /// (band, the fingerprint's bits in it) → the fingerprints kept.
    bands: HashMap<(usize, u64), Vec<u64>>,
}

impl Dedup {
    pub fn new(max_distance: u32) -> Self {
        Dedup {
            max_distance: max_distance.min(63),
            digests: HashSet::new(),
            bands: HashMap::new(),
        }
    }

    /// Whether `text` (whose digest is `digest`) repeats one kept before;
    /// if not, it is kept.
    pub fn check(&mut self, digest: &str, text: &str) -> Verdict {
        if self.digests.contains(digest) {
            return Verdict::Exact;
        }
        let hash = simhash(text);
        let keys = self.band_keys(hash);
        let near = keys.iter().any(|key| {
            self.bands.get(key).is_some_and(|kept| {
                kept.iter()
                    .any(|&k| (k ^ hash).count_ones() <= self.max_distance)
            })
        });
        if near {
            return Verdict::Near;
        }
        self.digests.insert(digest.to_string());
        for key in keys {
            self.bands.entry(key).or_default().push(hash);
        }
        Verdict::Keep
    }

    /// The fingerprint's bands: `max_distance + 1` runs of bits covering
    /// all 64.
    fn band_keys(&self, hash: u64) -> Vec<(usize, u64)> {
        let bands = self.max_distance as usize + 1;
        (0..bands)
            .map(|band| {
                let (from, to) = (band * 64 / bands, (band + 1) * 64 / bands);
                let width = to - from;
                let mask = if width == 64 {
                    u64::MAX
                } else {
                    (1u64 << width) - 1
                };
                (band, hash >> from & mask)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "The quick brown fox jumps over the lazy dog near the river bank \
        while the farmer watches from the old wooden fence and the sun sets slowly \
        behind the distant hills of the quiet valley where nothing ever happens";

    #[test]
    fn a_small_edit_is_near_and_another_text_is_not() {
        let edited = TEXT.replace("slowly", "quickly");
        let distance = (simhash(TEXT) ^ simhash(&edited)).count_ones();
        assert!(distance <= 8, "{distance} bits apart");
        let other = "Stock markets fell sharply on Monday as investors worried about \
            rising interest rates and the outlook for corporate earnings in Europe";
        assert!((simhash(TEXT) ^ simhash(other)).count_ones() > 12);

        let mut dedup = Dedup::new(8);
        assert_eq!(dedup.check("a", TEXT), Verdict::Keep);
        assert_eq!(dedup.check("a", TEXT), Verdict::Exact);
        assert_eq!(dedup.check("b", &edited), Verdict::Near);
        assert_eq!(dedup.check("c", other), Verdict::Keep);
    }

    #[test]
    fn bands_find_every_fingerprint_within_the_distance() {
        // Flip up to 3 bits anywhere: some band still matches exactly.
        let mut dedup = Dedup::new(3);
        let base = simhash(TEXT);
        let keys = dedup.band_keys(base);
        for flips in [[0, 21, 43], [5, 6, 7], [63, 62, 1]] {
            let moved = flips.iter().fold(base, |h, &b| h ^ 1 << b);
            let other = dedup.band_keys(moved);
            assert!(keys.iter().zip(&other).any(|(a, b)| a == b), "{flips:?}");
        }
        assert_eq!(dedup.check("x", TEXT), Verdict::Keep);
    }
}
