//! Pages that change between visits, and conditional requests
//! (`WebSpec::changes`): what a recrawl meets. Every third host sends
//! `ETag` and `Last-Modified`, every third only `Last-Modified`, the rest
//! neither (a recrawl then knows a page unchanged by its digest alone).
//! Every third page (`j % 3 == 0`) changes between any two visits of a
//! crawler that kept its copy: the revision served is one past the one the
//! request's validators name. The others never change, and answer `304 Not
//! Modified` to validators that match. Stateless, so the same requests get
//! the same answers.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

use super::generator::Web;
use super::render::SimResponse;
use super::server::SimRequest;

/// The Last-Modified of a page's first revision; revision r is r days later.
const FIRST_REVISION_SECS: u64 = 1_767_225_600; // 2026-01-01T00:00:00Z
const DAY_SECS: u64 = 86_400;

/// Which validators a host sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validation {
    Both,
    LastModifiedOnly,
    None,
}

impl Web {
    /// The validators host `h` sends.
    pub fn validation(&self, h: usize) -> Validation {
        match h % 3 {
            0 => Validation::Both,
            1 => Validation::LastModifiedOnly,
            _ => Validation::None,
        }
    }

    /// The validators the page at `url` comes with: its host's for a
    /// text page, none for anything else (robots.txt, a redirect, a page
    /// without text), and its page number.
    pub fn validation_of(&self, url: &str) -> (Validation, Option<u32>) {
        let parsed = url::Url::parse(url).ok();
        let page = parsed.as_ref().and_then(|parsed| {
            let (h, _) = self.host(parsed.host_str()?)?;
            Some((h, self.text_page_at(h, parsed.path())?))
        });
        match page {
            Some((h, j)) => (self.validation(h), Some(j)),
            None => (Validation::None, None),
        }
    }

    /// Whether the page at `url` changes between visits (on a host that
    /// sends validators; a host that sends none serves the same page).
    pub fn changes_between_visits(&self, url: &str) -> bool {
        match self.validation_of(url) {
            (Validation::None, _) | (_, None) => false,
            (_, Some(j)) => j % 3 == 0,
        }
    }

    /// `answer` as host `h` gives it to `request`: a text page gets its
    /// validators, a changing one its revision, and a request whose
    /// validators match gets `304 Not Modified`.
    pub(super) fn revised(
        &self,
        h: usize,
        path: &str,
        request: &SimRequest,
        mut answer: SimResponse,
    ) -> SimResponse {
        let validation = self.validation(h);
        let Some(j) = self.text_page_at(h, path) else {
            return answer;
        };
        if answer.status != 200 || validation == Validation::None {
            return answer;
        }
        let revision = match (j % 3 == 0, known_revision(request)) {
            (true, Some(known)) => known + 1,
            _ => 0,
        };
        if revision > 0 {
            insert_revision(&mut answer.body, revision);
        }
        let etag = format!("\"r{revision}-{}\"", short_hash(&answer.body));
        let modified = revision_date(revision);
        let mut validators = vec![(
            "last-modified".to_string(),
            httpdate::fmt_http_date(modified),
        )];
        if validation == Validation::Both {
            validators.push(("etag".into(), etag.clone()));
        }
        let unchanged = match (&request.if_none_match, &request.if_modified_since) {
            (Some(tags), _) => validation == Validation::Both && matches_any(tags, &etag),
            (None, Some(since)) => httpdate::parse_http_date(since).is_ok_and(|t| modified <= t),
            (None, None) => false,
        };
        if unchanged {
            return SimResponse {
                status: 304,
                content_type: None,
                location: None,
                headers: validators,
                body: Vec::new(),
            };
        }
        answer.headers.extend(validators);
        answer
    }
}

