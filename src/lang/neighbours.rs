//! The second stage of language identification: a target's confusable
//! neighbours (Hindi/Marathi, Czech/Slovak, Malay/Indonesian...) settled by
//! the character n-gram models ([`super::ngram_model`]) restricted to that
//! group, and by marker words where n-grams cannot tell a pair apart.

use super::markers;
use super::ngram_model;

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
    ngram_model::model().knows(code)
}

/// The likeliest of `candidates` (ISO 639-3 codes the models know; the
/// rest are ignored) for `text`, with its probability among them; `None`
/// when fewer than two candidates are known or no letter of the text is
/// one their models have seen.
/// The pairs n-grams cannot tell apart are then settled by their marker
/// words ([`super::markers`]) when the text has some.
pub fn settle(text: &str, candidates: &[&str]) -> Option<(String, f64)> {
    let known: Vec<&str> = candidates.iter().copied().filter(|c| knows(c)).collect();
    if known.len() < 2 {
        return None;
    }
    let ranking = ngram_model::model().rank(text, Some(&known));
    if ranking.known_letters == 0 {
        return None;
    }
    let (lang, confidence) =
        ranking.probabilities(usize::MAX, ngram_model::SHORT_TEXT_TEMPERATURE)[0];
    match markers::settle(text, lang) {
        Some((side, margin)) if candidates.contains(&side) => {
            let sure = if margin > 1 { 0.95 } else { MARKER_CONFIDENCE };
            Some((side.to_string(), sure))
        }
        _ => Some((lang.to_string(), confidence)),
    }
}

/// Confidence in a side one marker word more than the other decides.
const MARKER_CONFIDENCE: f64 = 0.9;

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
        assert_eq!(ngram_model::model().languages().len(), 75);
        assert!(knows("tha") && knows("eng") && !knows("xyz"));
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
