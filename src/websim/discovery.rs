//! Discovery and negotiation on the procedural web (`WebSpec::discovery`):
//!
//! - **Sitemap sites** (every 4th host from host 1): robots.txt names
//!   `/sitemap_index.xml` (a host without robots.txt serves the same index
//!   as `/sitemap.xml`, for `--guess-sitemap`); the index names a gzipped
//!   urlset of the host's pages and of [`HIDDEN_PAGES`] pages no page links
//!   to (`/hidden/K.html`, in the host's language), and a urlset whose
//!   hreflang alternates name those pages in the host's alternate language
//!   (`/<tag>/hidden/K.html`), also linked from nowhere.
//! - **Negotiating sites** (English hosts among every 4th from host 3):
//!   every page answers in the host's alternate language when the
//!   request's Accept-Language names that language first, in English
//!   otherwise, always with `Vary: Accept-Language`.
//!
//! A host's alternate language cycles through the corpus languages other
//! than English, so every language has sites of both kinds.

use std::io::Write;

use super::corpus::LANGS;
use super::generator::{RobotsKind, Web};
use super::render::{escape, text_response, Extras, SimLink, SimResponse};
use super::rng::Rng;

/// Pages of a sitemap site that only its sitemaps list.
pub const HIDDEN_PAGES: u32 = 3;

/// A small web with discovery (40 hosts, 400 pages): 10 sitemap sites
/// and a few negotiating ones; what the tests crawl.
pub fn small_spec() -> super::WebSpec {
    super::WebSpec {
        seed: 3,
        hosts: 40,
        pages: 400,
        chrome: false,
        discovery: true,
        changes: false,
    }
}

/// What a host does for discovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Sitemaps,
    Negotiates,
    Plain,
}

impl Web {
    /// Host `h`'s role (always `Plain` without `discovery`).
    pub fn role(&self, h: usize) -> Role {
        if !self.spec.discovery {
            return Role::Plain;
        }
        match h % 4 {
            1 => Role::Sitemaps,
            3 if LANGS[self.hosts[h].lang].code == "eng" && self.hosts[h].second.is_none() => {
                Role::Negotiates
            }
            _ => Role::Plain,
        }
    }

    /// Host `h`'s alternate language (corpus index): never English.
    pub fn alternate_lang(&self, h: usize) -> usize {
        let others: Vec<usize> = (0..LANGS.len())
            .filter(|&l| LANGS[l].code != "eng")
            .collect();
        let pick = others[(h / 4) % others.len()];
        if pick == self.hosts[h].lang {
            others[(h / 4 + 1) % others.len()]
        } else {
            pick
        }
    }

    /// The pages only sitemaps list, with their language (ISO 639-3).
    pub fn sitemap_only_pages(&self) -> Vec<(String, &'static str)> {
        let mut pages = Vec::new();
        for h in (0..self.hosts.len()).filter(|&h| self.role(h) == Role::Sitemaps) {
            let host = &self.hosts[h];
            let alternate = self.alternate_lang(h);
            for k in 0..HIDDEN_PAGES {
                pages.push((hidden_url(&host.name, None, k), LANGS[host.lang].code));
                let tag = Some(LANGS[alternate].tag);
                pages.push((hidden_url(&host.name, tag, k), LANGS[alternate].code));
            }
        }
        pages
    }

