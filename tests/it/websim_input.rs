//! Bad input to the synthetic webs and web graphs (`websim generate`,
//! `websim serve`, `graph import`): one line, exit 2, nothing written.

use crate::errors::assert_bad_input;
use crate::util::{langcrawl, stderr};

#[test]
fn a_webgen_file_without_its_columns_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let from = tmp.path().join("webgen");
    std::fs::create_dir_all(&from).unwrap();
    std::fs::write(from.join("truth.tsv"), "http://a.th/\tth\t200\n").unwrap();
    std::fs::write(from.join("links.tsv"), "src\tdst\n").unwrap();
    std::fs::write(from.join("seeds.txt"), "http://a.th/\n").unwrap();
    std::fs::write(from.join("stats.json"), r#"{"target_lang": "tha"}"#).unwrap();
    let web = tmp.path().join("web");
    let (from, web) = (from.to_str().unwrap(), web.to_str().unwrap());
    let out = langcrawl(&["graph", "import", "--from", from, "-o", web]);
    assert_bad_input(
        &out,
        "truth.tsv: its header has no column url, status, true_lang",
    );
    assert!(!tmp.path().join("web").exists(), "no web written");
}

#[test]
fn a_calibrated_web_in_english_or_a_language_without_text_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("web");
    let web = out.to_str().unwrap();
    for (lang, why) in [("en", "other pages are English"), ("vi", "no text in vie")] {
        let got = langcrawl(&["websim", "generate", "--lang", lang, "-o", web]);
        assert_bad_input(&got, why);
        assert!(
            stderr(&got).contains("jpn, kor, tha, cmn, deu, fra, rus, hin"),
            "{}",
            stderr(&got)
        );
        assert!(!out.exists(), "nothing written for --lang {lang}");
    }
}

#[test]
fn a_served_web_without_hosts_or_pages_is_refused() {
    for (hosts, pages) in [("0", "100"), ("10", "0"), ("10", "9")] {
        let out = langcrawl(&["websim", "serve", "--hosts", hosts, "--pages", pages]);
        assert_bad_input(&out, "at least one host, and a page for each");
    }
}
