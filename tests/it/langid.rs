//! Charset and language identification on the UDHR test corpus
//! (`tests/corpus`): legacy encodings, Thai without a declaration,
//! paragraphs as pages, short anchors, and the `detect` command.

use std::path::{Path, PathBuf};

use langcrawl::lang::eval::{self, Sample};
use langcrawl::lang::{decode, identify_page};

use crate::util::{langcrawl, stderr};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// (file, verified encoding, ISO 639-3) of every legacy file.
fn legacy_files() -> Vec<(String, String, String)> {
    let labels = std::fs::read_to_string(corpus().join("udhr-legacy/labels.tsv")).unwrap();
    labels
        .lines()
        .skip(1)
        .map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            let lang = langcrawl::lang::TargetLang::parse(cols[1].split('-').next().unwrap())
                .map(|l| l.code().to_string())
                .unwrap_or_else(|_| cols[1].to_string());
            (cols[0].to_string(), cols[2].to_string(), lang)
        })
        .collect()
}

/// The text without U+FFFD: ISO-2022-JP files have empty segments that the
/// WHATWG decoder marks as errors; the detector drops them.
fn without_trailing_replacement(text: &str) -> String {
    text.trim_end()
        .chars()
        .filter(|&c| c != '\u{FFFD}')
        .collect()
}

#[test]
fn every_legacy_file_decodes_to_the_text_of_its_verified_encoding() {
    for (file, verified, _) in legacy_files() {
        let bytes = std::fs::read(corpus().join("udhr-legacy").join(&file)).unwrap();
        // chardetng has no ISO-8859-4 model: such pages decode right only when declared.
        let declared = (verified == "ISO-8859-4").then_some(verified.as_str());
        let decoded = decode(&bytes, declared, None);
        if verified == "HZ-GB-2312" {
            // encoding_rs does not decode HZ; the twin test checks it against the UTF-8 file.
            assert_eq!(decoded.charset, "HZ-GB-2312");
            continue;
        }
        let encoding = encoding_rs::Encoding::for_label(verified.as_bytes()).unwrap();
        let expected = encoding.decode(&bytes).0.into_owned();
        assert_eq!(
            without_trailing_replacement(&decoded.text),
            without_trailing_replacement(&expected),
            "{file}: decoded as {} ({}), verified {verified}",
            decoded.charset,
            decoded.source
        );
    }
}

#[test]
fn japanese_and_chinese_legacy_files_match_their_utf8_twins() {
    let twins = [
        (
            "Japanese_Nihongo-UTF8",
            [
                "Japanese_Nihongo-EUC",
                "Japanese_Nihongo-SJIS",
                "Japanese_Nihongo-JIS",
            ],
        ),
        (
            "Chinese_Mandarin-UTF8",
            [
                "Chinese_Mandarin-GB2312",
                "Chinese_Mandarin-HZ",
                "Chinese_Mandarin-GB2312",
            ],
        ),
    ];
    let read = |name: &str| std::fs::read(corpus().join("udhr-legacy").join(name)).unwrap();
    for (twin, legacy) in twins {
        let twin_text = decode(&read(twin), None, None).text;
        for file in legacy {
            let text = decode(&read(file), None, None).text;
            // The twin has stray U+FFFD of its own; compare the rest, up to the shorter end.
            let clean = |t: &str| {
                t.chars()
                    .filter(|&c| c != '\u{FFFD}')
                    .collect::<Vec<char>>()
            };
            let (text, twin_text) = (clean(&text), clean(&twin_text));
            let chars = text.len().min(twin_text.len()) - 2;
            let a: String = text[..chars].iter().collect();
            let b: String = twin_text[..chars].iter().collect();
            assert_eq!(a, b, "{file} against {twin}");
        }
    }
}

#[test]
fn every_legacy_file_is_identified() {
    for (file, _, lang) in legacy_files() {
        let bytes = std::fs::read(corpus().join("udhr-legacy").join(&file)).unwrap();
        let decoded = decode(&bytes, None, None);
        let page = identify_page(&decoded.text, None, decoded.charset, None);
        if langcrawl::lang::eval::identifiable(&lang) {
            assert_eq!(page.lang.as_deref(), Some(lang.as_str()), "{file}");
        }
    }
}

