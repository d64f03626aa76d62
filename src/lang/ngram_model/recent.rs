//! What a thread scored lately: the n-grams it looked up and the words it
//! scored. The models' table is megabytes read at random, and texts repeat
//! their letters, short n-grams and words (menus, function words), so most
//! lookups and most words are answered here. Both caches answer exactly
//! what the table would: a word's gains are a pure function of its letters.

use std::cell::RefCell;

/// 512 KiB a thread, within a core's L2 cache here (2 MiB): parse went
/// from 3,200 to 3,600–3,900 pages/s against 4,096 slots.
const RECENT_SLOTS: usize = 32768;

/// Words kept a thread (direct-mapped by a hash of their letters): parse
/// of a round of 45,426 synthetic pages took 0.73 of its time with 4,096
/// of them, and 0.87 of that with 16,384 (1,024: 1.15).
const WORD_SLOTS: usize = 8192;
/// Longer words (a run of Han or kana letters is a sentence) are scored
/// every time: they rarely repeat.
const MAX_KEPT_WORD: usize = 24;
/// Hits kept a thread, of 8 bytes (16 MiB): past them it starts again.
const MAX_KEPT_HITS: usize = 2 << 20;

thread_local! {
    pub static RECENT_NGRAMS: RefCell<RecentNgrams> = const {
        RefCell::new(RecentNgrams { model: 0, slots: Vec::new() })
    };
    pub static RECENT_WORDS: RefCell<RecentWords> = const {
        RefCell::new(RecentWords { model: 0, slots: Vec::new(), kept_hits: 0, scratch: Vec::new() })
    };
}

/// The n-grams a thread looked up lately, by hash (the table's answer
/// depends on the hash alone).
pub struct RecentNgrams {
    /// The model the ranges are of (its entries' address).
    model: usize,
    /// (hash, start, len) per slot, direct-mapped by the hash's low bits;
    /// a slot is empty while its `len` is `u32::MAX`.
    slots: Vec<(u64, u32, u32)>,
}

impl RecentNgrams {
    pub fn get_or_insert(
        &mut self,
        model: usize,
        h: u64,
        range: impl FnOnce() -> (u32, u32),
    ) -> (u32, u32) {
        if self.model != model || self.slots.is_empty() {
            self.model = model;
            self.slots = vec![(0, 0, u32::MAX); RECENT_SLOTS];
        }
        let slot = &mut self.slots[h as usize % RECENT_SLOTS];
        if slot.0 != h || slot.2 == u32::MAX {
            let (start, len) = range();
            *slot = (h, start, len);
        }
        (slot.1, slot.2)
    }
}

/// One step of a word's score: a language's gain at a letter, or, with
/// [`Hit::LETTER`] as its language, the start of the next letter and the
/// part every language gets there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub lang: u8,
    pub gain: f32,
}

impl Hit {
    /// No language has this index (the file names at most 255).
    pub const LETTER: u8 = u8::MAX;
}

/// A word scored lately and its hits, letter by letter.
struct KeptWord {
    word: Box<[char]>,
    hits: Box<[Hit]>,
}

/// The words a thread scored lately, with their hits.
pub struct RecentWords {
    model: usize,
    slots: Vec<Option<KeptWord>>,
    /// Hits in the slots.
    kept_hits: usize,
    /// The hits of a word not kept.
    scratch: Vec<Hit>,
}

impl RecentWords {
    /// `word`'s hits under `model`: kept ones, else `score`'s (which
    /// writes them into the vector it is given).
    pub fn hits(
        &mut self,
        model: usize,
        word: &[char],
        score: impl FnOnce(&mut Vec<Hit>),
    ) -> &[Hit] {
        if self.model != model || self.slots.is_empty() || self.kept_hits > MAX_KEPT_HITS {
            self.model = model;
            self.slots = (0..WORD_SLOTS).map(|_| None).collect();
            self.kept_hits = 0;
        }
        self.scratch.clear();
        if word.len() > MAX_KEPT_WORD {
            score(&mut self.scratch);
            return &self.scratch;
        }
        let slot = &mut self.slots[word_hash(word) as usize % WORD_SLOTS];
        if slot.as_ref().is_some_and(|kept| *kept.word == *word) {
            return slot.as_ref().map_or(&[], |kept| &kept.hits);
        }
        score(&mut self.scratch);
        let replaced = slot.as_ref().map_or(0, |kept| kept.hits.len());
        self.kept_hits = self.kept_hits - replaced + self.scratch.len();
        *slot = Some(KeptWord {
            word: word.into(),
            hits: self.scratch.as_slice().into(),
        });
        &self.scratch
    }
}

/// FNV-1a over a word's letters.
fn word_hash(word: &[char]) -> u64 {
    word.iter().fold(0xcbf2_9ce4_8422_2325, |h, c| {
        (h ^ u64::from(*c)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::super::model;
    use super::*;

    /// A ranking in a thread that has seen nothing (every word scored from
    /// the table) and one after many other texts (words kept, slots taken
    /// by colliding words) are equal to the last bit.
    #[test]
    fn kept_words_rank_a_text_exactly_as_the_table_does() {
        let texts = [
            "the quick brown fox jumps over the lazy dog, the end",
            "Der schnelle braune Fuchs springt über den faulen Hund",
            "ภาษาไทยเป็นภาษาราชการของประเทศไทย ภาษาไทย",
            "日本語のテキストは長い文字の並びになります日本語のテキスト",
            "한국어 텍스트 한국어",
            "Быстрая коричневая лиса прыгает через ленивую собаку",
        ];
        let rank = |text: &str| model().rank(text, None).scores;
        let cold: Vec<_> = std::thread::spawn(move || texts.map(rank))
            .join()
            .unwrap()
            .into();
        // Fill the word slots with other words, then rank each text twice.
        let filler: String = (0..3 * WORD_SLOTS).map(|i| format!("w{i:x}q ")).collect();
        rank(&filler);
        for (text, cold) in texts.iter().zip(&cold) {
            assert_eq!(&rank(text), cold, "{text}");
            assert_eq!(&rank(text), cold, "{text}, second time");
        }
    }

    #[test]
    fn a_word_is_kept_once_long_runs_are_not_and_the_hits_kept_are_bounded() {
        let mut recent = RecentWords {
            model: 0,
            slots: Vec::new(),
            kept_hits: 0,
            scratch: Vec::new(),
        };
        let mut scored = 0;
        let hit = Hit {
            lang: 3,
            gain: -1.5,
        };
        let word: Vec<char> = "menu".chars().collect();
        let long: Vec<char> = "字".repeat(MAX_KEPT_WORD + 1).chars().collect();
        for _ in 0..3 {
            for w in [&word, &long] {
                let hits = recent.hits(1, w, |out| {
                    scored += 1;
                    out.push(hit);
                });
                assert_eq!(hits, &[hit]);
            }
        }
        // "menu" once, the long run every time
        assert_eq!(scored, 1 + 3);
        // past the hits a thread keeps, it starts again
        let wide: Vec<char> = "wide".chars().collect();
        recent.hits(1, &wide, |out| {
            out.extend(std::iter::repeat_n(hit, MAX_KEPT_HITS))
        });
        assert!(recent.kept_hits > MAX_KEPT_HITS);
        recent.hits(1, &word, |out| {
            scored += 1;
            out.push(hit);
        });
        assert_eq!((scored, recent.kept_hits), (5, 1));
        // another model's words are not answered from the first's
        recent.hits(2, &word, |out| {
            scored += 1;
            out.push(hit);
        });
        assert_eq!(scored, 6);
    }
}
