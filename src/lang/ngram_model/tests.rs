//! Tests of the n-gram model: recent look-ups, rankings and word sums, on the shipped model.

use super::*;

#[test]
fn recent_lookups_answer_as_the_table_does() {
    let shipped = model();
    let texts = [
        "ภาษาไทยเป็นภาษาราชการ",
        "日本語のテキスト",
        "the quick brown fox",
    ];
    let mut ngrams = Vec::new();
    for text in texts {
        let chars: Vec<char> = text.chars().collect();
        for n in 1..=3 {
            ngrams.extend(chars.windows(n).map(|w| w.iter().collect::<String>()));
        }
    }
    // twice: the second time from the recent lookups
    for _ in 0..2 {
        for ngram in &ngrams {
            let probed = shipped.probe(hash(ngram.as_bytes()));
            assert_eq!(shipped.lookup(ngram.as_bytes()), probed, "{ngram}");
        }
    }
    // a second model (another copy of the file) is not answered from the first's
    let copy: &'static [u8] = Box::leak(model_bytes().to_vec().into_boxed_slice());
    let copy: &'static NgramModel<'static> = Box::leak(Box::new(NgramModel::parse(copy).unwrap()));
    for ngram in &ngrams {
        let from_copy = copy.lookup(ngram.as_bytes());
        assert_eq!(from_copy, shipped.probe(hash(ngram.as_bytes())));
        if !from_copy.is_empty() {
            assert!(copy.entries.as_ptr_range().contains(&from_copy.as_ptr()));
        }
    }
    let ranked = |model: &NgramModel<'static>| model.rank(texts[0], None).scores;
    assert_eq!(ranked(copy), ranked(shipped));
}

#[test]
fn the_shipped_model_ranks_a_text_in_its_language_first() {
    let model = model();
    assert_eq!(model.languages().len(), 75);
    let best = |text| model.rank(text, None).best();
    assert_eq!(
        best("Der schnelle braune Fuchs springt über den faulen Hund."),
        Some("deu")
    );
    assert_eq!(
        best("Rychlá hnědá liška skáče přes líného psa."),
        Some("ces")
    );
    assert_eq!(best("1234 !!"), None);
    let among = model.rank("Rychlá hnědá liška", Some(&["slk", "pol", "xyz"]));
    assert_eq!(among.scores.len(), 2);
    let p: f64 = among
        .probabilities(40, SHORT_TEXT_TEMPERATURE)
        .iter()
        .map(|x| x.1)
        .sum();
    assert!((p - 1.0).abs() < 1e-9, "{p}");
}

/// A text's totals added letter by letter, each hit as `word_hits`
/// gives it (how ranking summed before words added their sums).
fn totals_by_letter(text: &str) -> Vec<f32> {
    let model = model();
    let (mut totals, mut missing) = ([0f32; 256], 0f32);
    let words = text.split(|c: char| !super::super::letters::is_letter(c));
    for word in words.filter(|w| !w.is_empty()) {
        let word: Vec<char> = word.chars().flat_map(char::to_lowercase).collect();
        model.word_hits(&word, |hit| match hit.lang {
            Hit::LETTER => missing += hit.gain,
            lang => totals[usize::from(lang)] += hit.gain,
        });
    }
    totals[..model.langs.len()]
        .iter()
        .map(|t| t + missing)
        .collect()
}

#[test]
fn word_sums_rank_as_letter_by_letter_gains_do() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/leipzig");
    let mut texts = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path().join("sentences.txt");
        let Ok(lines) = std::fs::read_to_string(&path) else {
            continue;
        };
        for line in lines.lines().take(10) {
            let by_letter = totals_by_letter(line);
            let ranking = model().rank(line, None);
            for (code, total) in &ranking.scores {
                let i = model().langs.iter().position(|l| l == code).unwrap();
                let tolerance = 1e-5 * total.abs().max(1.0);
                assert!((total - by_letter[i]).abs() <= tolerance, "{line}: {code}");
            }
            let best = by_letter
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1));
            assert_eq!(
                ranking.best(),
                best.map(|(i, _)| model().langs[i]),
                "{line}"
            );
            texts += 1;
        }
    }
    assert!(texts >= 200, "{texts} texts");
}

proptest::proptest! {
    /// Any bytes are a model or an error, and any model ranks any text
    /// without a panic or an endless probe.
    #[test]
    fn any_bytes_parse_or_fail_and_any_model_ranks(
        mut bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..400),
        text in "\\PC{0,60}",
    ) {
        if bytes.len() > 24 && bytes[0] % 2 == 0 {
            // A header that parses, over arbitrary slots and entries.
            let head = [MAGIC.as_slice(), &[1, 3], b"eng", &[2], &3u32.to_le_bytes()].concat();
            bytes.splice(0..0, head);
        }
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        if let Ok(parsed) = NgramModel::parse(bytes) {
            let parsed: &'static NgramModel<'static> = Box::leak(Box::new(parsed));
            let ranking = parsed.rank(&text, None);
            proptest::prop_assert!(ranking.scores.len() <= parsed.languages().len());
        }
    }
}
