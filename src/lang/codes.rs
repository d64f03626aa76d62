//! Language codes: ISO 639-3 as whatlang names them, the two-letter aliases
//! accepted on the command line, and each language's default ccTLDs.

use crate::error::{Error, Result};

/// Two-letter aliases for the ISO 639-3 codes whatlang uses.
const ALIASES: &[(&str, &str)] = &[
    ("ja", "jpn"),
    ("zh", "cmn"),
    ("ko", "kor"),
    ("th", "tha"),
    ("hi", "hin"),
    ("en", "eng"),
    ("de", "deu"),
    ("fr", "fra"),
    ("ru", "rus"),
    ("es", "spa"),
    ("pt", "por"),
    ("it", "ita"),
    ("ar", "ara"),
    ("vi", "vie"),
    ("id", "ind"),
    ("nl", "nld"),
    ("pl", "pol"),
    ("tr", "tur"),
    ("uk", "ukr"),
    ("he", "heb"),
    ("el", "ell"),
    ("bn", "ben"),
    ("mr", "mar"),
    ("ne", "nep"),
];

/// ccTLDs that count as "in the target country" by default.
const DEFAULT_TLDS: &[(&str, &[&str])] = &[
    ("jpn", &["jp"]),
    ("cmn", &["cn", "tw", "hk"]),
    ("kor", &["kr"]),
    ("tha", &["th"]),
    ("hin", &["in"]),
    ("deu", &["de", "at", "ch"]),
    ("fra", &["fr"]),
    ("rus", &["ru"]),
    ("spa", &["es", "mx", "ar"]),
    ("mar", &["in"]),
    ("nep", &["np"]),
    ("ces", &["cz"]),
    ("slk", &["sk"]),
    ("ukr", &["ua"]),
    ("bel", &["by"]),
    ("bul", &["bg"]),
    ("mkd", &["mk"]),
    ("ind", &["id"]),
    ("msa", &["my"]),
    ("nob", &["no"]),
    ("nno", &["no"]),
    ("dan", &["dk"]),
    ("swe", &["se"]),
    ("hrv", &["hr"]),
    ("srp", &["rs"]),
    ("bos", &["ba"]),
    ("cat", &["cat", "ad"]),
    ("por", &["pt", "br"]),
];

/// Country codes people type where a language code is wanted.
const COUNTRY_HINTS: &[(&str, &str)] = &[
    ("jp", "ja"),
    ("kr", "ko"),
    ("cn", "zh"),
    ("tw", "zh"),
    ("in", "hi"),
    ("cz", "cs"),
];

/// ISO 639 macrolanguages whose individual language whatlang names.
const WHATLANG_INDIVIDUAL: &[(&str, &str)] = &[("zho", "cmn"), ("fas", "pes"), ("nor", "nob")];

/// The ISO 639-3 code of a BCP 47 language tag (`ja-JP` → `jpn`, `zh-Hant`
/// → `cmn`, `fil` → `fil`), as whatlang names it where whatlang knows the
/// language; `x-default` is kept as is. `None` when the tag names no
/// language.
pub fn tag_code(tag: &str) -> Option<String> {
    let tag = tag.trim().to_ascii_lowercase();
    if tag == "x-default" {
        return Some(tag);
    }
    let primary = tag.split(['-', '_']).next()?;
    let language = match primary.len() {
        2 => isolang::Language::from_639_1(primary)?,
        3 => isolang::Language::from_639_3(primary)?,
        _ => return None,
    };
    let code = language.to_639_3();
    let code = WHATLANG_INDIVIDUAL
        .iter()
        .find(|(macro_code, _)| *macro_code == code)
        .map_or(code, |(_, individual)| individual);
    Some(code.to_string())
}

/// A target language, always in its ISO 639-3 form (`jpn`, `tha`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetLang(String);

impl TargetLang {
    /// Accepts `ja`, `jpn`, `JA`, `nn`; rejects a language neither whatlang
    /// nor the second stage ([`super::neighbours`]) can identify.
    pub fn parse(input: &str) -> Result<Self> {
        let lower = input.trim().to_ascii_lowercase();
        let code = ALIASES
            .iter()
            .find(|(two, _)| *two == lower)
            .map(|(_, three)| three.to_string())
            .unwrap_or(lower.clone());
        let code = tag_code(&code).unwrap_or(code);
        if whatlang::Lang::from_code(&code).is_some() || super::neighbours::knows(&code) {
            return Ok(TargetLang(code));
        }
        let hint = COUNTRY_HINTS
            .iter()
            .find(|(cc, _)| *cc == lower)
            .and_then(|(_, two)| ALIASES.iter().find(|(a, _)| a == two))
            .map(|(two, three)| format!(" (did you mean {two} / {three}?)"))
            .unwrap_or_else(|| " (use an ISO 639-1 or 639-3 code such as ja, jpn, th, tha)".into());
        Err(Error::Usage(format!(
            "--lang {input}: unknown language{hint}"
        )))
    }

