//! The target of a `<meta http-equiv="refresh">`, read as browsers read
//! it (HTML's "shared declarative refresh steps"): `5`, `0; url=/next`,
//! `0;URL='/next'`, `0, /next`.

/// The URL a refresh's `content` names, or `None` for a plain reload.
pub fn refresh_url(content: &str) -> Option<&str> {
    let rest = content.trim_start_matches(is_space);
    let after_time = rest.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    if after_time.len() == rest.len() {
        return None;
    }
    let rest = after_time.trim_start_matches(is_space);
    let rest = rest
        .strip_prefix([';', ','])
        .unwrap_or(rest)
        .trim_start_matches(is_space);
    let rest = strip_url_label(rest);
    let url = match rest.chars().next() {
        Some(quote @ ('\'' | '"')) => {
            let inner = &rest[1..];
            inner.split(quote).next().unwrap_or(inner)
        }
        _ => rest,
    };
    let url = url.trim_matches(is_space);
    (!url.is_empty()).then_some(url)
}

/// Skips `url =` (any case) when it is followed by `=`; otherwise the
/// text is the URL itself.
fn strip_url_label(text: &str) -> &str {
    let labelled = text.get(..3).is_some_and(|l| l.eq_ignore_ascii_case("url"));
    let value = labelled
        .then(|| text[3..].trim_start_matches(is_space).strip_prefix('='))
        .flatten();
    value.map_or(text, |v| v.trim_start_matches(is_space))
}

fn is_space(c: char) -> bool {
    c.is_ascii_whitespace()
}

#[cfg(test)]
mod tests {
    use super::refresh_url;

    #[test]
    fn refresh_contents_as_browsers_read_them() {
        let cases: &[(&str, Option<&str>)] = &[
            ("0; url=http://a.jp/next", Some("http://a.jp/next")),
            ("0;URL='/next.html'", Some("/next.html")),
            ("5 ; Url = \"x.html\" ", Some("x.html")),
            ("0, /comma", Some("/comma")),
            ("3;/plain", Some("/plain")),
            ("1.5; url=a b", Some("a b")),
            ("0; url='unterminated", Some("unterminated")),
            ("0; urlencoded.html", Some("urlencoded.html")),
            ("10", None),
            ("0; url=", None),
            ("", None),
            ("soon; url=/x", None),
            ("0; url=日本/ページ", Some("日本/ページ")),
        ];
        for (content, expected) in cases {
            assert_eq!(refresh_url(content), *expected, "content {content:?}");
        }
    }
}
