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

use recent::{Hit, RECENT_NGRAMS, RECENT_WORDS};

pub mod format;
mod recent;
pub use format::{first_slot, hash, MAGIC, QUANTUM, SLOT_BYTES};

/// The model shipped in the binary, zstd-compressed (13.8 MB as it is
/// read, 8.6 MB in the binary).
static MODEL_ZSTD: &[u8] = include_bytes!("models.bin.zst");

/// The shipped model's bytes, decompressed once (about 30 ms) into one
/// buffer of the size the frame names (a growing buffer would hold up to
/// twice the model at its peak).
fn model_bytes() -> &'static [u8] {
    static BYTES: LazyLock<Vec<u8>> = LazyLock::new(|| {
        let size = zstd::zstd_safe::get_frame_content_size(MODEL_ZSTD)
            .ok()
            .flatten()
            .expect("the n-gram model built into the binary names its size");
        zstd::bulk::decompress(MODEL_ZSTD, size as usize)
            .expect("the n-gram model built into the binary decompresses")
    });
    &BYTES
}

/// Nats added per order a letter's context is shortened by (stupid
/// backoff's factor 0.4).
const BACKOFF: f32 = -0.916;
/// The longest n-gram scored (the file may name more).
const MAX_ORDERS: usize = 8;
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
        NgramModel::parse(model_bytes())
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

    /// The (language, -16 · ln P) pairs of an n-gram, if any language has
    /// it: from the thread's [`recent::RecentNgrams`] when it was looked up lately.
    fn lookup(&self, ngram: &[u8]) -> &'a [u8] {
        let h = hash(ngram);
        let (start, len) = RECENT_NGRAMS.with_borrow_mut(|recent| {
            recent.get_or_insert(self.entries.as_ptr() as usize, h, || self.range(h))
        });
        &self.entries[start as usize..(start + len) as usize]
    }

    /// Where the pairs of the n-gram of hash `h` are in the entries (an
    /// empty range when no language has it): a pure function of `h`.
    fn range(&self, h: u64) -> (u32, u32) {
        let found = self.probe(h);
        if found.is_empty() {
            return (0, 0);
        }
        let start = found.as_ptr() as usize - self.entries.as_ptr() as usize;
        (start as u32, found.len() as u32)
    }

    fn probe(&self, h: u64) -> &'a [u8] {
        let check = (h as u16).to_le_bytes();
        let mut slot = first_slot(h, self.n_slots);
        // The encoder leaves a fifth of the slots empty, so a probe ends at
        // one; a damaged table still ends after every slot.
        for _ in 0..self.n_slots {
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
            slot += 1;
            if slot == self.n_slots {
                slot = 0;
            }
        }
        &[]
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
            // A letter is category L: the models were trained on runs of
            // letters, so a combining mark (a Devanagari vowel sign, a Thai
            // tone mark) separates n-grams as a space does.
            if super::letters::is_letter(c) {
                word.extend(c.to_lowercase());
            } else if !word.is_empty() {
                scorer.word(&word);
                word.clear();
            }
        }
        scorer.word(&word);
        let best_known =
            |scores: &[(usize, f32)]| scores.first().map_or(0, |s| scorer.known[s.0] as usize);
        let mut scores: Vec<(usize, f32)> = scorer
            .totals()
            .enumerate()
            .filter(|(i, _)| keep[*i])
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

/// The running totals of one text. A letter adds, for each language, the
/// log-probability of its longest context the language's model has, less
/// [`BACKOFF`] per order shortened, or [`UNSEEN`] when none: the common
/// "none" part is summed once (`missing`), the languages with a hit get
/// the difference, each once per letter.
struct Scorer<'m> {
    model: &'m NgramModel<'static>,
    /// Indexed by the file's u8 language index (no bounds to check).
    totals: [f32; 256],
    known: [u32; 256],
    missing: f32,
    letters: usize,
    /// A word's sums when the thread does not keep them.
    scratch: Vec<Hit>,
}

impl<'m> Scorer<'m> {
    fn new(model: &'m NgramModel<'static>) -> Self {
        Scorer {
            model,
            totals: [0.0; 256],
            known: [0; 256],
            missing: 0.0,
            letters: 0,
            scratch: Vec::new(),
        }
    }

