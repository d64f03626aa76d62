//! The address guard at fetch time (`crate::address` holds the ranges): a
//! URL whose scheme is not http(s) or whose host is a blocked literal
//! (`10.0.0.1`, `[::1]`, `localhost`) is refused before any request, and a
//! DNS resolver installed in the HTTP client refuses names that resolve only
//! to blocked addresses, so a redirect target or a name pointing at
//! 169.254.169.254 is never connected. Proxy hosts are exempt: the proxy
//! resolves the crawled names itself. A proxy of a scheme fetch cannot
//! speak to (`socks5://`) is refused before any request.

use std::collections::HashSet;
use std::ffi::OsString;
use std::net::SocketAddr;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use crate::address::{blocked_host, blocked_ip, PRIVATE_ADDRESS};

/// The error of a URL whose scheme the crawler does not fetch.
pub const UNSUPPORTED_SCHEME: &str = "unsupported-scheme";

/// Why `url` may not be requested (`private-address: loopback`,
/// `unsupported-scheme: ftp`), or `None`. Blocked hosts pass when
/// `allow_private` is set; other schemes never do.
pub fn refusal(url: &url::Url, allow_private: bool) -> Option<String> {
    if !matches!(url.scheme(), "http" | "https") {
        return Some(format!("{UNSUPPORTED_SCHEME}: {}", url.scheme()));
    }
    if allow_private {
        return None;
    }
    let host = url.host_str().unwrap_or_default();
    blocked_host(host).map(|range| format!("{PRIVATE_ADDRESS}: {range}"))
}

/// The resolver's error for a name that resolves only to blocked addresses.
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// True if `error` or one of its causes is the guard's refusal.
pub fn is_refusal(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(e) = cause {
        if e.is::<Refused>() {
            return true;
        }
        cause = e.source();
    }
    false
}

/// A resolver that drops blocked addresses from every answer and fails
/// when none is left.
#[derive(Debug, Default, Clone)]
pub struct GuardedResolver {
    /// Names resolved as they are (the proxies').
    exempt: HashSet<String>,
}

