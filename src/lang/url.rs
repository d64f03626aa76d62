//! The language a URL names, if any — a signal about a page before it is
//! fetched: a `lang=`, `hl=`, `locale=` or `language=` parameter; a path
//! segment (`/th/`, `/ja-jp/`, `/zh_CN/`); a file suffix (`index.ja.html`);
//! or the first label of the host (`th.wikipedia.org`). In paths and hosts
//! only two-letter ISO 639-1 codes count (with an optional region or
//! script): a three-letter segment is more often a word (`faq`, `new`,
//! `api`) than a language.

use url::Url;

use super::codes::tag_code;

/// Query parameters that name a language.
const LANG_PARAMS: &[&str] = &["lang", "hl", "locale", "language", "lng", "setlang"];

/// The ISO 639-3 code (as whatlang names it) of the language `url` names,
/// or `None`.
pub fn url_lang(url: &str) -> Option<String> {
    let url = Url::parse(url).ok()?;
    query_lang(&url)
        .or_else(|| path_lang(&url))
        .or_else(|| host_lang(&url))
}

fn query_lang(url: &Url) -> Option<String> {
    url.query_pairs()
        .filter(|(name, _)| LANG_PARAMS.contains(&name.to_ascii_lowercase().as_str()))
        .find_map(|(_, value)| tag_code(&value).filter(|code| code != "x-default"))
}

fn path_lang(url: &Url) -> Option<String> {
    let segments: Vec<&str> = url.path_segments()?.filter(|s| !s.is_empty()).collect();
    let (last, folders) = segments.split_last()?;
    folders
        .iter()
        .find_map(|segment| short_tag(segment))
        .or_else(|| short_tag(last))
        .or_else(|| suffix_lang(last))
}

/// `index.ja.html` → `ja`: a tag between a file's name and its extension.
fn suffix_lang(file: &str) -> Option<String> {
    let parts: Vec<&str> = file.split('.').collect();
    if parts.len() < 3 {
        return None;
    }
    parts[1..parts.len() - 1].iter().find_map(|p| short_tag(p))
}

fn host_lang(url: &Url) -> Option<String> {
    let host = url.host_str()?;
    let mut labels = host.split('.');
    let first = labels.next()?;
    // `th.example.com`, not `example.com`; never `www`.
    (labels.count() >= 2).then(|| short_tag(first)).flatten()
}

/// `ja`, `ja-jp`, `zh_CN`, `zh-Hant`, `es-419`: a two-letter language with
/// at most one region or script subtag.
fn short_tag(text: &str) -> Option<String> {
    let mut parts = text.split(['-', '_']);
    let primary = parts.next()?;
    let subtag = parts.next();
    let letters = |s: &str| s.bytes().all(|b| b.is_ascii_alphabetic());
    let subtag_ok = subtag.is_none_or(|s| {
        (s.len() == 2 && letters(s))
            || (s.len() == 4 && letters(s))
            || (s.len() == 3 && s.bytes().all(|b| b.is_ascii_digit()))
    });
    let tag_ok = primary.len() == 2 && letters(primary) && subtag_ok && parts.next().is_none();
    tag_ok.then(|| tag_code(text)).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lang(url: &str) -> Option<String> {
        url_lang(url)
    }

    #[test]
    fn languages_named_in_urls() {
        for (url, code) in [
            ("https://th.wikipedia.org/wiki/Bangkok", "tha"),
            ("https://example.com/ja/about/", "jpn"),
            ("https://example.com/ja-jp/about/", "jpn"),
            ("https://example.com/zh_CN/news.html", "cmn"),
            ("https://example.com/zh-Hant/", "cmn"),
            ("https://example.com/es-419/precios", "spa"),
            ("https://example.com/docs/index.ko.html", "kor"),
            ("https://example.com/search?q=x&hl=hi", "hin"),
            ("https://example.com/page?LANG=th-TH", "tha"),
            ("https://example.com/th", "tha"),
        ] {
            assert_eq!(lang(url).as_deref(), Some(code), "{url}");
        }
    }

    #[test]
    fn words_and_hosts_that_name_no_language() {
        for url in [
            "https://www.example.com/",
            "https://example.com/faq/new/",
            "https://ja.com/",
            "https://example.com/index.html",
            "https://example.com/api/v2/items",
            "https://example.com/?lang=x-default",
            "https://example.com/ja-jp-x/",
            "not a url",
            "",
        ] {
            assert_eq!(lang(url), None, "{url}");
        }
    }

    #[test]
    fn a_parameter_wins_over_the_path_and_the_path_over_the_host() {
        assert_eq!(
            lang("https://ko.example.com/th/?hl=ja").as_deref(),
            Some("jpn")
        );
        assert_eq!(lang("https://ko.example.com/th/").as_deref(), Some("tha"));
        assert_eq!(lang("https://ko.example.com/x/").as_deref(), Some("kor"));
    }

    proptest::proptest! {
        #[test]
        fn any_text_gives_an_answer_without_panicking(text in "\\PC{0,200}") {
            let _ = url_lang(&text);
            let _ = url_lang(&format!("http://{text}"));
            let _ = url_lang(&format!("http://a.b.c/{text}"));
        }
    }
}
