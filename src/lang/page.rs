//! Page language: the n-gram models of every language
//! ([`super::ngram_model`]; whatlang for scripts they lack) on a bounded
//! prefix of the visible text; the
//! hints (`<html lang>`, the charset) break ties and fill in when the text
//! is too short to decide; CJK by the share of each script; the target's
//! confusable neighbours settled by a second stage; a second language
//! recorded when a page is clearly bilingual.

use super::anchor::{identify_anchor, UNDETERMINED};
use super::charset::charset_language;
use super::codes::tag_code;
use super::neighbours;
use super::ngram_model;
use super::script::{ScriptCounts, HAN};

/// `source` of a text with no letter at all (a frameset, a refresh, an image page).
pub const NO_TEXT: &str = "no-text";

/// Characters of visible text identified.
pub const TEXT_PREFIX_CHARS: usize = 2048;
/// Below this many letters an unsure text does not decide.
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
    /// `text`, `text+hint`, `script`, `html_lang`, `charset`, `none`,
    /// `no-text` (no letter at all: a frameset, a refresh, an image page),
    /// `cjk-share` (Chinese, Japanese or Korean by the share of kana and
    /// Hangul) or `neighbours` (the target's confusion group settled it).
    pub source: &'static str,
    /// The script most of the text is in (`Latin`, `Kana`, `Thai`...).
    pub script: Option<&'static str>,
    /// The language of the text's second script when the page is clearly
    /// bilingual (a Thai page with English paragraphs), and its share of
    /// the letters.
    pub lang2: Option<String>,
    pub lang2_share: Option<f64>,
}

/// Identifies the language of visible `text`. When the text is unsure or
/// the text is short, the hints decide in this order: the script of the
/// text, `html_lang` (the `<html lang>` attribute), a `charset` (WHATWG
/// name) that implies a language. Chinese, Japanese and Korean are told
/// apart by the share of kana and Hangul; with a `target`, an answer in the
/// target's confusion group is settled among that group
/// ([`super::neighbours`]).
pub fn identify_page(
    text: &str,
    html_lang: Option<&str>,
    charset: &str,
    target: Option<&str>,
) -> PageLang {
    let declared = Declared {
        html_lang,
        content_language: None,
    };
    identify_page_text(PageText::whole(text), declared, charset, target)
}

/// The languages a page declares: `<html lang>`, and its Content-Language
/// (the HTTP header, else `<meta http-equiv>`). Hints, in that order: they
/// decide only when the text is short or unsure.
#[derive(Debug, Clone, Copy, Default)]
pub struct Declared<'a> {
    pub html_lang: Option<&'a str>,
    pub content_language: Option<&'a str>,
}

/// A page's visible text, and its running text: the same without the
/// texts of its links (headings, paragraphs, list items, cells).
#[derive(Debug, Clone, Copy)]
pub struct PageText<'a> {
    pub all: &'a str,
    pub running: &'a str,
}

/// How much less a letter of link text weighs than one of running text
/// when the page's language is judged: a link directory's quoted titles
/// do not make it a page in their language.
const LINK_TEXT_WEIGHT: usize = 4;

impl<'a> PageText<'a> {
    /// A text with no links apart.
    pub fn whole(text: &'a str) -> Self {
        PageText {
            all: text,
            running: text,
        }
    }

    /// The text the page's language is judged on: the running text when
    /// it has [`MIN_LETTERS`] letters or more and outweighs the link text
    /// ([`LINK_TEXT_WEIGHT`]); else all of it (a page of links).
    fn judged(&self) -> &'a str {
        if std::ptr::eq(self.running, self.all) {
            return self.all;
        }
        let letters = |text: &str| {
            text.chars()
                .filter(|&c| super::letters::is_alphabetic(c))
                .count()
        };
        let running = letters(self.running);
        let links = letters(self.all).saturating_sub(running);
        if running >= MIN_LETTERS && running * LINK_TEXT_WEIGHT >= links {
            self.running
        } else {
            self.all
        }
    }
}