/// The revision a request's validators name: the ETag's `r<N>-`, else the
/// days of If-Modified-Since past the first revision.
fn known_revision(request: &SimRequest) -> Option<u64> {
    if let Some(tags) = &request.if_none_match {
        return tags
            .trim()
            .trim_start_matches("W/")
            .trim_matches('"')
            .strip_prefix('r')
            .and_then(|rest| rest.split('-').next())
            .and_then(|n| n.parse().ok());
    }
    let since = httpdate::parse_http_date(request.if_modified_since.as_deref()?).ok()?;
    let secs = since.duration_since(UNIX_EPOCH).ok()?.as_secs();
    Some(secs.checked_sub(FIRST_REVISION_SECS)? / DAY_SECS)
}

fn revision_date(revision: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(FIRST_REVISION_SECS + revision * DAY_SECS)
}

/// Whether `If-None-Match: tags` names `etag` (weak comparison, or `*`).
fn matches_any(tags: &str, etag: &str) -> bool {
    tags.split(',')
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == "*" || t == etag)
}

fn short_hash(body: &[u8]) -> String {
    Sha256::digest(body)[..4]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Marks the body with its revision, before `</body>` (or at its end).
fn insert_revision(body: &mut Vec<u8>, revision: u64) {
    let mark = format!("<!-- revision {revision} -->");
    let at = body
        .windows(7)
        .rposition(|w| w.eq_ignore_ascii_case(b"</body>"))
        .unwrap_or(body.len());
    body.splice(at..at, mark.into_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::websim::WebSpec;

    fn web() -> Web {
        Web::generate(WebSpec {
            seed: 3,
            hosts: 12,
            pages: 120,
            changes: true,
            ..WebSpec::default()
        })
    }

    fn ask(web: &Web, url: &str, request: &SimRequest) -> SimResponse {
        let parsed = url::Url::parse(url).unwrap();
        web.respond_to(parsed.host_str().unwrap(), parsed.path(), request)
    }

    fn header<'a>(answer: &'a SimResponse, name: &str) -> Option<&'a str> {
        answer
            .headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The request a crawler sends back after `answer`.
    fn again(answer: &SimResponse) -> SimRequest {
        SimRequest {
            if_none_match: header(answer, "etag").map(str::to_string),
            if_modified_since: header(answer, "last-modified").map(str::to_string),
            ..SimRequest::default()
        }
    }

    #[test]
    fn a_page_answers_304_unless_it_changes_between_visits() {
        let web = web();
        let (mut changed, mut kept, mut plain) = (0, 0, 0);
        for url in web.fetchable_urls(10_000) {
            let first = ask(&web, &url, &SimRequest::default());
            if first.status != 200 {
                continue;
            }
            let second = ask(&web, &url, &again(&first));
            if web.validation_of(&url).0 == Validation::None {
                assert!(again(&first) == SimRequest::default(), "{url}");
                assert_eq!(second.body, first.body, "{url}");
                plain += 1;
            } else if web.changes_between_visits(&url) {
                assert_eq!(second.status, 200, "{url}");
                assert_ne!(second.body, first.body, "{url}");
                let third = ask(&web, &url, &again(&second));
                assert_ne!(third.body, second.body, "{url}: a third revision");
                changed += 1;
            } else {
                assert_eq!(second.status, 304, "{url}");
                assert!(second.body.is_empty());
                kept += 1;
            }
        }
        assert!(
            changed > 5 && kept > 5 && plain > 5,
            "{changed} {kept} {plain}"
        );
    }

    #[test]
    fn validators_name_the_revision() {
        let at = |r| httpdate::fmt_http_date(revision_date(r));
        let by_date = SimRequest {
            if_modified_since: Some(at(4)),
            ..SimRequest::default()
        };
        assert_eq!(known_revision(&by_date), Some(4));
        let by_tag = SimRequest {
            if_none_match: Some("W/\"r7-0a0b0c0d\"".into()),
            ..by_date
        };
        assert_eq!(known_revision(&by_tag), Some(7));
        assert!(matches_any("\"x\", W/\"y\"", "\"y\""));
        assert!(!matches_any("\"x\"", "\"y\""));
        let mut body = b"<html><body><p>a</p></body></html>".to_vec();
        insert_revision(&mut body, 2);
        assert_eq!(
            body,
            b"<html><body><p>a</p><!-- revision 2 --></body></html>".to_vec()
        );
    }
}