#[test]
fn thai_in_tis620_without_a_declaration_is_decoded_and_identified() {
    let thai = std::fs::read_to_string(corpus().join("udhr/tha.txt")).unwrap();
    for label in ["TIS-620", "windows-874"] {
        let encoding = encoding_rs::Encoding::for_label(label.as_bytes()).unwrap();
        let html = format!("<html><body><p>{thai}</p></body></html>");
        let bytes = encoding.encode(&html).0.into_owned();
        let decoded = decode(&bytes, None, None);
        assert_eq!(decoded.text, html, "{label}");
        assert_eq!(
            (decoded.charset, decoded.source),
            ("windows-874", "detected")
        );
        let page = identify_page(&thai, None, decoded.charset, None);
        assert_eq!(page.lang.as_deref(), Some("tha"));
    }
}

fn paragraphs() -> Vec<Sample> {
    eval::load_paragraphs(&corpus().join("udhr")).unwrap()
}

/// UDHR is whatlang's training text and close to lingua's: a check that
/// nothing broke, not a measure of accuracy (that is leipzig-dev's,
/// `target_langid.rs`).
#[test]
fn paragraphs_are_identified() {
    let paragraphs = paragraphs();
    let scores = eval::score_pages(&paragraphs);
    for lang in ["jpn", "cmn", "kor", "tha", "hin", "eng"] {
        let recall = scores[lang].recall();
        assert!(
            recall >= 0.99,
            "{lang} recall {recall:.3}\n{}",
            eval::table(&scores)
        );
    }
    let models = langcrawl::lang::ngram_model::model();
    let mean = eval::mean_recall(&scores, |code| models.knows(code));
    assert!(
        mean >= 0.93,
        "mean recall {mean:.3}\n{}",
        eval::table(&scores)
    );
    // Languages only whatlang knows are named when they are the target.
    let lacked: Vec<Sample> = paragraphs
        .into_iter()
        .filter(|p| eval::identifiable(&p.lang) && !models.knows(&p.lang))
        .collect();
    let named = lacked
        .iter()
        .filter(|p| {
            let page = identify_page(&p.text, None, "UTF-8", Some(&p.lang));
            page.lang.as_deref() == Some(p.lang.as_str())
        })
        .count();
    assert!(
        named as f64 >= 0.9 * lacked.len() as f64 && lacked.len() > 100,
        "{named} of {} paragraphs in languages the models lack",
        lacked.len()
    );
}

#[test]
fn anchors_are_identified_by_script_and_never_confidently_wrong() {
    let anchors: Vec<Sample> = paragraphs()
        .iter()
        .flat_map(|p| eval::anchors(p, 3))
        .collect();
    let scores = eval::score_anchors(&anchors);
    for lang in ["kor", "tha"] {
        let recall = scores[lang].recall();
        assert!(
            recall >= 0.99,
            "{lang} anchor recall {recall:.3}\n{}",
            eval::table(&scores)
        );
    }
    let kana: Vec<Sample> = anchors
        .iter()
        .filter(|a| {
            a.lang == "jpn"
                && a.text
                    .chars()
                    .any(|c| ('\u{3040}'..='\u{30FF}').contains(&c))
        })
        .cloned()
        .collect();
    assert!(eval::score_anchors(&kana)["jpn"].recall() >= 0.99);
    let han_only: Vec<Sample> = anchors
        .iter()
        .filter(|a| matches!(a.lang.as_str(), "jpn" | "cmn"))
        .filter(|a| {
            a.text
                .chars()
                .all(|c| ('\u{4E00}'..='\u{9FFF}').contains(&c))
        })
        .cloned()
        .collect();
    let han_scores = eval::score_anchors(&han_only);
    let han_right: usize = han_scores.values().map(|s| s.correct).sum();
    assert!(
        han_right as f64 >= 0.98 * han_only.len() as f64,
        "{han_right} of {}",
        han_only.len()
    );
    // Named wrongly: Cyrillic Azerbaijani and Yiddish (the models lack
    // them), Bosnian (one standard with Croatian and Serbian).
    let wrong = eval::confident_wrong_rate(&scores);
    assert!(
        wrong <= 0.02,
        "confident wrong {wrong:.4}\n{}",
        eval::table(&scores)
    );
}

#[test]
fn detect_works_on_a_file_stdin_anchors_and_json() {
    let sjis = corpus().join("udhr-legacy/Japanese_Nihongo-SJIS");
    let out = langcrawl(&["detect", sjis.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    for line in [
        "lang: jpn",
        "charset: Shift_JIS",
        "charset_source: detected",
        "script: Kana",
    ] {
        assert!(text.contains(line), "{line} in\n{text}");
    }

    let mut child = crate::util::command(&["detect", "--anchor", "--json", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all("หน้าแรก".as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["lang"], "tha");
    assert_eq!(json["script"], "Thai");

    let out = langcrawl(&["detect", "/no/such/file.html"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("/no/such/file.html"),
        "{}",
        stderr(&out)
    );
}