/// [`identify_page`] on a page whose link texts are known: the running
/// text decides ([`PageText::judged`]); the second language is that of
/// all the text (a directory's quoted titles).
pub fn identify_page_text(
    page: PageText<'_>,
    declared: Declared<'_>,
    charset: &str,
    target: Option<&str>,
) -> PageLang {
    let text = page.judged();
    if !text.chars().any(super::letters::is_alphabetic) {
        return PageLang {
            lang: None,
            confidence: 0.0,
            source: NO_TEXT,
            script: None,
            lang2: None,
            lang2_share: None,
        };
    }
    let prefix = bounded_prefix(text, TEXT_PREFIX_CHARS);
    let counts = ScriptCounts::of(prefix);
    let hints = Hints::of(declared, charset);
    let first = first_answer(prefix, &counts, &hints, target);
    let (lang, confidence, source) = match first {
        Some(answer) => {
            let answer = cjk_by_share(&counts, &hints)
                .filter(|by_share| by_share.0 != answer.0)
                .unwrap_or(answer);
            let answer = target
                .and_then(|t| settle_in_group(prefix, &answer, t))
                .unwrap_or(answer);
            (Some(answer.0), answer.1, answer.2)
        }
        // Too short to decide: a crawl with a target asks the anchor rule.
        None => match target.map(|t| identify_anchor(prefix, Some(t))) {
            Some(anchor) if anchor.lang != UNDETERMINED && anchor.lang != HAN => {
                (Some(anchor.lang), anchor.confidence, anchor.source)
            }
            _ => (None, 0.0, "none"),
        },
    };
    // The second language is all the text's: its prefix and counts are the
    // judged ones' when the running text was not judged apart.
    let judged_all = std::ptr::eq(text, page.all);
    let all = bounded_prefix(page.all, TEXT_PREFIX_CHARS);
    let (lang2, lang2_share) = lang
        .as_deref()
        .and_then(|lang| {
            if judged_all {
                second_language(prefix, &counts, lang)
            } else {
                second_language(all, &ScriptCounts::of(all), lang)
            }
        })
        .unzip();
    PageLang {
        lang,
        confidence,
        source,
        script: counts.dominant(),
        lang2,
        lang2_share,
    }
}