    /// Adds `word`'s sums (each letter given up to `orders - 1` letters
    /// before it): from the thread's recent words, else from the table.
    /// The sums are the same, added in the same order, either way.
    fn word(&mut self, word: &[char]) {
        let model = self.model;
        let mut scratch = std::mem::take(&mut self.scratch);
        RECENT_WORDS.with_borrow_mut(|recent| {
            let key = model.entries.as_ptr() as usize;
            let sums = match recent.hits(key, word, |out| model.word_sums(word, out)) {
                Some(sums) => sums,
                None => {
                    model.word_sums(word, &mut scratch);
                    &scratch
                }
            };
            sums.iter().for_each(|hit| self.add(*hit));
        });
        self.scratch = scratch;
        self.letters += word.len();
    }

    fn add(&mut self, hit: Hit) {
        if hit.lang == Hit::LETTER {
            self.missing += hit.gain;
        } else {
            let lang = usize::from(hit.lang);
            self.known[lang] += hit.count;
            self.totals[lang] += hit.gain;
        }
    }

    /// The totals with the common part added.
    fn totals(&self) -> impl Iterator<Item = f32> + '_ {
        let n = self.model.langs.len();
        self.totals[..n].iter().map(|t| t + self.missing)
    }
}

impl NgramModel<'_> {
    /// `word`'s part of a text's totals, in `out`: first a [`Hit::LETTER`]
    /// with the part every language gets, then each language with a hit,
    /// in the order first met, with its gain over that part and the
    /// letters it had. A word adds a language's sum once, not a gain per
    /// letter (a text's cost no longer grows with its letters times the
    /// languages that know them), and the sums are the same whether the
    /// word is scored or recalled.
    fn word_sums(&self, word: &[char], out: &mut Vec<Hit>) {
        out.clear();
        out.push(Hit {
            lang: Hit::LETTER,
            count: 0,
            gain: 0.0,
        });
        // Each language's place in `out` (0: none yet).
        let mut place = [0u16; 256];
        self.word_hits(word, |hit| {
            let at = if hit.lang == Hit::LETTER {
                0
            } else {
                let at = &mut place[usize::from(hit.lang)];
                if *at == 0 {
                    *at = out.len() as u16;
                    out.push(Hit {
                        gain: 0.0,
                        count: 0,
                        ..hit
                    });
                }
                usize::from(*at)
            };
            out[at].count += 1;
            out[at].gain += hit.gain;
        });
    }

    /// Gives `word`'s hits to `out`: per letter a [`Hit::LETTER`] with the
    /// part every language gets, then each language's gain over it (its
    /// longest order found; once per letter).
    fn word_hits(&self, word: &[char], mut out: impl FnMut(Hit)) {
        // Which orders were found ending at the letter before: an n-gram is
        // kept only with its first n - 1 letters, so an order-k n-gram can
        // be in the table only if the order-(k - 1) one before it was.
        let mut before = [false; MAX_ORDERS];
        for i in 0..word.len() {
            let orders = self.orders.clamp(1, MAX_ORDERS).min(i + 1);
            // The letters in context, encoded once; order k is a suffix.
            let mut bytes = [0u8; 4 * MAX_ORDERS];
            let mut starts = [0usize; MAX_ORDERS];
            let mut len = 0;
            for (k, c) in word[i + 1 - orders..=i].iter().enumerate() {
                starts[k] = len;
                len += c.encode_utf8(&mut bytes[len..]).len();
            }
            let missing = UNSEEN + BACKOFF * (orders - 1) as f32;
            out(Hit {
                lang: Hit::LETTER,
                count: 1,
                gain: missing,
            });
            // Every order's entries first: the lookups are independent, so
            // their memory reads overlap.
            let mut found: [&[u8]; MAX_ORDERS] = [&[]; MAX_ORDERS];
            for (order, entries) in found.iter_mut().enumerate().take(orders) {
                if order == 0 || before[order - 1] {
                    *entries = self.lookup(&bytes[starts[orders - 1 - order]..len]);
                }
            }
            for (was, entries) in before.iter_mut().zip(&found) {
                *was = !entries.is_empty();
            }
            // The languages given a gain at this letter (u8 indices).
            let mut scored = [0u64; 4];
            for order in (1..=orders).rev() {
                let gain = BACKOFF * (orders - order) as f32 - missing;
                for pair in found[order - 1].chunks_exact(2) {
                    let (word, bit) = (usize::from(pair[0] >> 6), 1u64 << (pair[0] & 63));
                    if pair[0] != Hit::LETTER && scored[word] & bit == 0 {
                        scored[word] |= bit;
                        out(Hit {
                            lang: pair[0],
                            count: 1,
                            gain: gain - f32::from(pair[1]) / QUANTUM,
                        });
                    }
                }
            }
        }
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

#[cfg(test)]
mod tests;
