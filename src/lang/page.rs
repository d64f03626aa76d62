//! Page language: whatlang on a bounded prefix of the visible text; the
//! hints (`<html lang>`, the charset) break ties and fill in when the text
//! is too short to decide.

use super::charset::charset_language;
use super::codes::tag_code;
use super::script::{ScriptCounts, HAN};

/// `source` of a text with no letter at all (a frameset, a refresh, an image page).
pub const NO_TEXT: &str = "no-text";

/// Characters of visible text given to whatlang.
pub const TEXT_PREFIX_CHARS: usize = 2048;
/// Below this many letters the text alone does not decide.
const MIN_LETTERS: usize = 20;

/// Confidence given to a language named by each kind of hint.
const SCRIPT_CONFIDENCE: f64 = 0.8;
const HTML_LANG_CONFIDENCE: f64 = 0.6;
const CHARSET_CONFIDENCE: f64 = 0.5;

/// The language of a page and which source decided it.
#[derive(Debug, Clone, PartialEq)]
pub struct PageLang {
    /// ISO 639-3 code, or `None` when nothing could tell.
    pub lang: Option<String>,
    pub confidence: f64,
    /// `text`, `text+hint`, `script`, `html_lang`, `charset`, `none`, or
    /// `no-text` (no letter at all: a frameset, a refresh, an image page).
    pub source: &'static str,
    /// The script most of the text is in (`Latin`, `Kana`, `Thai`...).
    pub script: Option<&'static str>,
}

/// Identifies the language of visible `text`. When whatlang is unsure or
/// the text is short, the hints decide in this order: the script of the
/// text, `html_lang` (the `<html lang>` attribute), a `charset` (WHATWG
/// name) that implies a language.
pub fn identify_page(text: &str, html_lang: Option<&str>, charset: &str) -> PageLang {
    if !text.chars().any(char::is_alphabetic) {
        return PageLang {
            lang: None,
            confidence: 0.0,
            source: NO_TEXT,
            script: None,
        };
    }
    let prefix = bounded_prefix(text, TEXT_PREFIX_CHARS);
    let counts = ScriptCounts::of(prefix);
    let html_hint = html_lang.and_then(html_lang_code);
    let charset_hint = charset_language(charset);
    let japanese_hint = html_hint.as_deref() == Some("jpn") || charset_hint == Some("jpn");
    let info = (counts.letters() >= MIN_LETTERS)
        .then(|| whatlang::detect(prefix))
        .flatten();
    let (lang, confidence, source) = match &info {
        Some(info) if info.is_reliable() => match info.lang().code() {
            // whatlang names Han-only text Chinese; kana or a Japanese hint settles it.
            "cmn" if counts.kana > 0 || japanese_hint => {
                ("jpn".to_string(), info.confidence(), "text+hint")
            }
            code => (code.to_string(), info.confidence(), "text"),
        },
        _ => match (counts.decisive_lang(), html_hint, charset_hint, &info) {
            (Some(HAN), ..) if japanese_hint => ("jpn".into(), SCRIPT_CONFIDENCE, "script"),
            (Some(HAN), ..) => ("cmn".into(), SCRIPT_CONFIDENCE, "script"),
            (Some(code), ..) => (code.to_string(), SCRIPT_CONFIDENCE, "script"),
            (None, Some(code), ..) => (code, HTML_LANG_CONFIDENCE, "html_lang"),
            (None, None, Some(code), _) => (code.to_string(), CHARSET_CONFIDENCE, "charset"),
            (None, None, None, Some(info)) => {
                (info.lang().code().to_string(), info.confidence(), "text")
            }
            (None, None, None, None) => {
                return PageLang {
                    lang: None,
                    confidence: 0.0,
                    source: "none",
                    script: counts.dominant(),
                }
            }
        },
    };
    PageLang {
        lang: Some(lang),
        confidence,
        source,
        script: counts.dominant(),
    }
}

/// The ISO 639-3 code of an `<html lang>` value (`ja-JP` → `jpn`) when
/// whatlang knows the language.
fn html_lang_code(value: &str) -> Option<String> {
    tag_code(value).filter(|code| whatlang::Lang::from_code(code).is_some())
}

/// The first `max_chars` characters of `text`.
pub fn bounded_prefix(text: &str, max_chars: usize) -> &str {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_decides() {
        let ja =
            "すべての人間は、生まれながらにして自由であり、かつ、尊厳と権利とについて平等である。";
        let page = identify_page(ja, Some("en"), "UTF-8");
        assert_eq!((page.lang.as_deref(), page.source), (Some("jpn"), "text"));
    }

    #[test]
    fn short_text_falls_back_to_hints() {
        let page = identify_page("홈", Some("ja"), "UTF-8");
        assert_eq!((page.lang.as_deref(), page.source), (Some("kor"), "script"));
        let page = identify_page("OK", Some("ko-KR"), "UTF-8");
        assert_eq!(
            (page.lang.as_deref(), page.source),
            (Some("kor"), "html_lang")
        );
        let page = identify_page("OK", None, "windows-874");
        assert_eq!(
            (page.lang.as_deref(), page.source),
            (Some("tha"), "charset")
        );
        assert_eq!(identify_page("OK", None, "UTF-8").lang, None);
    }

    #[test]
    fn a_page_without_letters_has_no_language_whatever_its_hints() {
        for text in ["", "  ", "© 2024 | 1 2 3 → ☰"] {
            let page = identify_page(text, Some("ja"), "Shift_JIS");
            assert_eq!((page.lang, page.source), (None, "no-text"), "{text:?}");
        }
    }

    #[test]
    fn han_only_text_with_a_japanese_hint_is_japanese() {
        let han = "世界人権宣言前文人類社会構成員固有尊厳平等譲権利承認世界自由正義平和基礎";
        let page = identify_page(han, Some("ja"), "UTF-8");
        assert_eq!(page.lang.as_deref(), Some("jpn"));
    }
}