/// A language, the confidence in it, and what decided it.
type Answer = (String, f64, &'static str);

/// The language the page declares (`<html lang>`, else its one
/// Content-Language) and what declared it, and the charset's language.
struct Hints {
    declared: Option<String>,
    declared_by: &'static str,
    charset: Option<&'static str>,
}

impl Hints {
    fn of(declared: Declared<'_>, charset: &str) -> Self {
        let html_lang = declared.html_lang.and_then(html_lang_code);
        let content_language = declared
            .content_language
            .filter(|value| !value.contains(','))
            .and_then(html_lang_code);
        Hints {
            declared_by: if html_lang.is_some() || content_language.is_none() {
                "html_lang"
            } else {
                "content_language"
            },
            declared: html_lang.or(content_language),
            charset: charset_language(charset),
        }
    }

    /// True if either hint names `code`.
    fn names(&self, code: &str) -> bool {
        self.declared.as_deref() == Some(code) || self.charset == Some(code)
    }
}

/// The text's answer, or the hints' when the text is unsure or short.
fn first_answer(
    prefix: &str,
    counts: &ScriptCounts,
    hints: &Hints,
    target: Option<&str>,
) -> Option<Answer> {
    let japanese_hint = hints.names("jpn");
    let text = text_lang(prefix, target);
    // An unsure answer on a few letters is no answer.
    let unsure = text.clone().filter(|_| counts.letters() >= MIN_LETTERS);
    Some(match &text {
        Some((code, confidence, true)) => match code.as_str() {
            // Han-only text is Chinese unless a hint says Japanese (kana
            // settle it by share, below).
            "cmn" | "jpn" if counts.kana == 0 && japanese_hint => {
                ("jpn".to_string(), *confidence, "text+hint")
            }
            "cmn" | "jpn" if counts.kana == 0 => ("cmn".to_string(), *confidence, "text"),
            "cmn" => ("jpn".to_string(), *confidence, "text+hint"),
            code => (code.to_string(), *confidence, "text"),
        },
        _ => match (
            counts.decisive_lang(),
            &hints.declared,
            hints.charset,
            &unsure,
        ) {
            (Some(HAN), ..) if japanese_hint => ("jpn".into(), SCRIPT_CONFIDENCE, "script"),
            (Some(HAN), ..) => ("cmn".into(), SCRIPT_CONFIDENCE, "script"),
            (Some(code), ..) => (code.to_string(), SCRIPT_CONFIDENCE, "script"),
            (None, Some(code), ..) => (code.clone(), HTML_LANG_CONFIDENCE, hints.declared_by),
            (None, None, Some(code), _) => (code.to_string(), CHARSET_CONFIDENCE, "charset"),
            (None, None, None, Some((code, confidence, _))) => (code.clone(), *confidence, "text"),
            (None, None, None, None) => return None,
        },
    })
}

/// Letters of evidence a page's text counts for at most when its
/// language's probability is taken (n-gram likelihoods of long texts
/// overstate certainty; a text of up to twice as many letters counts at
/// the short-text temperature), and the probability from which it decides
/// alone, however short.
const TEXT_EVIDENCE_LETTERS: usize = 20;
const SURE_TEXT: f64 = 0.5;

/// The language of a text, its probability and whether it is sure: the
/// n-gram models' likeliest; whatlang's answer when most letters are in a
/// script the models lack (Kannada, Khmer, Ethiopic...), or when whatlang
/// is sure of a language the models lack (Nepali, Javanese, Turkmen,
/// Uzbek, Yiddish, Akan) and either the models are unsure or that
/// language is the crawl's `target`.
fn text_lang(prefix: &str, target: Option<&str>) -> Option<(String, f64, bool)> {
    let model = ngram_model::model();
    let ranking = model.rank(prefix, None);
    let whatlang = || {
        let info = whatlang::detect(prefix)?;
        Some((
            info.lang().code().to_string(),
            info.confidence(),
            info.is_reliable(),
        ))
    };
    if ranking.known_letters * 2 < ranking.letters {
        return whatlang();
    }
    let (lang, p) = ranking.probabilities(
        2 * TEXT_EVIDENCE_LETTERS,
        ngram_model::SHORT_TEXT_TEMPERATURE,
    )[0];
    if p < SURE_MODELS || target.is_some_and(|t| !model.knows(t)) {
        let lacked = |(code, _, sure): &(String, f64, bool)| {
            *sure && !model.knows(code) && (p < SURE_MODELS || target == Some(code.as_str()))
        };
        if let Some(other) = whatlang().filter(lacked) {
            return Some(other);
        }
    }
    Some((lang.to_string(), p, p >= SURE_TEXT))
}

/// The models' probability below which whatlang's sure answer of a
/// language they lack is taken instead.
const SURE_MODELS: f64 = 0.99;

/// Share of Hangul among the CJK letters from which a text is Korean.
const KOREAN_HANGUL_SHARE: f64 = 0.3;
/// Shares of kana among kana and Han from which a text is surely Japanese,
/// below which it is surely Chinese; between them the hints decide, else
/// [`JAPANESE_KANA_SHARE`].
const SURE_JAPANESE_KANA_SHARE: f64 = 0.15;
const SURE_CHINESE_KANA_SHARE: f64 = 0.03;
const JAPANESE_KANA_SHARE: f64 = 0.08;

/// Chinese, Japanese or Korean by proportion when most letters are CJK: a
/// Chinese page quoting a few Japanese titles stays Chinese, a Japanese
/// page in kanji with some kana stays Japanese, Korean with Hanja Korean.
fn cjk_by_share(counts: &ScriptCounts, hints: &Hints) -> Option<Answer> {
    let cjk = counts.kana + counts.han + counts.hangul;
    if cjk == 0 || cjk * 2 < counts.letters() {
        return None;
    }
    let hangul = counts.hangul as f64 / cjk as f64;
    let kana = counts.kana as f64 / (counts.kana + counts.han).max(1) as f64;
    let (lang, sure) = if hangul >= KOREAN_HANGUL_SHARE {
        ("kor", true)
    } else if counts.kana == 0 {
        // Han only: the first answer already weighed the hints.
        return None;
    } else if kana >= SURE_JAPANESE_KANA_SHARE {
        ("jpn", true)
    } else if kana < SURE_CHINESE_KANA_SHARE {
        ("cmn", true)
    } else if hints.names("jpn") || hints.names("cmn") {
        (if hints.names("jpn") { "jpn" } else { "cmn" }, false)
    } else {
        (
            if kana >= JAPANESE_KANA_SHARE {
                "jpn"
            } else {
                "cmn"
            },
            false,
        )
    };
    let confidence = if sure {
        SCRIPT_CONFIDENCE
    } else {
        HTML_LANG_CONFIDENCE
    };
    Some((lang.to_string(), confidence, "cjk-share"))
}

/// The answer settled among the target's confusion group, when the first
/// answer is in it: the models restricted to the group, and the pairs'
/// marker words ([`super::neighbours`]).
fn settle_in_group(prefix: &str, answer: &Answer, target: &str) -> Option<Answer> {
    let prefix = bounded_prefix(prefix, SECOND_STAGE_CHARS);
    let group = neighbours::group(target);
    // Chinese and Japanese are settled by script share, not by n-grams.
    if group.is_empty() || answer.2 == "cjk-share" || matches!(answer.0.as_str(), "cmn" | "jpn") {
        return None;
    }
    if !group.contains(&answer.0.as_str()) || !neighbours::knows(&answer.0) {
        return None;
    }
    let (lang, confidence) = neighbours::settle(prefix, &group)?;
    Some((lang, confidence, "neighbours"))
}

/// Characters of visible text the second stage reads: a few sentences
/// tell neighbours apart, and its cost grows with the text.
const SECOND_STAGE_CHARS: usize = 500;

/// Least share of the letters, and least letters, a second script needs
/// for a page to count as bilingual.
const LANG2_MIN_SHARE: f64 = 0.2;
const LANG2_MIN_LETTERS: usize = 40;

/// The language of the letters outside `lang`'s script, when they are a
/// clear share of the text (a same-script second language is not seen).
fn second_language(prefix: &str, counts: &ScriptCounts, lang: &str) -> Option<(String, f64)> {
    let own: &[&str] = match lang {
        "jpn" => &["Kana", "Han"],
        "kor" => &["Hangul", "Han"],
        "cmn" => &["Han"],
        _ => &[counts.dominant()?],
    };
    let (script, letters) = counts.largest_other_than(own)?;
    let share = letters as f64 / counts.letters().max(1) as f64;
    if share < LANG2_MIN_SHARE || letters < LANG2_MIN_LETTERS {
        return None;
    }
    let words: String = prefix
        .split_whitespace()
        .filter(|word| ScriptCounts::of(word).dominant() == Some(script))
        .collect::<Vec<_>>()
        .join(" ");
    let lang2 = match ScriptCounts::of(&words).decisive_lang() {
        Some(HAN) => "cmn".to_string(),
        Some(code) => code.to_string(),
        None => text_lang(&words, None)?.0,
    };
    (lang2 != lang).then_some((lang2, (share * 1000.0).round() / 1000.0))
}

/// The ISO 639-3 code of an `<html lang>` value (`ja-JP` → `jpn`) when
/// whatlang or the n-gram models know the language.
fn html_lang_code(value: &str) -> Option<String> {
    tag_code(value)
        .filter(|code| whatlang::Lang::from_code(code).is_some() || neighbours::knows(code))
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
        let page = identify_page(ja, Some("en"), "UTF-8", None);
        assert_eq!((page.lang.as_deref(), page.source), (Some("jpn"), "text"));
    }

    #[test]
    fn short_text_falls_back_to_hints() {
        let page = identify_page("홈", Some("ja"), "UTF-8", None);
        assert_eq!((page.lang.as_deref(), page.source), (Some("kor"), "script"));
        let page = identify_page("OK", Some("ko-KR"), "UTF-8", None);
        assert_eq!(
            (page.lang.as_deref(), page.source),
            (Some("kor"), "html_lang")
        );
        let page = identify_page("OK", None, "windows-874", None);
        assert_eq!(
            (page.lang.as_deref(), page.source),
            (Some("tha"), "charset")
        );
        assert_eq!(identify_page("OK", None, "UTF-8", None).lang, None);
    }

    #[test]
    fn a_page_without_letters_has_no_language_whatever_its_hints() {
        for text in ["", "  ", "© 2024 | 1 2 3 → ☰"] {
            let page = identify_page(text, Some("ja"), "Shift_JIS", None);
            assert_eq!((page.lang, page.source), (None, "no-text"), "{text:?}");
        }
    }

    #[test]
    fn han_only_text_with_a_japanese_hint_is_japanese() {
        let han = "世界人権宣言前文人類社会構成員固有尊厳平等譲権利承認世界自由正義平和基礎";
        let page = identify_page(han, Some("ja"), "UTF-8", None);
        assert_eq!(page.lang.as_deref(), Some("jpn"));
    }
}
