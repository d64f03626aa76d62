//! Anchor language: short texts are decided by script first (Hangul, Thai,
//! kana, Devanagari); Han-only text is `han` (Chinese or Japanese); Latin and
//! Cyrillic fall back to whatlang when it is reliable, else `und`.

/// Anchor language code for Han-only text: Chinese or Japanese.
pub const HAN: &str = "han";
/// Anchor language code when nothing can tell.
pub const UNDETERMINED: &str = "und";

#[derive(Default)]
struct ScriptCounts {
    hangul: usize,
    thai: usize,
    kana: usize,
    devanagari: usize,
    han: usize,
    other_letters: usize,
}

fn count_scripts(text: &str) -> ScriptCounts {
    let mut counts = ScriptCounts::default();
    for c in text.chars() {
        match c as u32 {
            0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F => counts.hangul += 1,
            0x0E00..=0x0E7F => counts.thai += 1,
            0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => counts.kana += 1,
            0x0900..=0x097F => counts.devanagari += 1,
            0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0xF900..=0xFAFF => counts.han += 1,
            _ if c.is_alphabetic() => counts.other_letters += 1,
            _ => {}
        }
    }
    counts
}

/// The language of a short text such as an anchor: an ISO 639-3 code,
/// [`HAN`] or [`UNDETERMINED`].
pub fn anchor_lang(text: &str) -> String {
    let counts = count_scripts(text);
    let code = if counts.kana > 0 {
        "jpn"
    } else if counts.hangul > 0 && counts.hangul >= counts.han {
        "kor"
    } else if counts.thai > 0 {
        "tha"
    } else if counts.devanagari > 0 {
        return devanagari_lang(text);
    } else if counts.han > 0 {
        HAN
    } else {
        return whatlang::detect(text)
            .filter(|info| info.is_reliable())
            .map_or(UNDETERMINED.into(), |info| info.lang().code().into());
    };
    code.into()
}

/// Hindi unless whatlang is sure of Marathi or Nepali.
fn devanagari_lang(text: &str) -> String {
    match whatlang::detect(text).filter(|info| info.is_reliable()) {
        Some(info) if matches!(info.lang().code(), "mar" | "nep") => info.lang().code().into(),
        _ => "hin".into(),
    }
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
        assert_eq!(anchor_lang("मुख्य पृष्ठ"), "hin");
    }

    #[test]
    fn han_only_is_chinese_or_japanese() {
        assert_eq!(anchor_lang("会社概要"), HAN);
        assert_eq!(anchor_lang("美国生物物理学会"), HAN);
    }

    #[test]
    fn short_latin_is_undetermined() {
        assert_eq!(anchor_lang("click here"), UNDETERMINED);
        assert_eq!(anchor_lang(""), UNDETERMINED);
    }
}
