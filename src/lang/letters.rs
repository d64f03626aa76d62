//! Which characters are letters, answered from a table of the Basic
//! Multilingual Plane: `char::is_alphabetic` and the general category
//! search Unicode's tables on every call outside ASCII, and language
//! identification asks once per character of every page (a seventh of a
//! crawl's CPU, measured on Thai pages). The answers are the standard
//! library's and `unicode-properties`', looked up.

use std::sync::LazyLock;

use unicode_properties::{GeneralCategoryGroup, UnicodeGeneralCategory};

/// One bit per BMP code point.
struct Plane([u64; 1024]);

impl Plane {
    fn of(test: impl Fn(char) -> bool) -> Plane {
        let mut bits = [0u64; 1024];
        for code in 0..=0xFFFFu32 {
            if char::from_u32(code).is_some_and(&test) {
                bits[code as usize / 64] |= 1 << (code % 64);
            }
        }
        Plane(bits)
    }

    fn has(&self, code: u32) -> bool {
        self.0[code as usize / 64] & (1 << (code % 64)) != 0
    }
}

static ALPHABETIC: LazyLock<Plane> = LazyLock::new(|| Plane::of(char::is_alphabetic));
static LETTER: LazyLock<Plane> = LazyLock::new(|| Plane::of(category_letter));

/// Alphabetic too, in case the two crates' Unicode versions differ.
fn category_letter(c: char) -> bool {
    c.is_alphabetic() && c.general_category_group() == GeneralCategoryGroup::Letter
}

/// `c.is_alphabetic()`: letters, letter numbers and the marks Unicode
/// counts as alphabetic (Thai vowel signs, Devanagari matras).
pub fn is_alphabetic(c: char) -> bool {
    match c as u32 {
        0..=0x7F => c.is_ascii_alphabetic(),
        code @ 0x80..=0xFFFF => ALPHABETIC.has(code),
        _ => c.is_alphabetic(),
    }
}

/// A letter: Unicode general category L (a combining mark is not one).
pub fn is_letter(c: char) -> bool {
    match c as u32 {
        0..=0x7F => c.is_ascii_alphabetic(),
        code @ 0x80..=0xFFFF => LETTER.has(code),
        _ => category_letter(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_character_gets_the_unicode_tables_answer() {
        for c in (0..=0x10FFFFu32).filter_map(char::from_u32) {
            assert_eq!(is_alphabetic(c), c.is_alphabetic(), "{c:?}");
            assert_eq!(is_letter(c), category_letter(c), "{c:?}");
        }
        // the two differ where they should: a Thai vowel sign, a Roman numeral
        assert!(is_alphabetic('\u{0E34}') && !is_letter('\u{0E34}'));
        assert!(is_alphabetic('\u{2160}') && !is_letter('\u{2160}'));
        assert!(is_letter('ก') && is_letter('é') && !is_letter('1'));
    }
}
