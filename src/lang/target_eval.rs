//! Measuring the target decision ("is this text in the crawl's language?")
//! on held-out real text: the leipzig-dev layout (`<iso 639-1>/sentences.txt`,
//! `<iso 639-1>/word-pairs.txt`, one text per line). Sentences stand for
//! pages, word pairs for anchors. Shared by the tests and
//! `scripts/bench-langid`.

use std::path::Path;

use super::anchor::{identify_anchor, matches_target, UNDETERMINED};
use super::codes::tag_code;
use super::eval::{ratio, Sample};
use super::neighbours;
use super::page::identify_page;
use crate::error::{Error, Result};

/// The targets measured, and the languages each is told apart from: the
/// confusion groups' members, and targets without neighbours in the
/// second stage's groups.
pub const TARGETS: &[&str] = &[
    "jpn", "cmn", "kor", "tha", "hin", "mar", "nep", "ces", "slk", "rus", "ukr", "ind", "msa",
    "nob", "nno", "dan", "hrv", "srp", "bos", "spa", "cat", "por", "eng", "deu", "fra", "vie",
    "ara", "pes", "tur",
];

/// What a sample stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A sentence, identified as a page's text.
    Sentences,
    /// Two words, identified as an anchor.
    WordPairs,
}

impl Kind {
    fn file(self) -> &'static str {
        match self {
            Kind::Sentences => "sentences.txt",
            Kind::WordPairs => "word-pairs.txt",
        }
    }
}

/// Loads up to `per_lang` samples of `kind` for each language of
/// [`TARGETS`] that `dir` has (a folder per ISO 639-1 code).
pub fn load(dir: &Path, kind: Kind, per_lang: usize) -> Result<Vec<Sample>> {
    load_where(dir, kind, per_lang, |code| TARGETS.contains(&code))
}

/// Loads up to `per_lang` samples of `kind` of every language `dir` has.
pub fn load_all(dir: &Path, kind: Kind, per_lang: usize) -> Result<Vec<Sample>> {
    load_where(dir, kind, per_lang, |_| true)
}