impl GuardedResolver {
    /// A resolver that lets the host names of `proxies` resolve to any address.
    pub fn new<'a>(proxies: impl IntoIterator<Item = &'a str>) -> Self {
        let exempt = proxies
            .into_iter()
            .filter_map(proxy_host)
            .map(|h| h.to_ascii_lowercase())
            .collect();
        GuardedResolver { exempt }
    }
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let name = name.as_str().to_ascii_lowercase();
        let exempt = self.exempt.contains(&name);
        Box::pin(async move {
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((name.as_str(), 0)).await?.collect();
            let addrs = if exempt {
                found
            } else {
                public_addrs(&name, found)?
            };
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// The addresses of `found` that may be connected; an error naming the
/// range when every one of them is blocked.
pub fn public_addrs(
    name: &str,
    found: Vec<SocketAddr>,
) -> Result<Vec<SocketAddr>, Box<dyn std::error::Error + Send + Sync>> {
    let first_blocked = found
        .iter()
        .find_map(|a| blocked_ip(a.ip()).map(|range| (a.ip(), range)));
    let public: Vec<SocketAddr> = found
        .into_iter()
        .filter(|a| blocked_ip(a.ip()).is_none())
        .collect();
    match (public.is_empty(), first_blocked) {
        (true, Some((ip, range))) => Err(Box::new(Refused(format!(
            "{PRIVATE_ADDRESS}: {range} ({name} resolves to {ip})"
        )))),
        (true, None) => Err(format!("{name}: no address found").into()),
        (false, _) => Ok(public),
    }
}

/// The host name of a proxy setting (`http://proxy:3128`, `proxy:3128`).
fn proxy_host(proxy: &str) -> Option<String> {
    proxy_url(proxy).ok()?.host_str().map(str::to_string)
}

/// A proxy setting as a URL, as reqwest reads it: http when no scheme is
/// written.
fn proxy_url(proxy: &str) -> Result<url::Url, url::ParseError> {
    match proxy.contains("://") {
        true => url::Url::parse(proxy),
        false => url::Url::parse(&format!("http://{proxy}")),
    }
}

/// The environment variables reqwest reads a proxy from.
pub const PROXY_VARIABLES: [&str; 6] = [
    "http_proxy",
    "HTTP_PROXY",
    "https_proxy",
    "HTTPS_PROXY",
    "all_proxy",
    "ALL_PROXY",
];

/// The proxies the client will use: `--proxy` and the proxy variables
/// reqwest reads from the environment — none in a CGI script
/// (`REQUEST_METHOD` set), where reqwest ignores them: a request's `Proxy:`
/// header arrives there as `HTTP_PROXY` ("httpoxy") and must not open the
/// guard to a host it names.
pub fn proxies(explicit: Option<&str>) -> Vec<String> {
    proxies_in(explicit, |var| std::env::var_os(var))
}

/// [`proxies`] with the environment read through `env`: CGI is any
/// `REQUEST_METHOD`, a proxy any value in UTF-8 that is not blank.
fn proxies_in(explicit: Option<&str>, env: impl Fn(&str) -> Option<OsString>) -> Vec<String> {
    let cgi = env("REQUEST_METHOD").is_some();
    let from_env = PROXY_VARIABLES
        .into_iter()
        .filter(|_| !cgi)
        .filter_map(|var| env(var)?.into_string().ok())
        .filter(|v| !v.trim().is_empty());
    explicit
        .map(str::to_string)
        .into_iter()
        .chain(from_env)
        .collect()
}

/// The schemes of the proxies fetch can speak to (reqwest is built
/// without its `socks` feature).
const PROXY_SCHEMES: [&str; 2] = ["http", "https"];

/// Refuses, before any request, a proxy fetch cannot speak to (`socks5://`
/// and the like): `--proxy`, or when it is not given the proxies the
/// variables give http and https URLs, as reqwest picks them (hyper-util's
/// `Matcher::from_env`: `HTTP_PROXY`, else `http_proxy`, and when that is
/// blank `ALL_PROXY`, else `all_proxy`; https alike). Every URL would
/// otherwise be deferred, round after round, by "unsupported scheme".
pub fn check_proxy_schemes(explicit: Option<&str>) -> Result<(), String> {
    check_proxy_schemes_in(explicit, |var| std::env::var_os(var))
}

/// [`check_proxy_schemes`] with the environment read through `env`.
fn check_proxy_schemes_in(
    explicit: Option<&str>,
    env: impl Fn(&str) -> Option<OsString>,
) -> Result<(), String> {
    if let Some(proxy) = explicit {
        return match unsupported_scheme(proxy) {
            Some(scheme) => Err(format!(
                "--proxy {}: a {scheme} proxy is not supported (an http:// or https:// one is)",
                shown_proxy(proxy)
            )),
            None => Ok(()),
        };
    }
    if env("REQUEST_METHOD").is_some() {
        return Ok(()); // a CGI script: reqwest reads no variable
    }
    let first_set = |names: [&'static str; 2]| {
        let found = names
            .into_iter()
            .find_map(|n| Some((n, env(n)?.into_string().ok()?)));
        found.filter(|(_, value)| !value.trim().is_empty())
    };
    let all = first_set(["ALL_PROXY", "all_proxy"]);
    let picked = [["HTTP_PROXY", "http_proxy"], ["HTTPS_PROXY", "https_proxy"]]
        .map(|names| first_set(names).or_else(|| all.clone()));
    for (var, proxy) in picked.into_iter().flatten() {
        if let Some(scheme) = unsupported_scheme(&proxy) {
            return Err(format!(
                "{var}={}: a {scheme} proxy is not supported (an http:// or https:// one \
                 is); unset {var}, or give --proxy",
                shown_proxy(&proxy)
            ));
        }
    }
    Ok(())
}

/// A proxy setting as messages show it: its password as `***` (read as
/// [`proxy_url`] reads it; a scheme not written is not shown either).
pub fn shown_proxy(proxy: &str) -> String {
    match proxy_url(proxy) {
        Ok(mut url) if url.password().is_some() => {
            let _ = url.set_password(Some("***"));
            let masked = url.to_string();
            match proxy.contains("://") {
                true => masked,
                false => masked.trim_start_matches("http://").to_string(),
            }
        }
        _ => proxy.to_string(),
    }
}

/// The scheme of `proxy` when fetch cannot speak to it (none written is http).
fn unsupported_scheme(proxy: &str) -> Option<String> {
    let (scheme, _) = proxy.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    (!PROXY_SCHEMES.contains(&scheme.as_str())).then_some(scheme)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> url::Url {
        url::Url::parse(text).unwrap()
    }

    #[test]
    fn a_proxys_password_is_never_shown() {
        assert_eq!(shown_proxy("http://u:pw@p:3128"), "http://u:***@p:3128/");
        assert_eq!(shown_proxy("u:pw@p:3128"), "u:***@p:3128/");
        assert_eq!(shown_proxy("http://p:3128"), "http://p:3128");
        assert_eq!(shown_proxy("p:3128"), "p:3128");
        let env = |var: &str| (var == "all_proxy").then(|| "socks5://u:pw@p:1080".into());
        let err = check_proxy_schemes_in(None, env).unwrap_err();
        assert!(err.contains("u:***@p") && !err.contains("pw"), "{err}");
    }

    #[test]
    fn blocked_literals_and_schemes_are_refused() {
        let refused = |u: &str| refusal(&url(u), false).unwrap_or_default();
        assert_eq!(
            refused("http://169.254.169.254/latest/"),
            "private-address: link-local"
        );
        assert_eq!(refused("http://[::1]/"), "private-address: loopback");
        assert_eq!(
            refused("http://localhost:8080/"),
            "private-address: loopback"
        );
        assert_eq!(refused("ftp://example.jp/file"), "unsupported-scheme: ftp");
        assert_eq!(refusal(&url("https://example.jp/"), false), None);
        assert_eq!(refusal(&url("http://10.0.0.1/"), true), None);
        assert!(refusal(&url("file:///etc/passwd"), true).is_some());
    }

    #[test]
    fn only_public_addresses_are_kept() {
        let addr = |s: &str| s.parse::<SocketAddr>().unwrap();
        let mixed = vec![addr("10.0.0.1:0"), addr("93.184.215.14:0")];
        assert_eq!(
            public_addrs("mixed.jp", mixed).unwrap(),
            vec![addr("93.184.215.14:0")]
        );
        let err = public_addrs("meta.jp", vec![addr("169.254.169.254:0")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "private-address: link-local (meta.jp resolves to 169.254.169.254)"
        );
        assert!(public_addrs("none.jp", vec![]).is_err());
    }

    #[tokio::test]
    async fn the_resolver_refuses_names_of_blocked_addresses() {
        let resolver = GuardedResolver::new(["http://127.0.0.1:3128"]);
        let err = match resolver.resolve("localhost".parse().unwrap()).await {
            Ok(addrs) => panic!("localhost resolved to {:?}", addrs.collect::<Vec<_>>()),
            Err(e) => e.to_string(),
        };
        assert!(err.contains("private-address: loopback"), "{err}");
    }

    #[test]
    fn a_cgi_script_takes_no_proxy_from_its_environment() {
        let env = |cgi: bool| {
            move |var: &str| match var {
                "REQUEST_METHOD" if cgi => Some(OsString::from("GET")),
                "HTTP_PROXY" => Some(OsString::from("http://169.254.169.254:80")),
                "https_proxy" => Some(OsString::from(" ")),
                _ => None,
            }
        };
        assert_eq!(
            proxies_in(Some("127.0.0.1:3128"), env(false)),
            ["127.0.0.1:3128", "http://169.254.169.254:80"]
        );
        // httpoxy: a request's `Proxy:` header arrives as HTTP_PROXY
        assert_eq!(
            proxies_in(Some("127.0.0.1:3128"), env(true)),
            ["127.0.0.1:3128"]
        );
        assert!(proxies_in(None, env(true)).is_empty());
    }

    #[test]
    fn a_proxy_fetch_cannot_speak_to_is_refused_by_where_it_was_set() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |var: &str| {
                let found = vars.iter().find(|(name, _)| *name == var);
                found.map(|(_, value)| OsString::from(value))
            }
        };
        let socks = env(&[("all_proxy", "socks5h://127.0.0.1:1080")]);
        let err = check_proxy_schemes_in(Some("SOCKS5://127.0.0.1:1080"), socks).unwrap_err();
        assert!(
            err.starts_with("--proxy SOCKS5://") && err.contains("socks5 proxy"),
            "{err}"
        );
        // --proxy given, reqwest reads no variable
        assert!(check_proxy_schemes_in(Some("http://127.0.0.1:3128"), socks).is_ok());
        assert!(check_proxy_schemes_in(Some("127.0.0.1:3128"), socks).is_ok());
        let err = check_proxy_schemes_in(None, socks).unwrap_err();
        assert!(
            err.starts_with("all_proxy=socks5h://") && err.contains("unset all_proxy"),
            "{err}"
        );
        // ALL_PROXY only stands in for a scheme without its own variable
        let both = env(&[
            ("http_proxy", "http://127.0.0.1:7890"),
            ("https_proxy", "http://127.0.0.1:7890"),
            ("all_proxy", "socks5://127.0.0.1:7890"),
        ]);
        assert!(check_proxy_schemes_in(None, both).is_ok());
        let https_falls_back = env(&[
            ("http_proxy", "http://127.0.0.1:7890"),
            ("ALL_PROXY", "socks5://127.0.0.1:7890"),
        ]);
        let err = check_proxy_schemes_in(None, https_falls_back).unwrap_err();
        assert!(err.starts_with("ALL_PROXY="), "{err}");
        // the upper-case variable is the one read
        let upper = env(&[("HTTP_PROXY", "http://a:1"), ("http_proxy", "socks5://b:1")]);
        assert!(check_proxy_schemes_in(None, upper).is_ok());
        let cgi = env(&[("REQUEST_METHOD", "GET"), ("HTTP_PROXY", "socks5://b:1")]);
        assert!(check_proxy_schemes_in(None, cgi).is_ok());
        assert!(check_proxy_schemes_in(None, env(&[("https_proxy", "https://a:1")])).is_ok());
        assert!(check_proxy_schemes_in(None, env(&[])).is_ok());
    }

    #[tokio::test]
    async fn proxy_names_are_exempt() {
        let resolver = GuardedResolver::new(["localhost:3128"]);
        let addrs: Vec<SocketAddr> = resolver
            .resolve("localhost".parse().unwrap())
            .await
            .unwrap()
            .collect();
        assert!(addrs.iter().all(|a| a.ip().is_loopback()) && !addrs.is_empty());
    }
}