    /// The language `url` answers in when asked with `accept_language`:
    /// a negotiating site's page in its alternate language when that is
    /// asked for first, else [`Web::truth`]'s.
    pub fn negotiated_lang(
        &self,
        url: &str,
        accept_language: Option<&str>,
    ) -> Option<&'static str> {
        let parsed = url::Url::parse(url).ok()?;
        let (h, _) = self.host(parsed.host_str()?)?;
        if self.role(h) == Role::Negotiates && self.text_page_at(h, parsed.path()).is_some() {
            return Some(LANGS[self.answer_lang(h, accept_language)].code);
        }
        self.truth(url)
    }

    /// The language a negotiating host `h` answers in.
    fn answer_lang(&self, h: usize, accept_language: Option<&str>) -> usize {
        let alternate = self.alternate_lang(h);
        let first = accept_language
            .and_then(|v| v.split(',').next())
            .and_then(|tag| tag.split([';', '-']).next())
            .map(|tag| tag.trim().to_ascii_lowercase());
        if first.as_deref() == Some(LANGS[alternate].tag) {
            alternate
        } else {
            self.hosts[h].lang
        }
    }

    /// `Some(truth)` for a hidden page's URL, `None` for any other URL.
    pub(super) fn hidden_truth(&self, url: &str) -> Option<Option<&'static str>> {
        let parsed = url::Url::parse(url).ok()?;
        let (h, _) = self.host(parsed.host_str()?)?;
        let lang = self.hidden_page(h, parsed.path())?.0;
        Some(Some(LANGS[lang].code))
    }

    /// A hidden page's language and number, if `path` names one of `h`'s.
    fn hidden_page(&self, h: usize, path: &str) -> Option<(usize, u32)> {
        if self.role(h) != Role::Sitemaps {
            return None;
        }
        let alternate = self.alternate_lang(h);
        let in_alternate = format!("/{}/hidden/", LANGS[alternate].tag);
        let (lang, rest) = match path.strip_prefix(&in_alternate) {
            Some(rest) => (alternate, rest),
            None => (self.hosts[h].lang, path.strip_prefix("/hidden/")?),
        };
        let k = rest.strip_suffix(".html")?.parse().ok()?;
        (k < HIDDEN_PAGES).then_some((lang, k))
    }

    /// The answer of a discovery route of host `h`, if `path` is one.
    pub(super) fn discovery_answer(
        &self,
        h: usize,
        path: &str,
        accept_language: Option<&str>,
    ) -> Option<SimResponse> {
        match self.role(h) {
            Role::Plain => None,
            Role::Negotiates => {
                let j = self.text_page_at(h, path)?;
                let mut page = self.page_in(h, j, self.answer_lang(h, accept_language));
                page.headers.push(("vary".into(), "Accept-Language".into()));
                Some(page)
            }
            Role::Sitemaps => self.sitemap_answer(h, path),
        }
    }

    fn sitemap_answer(&self, h: usize, path: &str) -> Option<SimResponse> {
        let host = &self.hosts[h];
        let names_sitemap = matches!(
            host.robots,
            RobotsKind::DisallowPrivate | RobotsKind::AllowAll
        );
        match path {
            "/robots.txt" if names_sitemap => Some(self.robots_with_sitemap(h)),
            "/sitemap_index.xml" | "/sitemap.xml" => Some(xml(self.sitemap_index(h))),
            "/sitemaps/pages.xml.gz" => Some(gzipped(&self.pages_urlset(h))),
            "/sitemaps/alternates.xml" => Some(xml(self.alternates_urlset(h))),
            _ => {
                let (lang, k) = self.hidden_page(h, path)?;
                Some(self.hidden(h, lang, k))
            }
        }
    }

    fn robots_with_sitemap(&self, h: usize) -> SimResponse {
        let host = &self.hosts[h];
        let disallow = match host.robots {
            RobotsKind::DisallowPrivate => "/private/",
            _ => "",
        };
        let body = format!(
            "User-agent: *\nDisallow: {disallow}\n\nSitemap: http://{}/sitemap_index.xml\n",
            host.name
        );
        text_response(200, &body)
    }

    fn sitemap_index(&self, h: usize) -> String {
        let name = &self.hosts[h].name;
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n<sitemap><loc>http://{name}/sitemaps/pages.xml.gz</loc><lastmod>2026-11-01</lastmod></sitemap>\n<sitemap><loc>http://{name}/sitemaps/alternates.xml</loc></sitemap>\n</sitemapindex>\n"
        )
    }

    fn pages_urlset(&self, h: usize) -> String {
        let name = &self.hosts[h].name;
        let listed = (0..self.hosts[h].pages)
            .map(|j| self.page_path(h, j))
            .filter(|path| !path.starts_with("/private/"))
            .map(|path| format!("http://{name}{path}"))
            .chain((0..HIDDEN_PAGES).map(|k| hidden_url(name, None, k)));
        let urls: String = listed
            .map(|url| {
                format!(
                    "<url><loc>{}</loc><lastmod>2026-11-01</lastmod></url>\n",
                    escape(&url)
                )
            })
            .collect();
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n{urls}</urlset>\n")
    }

    fn alternates_urlset(&self, h: usize) -> String {
        let name = &self.hosts[h].name;
        let (own, other) = (&LANGS[self.hosts[h].lang], &LANGS[self.alternate_lang(h)]);
        let urls: String = (0..HIDDEN_PAGES)
            .map(|k| {
                let (page, alternate) = (hidden_url(name, None, k), hidden_url(name, Some(other.tag), k));
                format!(
                    "<url><loc>{page}</loc>\n<xhtml:link rel=\"alternate\" hreflang=\"{}\" href=\"{page}\"/>\n<xhtml:link rel=\"alternate\" hreflang=\"{}\" href=\"{alternate}\"/></url>\n",
                    own.tag, other.tag
                )
            })
            .collect();
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" xmlns:xhtml=\"http://www.w3.org/1999/xhtml\">\n{urls}</urlset>\n")
    }

    /// A hidden page: text in `lang`, a link home.
    fn hidden(&self, h: usize, lang: usize, k: u32) -> SimResponse {
        let mut rng = Rng::new(&[self.spec.seed, h as u64, u64::from(k), 3]);
        let home = SimLink::text("/", self.anchor(lang, &mut rng));
        self.render(h, lang, &mut rng, &[home], Extras::default())
    }
}

