//! Anchor language: short texts are decided by script first (kana, Hangul,
//! Thai, Devanagari); Han-only text is [`HAN`] (Chinese or Japanese); for a
//! target with confusable neighbours the second stage names Devanagari,
//! Han-only, Latin and Cyrillic text when it is sure; else whatlang when it
//! is reliable on four words or more, else `und` — never a guess.

use super::neighbours;
use super::script::ScriptCounts;
pub use super::script::HAN;

/// Anchor language code when nothing can tell.
pub const UNDETERMINED: &str = "und";

/// The language of a short text, how sure, and what decided it.
#[derive(Debug, Clone, PartialEq)]
pub struct AnchorLang {
    /// ISO 639-3 code, [`HAN`] or [`UNDETERMINED`].
    pub lang: String,
    pub confidence: f64,
    /// `script`, `whatlang`, `neighbours` (the second stage) or `none`.
    pub source: &'static str,
}

impl AnchorLang {
    fn new(lang: &str, confidence: f64, source: &'static str) -> Self {
        AnchorLang {
            lang: lang.to_string(),
            confidence,
            source,
        }
    }

    fn undetermined() -> Self {
        AnchorLang::new(UNDETERMINED, 0.0, "none")
    }
}

/// The language of a short text such as an anchor: an ISO 639-3 code,
/// [`HAN`] or [`UNDETERMINED`], without a target.
pub fn anchor_lang(text: &str) -> String {
    identify_anchor(text, None).lang
}

/// The language of a short text for a crawl of `target`: the script
/// decides where it names one language; with a target that has
/// confusable neighbours, the second stage settles Devanagari, Han-only,
/// Latin and Cyrillic text when it is sure; otherwise whatlang on four
/// words or more, else `und` — never a guess.
pub fn identify_anchor(text: &str, target: Option<&str>) -> AnchorLang {
    let text = text.trim();
    if looks_like_url(text) {
        return AnchorLang::undetermined();
    }
    let counts = ScriptCounts::of(text);
    let group = target.map(neighbours::group).unwrap_or_default();
    let target = target.filter(|_| !group.is_empty());
    match (counts.decisive_lang(), target) {
        (Some("hin"), Some(target)) if group.contains(&"hin") => {
            settled(text, &group, target).unwrap_or_else(|| {
                // Unsure between Devanagari neighbours: the crawl's own
                // language, the page will tell.
                AnchorLang::new(target, 0.0, "script")
            })
        }
        (Some("hin"), _) => devanagari_lang(text),
        (Some(HAN), Some(target @ ("cmn" | "jpn"))) => settled(text, &group, target)
            .unwrap_or_else(|| AnchorLang::new(HAN, SCRIPT_CONFIDENCE, "script")),
        (Some(code), _) => AnchorLang::new(code, SCRIPT_CONFIDENCE, "script"),
        (None, _) if counts.letters() == 0 => AnchorLang::undetermined(),
        (None, Some(target)) if neighbours::in_shared_script(target) => english(text, target)
            .or_else(|| settled(text, neighbours::shared_script_languages(), target))
            .unwrap_or_else(|| shared_script_lang(text)),
        (None, _) => shared_script_lang(text),
    }
}

/// Confidence of a language the script alone names.
const SCRIPT_CONFIDENCE: f64 = 1.0;
/// Confidence the second stage needs before a short text is named the
/// target, and before it is named another language (a wrong "other" loses
/// target pages; a wrong "target" costs one fetch).
const MIN_TARGET_CONFIDENCE: f64 = 0.35;
const MIN_OTHER_CONFIDENCE: f64 = 0.9;

/// Confidence with which English, scored against the target alone, ends
/// the question: most anchors of the web are English, and scoring every
/// language of the script costs six times more. Such an anchor is `und`,
/// not `eng`: against one language, a Malay pair can look English.
const SURE_ENGLISH: f64 = 0.99;

