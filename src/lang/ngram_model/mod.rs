//! The all-language identifier: a character Markov model for each of 75
//! languages (each letter given up to four letters before it in its
//! word), distilled from lingua-rs's n-gram models (Apache-2.0,
//! `LICENSE-lingua-rs-Apache-2.0.txt` here) by `scripts/langid-model`
//! into `models.bin`. It ranks the
//! languages of a text, all of them or a few candidates; the page and
//! anchor identifiers and the second stage ([`super::neighbours`]) ask it.
//!
//! The file is read in place (a hash table of n-grams, nothing built at
//! start): its layout is in [`format`].

use std::sync::LazyLock;

pub mod format;
pub use format::{first_slot, hash, MAGIC, QUANTUM, SLOT_BYTES};

use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

/// The model shipped in the binary.
static MODEL_BYTES: &[u8] = include_bytes!("models.bin");

/// Nats added per order a letter's context is shortened by (stupid
/// backoff's factor 0.4).
const BACKOFF: f32 = -0.916;
/// ln P of a letter a language's model has not seen at all.
const UNSEEN: f32 = -12.0;
/// The temperature that makes short texts' probabilities honest: on
/// development word pairs of confusable neighbours, 2.1% of the pairs got
/// a wrong language at probability 0.99 untempered, 0.1% at this one.
pub const SHORT_TEXT_TEMPERATURE: f64 = 3.0;
/// The character n-gram models of every language the file names.
pub struct NgramModel<'a> {
    langs: Vec<&'a str>,
    orders: usize,
    /// Slots of [`SLOT_BYTES`]: (u16 hash check, u32 offset into
    /// `entries` + 1, 0 for an empty slot).
    slots: &'a [u8],
    n_slots: usize,
    /// Per n-gram: u8 count, then count × (u8 language, u8 -16 · ln P).
    entries: &'a [u8],
}

/// The shipped model, read once.
pub fn model() -> &'static NgramModel<'static> {
    static MODEL: LazyLock<NgramModel<'static>> = LazyLock::new(|| {
        NgramModel::parse(MODEL_BYTES)
            .expect("the n-gram model built into the binary is well formed")
    });
    &MODEL
}

/// A text's ranking: every candidate language's log-likelihood, best first.
#[derive(Debug, Clone)]
pub struct Ranking {
    /// (language code, total ln P of the text's letters).
    pub scores: Vec<(&'static str, f32)>,
    /// Letters scored.
    pub letters: usize,
    /// Letters the best language's model had seen (at any order).
    pub known_letters: usize,
}

impl Ranking {
    /// The best language, if any letter was scored.
    pub fn best(&self) -> Option<&'static str> {
        (self.letters > 0)
            .then(|| self.scores.first().map(|s| s.0))
            .flatten()
    }

    /// Each language's probability among the candidates: the
    /// log-likelihoods divided by `temperature` and by the letters beyond
    /// `per_letters` (a text's evidence counted as if it had that many
    /// letters at most), since n-gram likelihoods overstate certainty.
    pub fn probabilities(&self, per_letters: usize, temperature: f64) -> Vec<(&'static str, f64)> {
        let scale = (per_letters as f64 / self.letters.max(1) as f64).min(1.0) / temperature;
        let top = self.scores.first().map_or(0.0, |s| s.1 as f64);
        let weights: Vec<f64> = self
            .scores
            .iter()
            .map(|s| ((s.1 as f64 - top) * scale).exp())
            .collect();
        let sum: f64 = weights.iter().sum();
        self.scores
            .iter()
            .zip(weights)
            .map(|(s, w)| (s.0, w / sum))
            .collect()
    }
}

