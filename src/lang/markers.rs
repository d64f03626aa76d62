//! Marker words of the language pairs n-gram models cannot tell apart
//! (Hindi/Marathi, Malay/Indonesian, Bosnian/Croatian, Bokmål/Nynorsk):
//! standard words one side writes and the other does not (`kerana`/`karena`,
//! `tijekom`/`tokom`, `ikkje`/`ikke`), listed in `markers.txt`. Written from the languages'
//! standard spellings and vocabularies, not from any corpus; a text with
//! more markers of one side is that side's.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

/// The pairs, each side's words in `markers.txt`.
const PAIRS: &[[&str; 2]] = &[
    ["hin", "mar"],
    ["msa", "ind"],
    ["bos", "hrv"],
    ["nob", "nno"],
];

/// Each language's marker words, read once from `markers.txt`.
fn words(lang: &str) -> &'static HashSet<String> {
    static WORDS: LazyLock<HashMap<String, HashSet<String>>> = LazyLock::new(|| {
        let mut words: HashMap<String, HashSet<String>> = HashMap::new();
        let lines = include_str!("markers.txt").lines();
        for line in lines.filter(|l| !l.starts_with('#')) {
            if let Some((lang, list)) = line.split_once(':') {
                let set = words.entry(lang.trim().to_string()).or_default();
                set.extend(list.split_whitespace().map(str::to_string));
            }
        }
        words
    });
    static NONE: LazyLock<HashSet<String>> = LazyLock::new(HashSet::new);
    WORDS.get(lang).unwrap_or(&NONE)
}

/// The side of a marker pair that `text` has more marker words of, and the
/// margin (its markers minus the other side's), when `lang` belongs to a
/// pair and one side leads.
pub fn settle(text: &str, lang: &str) -> Option<(&'static str, usize)> {
    let pair = PAIRS.iter().find(|p| p.contains(&lang))?;
    let lower = text.to_lowercase();
    let tokens: Vec<&str> = lower
        .split(is_word_break)
        .filter(|w| !w.is_empty())
        .collect();
    let hits = |side: usize| {
        let markers = words(pair[side]);
        let infixes: Vec<&str> = markers.iter().filter_map(|m| m.strip_prefix('*')).collect();
        tokens
            .iter()
            .filter(|w| markers.contains(**w) || infixes.iter().any(|i| w.contains(i)))
            .count()
    };
    let (a, b) = (hits(0), hits(1));
    match a.cmp(&b) {
        std::cmp::Ordering::Greater => Some((pair[0], a - b)),
        std::cmp::Ordering::Less => Some((pair[1], b - a)),
        std::cmp::Ordering::Equal => None,
    }
}

/// Spaces and punctuation (not a virama or a vowel sign: they are inside
/// Devanagari words).
fn is_word_break(c: char) -> bool {
    c.is_whitespace()
        || (c.is_ascii() && !c.is_ascii_alphanumeric())
        || matches!(
            c,
            '।' | '॥' | '«' | '»' | '“' | '”' | '‘' | '’' | '…' | '–' | '—'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_side_with_more_markers_wins() {
        let malay = "Kerajaan negeri akan membina hospital baharu kerana penduduk bertambah.";
        assert_eq!(settle(malay, "ind"), Some(("msa", 4)));
        let indonesian = "Pemerintah kabupaten membangun rumah sakit karena penduduk bertambah.";
        assert_eq!(settle(indonesian, "msa"), Some(("ind", 3)));
        assert_eq!(
            settle("Eg veit ikkje kva han gjer.", "nob"),
            Some(("nno", 4))
        );
        assert_eq!(settle("Tijekom stoljeća", "bos"), Some(("hrv", 2)));
        assert_eq!(settle("अभी अंतिम पाठ शेष है।", "mar"), Some(("hin", 2)));
        assert_eq!(
            settle("त्यांनी सांगितले की काम सुरू आहे.", "hin"),
            Some(("mar", 3))
        );
    }

    #[test]
    fn every_side_has_words_and_no_word_is_on_both_sides() {
        for [a, b] in PAIRS {
            assert!(words(a).len() >= 30 && words(b).len() >= 30, "{a} {b}");
            let both: Vec<_> = words(a).intersection(words(b)).collect();
            assert!(both.is_empty(), "{a}/{b}: {both:?}");
        }
    }

    #[test]
    fn no_marker_or_a_tie_or_another_language_settles_nothing() {
        assert_eq!(settle("Rumah itu besar.", "msa"), None);
        assert_eq!(settle("karena kerana", "msa"), None);
        assert_eq!(settle("kerana", "ces"), None);
    }
}
