//! URL normalization and the parts of a URL the crawl keys on: host,
//! registrable domain, public suffix (TLD) and top-level directory.
//!
//! Seeds, links and redirect targets all go through [`normalize`] or
//! [`resolve`], so one page has one key: the RFC 3986 normal form the
//! WHATWG parser (`url` crate) gives, plus the crawler rules it lacks
//! (unreserved escapes decoded, hex upper-cased, no userinfo, no empty
//! query, no trailing host dot), re-parsed until it is a fixed point.

use url::{Host, Url};

/// The parts of a normalized URL stored with every crawldb row and link.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlParts {
    pub url: String,
    pub host: String,
    /// Registrable domain (`example.co.jp`), via the public suffix list.
    pub domain: String,
    /// Public suffix (`co.jp`, `com`).
    pub tld: String,
    /// Host and first path directory (`example.jp/en/`), or `host/`.
    pub dir: String,
}

/// Parses and normalizes an absolute http(s) URL the way crawlers key
/// on it (RFC 3986 §6.2.2–6.2.3, as Nutch's BasicURLNormalizer and
/// Heritrix's canonicalizer do):
///
/// - scheme and host lower-cased, IDN to punycode, trailing dots of the
///   host dropped, default port dropped (other ports and IPv6 literals kept);
/// - userinfo dropped (credentials are never stored), fragment dropped,
///   empty query dropped (parameter order kept);
/// - in path and query, escapes of unreserved characters (`A-Za-z0-9-._~`)
///   decoded, other escapes upper-cased, a stray `%` encoded as `%25`;
/// - dot segments resolved, `%2E` ones included.
///
/// The result is a fixed point: normalizing its text gives it back.
/// Returns a message saying why when the input is not such a URL.
pub fn normalize(input: &str) -> Result<Url, String> {
    resolve(None, input)
}

/// Resolves `href` against `base` (if any) and normalizes it as
/// [`normalize`] does.
pub fn resolve(base: Option<&Url>, href: &str) -> Result<Url, String> {
    let href = href.trim();
    let parsed = match base {
        Some(base) => base.join(href),
        None => Url::parse(href),
    };
    let mut url = parsed.map_err(|e| format!("not a URL ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("not an http(s) URL (scheme {})", url.scheme()));
    }
    // Each pass re-parses the canonical text, so dot segments and escapes
    // are settled by the same parser that will read the result back.
    for _ in 0..4 {
        let text = canonical(&url)?;
        if text == url.as_str() {
            return Ok(url);
        }
        url = Url::parse(&text).map_err(|e| format!("not a URL after normalizing ({e})"))?;
    }
    Err("URL does not normalize to a fixed point".into())
}

/// The canonical text of a parsed http(s) URL: no userinfo, fragment or
/// empty query, host without trailing dots, escapes canonical.
fn canonical(url: &Url) -> Result<String, String> {
    // IP literals as the url crate writes them (IPv6 compressed, lower-case).
    let host = match url.host() {
        Some(Host::Domain(domain)) => domain.trim_end_matches('.'),
        _ => url.host_str().unwrap_or_default(),
    };
    if host.is_empty() {
        return Err("URL has no host".into());
    }
    let mut text = format!("{}://{host}", url.scheme());
    if let Some(port) = url.port() {
        text.push_str(&format!(":{port}"));
    }
    text.push_str(&canonical_escapes(url.path()));
    if let Some(query) = url.query().filter(|q| !q.is_empty()) {
        text.push('?');
        text.push_str(&canonical_escapes(query));
    }
    Ok(text)
}

/// Decodes escapes of unreserved characters, upper-cases the hex digits
/// of the others and encodes a `%` that starts no escape as `%25`.
fn canonical_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match escaped_byte(text.get(at + 1..at + 3)) {
            Some(byte) if is_unreserved(byte) => out.push(char::from(byte)),
            Some(byte) => out.push_str(&format!("%{byte:02X}")),
            None => {
                out.push_str("%25");
                continue;
            }
        }
        chars.nth(1); // the two hex digits
    }
    out
}

/// The byte two hex digits stand for, if `hex` is two hex digits.
fn escaped_byte(hex: Option<&str>) -> Option<u8> {
    let hex = hex.filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))?;
    u8::from_str_radix(hex, 16).ok()
}

/// RFC 3986 unreserved characters: never need escaping.
fn is_unreserved(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~')
}

/// The top-level directory of a URL with `host` and `path`: `host/first/`
/// for a path under a directory, else `host/`.
pub fn top_dir(host: &str, path: &str) -> String {
    match path.trim_start_matches('/').split_once('/') {
        Some((first, _)) if !first.is_empty() => format!("{host}/{first}/"),
        _ => format!("{host}/"),
    }
}

