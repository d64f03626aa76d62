//! Measuring the label every page gets ("which language is this?", no
//! target): langcrawl's beside whatlang's, per language of a corpus in the
//! leipzig-dev layout. The language report's percentages count these
//! labels. Shared by the tests and `scripts/bench-langid`.

use std::collections::BTreeMap;

use super::eval::{ratio, Sample};
use super::page::identify_page;

/// How often one language's samples were named right.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Naming {
    pub samples: usize,
    /// Named right by langcrawl's page identifier.
    pub langcrawl: usize,
    /// Named right by whatlang alone (any answer, reliable or not).
    pub whatlang: usize,
}

impl Naming {
    pub fn langcrawl_accuracy(&self) -> f64 {
        ratio(self.langcrawl, self.samples)
    }
    pub fn whatlang_accuracy(&self) -> f64 {
        ratio(self.whatlang, self.samples)
    }
}

/// The label langcrawl gives `text` as a page's text, without a target.
pub fn label(text: &str) -> Option<String> {
    identify_page(text, None, "UTF-8", None).lang
}

/// Per language: how often langcrawl and whatlang name its samples right.
pub fn naming(samples: &[Sample]) -> BTreeMap<String, Naming> {
    let mut by_lang: BTreeMap<String, Naming> = BTreeMap::new();
    for sample in samples {
        let entry = by_lang.entry(sample.lang.clone()).or_default();
        entry.samples += 1;
        entry.langcrawl += usize::from(label(&sample.text).as_deref() == Some(&sample.lang));
        let whatlang = whatlang::detect(&sample.text).map(|info| info.lang().code());
        entry.whatlang += usize::from(whatlang == Some(sample.lang.as_str()));
    }
    by_lang
}

/// The mean accuracy over languages, langcrawl's and whatlang's.
pub fn mean_accuracy(naming: &BTreeMap<String, Naming>) -> (f64, f64) {
    let n = naming.len().max(1) as f64;
    let ours = naming.values().map(Naming::langcrawl_accuracy).sum::<f64>() / n;
    let theirs = naming.values().map(Naming::whatlang_accuracy).sum::<f64>() / n;
    (ours, theirs)
}

/// A Markdown table: per language, langcrawl's and whatlang's accuracy on
/// sentences and on word pairs; the means last.
pub fn table(sentences: &[Sample], word_pairs: &[Sample]) -> String {
    let (s, w) = (naming(sentences), naming(word_pairs));
    let mut out = String::from(
        "| language | sentences | langcrawl | whatlang | word pairs | langcrawl | whatlang |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
    );
    let empty = Naming::default();
    for lang in s.keys().chain(w.keys().filter(|l| !s.contains_key(*l))) {
        let (a, b) = (s.get(lang).unwrap_or(&empty), w.get(lang).unwrap_or(&empty));
        out.push_str(&format!(
            "| {lang} | {} | {:.3} | {:.3} | {} | {:.3} | {:.3} |\n",
            a.samples,
            a.langcrawl_accuracy(),
            a.whatlang_accuracy(),
            b.samples,
            b.langcrawl_accuracy(),
            b.whatlang_accuracy()
        ));
    }
    let ((sa, sb), (wa, wb)) = (mean_accuracy(&s), mean_accuracy(&w));
    out.push_str(&format!(
        "| **mean** | {} | **{sa:.3}** | {sb:.3} | {} | **{wa:.3}** | {wb:.3} |\n",
        s.len(),
        w.len()
    ));
    out
}