    pub fn code(&self) -> &str {
        &self.0
    }

    /// The language's BCP 47 tag: ISO 639-1 where there is one (`ja`, `zh`
    /// for Mandarin), else the ISO 639-3 code.
    pub fn tag(&self) -> String {
        let two = |code: &str| isolang::Language::from_639_3(code).and_then(|l| l.to_639_1());
        let macro_code = WHATLANG_INDIVIDUAL
            .iter()
            .find(|(_, individual)| *individual == self.0)
            .map(|(macro_code, _)| *macro_code);
        two(&self.0)
            .or_else(|| macro_code.and_then(two))
            .map_or_else(|| self.0.clone(), str::to_string)
    }

    /// The `Accept-Language` a crawl of this language sends: the target
    /// first, English after it (`th, en;q=0.5`); `en` for English.
    pub fn accept_language(&self) -> String {
        match self.tag().as_str() {
            "en" => "en".into(),
            tag => format!("{tag}, en;q=0.5"),
        }
    }

    /// The default ccTLDs of this language (empty when it has none).
    pub fn default_tlds(&self) -> Vec<String> {
        DEFAULT_TLDS
            .iter()
            .find(|(lang, _)| *lang == self.0)
            .map(|(_, tlds)| tlds.iter().map(|t| t.to_string()).collect())
            .unwrap_or_default()
    }
}

impl std::fmt::Display for TargetLang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_and_three_letter_codes_are_accepted() {
        assert_eq!(TargetLang::parse("ja").unwrap().code(), "jpn");
        assert_eq!(TargetLang::parse("JPN").unwrap().code(), "jpn");
        assert_eq!(TargetLang::parse("th").unwrap().code(), "tha");
        assert_eq!(
            TargetLang::parse("zh").unwrap().default_tlds(),
            ["cn", "tw", "hk"]
        );
    }

    #[test]
    fn language_tags_to_iso_639_3() {
        let cases = [
            ("ja", Some("jpn")),
            ("ja-JP", Some("jpn")),
            ("zh-Hant-TW", Some("cmn")),
            ("zh_CN", Some("cmn")),
            ("TH", Some("tha")),
            ("en-US", Some("eng")),
            ("fi", Some("fin")),
            ("fil", Some("fil")),
            ("nb", Some("nob")),
            ("no", Some("nob")),
            ("fa-IR", Some("pes")),
            ("X-Default", Some("x-default")),
            ("", None),
            ("qq", None),
            ("english", None),
        ];
        for (tag, code) in cases {
            assert_eq!(tag_code(tag).as_deref(), code, "tag {tag:?}");
        }
    }

    #[test]
    fn accept_language_names_the_target_first() {
        let header = |lang: &str| TargetLang::parse(lang).unwrap().accept_language();
        assert_eq!(header("th"), "th, en;q=0.5");
        assert_eq!(header("zh"), "zh, en;q=0.5");
        assert_eq!(header("fa"), "fa, en;q=0.5");
        assert_eq!(header("nb"), "nb, en;q=0.5");
        assert_eq!(header("eng"), "en");
    }

    #[test]
    fn a_country_code_gets_a_suggestion() {
        let err = TargetLang::parse("jp").unwrap_err().to_string();
        assert_eq!(err, "--lang jp: unknown language (did you mean ja / jpn?)");
        assert!(TargetLang::parse("klingon").is_err());
    }

    #[test]
    fn languages_only_the_second_stage_knows_are_targets() {
        for (input, code) in [("ms", "msa"), ("msa", "msa"), ("bs", "bos"), ("nn", "nno")] {
            assert_eq!(TargetLang::parse(input).unwrap().code(), code, "{input}");
        }
        assert_eq!(TargetLang::parse("nb").unwrap().code(), "nob");
        assert!(TargetLang::parse("gl").is_err(), "no model for Galician");
    }
}
