//! A page's main text, without menus, footers and sidebars: Mozilla's
//! Readability algorithm as the `dom_smoothie` crate ports it, its text
//! laid out one paragraph per line. Also the token measure that compares
//! two texts (`token_f1`), with tokens that work for unspaced scripts.

use std::collections::HashMap;

use dom_smoothie::{Config, Readability, TextMode};

/// What Readability found.
#[derive(Debug, Clone, PartialEq)]
pub struct MainText {
    pub title: String,
    /// Paragraphs, one per line.
    pub text: String,
}

/// The main text of `html` (the page at `url`), or `None` when Readability
/// finds no article (or fails on the markup: a panic inside the crate is
/// caught and counted as no article).
pub fn extract(html: &str, url: &str) -> Option<MainText> {
    let run = || {
        let config = Config {
            text_mode: TextMode::Formatted,
            ..Config::default()
        };
        let mut readability = Readability::new(html, Some(url), Some(config)).ok()?;
        let article = readability.parse().ok()?;
        Some(MainText {
            title: article.title.trim().to_string(),
            text: paragraphs(&article.text_content),
        })
    };
    std::panic::catch_unwind(run).ok().flatten()
}

/// `text` with the spaces in each line collapsed and empty lines dropped.
pub fn paragraphs(text: &str) -> String {
    text.lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The tokens of `text`, lower case: runs of letters and digits, except
/// that each character of a script written without spaces (Han, kana,
/// Thai, Lao, Khmer, Myanmar) is a token of its own.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if unspaced(c) {
            flush(&mut word, &mut out);
            out.push(c.to_string());
        } else if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        } else {
            flush(&mut word, &mut out);
        }
    }
    flush(&mut word, &mut out);
    out
}

fn flush(word: &mut String, out: &mut Vec<String>) {
    if !word.is_empty() {
        out.push(std::mem::take(word));
    }
}

fn unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // kana
        | 0x3400..=0x4DBF    // Han extension A
        | 0x4E00..=0x9FFF    // Han
        | 0xF900..=0xFAFF    // Han compatibility
        | 0x0E00..=0x0EFF    // Thai, Lao
        | 0x1000..=0x109F    // Myanmar
        | 0x1780..=0x17FF    // Khmer
        | 0x20000..=0x2FA1F) // Han extensions B–F
}

/// Token-level F1 of `found` against `expected`: the tokens they share
/// (as multisets) over each one's count, as the boilerplate-removal
/// benchmarks (CleanEval, Readability's) report it. Two empty texts agree.
pub fn token_f1(found: &str, expected: &str) -> f64 {
    let (found, expected) = (tokens(found), tokens(expected));
    if found.is_empty() || expected.is_empty() {
        return if found.len() == expected.len() {
            1.0
        } else {
            0.0
        };
    }
    let mut counts: HashMap<&str, i64> = HashMap::new();
    for t in &expected {
        *counts.entry(t).or_default() += 1;
    }
    let mut shared = 0;
    for t in &found {
        if let Some(n) = counts.get_mut(t.as_str()).filter(|n| **n > 0) {
            *n -= 1;
            shared += 1;
        }
    }
    let precision = shared as f64 / found.len() as f64;
    let recall = shared as f64 / expected.len() as f64;
    if shared == 0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    }
}

/// The visible text of an HTML fragment (Readability's `expected.html`).
pub fn html_text(html: &str) -> String {
    let document = scraper::Html::parse_fragment(html);
    let text: Vec<&str> = document.root_element().text().collect();
    text.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn tokens_split_words_and_unspaced_scripts() {
        assert_eq!(tokens("Hello, World 42!"), ["hello", "world", "42"]);
        assert_eq!(tokens("日本語abc"), ["日", "本", "語", "abc"]);
        assert_eq!(tokens("ภาษา ไทย"), ["ภ", "า", "ษ", "า", "ไ", "ท", "ย"]);
    }

    #[test]
    fn f1_counts_shared_tokens_once() {
        assert_eq!(token_f1("a b c", "a b c"), 1.0);
        // found a a b (3), expected a b c d (4), shared a b (2): p 2/3, r 1/2
        let f1 = token_f1("a a b", "a b c d");
        assert!((f1 - 2.0 * (2.0 / 3.0) * 0.5 / (2.0 / 3.0 + 0.5)).abs() < 1e-12);
        assert_eq!(token_f1("", "x"), 0.0);
        assert_eq!(token_f1("", ""), 1.0);
    }

    #[test]
    fn the_article_is_kept_and_the_menu_and_footer_are_not() {
        let article = "Wikipedia is a free online encyclopedia, created and edited by volunteers around the world. ".repeat(8);
        let html = format!(
            "<html><head><title>Article</title></head><body>\
             <nav><a href=/>Home</a> | <a href=/about>About us</a> | <a href=/contact>Contact</a></nav>\
             <div class=content><h1>Article</h1><p>{article}</p><p>{article}</p></div>\
             <footer><p>Copyright 2026 Example Corp. All rights reserved.</p></footer></body></html>"
        );
        let main = extract(&html, "http://example.com/a").unwrap();
        assert!(main.text.contains("free online encyclopedia"), "{main:?}");
        assert!(!main.text.contains("About us"), "{main:?}");
        assert!(!main.text.contains("Copyright"), "{main:?}");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::testing::cases(64)))]
        #[test]
        fn any_markup_gives_an_answer_without_panicking(
            html in "(<(p|div|nav|a href=x|table|td|script|h1)>|</(p|div|a|nav)>|[a-z ]{1,30}|&amp;|<!--|\u{3042}){0,60}"
        ) {
            let _ = extract(&html, "http://a.jp/");
        }
    }
}