fn load_where(
    dir: &Path,
    kind: Kind,
    per_lang: usize,
    keep: impl Fn(&str) -> bool,
) -> Result<Vec<Sample>> {
    let mut samples = Vec::new();
    let mut folders: Vec<_> = std::fs::read_dir(dir)
        .map_err(Error::io(dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    for folder in folders {
        let name = folder.file_name().unwrap_or_default().to_string_lossy();
        let Some(lang) = tag_code(&name).filter(|code| keep(code)) else {
            continue;
        };
        let path = folder.join(kind.file());
        let text = std::fs::read_to_string(&path).map_err(Error::io(&path))?;
        samples.extend(
            text.lines()
                .map(str::trim)
                .filter(|line| !line.is_empty())
                .take(per_lang)
                .map(|line| Sample {
                    lang: lang.clone(),
                    text: line.to_string(),
                }),
        );
    }
    Ok(samples)
}

/// How one target's decision did over samples of every language.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct TargetScore {
    /// Samples in the target language.
    pub samples: usize,
    /// Target samples decided target; other samples decided target.
    pub true_positives: usize,
    pub false_positives: usize,
    /// Target samples given another language (not `und`).
    pub confident_wrong: usize,
    /// Samples of other languages.
    pub others: usize,
    /// Samples of languages outside the target's confusion group, and how
    /// many of them were accepted.
    pub strangers: usize,
    pub strangers_accepted: usize,
}

impl TargetScore {
    pub fn precision(&self) -> f64 {
        ratio(
            self.true_positives,
            self.true_positives + self.false_positives,
        )
    }
    pub fn recall(&self) -> f64 {
        ratio(self.true_positives, self.samples)
    }
    pub fn confident_wrong_share(&self) -> f64 {
        ratio(self.confident_wrong, self.samples)
    }
    /// The share of other languages' samples accepted as the target.
    pub fn false_acceptance(&self) -> f64 {
        ratio(self.false_positives, self.others)
    }
    /// The share of samples of languages outside the target's confusion
    /// group accepted as the target.
    pub fn strangers_accepted_share(&self) -> f64 {
        ratio(self.strangers_accepted, self.strangers)
    }
}

/// The language a crawl of `target` gives `text` as `kind`.
pub fn decide(text: &str, target: &str, kind: Kind) -> String {
    match kind {
        Kind::Sentences => identify_page(text, None, "UTF-8", Some(target))
            .lang
            .unwrap_or_else(|| UNDETERMINED.into()),
        Kind::WordPairs => identify_anchor(text, Some(target)).lang,
    }
}

/// Scores the decision "is it `target`?" over `samples` (a Han-only anchor
/// counts as a Chinese or Japanese target, as in a crawl by default).
pub fn score_target(samples: &[Sample], target: &str, kind: Kind) -> TargetScore {
    let mut score = TargetScore::default();
    let group = neighbours::group(target);
    for sample in samples {
        let lang = decide(&sample.text, target, kind);
        let accepted = matches_target(&lang, target, true);
        if sample.lang == target {
            score.samples += 1;
            score.true_positives += usize::from(accepted);
            score.confident_wrong += usize::from(!accepted && lang != UNDETERMINED);
        } else {
            score.others += 1;
            score.false_positives += usize::from(accepted);
            if !group.contains(&sample.lang.as_str()) {
                score.strangers += 1;
                score.strangers_accepted += usize::from(accepted);
            }
        }
    }
    score
}

/// The share of `from`'s samples that a crawl of `target` accepts.
pub fn accepted_share(samples: &[Sample], from: &str, target: &str, kind: Kind) -> f64 {
    let from: Vec<&Sample> = samples.iter().filter(|s| s.lang == from).collect();
    let accepted = from
        .iter()
        .filter(|s| matches_target(&decide(&s.text, target, kind), target, true))
        .count();
    ratio(accepted, from.len())
}

/// A Markdown table of every target's scores on sentences and word pairs
/// (false acceptance: the share of other languages' samples accepted, of
/// all and of those outside the target's confusion group), and the means
/// over targets with samples last.
pub fn table(sentences: &[Sample], word_pairs: &[Sample]) -> String {
    let mut out = String::from(
        "| target | sentences | precision | recall | accepted others | outside group | word pairs | precision | recall | accepted others | outside group | confidently wrong |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let (mut sentence_rows, mut pair_rows) = (Vec::new(), Vec::new());
    for target in TARGETS {
        let s = score_target(sentences, target, Kind::Sentences);
        let w = score_target(word_pairs, target, Kind::WordPairs);
        if s.samples + w.samples == 0 {
            out.push_str(&format!("| {target} | no samples | | | | | | | | | | |\n"));
            continue;
        }
        let srow = vec![
            s.precision(),
            s.recall(),
            s.false_acceptance(),
            s.strangers_accepted_share(),
        ];
        let wrow = vec![
            w.precision(),
            w.recall(),
            w.false_acceptance(),
            w.strangers_accepted_share(),
            w.confident_wrong_share(),
        ];
        out.push_str(&format!("| {target} | {} |{}", s.samples, cells(&srow)));
        out.push_str(&format!(" {} |{}\n", w.samples, cells(&wrow)));
        if s.samples > 0 {
            sentence_rows.push(srow);
        }
        if w.samples > 0 {
            pair_rows.push(wrow);
        }
    }
    out.push_str(&format!(
        "| **mean** | |{} |{}\n",
        cells(&means(&sentence_rows)),
        cells(&means(&pair_rows))
    ));
    out
}

/// Each column's mean over the rows (the targets with samples).
fn means(rows: &[Vec<f64>]) -> Vec<f64> {
    let n = rows.len().max(1) as f64;
    let width = rows.first().map_or(0, Vec::len);
    (0..width)
        .map(|i| rows.iter().map(|r| r[i]).sum::<f64>() / n)
        .collect()
}

/// Table cells: precision and recall as fractions, shares as percentages.
fn cells(row: &[f64]) -> String {
    row.iter()
        .enumerate()
        .map(|(i, v)| {
            if i < 2 {
                format!(" {v:.3} |")
            } else {
                format!(" {:.2}% |", 100.0 * v)
            }
        })
        .collect()
}