/// Splits a normalized URL into the parts the crawl keys on.
pub fn parts(url: &Url) -> UrlParts {
    let host = url.host_str().unwrap_or_default().to_string();
    let tld = psl::suffix_str(&host).unwrap_or(&host).to_string();
    let domain = psl::domain_str(&host).unwrap_or(&host).to_string();
    let dir = top_dir(&host, url.path());
    UrlParts {
        url: url.to_string(),
        host,
        domain,
        tld,
        dir,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Input and its normalized form, side by side.
    const CASES: &[(&str, &str)] = &[
        (
            "HTTP://WWW.Example.JP:80/a/b.html#top",
            "http://www.example.jp/a/b.html",
        ),
        ("https://a.jp:443/", "https://a.jp/"),
        ("http://a.jp:8080/", "http://a.jp:8080/"),
        ("https://a.jp:80/", "https://a.jp:80/"),
        ("http://a.jp", "http://a.jp/"),
        ("http://Bücher.example/", "http://xn--bcher-kva.example/"),
        ("https://例え.jp", "https://xn--r8jz45g.jp/"),
        ("http://EX%41MPLE.jp/", "http://example.jp/"),
        ("http://[::1]:8080/a", "http://[::1]:8080/a"),
        ("http://[2001:DB8::1]/", "http://[2001:db8::1]/"),
        ("http://[2001:DB8:0:0:0:0:0:1]:80/", "http://[2001:db8::1]/"),
        ("http://example.com./", "http://example.com/"),
        ("http://example.com..:8080/x", "http://example.com:8080/x"),
        ("http://192.168.0.1.:80/", "http://192.168.0.1/"),
        ("http://user:pass@host.jp/", "http://host.jp/"),
        ("http://user@host.jp:8080/p", "http://host.jp:8080/p"),
        ("http://a.jp/%7Euser/", "http://a.jp/~user/"),
        ("http://a.jp/%7euser/", "http://a.jp/~user/"),
        ("http://a.jp/%41%62%2D%2e%5F%30", "http://a.jp/Ab-._0"),
        ("http://a.jp/a%2fb", "http://a.jp/a%2Fb"),
        ("http://a.jp/?q=a%2bb&r=%7e", "http://a.jp/?q=a%2Bb&r=~"),
        ("http://a.jp/100%", "http://a.jp/100%25"),
        ("http://a.jp/%zz%4", "http://a.jp/%25zz%254"),
        ("http://a.jp/caf%c3%a9", "http://a.jp/caf%C3%A9"),
        ("http://a.jp/café", "http://a.jp/caf%C3%A9"),
        ("http://a.jp/a b", "http://a.jp/a%20b"),
        ("http://a.jp/a/./b/../c", "http://a.jp/a/c"),
        ("http://a.jp/a/%2E%2E/b", "http://a.jp/b"),
        ("http://a.jp/a/.%2e/b", "http://a.jp/b"),
        ("http://a.jp/%2e%2E/../x", "http://a.jp/x"),
        ("http://a.jp\\b\\c", "http://a.jp/b/c"),
        ("http://a.jp/b/c?", "http://a.jp/b/c"),
        ("http://a.jp/b/c?#frag", "http://a.jp/b/c"),
        ("http://a.jp/?z=1&a=2&m=3", "http://a.jp/?z=1&a=2&m=3"),
        ("  http://a.jp/x \n", "http://a.jp/x"),
        (
            "HTTPS://User:Pw@WWW.Bücher.Example.:443/%7ea/./b/../%2E%2E/c%2fd?%61=%3d&#x",
            "https://www.xn--bcher-kva.example/c%2Fd?a=%3D&",
        ),
    ];

    /// Links as found on `http://a.jp/b/c/d.html?x=1` and what they become.
    const RELATIVE: &[(&str, &str)] = &[
        ("../x", "http://a.jp/b/x"),
        ("./", "http://a.jp/b/c/"),
        ("//other.jp/p", "http://other.jp/p"),
        ("?q=1", "http://a.jp/b/c/d.html?q=1"),
        ("#frag", "http://a.jp/b/c/d.html?x=1"),
        ("", "http://a.jp/b/c/d.html?x=1"),
        ("/%7Eu/%2e%2E/v?", "http://a.jp/v"),
        ("  e.html\t", "http://a.jp/b/c/e.html"),
        ("https://User@B.jp.:443/", "https://b.jp/"),
    ];

    const NOT_CRAWLABLE: &[&str] = &[
        "ftp://example.jp/",
        "not a url",
        "mailto:a@b.jp",
        "javascript:void(0)",
        "http://./",
        "http://",
        "",
    ];

    #[test]
    fn normalization_table() {
        for &(input, expected) in CASES {
            let url = normalize(input).unwrap_or_else(|e| panic!("{input:?}: {e}"));
            assert_eq!(url.as_str(), expected, "normalizing {input:?}");
            assert_eq!(normalize(expected).unwrap().as_str(), expected);
        }
        let base = normalize("http://a.jp/b/c/d.html?x=1").unwrap();
        for &(href, expected) in RELATIVE {
            let url = resolve(Some(&base), href).unwrap_or_else(|e| panic!("{href:?}: {e}"));
            assert_eq!(url.as_str(), expected, "resolving {href:?}");
        }
        for input in NOT_CRAWLABLE {
            assert!(normalize(input).is_err(), "{input:?} accepted");
        }
    }

    #[test]
    fn parts_of_a_url() {
        let p = parts(&normalize("http://shop.example.co.th/en/page.html").unwrap());
        assert_eq!(p.host, "shop.example.co.th");
        assert_eq!(p.domain, "example.co.th");
        assert_eq!(p.tld, "co.th");
        assert_eq!(p.dir, "shop.example.co.th/en/");
        assert_eq!(
            parts(&normalize("http://a.jp/x.html").unwrap()).dir,
            "a.jp/"
        );
    }

    #[test]
    fn relative_links_resolve_against_base() {
        let base = normalize("http://a.jp/dir/page.html").unwrap();
        assert_eq!(
            resolve(Some(&base), "../x.html").unwrap().as_str(),
            "http://a.jp/x.html"
        );
        assert!(resolve(Some(&base), "javascript:void(0)").is_err());
    }

    fn pick(items: &'static [&'static str]) -> impl Strategy<Value = String> {
        prop::sample::select(items).prop_map(String::from)
    }

    /// One path, query or fragment piece: literal, escape or any text.
    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            pick(&[
                ".", "..", "%2e", "%2E%2e", ".%2E", "a", "~u", "%", "%z", "/", "\\", "?", "#", "&",
                "=", "@"
            ]),
            (any::<u8>(), any::<bool>()).prop_map(|(b, upper)| match upper {
                true => format!("%{b:02X}"),
                false => format!("%{b:02x}"),
            }),
            "\\PC{0,3}",
        ]
    }

    fn pieces() -> impl Strategy<Value = String> {
        prop::collection::vec(piece(), 0..8).prop_map(|p| p.concat())
    }

    fn url_ish() -> impl Strategy<Value = String> {
        let scheme = pick(&[
            "http://", "HTTPS://", "hTtP://", "https:", "ftp://", "//", "",
        ]);
        let user = pick(&["", "user@", "u:p@", "a%40b:c%3A@", "@", ":@"]);
        let host = prop_oneof![
            pick(&[
                "a.jp",
                "EXAMPLE.com.",
                "Bücher.example",
                "例え.jp..",
                "[::1]",
                "[2001:DB8::1]"
            ]),
            pick(&[
                "127.0.0.1",
                "1.2.3.4.",
                "a..b",
                "xn--bcher-kva.example",
                "",
                ".",
                "ex%41mple.jp"
            ]),
            "[a-zA-Z0-9.%-]{0,10}",
        ];
        let port = pick(&["", ":80", ":443", ":8080", ":", ":99999", ":0"]);
        (scheme, user, host, port, pieces(), pieces(), pieces())
            .prop_map(|(s, u, h, p, path, q, f)| format!("{s}{u}{h}{p}/{path}?{q}#{f}"))
    }

    /// Asserts what every normalized URL must satisfy.
    fn check_normalized(url: &Url) {
        let text = url.as_str();
        assert_eq!(
            normalize(text).as_ref().map(Url::as_str),
            Ok(text),
            "not idempotent"
        );
        let authority = text.split_once("://").unwrap().1.split('/').next().unwrap();
        assert!(!authority.contains('@'), "userinfo in {text}");
        assert!(
            url.fragment().is_none() && url.query() != Some(""),
            "{text}"
        );
        let bytes = text.as_bytes();
        for (at, _) in text.match_indices('%') {
            let hex = bytes.get(at + 1..at + 3).unwrap_or_default();
            assert!(
                hex.len() == 2 && hex.iter().all(|b| matches!(b, b'0'..=b'9' | b'A'..=b'F')),
                "{text}"
            );
            let byte = u8::from_str_radix(std::str::from_utf8(hex).unwrap(), 16).unwrap();
            assert!(!is_unreserved(byte), "escaped unreserved char in {text}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(crate::testing::cases(2000)))]

        #[test]
        fn normalize_is_canonical_on_generated_urls(input in url_ish()) {
            if let Ok(url) = normalize(&input) {
                check_normalized(&url);
            }
        }

        #[test]
        fn resolve_is_canonical_on_generated_links(href in prop_oneof![url_ish(), pieces()], any_text in ".{0,30}") {
            let base = normalize("http://a.jp/b/c/d.html?x=1").unwrap();
            for link in [href.as_str(), any_text.as_str()] {
                if let Ok(url) = resolve(Some(&base), link) {
                    check_normalized(&url);
                }
            }
        }
    }
}
