//! What a thread scored lately: the n-grams it looked up and the words it
//! scored. The models' table is megabytes read at random, and texts repeat
//! their letters, short n-grams and words (menus, function words), so most
//! lookups and most words are answered here. Both caches answer exactly
//! what the table would: a word's sums are a pure function of its letters.

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
/// Room for sums a thread holds, of 12 bytes (12 MiB; a word holds one
/// per language its letters met, not one per letter and language): past
/// it, it starts again.
const MAX_KEPT_HITS: usize = 1 << 20;

thread_local! {
    pub static RECENT_NGRAMS: RefCell<RecentNgrams> = const {
        RefCell::new(RecentNgrams { model: 0, slots: Vec::new() })
    };
    pub static RECENT_WORDS: RefCell<RecentWords> = const {
        RefCell::new(RecentWords { model: 0, slots: Vec::new(), held_hits: 0 })
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

/// A part of a word's score: a language's gain over the common part, at
/// `count` letters; or, with [`Hit::LETTER`] as its language, the part
/// every language gets at `count` letters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub lang: u8,
    pub count: u32,
    pub gain: f32,
}

impl Hit {
    /// No language has this index (the file names at most 255).
    pub const LETTER: u8 = u8::MAX;
}

/// A slot: a word seen once (its hash), or a word kept with its sums (the
/// buffers are reused by the words that follow).
#[derive(Default)]
struct Slot {
    hash: u64,
    word: Vec<char>,
    hits: Vec<Hit>,
    kept: bool,
}

/// The words a thread scored lately: a word is kept, with its sums, the
/// second time it is seen (most words of a text are seen once; the first
/// time, the scorer makes its sums in a buffer of its own).
pub struct RecentWords {
    model: usize,
    slots: Vec<Slot>,
    /// Room for sums in the slots' buffers (kept or not).
    held_hits: usize,
}

impl RecentWords {
    /// `word`'s sums under `model` if it is kept, or if it was seen before
    /// (then `score` writes them, and they are kept); `None` the first
    /// time a word is seen, or when it is too long to keep.
    pub fn hits(
        &mut self,
        model: usize,
        word: &[char],
        score: impl FnOnce(&mut Vec<Hit>),
    ) -> Option<&[Hit]> {
        if self.model != model || self.slots.is_empty() || self.held_hits > MAX_KEPT_HITS {
            self.model = model;
            self.slots = (0..WORD_SLOTS).map(|_| Slot::default()).collect();
            self.held_hits = 0;
        }
        if word.len() > MAX_KEPT_WORD {
            return None;
        }
        let hash = word_hash(word);
        let slot = &mut self.slots[hash as usize % WORD_SLOTS];
        if slot.kept && slot.word == word {
            return Some(&slot.hits);
        }
        if slot.hash != hash {
            // seen once (a word that only shares the hash is kept early)
            (slot.hash, slot.kept) = (hash, false);
            return None;
        }
        let room = slot.hits.capacity();
        slot.word.clear();
        slot.word.extend_from_slice(word);
        slot.hits.clear();
        score(&mut slot.hits);
        slot.kept = true;
        self.held_hits = self.held_hits - room + slot.hits.capacity();
        Some(&slot.hits)
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
        // Fill the word slots with other words (twice: kept), then rank
        // each text three times (its words seen, kept, answered).
        let filler: String = (0..3 * WORD_SLOTS).map(|i| format!("w{i:x}q ")).collect();
        rank(&filler);
        rank(&filler);
        for (text, cold) in texts.iter().zip(&cold) {
            for time in 1..=3 {
                assert_eq!(&rank(text), cold, "{text}, time {time}");
            }
        }
    }

    #[test]
    fn a_word_is_kept_when_seen_again_long_runs_are_not_and_the_room_is_bounded() {
        let mut recent = RecentWords {
            model: 0,
            slots: Vec::new(),
            held_hits: 0,
        };
        let mut scored = 0;
        let hit = Hit {
            lang: 3,
            count: 1,
            gain: -1.5,
        };
        let mut look = |recent: &mut RecentWords, model, word: &str, n| {
            let word: Vec<char> = word.chars().collect();
            recent
                .hits(model, &word, |out| {
                    scored += 1;
                    out.extend(std::iter::repeat_n(hit, n));
                })
                .map(<[Hit]>::len)
        };
        let long = "字".repeat(MAX_KEPT_WORD + 1);
        // seen once: not kept; again: scored and kept; then answered
        assert_eq!(look(&mut recent, 1, "menu", 1), None);
        assert_eq!(look(&mut recent, 1, "menu", 1), Some(1));
        assert_eq!(look(&mut recent, 1, "menu", 1), Some(1));
        for _ in 0..3 {
            assert_eq!(look(&mut recent, 1, &long, 1), None);
        }
        // another model's words are not answered from the first's
        assert_eq!(look(&mut recent, 2, "menu", 1), None);
        // past the room a thread holds, it starts again
        let wide = MAX_KEPT_HITS + 1;
        look(&mut recent, 2, "wide", wide);
        assert_eq!(look(&mut recent, 2, "wide", wide), Some(wide));
        assert!(recent.held_hits > MAX_KEPT_HITS);
        assert_eq!(look(&mut recent, 2, "wide", wide), None);
        assert_eq!(recent.held_hits, 0);
        assert_eq!(scored, 2);
    }
}
