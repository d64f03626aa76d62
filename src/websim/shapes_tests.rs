//! The shapes occur across the procedural web, deterministically, and the
//! ground truth knows which pages have no text.

use std::collections::BTreeMap;

use super::*;
use crate::websim::WebSpec;

/// The web of tests/it/util.rs `small_web`.
const SMALL: WebSpec = WebSpec {
    seed: 7,
    hosts: 120,
    pages: 2_400,
    chrome: false,
    discovery: false,
    changes: false,
};

/// How often each shape occurs in a web: every page and `/moved/` page
/// rendered and its markup counted.
fn census(web: &Web) -> BTreeMap<&'static str, usize> {
    let mut count = BTreeMap::new();
    let mut add = |shape: &'static str, n: usize| *count.entry(shape).or_insert(0) += n;
    for (h, host) in web.hosts.iter().enumerate() {
        for j in 0..host.pages {
            let path = web.page_path(h, j);
            let answer = web.respond(&host.name, &path);
            if answer.status != 200 {
                continue;
            }
            let html = body_text(web, h, j, &answer);
            add("pages", 1);
            for (tag, inner) in anchors(&html) {
                let inner = inner.trim();
                add("a", 1);
                add("a: image", usize::from(inner.starts_with("<img")));
                add(
                    "a: image, alt=\"\"",
                    usize::from(inner.contains("alt=\"\"")),
                );
                add("a: empty", usize::from(inner.is_empty()));
                add("a: icon", usize::from(inner.starts_with("<i ")));
                add("a: nested", usize::from(inner.starts_with("<span")));
                add("a hreflang", usize::from(tag.contains(" hreflang=")));
                if tag.contains("/moved/") {
                    add("a -> /moved/ (meta refresh)", 1);
                    let target = attr(tag, "href").unwrap();
                    let moved = web.respond(&host.name, target);
                    let html = String::from_utf8_lossy(&moved.body).to_lowercase();
                    assert!(html.contains("http-equiv=\"refresh\""), "{target}");
                    assert!(is_textless(&html), "{target}: {html}");
                    let url = format!("http://{}{target}", host.name);
                    assert!(web.no_text(&url) && web.truth(&url).is_none(), "{url}");
                }
            }
            let url = web.url(h, j);
            let textless = web.no_text(&url);
            assert_eq!(textless, web.truth(&url).is_none(), "{url}");
            assert_eq!(textless, is_textless(&html), "{url}: {html}");
            add("no text", usize::from(textless));
            add("frameset", usize::from(html.contains("<frameset")));
            add("front refresh", usize::from(html.contains("http-equiv")));
            add("iframe", html.matches("<iframe ").count());
            add("image map", html.matches("<map ").count());
            add("area href", html.matches("<area shape=\"rect\"").count());
            add(
                "link rel=alternate",
                html.matches("rel=\"alternate\"").count(),
            );
            add(
                "link rel=canonical",
                html.matches("rel=\"canonical\"").count(),
            );
            add("link rel=icon", html.matches("rel=\"icon\"").count());
            let junk = ["\0", "&am<span>", "<div><b>", "<p></a>", "javascript:"];
            add("junk", usize::from(junk.iter().any(|m| html.contains(m))));
            let links = answer.headers.iter().filter(|(n, _)| n == "Link");
            add("Link: header", usize::from(links.count() > 0));
            for (name, value) in &answer.headers {
                // Every alternate names a page in the language it says.
                assert_eq!(name, "Link");
                for part in value.split(", <") {
                    let target = part.trim_start_matches('<').split('>').next().unwrap();
                    assert!(web.truth(target).is_some(), "{target}");
                }
            }
            if html.contains("<frameset") {
                for frame in html.split("<frame src=\"").skip(1) {
                    let target = frame.split('"').next().unwrap();
                    let target = format!("http://{}{target}", host.name);
                    assert!(web.truth(&target).is_some(), "frame {target}");
                }
            }
        }
    }
    count
}

fn body_text(web: &Web, h: usize, j: u32, answer: &SimResponse) -> String {
    let style = web.style(h, web.page_lang_index(h, j));
    style.encoding.decode(&answer.body).0.into_owned()
}

/// Each `<a href ...>` start tag and the markup up to its `</a>`.
fn anchors(html: &str) -> Vec<(&str, &str)> {
    html.match_indices("<a href=")
        .filter_map(|(at, _)| {
            let rest = &html[at..];
            let end = rest.find('>')?;
            let inner = &rest[end + 1..];
            Some((&rest[..end], &inner[..inner.find("</a>")?]))
        })
        .collect()
}

fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let at = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    tag[at..].split('"').next()
}

/// No character outside tags, `<title>` and `<script>` but the doctype.
fn is_textless(html: &str) -> bool {
    let mut rest = html;
    let mut text = String::new();
    while let Some(open) = rest.find('<') {
        text.push_str(&rest[..open]);
        let tail = &rest[open..];
        let skip_to = ["<title>", "<script>"]
            .iter()
            .zip(["</title>", "</script>"])
            .find(|(start, _)| tail.starts_with(**start))
            .and_then(|(_, end)| tail.find(end).map(|at| at + end.len()));
        rest = match skip_to {
            Some(at) => &tail[at..],
            None => &tail[tail.find('>').map_or(tail.len(), |at| at + 1)..],
        };
    }
    text.push_str(rest);
    text.trim().is_empty()
}

#[test]
fn every_shape_occurs_and_the_web_is_still_deterministic() {
    for spec in [WebSpec::default(), SMALL] {
        let web = Web::generate(spec);
        let count = census(&web);
        println!("{spec:?}: {count:#?}");
        for (shape, n) in &count {
            assert!(*n > 0, "{spec:?}: no {shape}: {count:?}");
        }
        if spec == SMALL {
            assert_eq!(census(&Web::generate(spec)), count, "deterministic");
        }
        for seed in web.seeds("jpn", 50).iter().chain(&web.seeds("tha", 50)) {
            assert!(web.truth(seed).is_some(), "seeds have text: {seed}");
        }
    }
}

#[test]
fn responses_are_a_pure_function_of_the_url() {
    let (web, again) = (Web::generate(SMALL), Web::generate(SMALL));
    for (h, host) in web.hosts.iter().enumerate().take(40) {
        for path in (0..host.pages.min(12))
            .map(|j| web.page_path(h, j))
            .chain(["/moved/1.html".to_string()])
        {
            assert_eq!(
                web.respond(&host.name, &path),
                again.respond(&host.name, &path)
            );
        }
    }
}

#[test]
fn junk_keeps_the_text_and_garbles_the_markup() {
    let html = "<html><body>\n<p>Everyone has rights. <a href=\"/a\">one</a> <a href=\"/b\">two</a></p>\n<p>All are equal.</p>\n</body></html>\n";
    let mut seen = 0;
    for seed in 0..40 {
        let junk = garble(html, &mut Rng::new(&[seed]));
        assert!(junk.contains("Everyone has rights.") && junk.contains("All are equal."));
        seen += usize::from(junk != html);
    }
    assert!(seen >= 35, "{seen} of 40 garbled");
}
