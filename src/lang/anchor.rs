//! Anchor language: short texts are decided by script first (kana, Hangul,
//! Thai, Devanagari); Han-only text is [`HAN`] (Chinese or Japanese); the
//! rest (Latin, Cyrillic, Arabic...) by the n-gram models of every
//! language ([`super::ngram_model`]), settled among the target's
//! confusable neighbours where it has some; a language is named only when
//! the models are sure, else `und` — never a guess.

use std::cell::RefCell;
use std::collections::HashMap;

use super::neighbours;
use super::ngram_model;
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
    /// `script`, `ngrams` (the models of every language), `whatlang`
    /// (Devanagari, or a script the models lack), `neighbours` (the second
    /// stage) or `none`.
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

/// [`identify_anchor`]'s language code for `text` in a crawl of `target`,
/// from this thread's recent anchors when it was asked lately: menus
/// repeat their anchors on every page of a site.
pub fn recent_anchor_lang(text: &str, target: Option<&str>) -> String {
    RECENT_ANCHORS.with_borrow_mut(|recent| {
        if recent.target.as_deref() != target || recent.langs.len() >= RECENT_ANCHOR_TEXTS {
            recent.target = target.map(str::to_string);
            recent.langs.clear();
        }
        if let Some(lang) = recent.langs.get(text) {
            return lang.clone();
        }
        let lang = identify_anchor(text, target).lang;
        recent.langs.insert(text.to_string(), lang.clone());
        lang
    })
}

/// Anchor texts a thread keeps (it starts again when they are reached).
const RECENT_ANCHOR_TEXTS: usize = 16_384;

/// The anchors a thread named lately, for one target.
struct RecentAnchors {
    target: Option<String>,
    langs: HashMap<String, String>,
}

thread_local! {
    static RECENT_ANCHORS: RefCell<RecentAnchors> = RefCell::new(RecentAnchors {
        target: None,
        langs: HashMap::new(),
    });
}

/// The language of a short text for a crawl of `target`: the script
/// decides where it names one language; with a target that has
/// confusable neighbours, the second stage settles Devanagari and Han-only
/// text when it is sure; other scripts go to the n-gram models of every
/// language ([`by_ngrams`]); else `und` — never a guess.
pub fn identify_anchor(text: &str, target: Option<&str>) -> AnchorLang {
    let text = text.trim();
    if looks_like_url(text) {
        return AnchorLang::undetermined();
    }
    let counts = ScriptCounts::of(text);
    let group = target.map(neighbours::group).unwrap_or_default();
    match (counts.decisive_lang(), target.filter(|_| !group.is_empty())) {
        (Some("hin"), Some(target)) if group.contains(&"hin") => {
            settled(text, &group, target).unwrap_or_else(|| {
                // Unsure between Devanagari neighbours: the crawl's own
                // language, the page will tell.
                AnchorLang::new(target, 0.0, "script")
            })
        }
        (Some("hin"), _) => devanagari_lang(text),
        (Some(HAN), Some(target @ ("cmn" | "jpn"))) if counts.han >= MIN_HAN_SETTLED => {
            settled(text, &group, target)
                .unwrap_or_else(|| AnchorLang::new(HAN, SCRIPT_CONFIDENCE, "script"))
        }
        (Some(code), _) => AnchorLang::new(code, SCRIPT_CONFIDENCE, "script"),
        (None, _) if counts.letters() == 0 => AnchorLang::undetermined(),
        (None, _) => by_ngrams(text, target, &group),
    }
}

/// Han characters the second stage needs before it calls a Han-only
/// anchor Chinese or Japanese: most words of two or three characters are
/// written alike in both.
const MIN_HAN_SETTLED: usize = 4;

/// Confidence of a language the script alone names.
const SCRIPT_CONFIDENCE: f64 = 1.0;
/// Probability the models need before a short text is named the target,
/// and before it is named another language (a wrong "other" loses target
/// pages; a wrong "target" costs one fetch).
const MIN_TARGET_CONFIDENCE: f64 = 0.35;
const MIN_OTHER_CONFIDENCE: f64 = 0.99;
/// Probability among every language the models need to name a language
/// outside the target's group: two words of a language look much like its
/// neighbours'.
const SURE_OTHER: f64 = 0.99;

