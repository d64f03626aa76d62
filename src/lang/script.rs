//! Writing scripts: which scripts a text's letters are in, the script that
//! alone names a language (Hangul → kor, Thai → tha, kana → jpn, Devanagari
//! → hin), and the share of a text written in a target language's script.

/// Language code for Han-only text: Chinese or Japanese (it matches a `jpn`
/// or `cmn` target where the caller allows it).
pub const HAN: &str = "han";

/// Letters of a text, counted per script.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ScriptCounts {
    pub hangul: usize,
    pub thai: usize,
    pub kana: usize,
    pub han: usize,
    pub devanagari: usize,
    pub latin: usize,
    pub cyrillic: usize,
    pub arabic: usize,
    pub other: usize,
}

impl ScriptCounts {
    pub fn of(text: &str) -> Self {
        let mut counts = ScriptCounts::default();
        for c in text.chars() {
            // ASCII first: most letters of most pages are, and all of
            // those letters are Latin.
            if c.is_ascii() {
                counts.latin += usize::from(c.is_ascii_alphabetic());
            } else if super::letters::is_alphabetic(c) {
                *counts.slot(c) += 1;
            }
        }
        counts
    }

    fn slot(&mut self, c: char) -> &mut usize {
        match c as u32 {
            0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F => &mut self.hangul,
            0x0E00..=0x0E7F => &mut self.thai,
            0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => &mut self.kana,
            0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0xF900..=0xFAFF | 0x3005 => &mut self.han,
            0x0900..=0x097F => &mut self.devanagari,
            0x0041..=0x024F | 0x1E00..=0x1EFF => &mut self.latin,
            0x0400..=0x052F => &mut self.cyrillic,
            0x0600..=0x06FF | 0x0750..=0x077F => &mut self.arabic,
            _ => &mut self.other,
        }
    }

    pub fn letters(&self) -> usize {
        self.named().iter().map(|(_, n)| n).sum::<usize>() + self.other
    }

    fn named(&self) -> [(&'static str, usize); 8] {
        [
            ("Hangul", self.hangul),
            ("Thai", self.thai),
            ("Kana", self.kana),
            ("Han", self.han),
            ("Devanagari", self.devanagari),
            ("Latin", self.latin),
            ("Cyrillic", self.cyrillic),
            ("Arabic", self.arabic),
        ]
    }

    /// The script most letters are in (`Kana` counts Japanese kana and Han
    /// together when there is kana), or `None` for a text without letters.
    pub fn dominant(&self) -> Option<&'static str> {
        let mut named = self.named();
        if self.kana > 0 {
            named[2].1 += self.han;
        }
        let (name, n) = named.into_iter().max_by_key(|&(_, n)| n)?;
        match (n, self.other) {
            (0, 0) => None,
            (n, other) if other > n => Some("Other"),
            _ => Some(name),
        }
    }

    /// The script with the most letters other than the `own` scripts, and
    /// its letters; `None` when no other script has any.
    pub fn largest_other_than(&self, own: &[&str]) -> Option<(&'static str, usize)> {
        self.named()
            .into_iter()
            .filter(|(name, n)| *n > 0 && !own.contains(name))
            .max_by_key(|&(_, n)| n)
    }

    /// The language the script alone names: any kana is Japanese, Hangul
    /// Korean, Thai Thai, Devanagari Hindi, Han only [`HAN`]; `None` for the
    /// scripts many languages share.
    pub fn decisive_lang(&self) -> Option<&'static str> {
        if self.kana > 0 {
            Some("jpn")
        } else if self.hangul > 0 && self.hangul >= self.han {
            Some("kor")
        } else if self.thai > 0 && self.thai * 2 >= self.letters() {
            Some("tha")
        } else if self.devanagari > 0 && self.devanagari * 2 >= self.letters() {
            Some("hin")
        } else if self.han > 0 && self.han * 2 >= self.letters() {
            Some(HAN)
        } else {
            None
        }
    }

    /// The share of letters in the script(s) of language `code` (0 to 1);
    /// `None` for languages written in a shared script (Latin, Cyrillic...).
    pub fn share_of(&self, code: &str) -> Option<f64> {
        let in_script = match code {
            "jpn" => self.kana + self.han,
            "cmn" => self.han,
            "kor" => self.hangul + self.han,
            "tha" => self.thai,
            "hin" | "mar" | "nep" => self.devanagari,
            _ => return None,
        };
        let letters = self.letters();
        Some(if letters == 0 {
            0.0
        } else {
            in_script as f64 / letters as f64
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_are_counted_and_named() {
        let counts = ScriptCounts::of("ホームページ 会社 abc");
        assert_eq!((counts.kana, counts.han, counts.latin), (6, 2, 3));
        assert_eq!(counts.dominant(), Some("Kana"));
        assert_eq!(counts.decisive_lang(), Some("jpn"));
        assert_eq!(ScriptCounts::of("会社概要").decisive_lang(), Some(HAN));
        assert_eq!(ScriptCounts::of("Hello").decisive_lang(), None);
        assert_eq!(ScriptCounts::of("123 !").dominant(), None);
    }

    proptest::proptest! {
        #[test]
        fn counts_are_each_letters_script(text in "\\PC{0,80}") {
            let mut each = ScriptCounts::default();
            for c in text.chars().filter(|&c| crate::lang::letters::is_alphabetic(c)) {
                *each.slot(c) += 1;
            }
            proptest::prop_assert_eq!(ScriptCounts::of(&text), each);
        }
    }

    #[test]
    fn share_of_the_target_script() {
        let mixed = ScriptCounts::of("Mostly English text here ภาษาไทย");
        let share = mixed.share_of("tha").unwrap();
        assert!(share > 0.2 && share < 0.4, "{share}");
        assert_eq!(mixed.share_of("eng"), None);
    }
}
