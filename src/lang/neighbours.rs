//! The second stage of language identification: a target's confusable
//! neighbours (Hindi/Marathi, Czech/Slovak, Malay/Indonesian...) settled by
//! lingua's n-gram models restricted to that group. whatlang answers first;
//! the second stage runs only when its answer lands in the target's group.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, OnceLock};

use super::markers;
use lingua::{Language, LanguageDetector, LanguageDetectorBuilder};

/// Languages a first answer is confused among (ISO 639-3). A target in two
/// groups (Serbian: Latin and Cyrillic neighbours) has both.
const GROUPS: &[&[&str]] = &[
    &["hin", "mar", "nep"],
    &["cmn", "jpn"],
    &["msa", "ind"],
    &["bos", "hrv", "srp", "slv"],
    &["nob", "nno", "dan", "swe"],
    &["ces", "slk"],
    &["rus", "ukr", "bel", "bul", "mkd", "srp"],
    &["spa", "cat", "glg", "por"],
];

/// The languages of the target's confusion group(s), the target first;
/// empty when the target has no known neighbours.
pub fn group(target: &str) -> Vec<&'static str> {
    let mut members: Vec<&'static str> = Vec::new();
    for group in GROUPS.iter().filter(|g| g.contains(&target)) {
        for code in group.iter() {
            if !members.contains(code) {
                members.push(code);
            }
        }
    }
    members.sort_by_key(|code| *code != target);
    members
}

/// True if the second stage has a model for `code` (ISO 639-3).
pub fn knows(code: &str) -> bool {
    lingua_language(code).is_some()
}

/// lingua's language for an ISO 639-3 code as langcrawl names it, when the
/// build includes its model (the table is built once: this runs per anchor).
fn lingua_language(code: &str) -> Option<Language> {
    static LANGUAGES: LazyLock<HashMap<String, Language>> = LazyLock::new(|| {
        Language::all()
            .into_iter()
            .map(|language| (code_of(language), language))
            .collect()
    });
    LANGUAGES.get(code).copied()
}

/// langcrawl's ISO 639-3 code for a lingua language.
fn code_of(language: Language) -> String {
    match language.iso_code_639_3().to_string().as_str() {
        "zho" => "cmn".into(),
        code => code.into(),
    }
}

/// The likeliest of `candidates` (ISO 639-3 codes lingua knows; the rest
/// are ignored) for `text`, with lingua's confidence relative to the other
/// candidates; `None` when fewer than two candidates are known or the text
/// has no letter lingua can use.
/// The pairs lingua cannot tell apart are then settled by their marker
/// words ([`super::markers`]) when the text has some.
pub fn settle(text: &str, candidates: &[&str]) -> Option<(String, f64)> {
    let detector = detector(candidates)?;
    let (language, confidence) = detector
        .compute_language_confidence_values(text)
        .into_iter()
        .next()?;
    if confidence <= 0.0 {
        return None;
    }
    let lang = code_of(language);
    match markers::settle(text, &lang) {
        Some((side, margin)) if candidates.contains(&side) => {
            let sure = if margin > 1 { 0.95 } else { MARKER_CONFIDENCE };
            Some((side.to_string(), sure))
        }
        _ => Some((lang, confidence)),
    }
}

/// Confidence in a side one marker word more than the other decides.
const MARKER_CONFIDENCE: f64 = 0.9;

/// Every language the second stage knows that is written in a script many
/// languages share (Latin, Cyrillic): the neighbourhood of a short anchor.
pub fn shared_script_languages() -> &'static [&'static str] {
    static LANGUAGES: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
        GROUPS
            .iter()
            .flat_map(|g| g.iter().copied())
            .chain(["eng"])
            .filter(|code| !matches!(*code, "hin" | "mar" | "nep" | "cmn" | "jpn") && knows(code))
            .fold(Vec::new(), |mut all, code| {
                if !all.contains(&code) {
                    all.push(code);
                }
                all
            })
    });
    &LANGUAGES
}

/// True for a target written in a script many languages share (Latin,
/// Cyrillic) that the second stage knows: its short texts and unsure pages
/// are worth asking the second stage about.
pub fn in_shared_script(target: &str) -> bool {
    shared_script_languages().contains(&target)
}

/// A detector per candidate set, built once (the models themselves are
/// loaded once per process by lingua, on first use).
fn detector(candidates: &[&str]) -> Option<&'static LanguageDetector> {
    static DETECTORS: OnceLock<Mutex<HashMap<Vec<Language>, &'static LanguageDetector>>> =
        OnceLock::new();
    let mut languages: Vec<Language> = candidates
        .iter()
        .filter_map(|c| lingua_language(c))
        .collect();
    languages.sort();
    languages.dedup();
    if languages.len() < 2 {
        return None;
    }
    let mut detectors = DETECTORS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let detector = detectors.entry(languages).or_insert_with_key(|languages| {
        Box::leak(Box::new(
            LanguageDetectorBuilder::from_languages(languages).build(),
        ))
    });
    Some(*detector)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_targets_group_starts_with_the_target() {
        assert_eq!(group("mar"), ["mar", "hin", "nep"]);
        assert_eq!(group("srp")[0], "srp");
        assert!(group("srp").contains(&"hrv") && group("srp").contains(&"rus"));
        assert!(group("tha").is_empty());
    }

    #[test]
    fn the_build_has_a_model_for_every_group_member_but_nepali_and_galician() {
        for code in GROUPS.iter().flat_map(|g| g.iter()) {
            assert_eq!(knows(code), !matches!(*code, "nep" | "glg"), "{code}");
        }
        assert!(!knows("tha") && !knows("xyz"));
    }

    proptest::proptest! {
        /// Any text in any mix of scripts, for any target with neighbours,
        /// gets an answer or none from every stage, never a panic.
        #[test]
        fn any_text_is_identified_for_any_target(
            text in "[a-zA-Zà-žА-я\\u0900-\\u097F\\u3040-\\u30FF\\u4E00-\\u4F00\\uAC00-\\uAD00\\u0E00-\\u0E7F0-9 .,!?'()\\u200d]{0,120}",
            target in proptest::sample::select(crate::lang::target_eval::TARGETS),
        ) {
            let page = crate::lang::identify_page(&text, None, "UTF-8", Some(target));
            proptest::prop_assert!(page.lang.is_some() || page.source == "none" || page.source == "no-text");
            let anchor = crate::lang::identify_anchor(&text, Some(target));
            proptest::prop_assert!((0.0..=1.0).contains(&anchor.confidence));
            if let Some((_, confidence)) = settle(&text, &group(target)) {
                proptest::prop_assert!((0.0..=1.0).contains(&confidence));
            }
        }
    }

    #[test]
    fn marathi_and_hindi_are_told_apart() {
        let (code, confidence) = settle(
            "महाराष्ट्रातील सर्व जिल्ह्यांमध्ये पावसाने जोरदार हजेरी लावली आहे.",
            &["hin", "mar", "nep"],
        )
        .unwrap();
        assert_eq!(code, "mar");
        assert!(confidence > 0.5, "{confidence}");
        assert_eq!(settle("text", &["hin"]), None);
    }
}
