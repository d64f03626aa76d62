//! Page text for the synthetic web: the Universal Declaration of Human
//! Rights (public domain) in the languages the synthetic web uses, embedded
//! from `src/websim/corpus/`.

use std::sync::LazyLock;

use encoding_rs::Encoding;

/// A language of the synthetic web.
pub struct SimLang {
    /// ISO 639-3, as whatlang names it.
    pub code: &'static str,
    /// The `<html lang>` value.
    pub tag: &'static str,
    /// ccTLDs of its servers (the rest are on generic TLDs).
    pub cctlds: &'static [&'static str],
    /// Legacy charsets its servers may use besides UTF-8.
    pub legacy: &'static [&'static Encoding],
    /// Share of hosts in this language, in percent.
    pub weight: u32,
    /// Written without spaces between words.
    pub unspaced: bool,
    text: &'static str,
}

pub static LANGS: &[SimLang] = &[
    SimLang {
        code: "jpn",
        tag: "ja",
        cctlds: &["jp", "co.jp"],
        legacy: &[encoding_rs::SHIFT_JIS, encoding_rs::EUC_JP],
        weight: 24,
        unspaced: true,
        text: include_str!("corpus/jpn.txt"),
    },
    SimLang {
        code: "eng",
        tag: "en",
        cctlds: &["uk"],
        legacy: &[],
        weight: 24,
        unspaced: false,
        text: include_str!("corpus/eng.txt"),
    },
    SimLang {
        code: "kor",
        tag: "ko",
        cctlds: &["kr", "co.kr"],
        legacy: &[encoding_rs::EUC_KR],
        weight: 8,
        unspaced: false,
        text: include_str!("corpus/kor.txt"),
    },
    SimLang {
        code: "tha",
        tag: "th",
        cctlds: &["th", "co.th"],
        legacy: &[encoding_rs::WINDOWS_874],
        weight: 8,
        unspaced: true,
        text: include_str!("corpus/tha.txt"),
    },
    SimLang {
        code: "cmn",
        tag: "zh",
        cctlds: &["cn", "com.cn"],
        legacy: &[encoding_rs::GBK],
        weight: 10,
        unspaced: true,
        text: include_str!("corpus/cmn.txt"),
    },
    SimLang {
        code: "deu",
        tag: "de",
        cctlds: &["de"],
        legacy: &[encoding_rs::WINDOWS_1252],
        weight: 6,
        unspaced: false,
        text: include_str!("corpus/deu.txt"),
    },
    SimLang {
        code: "fra",
        tag: "fr",
        cctlds: &["fr"],
        legacy: &[encoding_rs::WINDOWS_1252],
        weight: 6,
        unspaced: false,
        text: include_str!("corpus/fra.txt"),
    },
    SimLang {
        code: "rus",
        tag: "ru",
        cctlds: &["ru"],
        legacy: &[encoding_rs::WINDOWS_1251],
        weight: 7,
        unspaced: false,
        text: include_str!("corpus/rus.txt"),
    },
    SimLang {
        code: "hin",
        tag: "hi",
        cctlds: &["in"],
        legacy: &[],
        weight: 7,
        unspaced: false,
        text: include_str!("corpus/hin.txt"),
    },
];

/// Generic TLDs, shared by all languages.
pub const GENERIC_TLDS: &[&str] = &["com", "net", "org", "info"];

/// Each language's sentences (non-empty lines of its declaration).
static SENTENCES: LazyLock<Vec<Vec<&'static str>>> = LazyLock::new(|| {
    LANGS
        .iter()
        .map(|l| {
            l.text
                .lines()
                .map(str::trim)
                .filter(|s| s.chars().filter(|c| c.is_alphabetic()).count() >= 8)
                .collect()
        })
        .collect()
});

pub fn sentences(lang: usize) -> &'static [&'static str] {
    &SENTENCES[lang]
}

/// The first words (or characters, for unspaced scripts) of `sentence`.
pub fn snippet(lang: usize, sentence: &str, size: usize) -> String {
    if LANGS[lang].unspaced {
        sentence
            .chars()
            .filter(|c| !c.is_whitespace())
            .take(size * 2)
            .collect()
    } else {
        sentence
            .split_whitespace()
            .take(size)
            .collect::<Vec<_>>()
            .join(" ")
    }
}

pub fn lang_index(code: &str) -> Option<usize> {
    LANGS.iter().position(|l| l.code == code)
}
