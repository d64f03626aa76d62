//! URL normalization and the parts of a URL the crawl keys on: host,
//! registrable domain, public suffix (TLD) and top-level directory.

use url::Url;

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

/// Parses and normalizes an absolute http(s) URL: lower-case scheme and
/// host, IDN to punycode, default port and fragment removed. Returns a
/// message saying why when the input is not such a URL.
pub fn normalize(input: &str) -> Result<Url, String> {
    resolve(None, input)
}

/// Resolves `href` against `base` (if any) and normalizes it.
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
    if url.host_str().is_none_or(str::is_empty) {
        return Err("URL has no host".into());
    }
    url.set_fragment(None);
    Ok(url)
}

/// Splits a normalized URL into the parts the crawl keys on.
pub fn parts(url: &Url) -> UrlParts {
    let host = url.host_str().unwrap_or_default().to_string();
    let tld = psl::suffix_str(&host).unwrap_or(&host).to_string();
    let domain = psl::domain_str(&host).unwrap_or(&host).to_string();
    let dir = match url.path().trim_start_matches('/').split_once('/') {
        Some((first, _)) if !first.is_empty() => format!("{host}/{first}/"),
        _ => format!("{host}/"),
    };
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

    #[test]
    fn normalization() {
        let url = normalize("HTTP://WWW.Example.JP:80/a/b.html#top").unwrap();
        assert_eq!(url.as_str(), "http://www.example.jp/a/b.html");
        assert_eq!(
            normalize("https://例え.jp").unwrap().as_str(),
            "https://xn--r8jz45g.jp/"
        );
        assert!(normalize("ftp://example.jp/").is_err());
        assert!(normalize("not a url").is_err());
        assert!(normalize("mailto:a@b.jp").is_err());
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
}