/// `und` when the second stage, choosing between the target and English,
/// is sure of English.
fn english(text: &str, target: &str) -> Option<AnchorLang> {
    let (lang, confidence) = neighbours::settle(text, &[target, "eng"])?;
    (lang == "eng" && confidence >= SURE_ENGLISH).then(AnchorLang::undetermined)
}

/// The second stage's answer among `candidates`, when it is sure enough.
fn settled(text: &str, candidates: &[&str], target: &str) -> Option<AnchorLang> {
    let (lang, confidence) = neighbours::settle(text, candidates)?;
    let needed = if lang == target {
        MIN_TARGET_CONFIDENCE
    } else {
        MIN_OTHER_CONFIDENCE
    };
    (confidence >= needed).then_some(AnchorLang {
        lang,
        confidence,
        source: "neighbours",
    })
}

/// True if `anchor_lang` counts as the target `target` (ISO 639-3); with
/// `han_matches`, Han-only anchors match a Japanese or Chinese target.
pub fn matches_target(anchor_lang: &str, target: &str, han_matches: bool) -> bool {
    anchor_lang == target || (han_matches && anchor_lang == HAN && matches!(target, "jpn" | "cmn"))
}

/// Words needed before whatlang is trusted on a Latin, Cyrillic or Arabic
/// anchor, and the confidence it must have: short texts in these scripts
/// are mostly noise to it.
const MIN_SHARED_SCRIPT_WORDS: usize = 4;
const MIN_SHARED_SCRIPT_CONFIDENCE: f64 = 0.9;

fn shared_script_lang(text: &str) -> AnchorLang {
    if text.split_whitespace().count() < MIN_SHARED_SCRIPT_WORDS {
        return AnchorLang::undetermined();
    }
    whatlang::detect(text)
        .filter(|info| info.is_reliable() && info.confidence() >= MIN_SHARED_SCRIPT_CONFIDENCE)
        .map_or_else(AnchorLang::undetermined, |info| {
            AnchorLang::new(info.lang().code(), info.confidence(), "whatlang")
        })
}

fn looks_like_url(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.contains("://")
        || lower.starts_with("www.")
        || (!text.contains(char::is_whitespace) && text.contains('.') && text.contains('/'))
}

/// Devanagari text: whatlang's choice among Hindi, Marathi and Nepali (the
/// script already rules out the rest), Hindi when it has no opinion.
fn devanagari_lang(text: &str) -> AnchorLang {
    let detector = whatlang::Detector::with_allowlist(vec![
        whatlang::Lang::Hin,
        whatlang::Lang::Mar,
        whatlang::Lang::Nep,
    ]);
    detector.detect(text).map_or_else(
        || AnchorLang::new("hin", 0.0, "script"),
        |info| AnchorLang::new(info.lang().code(), info.confidence(), "whatlang"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_decides_short_anchors() {
        assert_eq!(anchor_lang("ホームページ"), "jpn");
        assert_eq!(anchor_lang("会社の概要"), "jpn");
        assert_eq!(anchor_lang("회사 소개"), "kor");
        assert_eq!(anchor_lang("หน้าแรก"), "tha");
        assert_eq!(anchor_lang("हमारे बारे में जानकारी"), "hin");
    }

    #[test]
    fn han_only_is_chinese_or_japanese() {
        assert_eq!(anchor_lang("会社概要"), HAN);
        assert_eq!(anchor_lang("美国生物物理学会"), HAN);
        assert!(matches_target(HAN, "jpn", true) && matches_target(HAN, "cmn", true));
        assert!(!matches_target(HAN, "jpn", false) && !matches_target(HAN, "kor", true));
    }

    #[test]
    fn numbers_urls_punctuation_and_short_latin_are_undetermined() {
        for text in [
            "click here",
            "",
            "2024",
            "...",
            "»",
            "http://www.example.com/",
            "www.bsc.org.cn",
            "example.org/a/b",
        ] {
            assert_eq!(anchor_lang(text), UNDETERMINED, "{text:?}");
        }
    }
}
