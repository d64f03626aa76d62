use super::*;
use crate::fetch::sitemap_rows::MAX_ALTERNATES_PER_URL;

fn answer(status: u16, body: &str) -> Response {
    Response {
        http_status: Some(status),
        content: body.as_bytes().to_vec(),
        ..Response::default()
    }
}

fn robots_file(url: &str) -> File {
    File {
        url: url.into(),
        parent: None,
        level: 0,
        found_by: "robots",
    }
}

/// Reads every file of `walk` from `web` (path → answer), returning all rows.
fn read_all(walk: &mut Walk, web: &[(&str, Response)]) -> Vec<SitemapRow> {
    let mut rows = Vec::new();
    while let Some((file, url)) = walk.next_file(&mut rows) {
        let missing = answer(404, "");
        let response = web
            .iter()
            .find(|(u, _)| *u == file.url)
            .map_or(&missing, |(_, r)| r);
        rows.extend(walk.read(&file, &url, response));
    }
    rows
}

const URLSET: &str = r#"<?xml version="1.0"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
<url><loc>http://a.com/p1</loc><lastmod>2026-01-02</lastmod>
<xhtml:link rel="alternate" hreflang="th" href="http://th.a.com/p1"/></url>
<url><loc>http://b.com/elsewhere</loc></url>
</urlset>"#;

#[test]
fn entries_and_alternates_are_rows_and_other_hosts_are_dropped() {
    let mut walk = Walk::new("a.com", vec![robots_file("http://a.com/sitemap.xml")]);
    let rows = read_all(
        &mut walk,
        &[("http://a.com/sitemap.xml", answer(200, URLSET))],
    );
    let got: Vec<_> = rows
        .iter()
        .map(|r| (r.kind.unwrap(), r.url.as_deref().unwrap(), r.dropped))
        .collect();
    assert_eq!(
        got,
        [
            ("sitemap", "http://a.com/p1", None),
            ("sitemap-alternate", "http://th.a.com/p1", None),
            ("sitemap", "http://b.com/elsewhere", Some("other-host")),
        ]
    );
    assert_eq!(rows[0].lastmod.as_deref(), Some("2026-01-02"));
    assert_eq!(rows[1].hreflang.as_deref(), Some("th"));
    assert_eq!(rows[1].alternate_of.as_deref(), Some("http://a.com/p1"));
    assert!(rows
        .iter()
        .all(|r| r.status == "read" && r.format == Some("urlset")));
}

#[test]
fn a_sitemap_on_another_host_lists_the_robots_host_and_its_own() {
    let body = "http://a.com/x\nhttp://cdn.net/y\nhttp://c.org/z\n";
    let mut walk = Walk::new("a.com", vec![robots_file("http://cdn.net/a.txt")]);
    let rows = read_all(&mut walk, &[("http://cdn.net/a.txt", answer(200, body))]);
    let dropped: Vec<_> = rows.iter().map(|r| r.dropped).collect();
    assert_eq!(dropped, [None, None, Some("other-host")]);
}

#[test]
fn an_index_that_lists_itself_is_read_once_and_nesting_is_bounded() {
    let index = |children: &[&str]| {
        let items: String = children
            .iter()
            .map(|c| format!("<sitemap><loc>{c}</loc></sitemap>"))
            .collect();
        answer(200, &format!("<sitemapindex>{items}</sitemapindex>"))
    };
    let web = [
        (
            "http://a.com/i0.xml",
            index(&["http://a.com/i0.xml", "/i1.xml"]),
        ),
        (
            "http://a.com/i1.xml",
            index(&["/i2.xml", "http://other.com/s.xml"]),
        ),
        ("http://a.com/i2.xml", index(&["/i3.xml"])),
        ("http://a.com/i3.xml", answer(200, URLSET)),
    ];
    let mut walk = Walk::new("a.com", vec![robots_file("http://a.com/i0.xml")]);
    let rows = read_all(&mut walk, &web);
    let skipped: Vec<_> = rows
        .iter()
        .filter(|r| r.status == "skipped")
        .map(|r| (r.sitemap.as_str(), r.error.as_deref().unwrap()))
        .collect();
    assert_eq!(
        skipped,
        [("http://a.com/i0.xml", "listed again (a loop or a repeat)")]
    );
    let too_deep = rows
        .iter()
        .find(|r| r.url.as_deref() == Some("http://a.com/i3.xml"));
    assert_eq!(too_deep.unwrap().dropped, Some("too-deep"), "never queued");
    let other = rows
        .iter()
        .find(|r| r.url.as_deref() == Some("http://other.com/s.xml"));
    assert_eq!(other.unwrap().dropped, Some("other-host"));
    assert!(
        !rows.iter().any(|r| r.kind == Some("sitemap")),
        "i3 is never read"
    );
}

