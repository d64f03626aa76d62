//! The HTTP `Link:` header (RFC 8288): `<uri>; rel="alternate";
//! hreflang="ja", <uri2>; rel=canonical`. Hand-written because the crates
//! at hand key links by `rel` (so two alternates collapse into one) or
//! split on commas inside URIs; this reader is total and keeps every link.

/// One link of a `Link:` header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderLink {
    pub uri: String,
    /// The `rel` tokens, lower-cased.
    pub rel: Vec<String>,
    pub hreflang: Option<String>,
}

/// Every link of the `Link:` headers in `headers` (the fetch segment's
/// `name: value` lines).
pub fn header_links(headers: &str) -> Vec<HeaderLink> {
    crate::fetch::client::header_values(headers, "link")
        .flat_map(parse)
        .collect()
}

/// The links of one `Link:` header value; malformed parts are skipped.
pub fn parse(value: &str) -> Vec<HeaderLink> {
    let mut links = Vec::new();
    let mut rest = value;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('>') else { break };
        let (params, next) = split_params(&after[close + 1..]);
        links.push(link(after[..close].trim(), params));
        rest = next;
    }
    links
}

/// Splits the parameters of one link from the rest of the header at the
/// first comma outside quotes.
fn split_params(text: &str) -> (&str, &str) {
    let mut quoted = false;
    let mut escaped = false;
    for (at, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => return (&text[..at], &text[at + 1..]),
            _ => {}
        }
    }
    (text, "")
}

fn link(uri: &str, params: &str) -> HeaderLink {
    let mut link = HeaderLink {
        uri: uri.to_string(),
        rel: Vec::new(),
        hreflang: None,
    };
    for param in params.split(';') {
        let Some((name, value)) = param.split_once('=') else {
            continue;
        };
        let value = unquote(value.trim());
        match name.trim().to_ascii_lowercase().as_str() {
            "rel" => {
                link.rel = value
                    .split_whitespace()
                    .map(str::to_ascii_lowercase)
                    .collect()
            }
            "hreflang" if link.hreflang.is_none() => link.hreflang = Some(value),
            _ => {}
        }
    }
    link
}

fn unquote(value: &str) -> String {
    match value.strip_prefix('"') {
        Some(inner) => {
            let inner = inner.strip_suffix('"').unwrap_or(inner);
            inner.replace("\\\"", "\"").replace("\\\\", "\\")
        }
        None => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alternates_canonical_and_odd_spellings() {
        let links = parse(
            r#"<https://a.jp/ja/>; rel="alternate"; hreflang="ja", <https://a.jp/en/?a=1,2>; REL=alternate; HrefLang=en-US,<https://a.jp/>; rel="canonical""#,
        );
        assert_eq!(links.len(), 3);
        assert_eq!(links[0].uri, "https://a.jp/ja/");
        assert_eq!(links[0].rel, ["alternate"]);
        assert_eq!(links[0].hreflang.as_deref(), Some("ja"));
        assert_eq!(links[1].uri, "https://a.jp/en/?a=1,2");
        assert_eq!(links[1].hreflang.as_deref(), Some("en-US"));
        assert_eq!(links[2].rel, ["canonical"]);
        assert_eq!(links[2].hreflang, None);
    }

    #[test]
    fn quoted_commas_and_broken_headers() {
        let links = parse(r#"<x>; title="a, b"; rel="alternate next", <y>; rel=prev"#);
        assert_eq!(links.len(), 2);
        assert_eq!(links[0].rel, ["alternate", "next"]);
        assert_eq!(links[1].uri, "y");
        assert!(parse("garbage, <unclosed; rel=x").is_empty());
        assert!(parse("").is_empty());
    }

    #[test]
    fn only_link_headers_of_a_response_are_read() {
        let headers = "content-type: text/html\nlink: <http://a.th/>; rel=alternate; hreflang=th\nLINK: <http://a.th/en>; rel=alternate; hreflang=en\n";
        let links = header_links(headers);
        assert_eq!(links.len(), 2);
        assert_eq!(links[1].hreflang.as_deref(), Some("en"));
    }
}

#[cfg(test)]
mod generated {
    use proptest::prelude::*;

    proptest! {
        /// Any header value parses without panic; every URI read is one
        /// that was between angle brackets.
        #[test]
        fn any_link_header_parses(value in r#"([<>;,="\\ a-z:/]|rel|hreflang|alternate|\PC){0,80}"#) {
            for link in super::parse(&value) {
                prop_assert!(!link.uri.contains('>'));
            }
        }
    }
}