fn hidden_url(host: &str, tag: Option<&str>, k: u32) -> String {
    match tag {
        Some(tag) => format!("http://{host}/{tag}/hidden/{k}.html"),
        None => format!("http://{host}/hidden/{k}.html"),
    }
}

fn xml(body: String) -> SimResponse {
    SimResponse {
        status: 200,
        content_type: Some("application/xml".into()),
        location: None,
        headers: Vec::new(),
        body: body.into_bytes(),
    }
}

fn gzipped(body: &str) -> SimResponse {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder
        .write_all(body.as_bytes())
        .expect("writing to memory cannot fail");
    SimResponse {
        status: 200,
        content_type: Some("application/x-gzip".into()),
        location: None,
        headers: Vec::new(),
        body: encoder.finish().expect("writing to memory cannot fail"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::websim::server::SimRequest;

    fn web() -> Web {
        Web::generate(small_spec())
    }

    #[test]
    fn hidden_pages_answer_in_the_language_the_truth_names() {
        let web = web();
        let hidden = web.sitemap_only_pages();
        assert_eq!(hidden.len(), 10 * 2 * HIDDEN_PAGES as usize);
        for (url, lang) in &hidden {
            assert_eq!(web.truth(url), Some(*lang), "{url}");
            let parsed = url::Url::parse(url).unwrap();
            let answer = web.respond_to(
                parsed.host_str().unwrap(),
                parsed.path(),
                &SimRequest::default(),
            );
            assert_eq!(answer.status, 200, "{url}");
        }
    }

    #[test]
    fn a_negotiating_page_answers_the_language_asked_for_first() {
        let web = web();
        let h = (0..40)
            .find(|&h| web.role(h) == Role::Negotiates)
            .expect("one negotiates");
        let name = web.hosts[h].name.clone();
        let tag = LANGS[web.alternate_lang(h)].tag;
        let asking = SimRequest {
            accept_language: Some(format!("{tag}, en;q=0.5")),
            ..SimRequest::default()
        };
        let asked = web.respond_to(&name, "/", &asking);
        let plain = web.respond_to(&name, "/", &SimRequest::default());
        assert_ne!(asked.body, plain.body);
        assert!(asked
            .headers
            .contains(&("vary".into(), "Accept-Language".into())));
        let url = format!("http://{name}/");
        assert_eq!(web.negotiated_lang(&url, None), Some("eng"));
        assert_eq!(
            web.negotiated_lang(&url, Some(tag)),
            Some(LANGS[web.alternate_lang(h)].code)
        );
    }
}
