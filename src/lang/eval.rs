//! Measuring language identification on a corpus of UDHR translations
//! (`tests/corpus/udhr/<code>[_variant].txt`): paragraphs as pages, and
//! short anchors cut from them. Shared by the tests and `scripts/bench-langid`.

use std::collections::BTreeMap;
use std::path::Path;

use super::anchor::{anchor_lang, matches_target, UNDETERMINED};
use super::page::identify_page;
use super::script::ScriptCounts;
use crate::error::{Error, Result};

/// Paragraphs shorter than this (in characters) are headings, not pages.
const MIN_PARAGRAPH_CHARS: usize = 40;

/// One text with the language it is known to be in.
#[derive(Debug, Clone)]
pub struct Sample {
    /// ISO 639-3 code (the file name up to its first `_`).
    pub lang: String,
    pub text: String,
}

/// Loads every `*.txt` file of `dir` as one sample per paragraph (line).
pub fn load_paragraphs(dir: &Path) -> Result<Vec<Sample>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(Error::io(dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    let mut samples = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(Error::io(&path))?;
        let stem = path.file_stem().unwrap_or_default().to_string_lossy();
        let lang = corpus_code(stem.split('_').next().unwrap_or_default()).to_string();
        samples.extend(
            text.lines()
                .map(str::trim)
                .filter(|l| l.chars().count() >= MIN_PARAGRAPH_CHARS)
                .map(|l| Sample {
                    lang: lang.clone(),
                    text: l.to_string(),
                }),
        );
    }
    Ok(samples)
}

/// Corpus codes for individual languages whose macrolanguage langcrawl
/// names (Standard Arabic → Arabic, North Azerbaijani → Azerbaijani,
/// Northern Uzbek → Uzbek, Eastern Yiddish → Yiddish, Tosk → Albanian,
/// Halh → Mongolian, Swahili).
const MACROLANGUAGES: &[(&str, &str)] = &[
    ("arb", "ara"),
    ("azj", "aze"),
    ("uzn", "uzb"),
    ("ydd", "yid"),
    ("als", "sqi"),
    ("khk", "mon"),
    ("swh", "swa"),
];

/// The code langcrawl names the corpus language `code` by.
pub fn corpus_code(code: &str) -> &str {
    MACROLANGUAGES
        .iter()
        .find(|(individual, _)| *individual == code)
        .map_or(code, |(_, macro_code)| macro_code)
}

/// True if langcrawl can name the language `code`: the n-gram models or
/// whatlang know it.
pub fn identifiable(code: &str) -> bool {
    whatlang::Lang::from_code(code).is_some() || super::ngram_model::model().knows(code)
}

/// Short anchors cut from a paragraph: runs of 2 to 5 words, or of 2 to 8
/// characters for text written without spaces between words (CJK, Thai).
pub fn anchors(sample: &Sample, per_paragraph: usize) -> Vec<Sample> {
    let counts = ScriptCounts::of(&sample.text);
    let unspaced = counts.han + counts.kana + counts.thai > counts.letters() / 2;
    let pieces: Vec<String> = if unspaced {
        sample
            .text
            .chars()
            .filter(|c| c.is_alphanumeric())
            .map(String::from)
            .collect()
    } else {
        sample.text.split_whitespace().map(str::to_string).collect()
    };
    let (shortest, longest) = if unspaced { (2, 8) } else { (2, 5) };
    let joiner = if unspaced { "" } else { " " };
    (0..per_paragraph)
        .filter_map(|k| {
            let len = shortest + (k * 3 + sample.text.len()) % (longest - shortest + 1);
            let start = (k * 7919 + sample.text.len()) % pieces.len().saturating_sub(len).max(1);
            let piece = pieces.get(start..start + len)?.join(joiner);
            Some(Sample {
                lang: sample.lang.clone(),
                text: piece,
            })
        })
        .collect()
}

/// Counts of one language's samples and of the predictions naming it.
#[derive(Debug, Default, Clone, Copy)]
pub struct LangScore {
    pub samples: usize,
    pub correct: usize,
    /// Predictions of this language (right or wrong).
    pub predicted: usize,
    pub predicted_correct: usize,
    /// Samples given a language (not `und`) that is wrong.
    pub confident_wrong: usize,
}

impl LangScore {
    pub fn recall(&self) -> f64 {
        ratio(self.correct, self.samples)
    }
    pub fn precision(&self) -> f64 {
        ratio(self.predicted_correct, self.predicted)
    }
}

/// `a / b`, 0 when `b` is 0.
pub(super) fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Scores per language, keyed by ISO 639-3 code.
pub type Scores = BTreeMap<String, LangScore>;

/// Scores page identification: each paragraph as a page's visible text.
pub fn score_pages(samples: &[Sample]) -> Scores {
    score(
        samples,
        |text| {
            identify_page(text, None, "UTF-8", None)
                .lang
                .unwrap_or_else(|| UNDETERMINED.into())
        },
        |p, t| p == t,
    )
}

/// Scores anchor identification; a Han-only anchor (`han`) counts as right
/// for a Japanese or Chinese sample.
pub fn score_anchors(samples: &[Sample]) -> Scores {
    score(samples, anchor_lang, |p, t| matches_target(p, t, true))
}

fn score(
    samples: &[Sample],
    identify: impl Fn(&str) -> String,
    right: impl Fn(&str, &str) -> bool,
) -> Scores {
    let mut scores = Scores::new();
    for sample in samples {
        let predicted = identify(&sample.text);
        let is_right = right(&predicted, &sample.lang);
        let truth = scores.entry(sample.lang.clone()).or_default();
        truth.samples += 1;
        truth.correct += usize::from(is_right);
        truth.confident_wrong += usize::from(!is_right && predicted != UNDETERMINED);
        let named = scores.entry(predicted).or_default();
        named.predicted += 1;
        named.predicted_correct += usize::from(is_right);
    }
    scores
}

/// Mean recall over the languages in `scores` that have samples and pass `keep`.
pub fn mean_recall(scores: &Scores, keep: impl Fn(&str) -> bool) -> f64 {
    let recalls: Vec<f64> = scores
        .iter()
        .filter(|(code, s)| s.samples > 0 && keep(code))
        .map(|(_, s)| s.recall())
        .collect();
    recalls.iter().sum::<f64>() / recalls.len().max(1) as f64
}

/// Share of the samples in languages whatlang knows that were given a
/// confident wrong language (a language no detector here can name is not
/// counted against it).
pub fn confident_wrong_rate(scores: &Scores) -> f64 {
    let (wrong, all) = scores
        .iter()
        .filter(|(code, _)| identifiable(code))
        .fold((0, 0), |(w, a), (_, s)| {
            (w + s.confident_wrong, a + s.samples)
        });
    ratio(wrong, all)
}

/// A Markdown table: language, samples, precision, recall, confident wrong.
pub fn table(scores: &Scores) -> String {
    let mut out = String::from(
        "| lang | samples | precision | recall | confident wrong |\n|---|---:|---:|---:|---:|\n",
    );
    for (code, s) in scores.iter().filter(|(_, s)| s.samples > 0) {
        out.push_str(&format!(
            "| {code} | {} | {:.1}% | {:.1}% | {} |\n",
            s.samples,
            100.0 * s.precision(),
            100.0 * s.recall(),
            s.confident_wrong
        ));
    }
    out
}