#[test]
fn a_host_reads_at_most_max_files() {
    let files = (0..MAX_FILES + 5)
        .map(|i| robots_file(&format!("http://a.com/s{i}.txt")))
        .collect();
    let mut walk = Walk::new("a.com", files);
    let rows = read_all(&mut walk, &[]);
    let failed = rows.iter().filter(|r| r.status == "failed").count();
    let skipped = rows.iter().filter(|r| r.status == "skipped").count();
    assert_eq!(
        (failed, skipped),
        (MAX_FILES, 5),
        "404s read, the rest skipped"
    );
    assert_eq!(rows[0].error.as_deref(), Some("HTTP 404"));
}

#[test]
fn a_cut_file_keeps_what_it_listed_and_says_why() {
    let mut response = answer(
        200,
        "<urlset><url><loc>http://a.com/1</loc></url><url><loc>http://a.",
    );
    response.truncated = true;
    let mut walk = Walk::new("a.com", vec![robots_file("http://a.com/big.xml")]);
    let rows = read_all(&mut walk, &[("http://a.com/big.xml", response)]);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].status, "cut");
    assert_eq!(rows[0].url.as_deref(), Some("http://a.com/1"));
    let error = rows[0].error.as_deref().unwrap();
    assert!(
        error.starts_with("too-large: cut at"),
        "the cut, not the XML it broke: {error}"
    );
}

#[test]
fn robots_sitemaps_come_first_and_guessing_is_asked_for() {
    let page = Url::parse("http://a.com/x/y.html").unwrap();
    let named = vec!["/maps/s.xml".to_string()];
    let files = first_files(&named, &page, true);
    assert_eq!(files[0].url, "http://a.com/maps/s.xml");
    assert_eq!(
        first_files(&[], &page, true)[0].url,
        "http://a.com/sitemap.xml"
    );
    assert_eq!(first_files(&[], &page, true)[0].found_by, "guess");
    assert!(first_files(&[], &page, false).is_empty());
}

#[test]
fn a_redirect_is_followed_once_within_the_files_a_host_reads() {
    let mut moved = answer(301, "");
    moved.location = Some("https://a.com/sitemap.xml".into());
    let web = [
        ("http://a.com/sitemap.xml", moved),
        ("https://a.com/sitemap.xml", answer(200, URLSET)),
    ];
    let mut walk = Walk::new("a.com", vec![robots_file("http://a.com/sitemap.xml")]);
    let rows = read_all(&mut walk, &web);
    assert_eq!(rows[0].status, "redirected");
    assert_eq!(rows[0].error.as_deref(), Some("https://a.com/sitemap.xml"));
    assert!(rows[1..]
        .iter()
        .all(|r| r.status == "read" && r.found_by == "redirect"));
    assert_eq!(rows[1].url.as_deref(), Some("http://a.com/p1"));
}

#[test]
fn an_index_of_many_children_queues_no_more_than_the_host_reads() {
    let items: String = (0..MAX_FILES * 3)
        .map(|i| format!("<sitemap><loc>http://a.com/s{i}.txt</loc></sitemap>"))
        .collect();
    let index = answer(200, &format!("<sitemapindex>{items}</sitemapindex>"));
    let mut walk = Walk::new("a.com", vec![robots_file("http://a.com/index.xml")]);
    let rows = read_all(&mut walk, &[("http://a.com/index.xml", index)]);
    let dropped = rows
        .iter()
        .filter(|r| r.dropped == Some("too-many-files"))
        .count();
    assert_eq!(
        dropped,
        MAX_FILES * 2 + 1,
        "the index itself is one of the files"
    );
    assert!(
        rows.iter().all(|r| r.status != "skipped"),
        "nothing queued in vain"
    );
}

#[test]
fn alternates_count_on_the_hosts_domain_and_keep_the_lastmod() {
    let links: String = ["http://ja.a.com/p", "http://a.jp/p", "http://a.com/en/p"]
        .iter()
        .map(|h| format!(r#"<xhtml:link rel="alternate" hreflang="x" href="{h}"/>"#))
        .collect();
    let extra: String = (0..MAX_ALTERNATES_PER_URL)
        .map(|i| format!(r#"<xhtml:link rel="alternate" hreflang="x" href="http://a.com/{i}"/>"#))
        .collect();
    let body = format!(
        "<urlset><url><loc>http://a.com/p</loc><lastmod>2026-01-01</lastmod>{links}{extra}</url></urlset>"
    );
    let mut walk = Walk::new("a.com", vec![robots_file("http://a.com/s.xml")]);
    let rows = read_all(&mut walk, &[("http://a.com/s.xml", answer(200, &body))]);
    let alternates: Vec<_> = rows
        .iter()
        .filter(|r| r.kind == Some("sitemap-alternate"))
        .collect();
    assert_eq!(alternates.len(), MAX_ALTERNATES_PER_URL, "capped per URL");
    let dropped: Vec<_> = alternates[..3].iter().map(|r| r.dropped).collect();
    assert_eq!(dropped, [None, Some("other-host"), None]);
    assert!(alternates
        .iter()
        .all(|r| r.lastmod.as_deref() == Some("2026-01-01")));
}