/// The models' answer among every language: the target when it is the
/// likeliest and likely enough; a confusion group member settled within
/// the group (with its marker words); another language when sure; else
/// `und`. Text mostly in letters the models have not seen (a script they
/// lack), and every text of a crawl whose target they lack, goes to
/// whatlang.
fn by_ngrams(text: &str, target: Option<&str>, group: &[&str]) -> AnchorLang {
    let model = ngram_model::model();
    let ranking = model.rank(text, None);
    let lacked = target.is_some_and(|t| !model.knows(t));
    if lacked || ranking.known_letters * 2 < ranking.letters {
        return whatlang_lang(text);
    }
    let (best, p) = ranking.probabilities(usize::MAX, ngram_model::SHORT_TEXT_TEMPERATURE)[0];
    if let Some(lacked) = lacked_neighbour(text, best) {
        return lacked;
    }
    if let Some(target) = target {
        if group.contains(&best) {
            return settled(text, group, target).unwrap_or_else(AnchorLang::undetermined);
        }
        if best == target && p >= MIN_TARGET_CONFIDENCE {
            return AnchorLang::new(best, p, "ngrams");
        }
    }
    if p >= SURE_OTHER {
        AnchorLang::new(best, p, "ngrams")
    } else {
        AnchorLang::undetermined()
    }
}

/// Languages whatlang knows and the models lack, by the modelled language
/// the models take them for (Yiddish for Hebrew, Turkmen and Uzbek for
/// Turkish and Azerbaijani, Javanese for Indonesian and Malay, Nepali for
/// Hindi and Marathi).
const LACKED_NEIGHBOURS: &[(&str, &[&str])] = &[
    ("heb", &["yid"]),
    ("tur", &["tuk", "uzb"]),
    ("aze", &["tuk", "uzb"]),
    ("ind", &["jav"]),
    ("msa", &["jav"]),
    ("hin", &["nep"]),
    ("mar", &["nep"]),
];

/// whatlang's sure answer, when the models' likeliest language `best` has
/// a neighbour they lack and whatlang names that neighbour.
fn lacked_neighbour(text: &str, best: &str) -> Option<AnchorLang> {
    let (_, lacked) = LACKED_NEIGHBOURS
        .iter()
        .find(|(modelled, _)| *modelled == best)?;
    let info = whatlang::detect(text).filter(|info| info.is_reliable())?;
    lacked
        .contains(&info.lang().code())
        .then(|| AnchorLang::new(info.lang().code(), info.confidence(), "whatlang"))
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

/// Words needed before whatlang is trusted on a script the models lack,
/// and the confidence it must have: short texts are mostly noise to it.
const MIN_WHATLANG_WORDS: usize = 4;
const MIN_WHATLANG_CONFIDENCE: f64 = 0.9;

fn whatlang_lang(text: &str) -> AnchorLang {
    if text.split_whitespace().count() < MIN_WHATLANG_WORDS {
        return AnchorLang::undetermined();
    }
    whatlang::detect(text)
        .filter(|info| info.is_reliable() && info.confidence() >= MIN_WHATLANG_CONFIDENCE)
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
    fn recent_anchors_are_named_as_identify_anchor_names_them() {
        let anchors = [
            "ホームページ",
            "会社概要",
            "Contact us",
            "ติดต่อเรา",
            "Über uns und unsere Geschichte",
            "http://example.com/",
            "",
        ];
        for target in [None, Some("jpn"), Some("cmn"), Some("tha"), None] {
            // twice: the second time from the thread's recent anchors
            for _ in 0..2 {
                for text in anchors {
                    let named = identify_anchor(text, target).lang;
                    assert_eq!(
                        recent_anchor_lang(text, target),
                        named,
                        "{text} for {target:?}"
                    );
                }
            }
        }
    }

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
