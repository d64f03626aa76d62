//! Anchor language: short texts are decided by script first (kana, Hangul,
//! Thai, Devanagari); Han-only text is [`HAN`] (Chinese or Japanese); other
//! scripts fall back to whatlang when it is reliable, else `und` — never a
//! confident wrong answer.

use super::script::ScriptCounts;
pub use super::script::HAN;

/// Anchor language code when nothing can tell.
pub const UNDETERMINED: &str = "und";

/// The language of a short text such as an anchor: an ISO 639-3 code,
/// [`HAN`] or [`UNDETERMINED`].
pub fn anchor_lang(text: &str) -> String {
    let text = text.trim();
    if looks_like_url(text) {
        return UNDETERMINED.into();
    }
    let counts = ScriptCounts::of(text);
    match counts.decisive_lang() {
        Some("hin") => devanagari_lang(text),
        Some(code) => code.into(),
        None if counts.letters() == 0 => UNDETERMINED.into(),
        None => shared_script_lang(text),
    }
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

fn shared_script_lang(text: &str) -> String {
    if text.split_whitespace().count() < MIN_SHARED_SCRIPT_WORDS {
        return UNDETERMINED.into();
    }
    whatlang::detect(text)
        .filter(|info| info.is_reliable() && info.confidence() >= MIN_SHARED_SCRIPT_CONFIDENCE)
        .map_or(UNDETERMINED.into(), |info| info.lang().code().into())
}

fn looks_like_url(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    lower.contains("://")
        || lower.starts_with("www.")
        || (!text.contains(char::is_whitespace) && text.contains('.') && text.contains('/'))
}

/// Devanagari text: whatlang's choice among Hindi, Marathi and Nepali (the
/// script already rules out the rest), Hindi when it has no opinion.
fn devanagari_lang(text: &str) -> String {
    let detector = whatlang::Detector::with_allowlist(vec![
        whatlang::Lang::Hin,
        whatlang::Lang::Mar,
        whatlang::Lang::Nep,
    ]);
    detector
        .detect_lang(text)
        .map_or("hin", |lang| lang.code())
        .into()
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