impl<'a> NgramModel<'a> {
    /// Reads the layout `scripts/langid-model` writes ([`format`]).
    pub fn parse(bytes: &'a [u8]) -> Result<NgramModel<'a>, String> {
        let mut r = Reader { bytes, at: 0 };
        if r.take(8)? != MAGIC {
            return Err("not an n-gram model file".into());
        }
        let n_langs = r.u8()? as usize;
        let langs = (0..n_langs)
            .map(|_| {
                let n = r.u8()? as usize;
                std::str::from_utf8(r.take(n)?).map_err(|e| e.to_string())
            })
            .collect::<Result<Vec<_>, _>>()?;
        let orders = r.u8()? as usize;
        let n_slots = u32::from_le_bytes(r.take(4)?.try_into().unwrap_or_default()) as usize;
        if n_slots == 0 {
            return Err("a model without n-grams".into());
        }
        let slots = r.take(n_slots * SLOT_BYTES)?;
        Ok(NgramModel {
            langs,
            orders,
            slots,
            n_slots,
            entries: &bytes[r.at..],
        })
    }

    /// The languages the model knows (ISO 639-3).
    pub fn languages(&self) -> &[&'a str] {
        &self.langs
    }

    /// True if the model knows `code`.
    pub fn knows(&self, code: &str) -> bool {
        self.langs.contains(&code)
    }

    /// The (language, -16 · ln P) pairs of an n-gram, if any language has it.
    fn lookup(&self, ngram: &[u8]) -> &'a [u8] {
        let h = hash(ngram);
        let check = (h as u16).to_le_bytes();
        let mut slot = first_slot(h, self.n_slots);
        // The encoder leaves a fifth of the slots empty: every probe ends.
        loop {
            let at = slot * SLOT_BYTES;
            let offset = u32::from_le_bytes(
                self.slots[at + 2..at + SLOT_BYTES]
                    .try_into()
                    .unwrap_or_default(),
            ) as usize;
            if offset == 0 {
                return &[];
            }
            if self.slots[at..at + 2] == check {
                let start = offset - 1;
                let count = self.entries.get(start).copied().unwrap_or(0) as usize;
                return self
                    .entries
                    .get(start + 1..start + 1 + 2 * count)
                    .unwrap_or(&[]);
            }
            slot = (slot + 1) % self.n_slots;
        }
    }
}

impl NgramModel<'static> {
    /// The candidates' log-likelihoods of `text` (every language when
    /// `among` is `None`; codes the model lacks are left out), best first.
    pub fn rank(&self, text: &str, among: Option<&[&str]>) -> Ranking {
        let keep: Vec<bool> = self
            .langs
            .iter()
            .map(|l| among.is_none_or(|codes| codes.contains(l)))
            .collect();
        let mut scorer = Scorer::new(self);
        let mut word: Vec<char> = Vec::with_capacity(32);
        for c in text.chars() {
            if is_letter(c) {
                word.extend(c.to_lowercase());
            } else if !word.is_empty() {
                scorer.word(&word);
                word.clear();
            }
        }
        scorer.word(&word);
        let best_known = |scores: &[(usize, f32)]| scores.first().map_or(0, |s| scorer.known[s.0]);
        let mut scores: Vec<(usize, f32)> = scorer
            .totals
            .iter()
            .enumerate()
            .filter(|(i, _)| keep[*i])
            .map(|(i, t)| (i, *t))
            .collect();
        scores.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        Ranking {
            known_letters: best_known(&scores),
            letters: scorer.letters,
            scores: scores
                .into_iter()
                .map(|(i, t)| (self.langs[i], t))
                .collect(),
        }
    }
}

/// True for a letter (Unicode category L): the models were trained on
/// runs of letters, so a combining mark (a Devanagari vowel sign, a Thai
/// tone mark) separates n-grams as a space does.
fn is_letter(c: char) -> bool {
    c.is_alphabetic() && c.general_category_group() == GeneralCategoryGroup::Letter
}

/// The running totals of one text.
struct Scorer<'m> {
    model: &'m NgramModel<'static>,
    totals: Vec<f32>,
    known: Vec<usize>,
    seen: Vec<bool>,
    letters: usize,
}

impl<'m> Scorer<'m> {
    fn new(model: &'m NgramModel<'static>) -> Self {
        let n = model.langs.len();
        Scorer {
            model,
            totals: vec![0.0; n],
            known: vec![0; n],
            seen: vec![false; n],
            letters: 0,
        }
    }

    /// Adds each letter of `word`, given up to `orders - 1` letters before it.
    fn word(&mut self, word: &[char]) {
        let mut bytes = [0u8; 64];
        for end in 0..word.len() {
            let orders = self.model.orders.min(end + 1);
            self.seen.iter_mut().for_each(|s| *s = false);
            for order in (1..=orders).rev() {
                let mut len = 0;
                for c in &word[end + 1 - order..=end] {
                    len += c.encode_utf8(&mut bytes[len..]).len();
                }
                let penalty = BACKOFF * (orders - order) as f32;
                for pair in self.model.lookup(&bytes[..len]).chunks_exact(2) {
                    let lang = pair[0] as usize;
                    if lang < self.seen.len() && !self.seen[lang] {
                        self.seen[lang] = true;
                        self.known[lang] += 1;
                        self.totals[lang] += penalty - f32::from(pair[1]) / QUANTUM;
                    }
                }
            }
            let missing = UNSEEN + BACKOFF * (orders - 1) as f32;
            for (total, _) in self.totals.iter_mut().zip(&self.seen).filter(|(_, s)| !**s) {
                *total += missing;
            }
        }
        self.letters += word.len();
    }
}

/// A cursor over the model file's bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).ok_or("the model file ends early")?;
        let slice = self
            .bytes
            .get(self.at..end)
            .ok_or("the model file ends early")?;
        self.at = end;
        Ok(slice)
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
}
