//! `langcrawl detect`: the charset and language of one document (or of an
//! anchor text with `--anchor`), by the same code the parse phase runs.

use std::path::Path;

use serde::Serialize;

use crate::error::Result;
use crate::lang::{self, ScriptCounts, TargetLang};
use crate::parse::{parse_one, FetchedPage};

/// What `detect` found, printed as `key: value` lines or as JSON.
#[derive(Debug, Serialize)]
pub struct Detection {
    pub lang: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang_confidence: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang_source: Option<&'static str>,
    pub script: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub charset: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub charset_source: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta_charset: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub html_lang: Option<String>,
    /// `<meta http-equiv="content-language">` (a page file has no headers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_language: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang2: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang2_share: Option<f64>,
    /// With a target: the target, whether the text counts as it, and what
    /// decided (`lang_source`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_target: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_share: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_chars: Option<i64>,
}

/// Reads `path` (`-` for stdin) as raw bytes, at most
/// [`MAX_PAGE_BYTES`](crate::input::MAX_PAGE_BYTES).
pub fn read_input(path: &Path) -> Result<Vec<u8>> {
    crate::input::read_capped(path, crate::input::MAX_PAGE_BYTES, "page")
}

/// Detects a page's charset and language; `target` adds the share of the
/// text in the target language's script.
pub fn page(bytes: &[u8], target: Option<&TargetLang>) -> Detection {
    let input = FetchedPage {
        url: "file:///",
        host: "",
        status: "fetched",
        content: Some(bytes),
        ..FetchedPage::default()
    };
    let row = parse_one(&input, target.map(TargetLang::code))
        .page
        .unwrap_or_default();
    let is_target = target.map(|t| row.lang.as_deref() == Some(t.code()));
    Detection {
        lang2: row.lang2,
        lang2_share: row.lang2_share,
        target: target.map(|t| t.code().to_string()),
        is_target,
        lang: row.lang,
        lang_confidence: row.lang_confidence,
        lang_source: Some(row.lang_source),
        script: row.script,
        charset: row.charset,
        charset_source: row.charset_source,
        meta_charset: row.meta_charset,
        html_lang: row.html_lang,
        content_language: row.content_language,
        target_share: row.target_share,
        title: row.title,
        text_chars: Some(row.text_chars),
    }
}

/// Detects the language of a short anchor text (UTF-8 expected), for a
/// crawl of `target` when given.
pub fn anchor(bytes: &[u8], target: Option<&TargetLang>) -> Detection {
    let text = String::from_utf8_lossy(bytes);
    let target_code = target.map(TargetLang::code);
    let found = lang::identify_anchor(&text, target_code);
    Detection {
        is_target: target_code.map(|t| lang::matches_target(&found.lang, t, true)),
        target: target_code.map(str::to_string),
        lang: Some(found.lang),
        lang_confidence: Some(found.confidence),
        lang_source: Some(found.source),
        script: ScriptCounts::of(&text).dominant(),
        charset: None,
        charset_source: None,
        meta_charset: None,
        html_lang: None,
        content_language: None,
        lang2: None,
        lang2_share: None,
        target_share: None,
        title: None,
        text_chars: Some(text.trim().chars().count() as i64),
    }
}

impl Detection {
    /// `key: value` lines, in the order a person reads them.
    pub fn to_lines(&self) -> String {
        let number = |v: Option<f64>| v.map(|v| format!("{v:.3}"));
        let count = |v: Option<i64>| v.map(|v| v.to_string());
        let fields = [
            ("lang", self.lang.clone()),
            ("lang_confidence", number(self.lang_confidence)),
            ("lang_source", self.lang_source.map(str::to_string)),
            ("script", self.script.map(str::to_string)),
            ("lang2", self.lang2.clone()),
            ("lang2_share", number(self.lang2_share)),
            ("target", self.target.clone()),
            ("is_target", self.is_target.map(|b| b.to_string())),
            ("charset", self.charset.map(str::to_string)),
            ("charset_source", self.charset_source.map(str::to_string)),
            ("meta_charset", self.meta_charset.clone()),
            ("html_lang", self.html_lang.clone()),
            ("content_language", self.content_language.clone()),
            ("target_share", number(self.target_share)),
            ("title", self.title.clone()),
            ("text_chars", count(self.text_chars)),
        ];
        fields
            .into_iter()
            .filter_map(|(key, value)| value.map(|v| format!("{key}: {v}\n")))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_shows_the_content_language_a_page_declares() {
        let page = page(
            br#"<meta http-equiv="content-language" content="ko"><p>OK</p>"#,
            None,
        );
        let lines = page.to_lines();
        assert!(lines.contains("content_language: ko\n"), "{lines}");
        assert!(lines.contains("lang_source: content_language\n"), "{lines}");
        assert!(lines.contains("lang: kor\n"), "{lines}");
    }
}
