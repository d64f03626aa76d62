//! Page language: whatlang on a bounded prefix of the visible text; the
//! hints (`<html lang>`, the charset) break ties and fill in when the text
//! is too short to decide.

use super::charset::charset_language;

/// Characters of visible text given to whatlang.
pub const TEXT_PREFIX_CHARS: usize = 2048;
/// Below this many letters the text alone does not decide.
const MIN_LETTERS: usize = 20;

/// The language of a page and which source decided it.
#[derive(Debug, Clone, PartialEq)]
pub struct PageLang {
    /// ISO 639-3 code, or `None` when nothing could tell.
    pub lang: Option<String>,
    pub confidence: f64,
    /// `text`, `text+hint`, `html_lang`, `charset` or `none`.
    pub source: &'static str,
}

/// Identifies the language of visible `text`, with `html_lang` (the
/// `<html lang>` attribute) and `charset` (WHATWG name) as hints.
pub fn identify_page(text: &str, html_lang: Option<&str>, charset: &str) -> PageLang {
    let prefix = bounded_prefix(text, TEXT_PREFIX_CHARS);
    let letters = prefix.chars().filter(|c| c.is_alphabetic()).count();
    let hint = html_lang
        .and_then(|l| crate::lang::TargetLang::parse(l.split(['-', '_']).next()?).ok())
        .map(|l| l.code().to_string())
        .or_else(|| charset_language(charset).map(str::to_string));
    let info = (letters >= MIN_LETTERS)
        .then(|| whatlang::detect(prefix))
        .flatten();
    match (info, hint) {
        (Some(info), None) => decided(info.lang().code(), info.confidence(), "text"),
        (Some(info), Some(hint)) if info.is_reliable() => {
            let code = info.lang().code();
            // whatlang names Han-only text Chinese; a Japanese hint settles it.
            if code == "cmn" && hint == "jpn" {
                return decided("jpn", info.confidence(), "text+hint");
            }
            decided(code, info.confidence(), "text")
        }
        (_, Some(hint)) => {
            let source = if html_lang.is_some() {
                "html_lang"
            } else {
                "charset"
            };
            decided(&hint, 0.5, source)
        }
        (None, None) => PageLang {
            lang: None,
            confidence: 0.0,
            source: "none",
        },
    }
}

fn decided(code: &str, confidence: f64, source: &'static str) -> PageLang {
    PageLang {
        lang: Some(code.to_string()),
        confidence,
        source,
    }
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
        let page = identify_page("OK", Some("ko-KR"), "UTF-8");
        assert_eq!(
            (page.lang.as_deref(), page.source),
            (Some("kor"), "html_lang")
        );
        let page = identify_page("", None, "windows-874");
        assert_eq!(
            (page.lang.as_deref(), page.source),
            (Some("tha"), "charset")
        );
        assert_eq!(identify_page("", None, "UTF-8").lang, None);
    }

    #[test]
    fn han_only_text_with_a_japanese_hint_is_japanese() {
        let han = "世界人権宣言前文人類社会構成員固有尊厳平等譲権利承認世界自由正義平和基礎";
        let page = identify_page(han, Some("ja"), "UTF-8");
        assert_eq!(page.lang.as_deref(), Some("jpn"));
    }
}
