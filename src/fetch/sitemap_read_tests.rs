use std::io::Write;
use std::time::{Duration, Instant};

use flate2::write::GzEncoder;
use flate2::Compression;
use proptest::prelude::*;

use super::*;

const MULTILINGUAL: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url>
    <loc>https://www.example.com/en/page.html</loc>
    <lastmod>2024-05-01T10:00:00+00:00</lastmod>
    <xhtml:link rel="alternate" hreflang="en" href="https://www.example.com/en/page.html"/>
    <xhtml:link rel="alternate" hreflang="th" href="https://www.example.com/th/page.html"/>
    <xhtml:link rel="alternate" hreflang="x-default" href="https://www.example.com/page.html"/>
  </url>
  <url>
    <loc>https://www.example.com/th/page.html</loc>
    <lastmod>2024-05-02</lastmod>
    <xhtml:link rel="alternate" hreflang="en" href="https://www.example.com/en/page.html"/>
    <xhtml:link rel="alternate" hreflang="th" href="https://www.example.com/th/page.html"/>
    <xhtml:link rel="alternate" hreflang="x-default" href="https://www.example.com/page.html"/>
  </url>
</urlset>
"#;

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

fn entry(loc: &str, lastmod: Option<&str>, alternates: &[(&str, &str)]) -> Entry {
    Entry {
        loc: loc.to_string(),
        lastmod: lastmod.map(str::to_string),
        alternates: alternates
            .iter()
            .map(|(l, h)| Alternate {
                hreflang: l.to_string(),
                href: h.to_string(),
            })
            .collect(),
    }
}

fn locs(sitemap: &Sitemap) -> Vec<&str> {
    sitemap.entries.iter().map(|e| e.loc.as_str()).collect()
}

fn multilingual_entries() -> Vec<Entry> {
    let alternates = [
        ("en", "https://www.example.com/en/page.html"),
        ("th", "https://www.example.com/th/page.html"),
        ("x-default", "https://www.example.com/page.html"),
    ];
    vec![
        entry(
            "https://www.example.com/en/page.html",
            Some("2024-05-01T10:00:00+00:00"),
            &alternates,
        ),
        entry(
            "https://www.example.com/th/page.html",
            Some("2024-05-02"),
            &alternates,
        ),
    ]
}

#[test]
fn multilingual_urlset_keeps_entries_and_alternates() {
    let sitemap = read(MULTILINGUAL.as_bytes());
    assert_eq!(sitemap.kind, SitemapKind::UrlSet);
    assert_eq!(sitemap.entries, multilingual_entries());
    assert_eq!(sitemap.problem, None);
    assert_eq!(sitemap.skipped, 0);
    assert_eq!(sitemap.decoded_bytes, MULTILINGUAL.len() as u64);
}

#[test]
fn sitemap_index_lists_child_sitemaps() {
    let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>https://a.example/sitemap1.xml</loc><lastmod>2024-01-01</lastmod></sitemap>
  <sitemap>
    <loc>https://a.example/sitemap2.xml.gz</loc>
    <lastmod>2024-02-01T00:00:00Z</lastmod>
  </sitemap>
</sitemapindex>"#;
    let sitemap = read(xml.as_bytes());
    assert_eq!(sitemap.kind, SitemapKind::Index);
    assert_eq!(sitemap.kind.as_str(), "index");
    assert_eq!(
        sitemap.entries,
        vec![
            entry("https://a.example/sitemap1.xml", Some("2024-01-01"), &[]),
            entry(
                "https://a.example/sitemap2.xml.gz",
                Some("2024-02-01T00:00:00Z"),
                &[]
            ),
        ]
    );
    assert_eq!(sitemap.problem, None);
}

#[test]
fn gzipped_urlset_reads_like_plain() {
    let body = gzip(MULTILINGUAL.as_bytes());
    let sitemap = read(&body);
    assert_eq!(sitemap.entries, multilingual_entries());
    assert_eq!(sitemap.problem, None);
    assert_eq!(sitemap.decoded_bytes, MULTILINGUAL.len() as u64);
}

#[test]
fn text_sitemap_keeps_only_url_lines() {
    let body =
        "\u{feff}https://a.example/1\r\n\r\n# comment https://x/\r\n  HTTP://A.example/2  \r\n\
                ftp://a.example/3\r\nnot a url\r\nhttps://a.example/4";
    let sitemap = read(body.as_bytes());
    assert_eq!(sitemap.kind, SitemapKind::Text);
    assert_eq!(
        locs(&sitemap),
        [
            "https://a.example/1",
            "HTTP://A.example/2",
            "https://a.example/4"
        ]
    );
    assert_eq!(sitemap.problem, None);
    assert!(sitemap
        .entries
        .iter()
        .all(|e| e.lastmod.is_none() && e.alternates.is_empty()));
}

#[test]
fn rss_and_atom_feeds() {
    let rss = r#"<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>
<link>https://blog.example/</link>
<item><title>One</title><link>https://blog.example/1</link><pubDate>Mon, 06 May 2024 10:00:00 GMT</pubDate></item>
<item><link>
  https://blog.example/2
</link><pubDate>Tue, 07 May 2024 10:00:00 GMT</pubDate></item>
</channel></rss>"#;
    let sitemap = read(rss.as_bytes());
    assert_eq!(sitemap.kind, SitemapKind::Rss);
    assert_eq!(
        sitemap.entries,
        vec![
            entry(
                "https://blog.example/1",
                Some("Mon, 06 May 2024 10:00:00 GMT"),
                &[]
            ),
            entry(
                "https://blog.example/2",
                Some("Tue, 07 May 2024 10:00:00 GMT"),
                &[]
            ),
        ]
    );
    let atom = r#"<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title><link href="https://blog.example/"/>
<entry><title>One</title><link rel="self" href="https://blog.example/1.atom"/>
  <link href="https://blog.example/1"/><updated>2024-05-06T10:00:00Z</updated></entry>
<entry><link rel="alternate" type="text/html" href="https://blog.example/2"/>
  <published>2024-05-01T00:00:00Z</published><updated>2024-05-07T10:00:00Z</updated></entry>
</feed>"#;
    let sitemap = read(atom.as_bytes());
    assert_eq!(sitemap.kind, SitemapKind::Atom);
    assert_eq!(
        sitemap.entries,
        vec![
            entry("https://blog.example/1", Some("2024-05-06T10:00:00Z"), &[]),
            entry("https://blog.example/2", Some("2024-05-07T10:00:00Z"), &[]),
        ]
    );
    assert_eq!(sitemap.problem, None);
}

#[test]
fn loc_text_is_decoded_joined_and_trimmed() {
    let xml = "<urlset>\
        <url><loc><![CDATA[http://a/?x=1&y=<2>]]></loc></url>\
        <url><loc>http://a/?a=1&amp;b=2</loc></url>\
        <url><loc>\n   http://a/ws\t\r\n  </loc></url>\
        <url><loc> http://a/<![CDATA[c]]>&#x41;&#66;?q&amp;r </loc></url>\
        <url><loc>http://a/?n=&nbsp;&amp;m=1&x</loc></url>\
        <url><loc>http://a/img</loc><image:image><image:loc>http://img/1.png</image:loc></image:image></url>\
        </urlset>";
    let sitemap = read(xml.as_bytes());
    assert_eq!(
        locs(&sitemap),
        [
            "http://a/?x=1&y=<2>",
            "http://a/?a=1&b=2",
            "http://a/ws",
            "http://a/cAB?q&r",
            "http://a/?n=&nbsp;&m=1&x",
            "http://a/img",
        ]
    );
    assert_eq!(sitemap.problem, None);
}

#[test]
fn empty_and_overlong_locs_are_skipped_and_counted() {
    let long = format!("http://a/{}", "x".repeat(MAX_URL_CHARS));
    let huge = format!("http://a/{}", "y".repeat(100_000));
    let xml = format!(
        "<urlset><url><loc>  </loc></url><url/><url><loc>{long}</loc></url>\
         <url><loc>{huge}</loc></url><url><loc>http://a/ok</loc>\
         <link rel=\"alternate\" hreflang=\"en\" href=\"{long}\"/></url></urlset>"
    );
    let sitemap = read(xml.as_bytes());
    assert_eq!(sitemap.entries, vec![entry("http://a/ok", None, &[])]);
    assert_eq!(sitemap.skipped, 5);
    assert_eq!(sitemap.problem, None);
}

#[test]
fn alternates_beyond_the_limit_are_skipped() {
    let link = r#"<xhtml:link rel="alternate" hreflang="th" href="http://b/"/>"#;
    let mut xml = String::from("<urlset><url><loc>http://a/1</loc>");
    xml.push_str(&link.repeat(MAX_ALTERNATES - 1));
    xml.push_str("</url><url><loc>http://a/2</loc>");
    xml.push_str(&link.repeat(3));
    xml.push_str("<xhtml:link rel=\"canonical\" hreflang=\"en\" href=\"http://c/\"/>");
    xml.push_str("<xhtml:link rel=\"alternate\" href=\"http://c/\"/></url></urlset>");
    let sitemap = read(xml.as_bytes());
    assert_eq!(locs(&sitemap), ["http://a/1", "http://a/2"]);
    assert_eq!(sitemap.entries[0].alternates.len(), MAX_ALTERNATES - 1);
    assert_eq!(
        sitemap.entries[1].alternates,
        [Alternate {
            hreflang: "th".into(),
            href: "http://b/".into()
        }]
    );
    assert_eq!(sitemap.skipped, 2);
    assert_eq!(sitemap.problem, None);
}

#[test]
fn malformed_xml_keeps_what_came_before() {
    let good = "<urlset><url><loc>http://a/1</loc></url>";
    for bad in [
        "<url><loc>http://a/2</lox></url></urlset>",
        "<url><loc>http://a/2</lo",
        "<url><loc>http://a/2</loc>",
        "</urlset></urlset>",
    ] {
        let sitemap = read(format!("{good}{bad}").as_bytes());
        assert_eq!(locs(&sitemap), ["http://a/1"], "{bad}");
        let problem = sitemap.problem.unwrap();
        assert!(problem.starts_with("malformed: "), "{bad}: {problem}");
        assert!(problem.contains("at byte "), "{problem}");
        assert!(!problem.contains('\n'));
    }
}

#[test]
fn broken_gzip_is_reported() {
    let body = gzip(MULTILINGUAL.as_bytes());
    let truncated = read(&body[..body.len() / 2]);
    assert!(truncated.problem.unwrap().starts_with("bad-gzip: "));
    let garbage = read(b"\x1f\x8bnot gzip at all");
    assert!(garbage.problem.unwrap().starts_with("bad-gzip: "));
    assert!(garbage.entries.is_empty());
}

fn urlset_of(n: usize) -> String {
    let mut xml = String::from("<urlset>");
    for i in 0..n {
        xml.push_str(&format!("<url><loc>http://a/{i}</loc></url>"));
    }
    xml + "</urlset>"
}

#[test]
fn more_than_max_urls_keeps_the_first_max() {
    let sitemap = read(urlset_of(MAX_URLS + 1).as_bytes());
    assert_eq!(sitemap.entries.len(), MAX_URLS);
    assert_eq!(
        sitemap.entries[MAX_URLS - 1].loc,
        format!("http://a/{}", MAX_URLS - 1)
    );
    assert_eq!(sitemap.problem.as_deref(), Some("too-many-urls"));
    let exactly = read(urlset_of(MAX_URLS).as_bytes());
    assert_eq!((exactly.entries.len(), exactly.problem), (MAX_URLS, None));
    let text: String = (0..=MAX_URLS).map(|i| format!("http://a/{i}\n")).collect();
    let sitemap = read(text.as_bytes());
    assert_eq!(sitemap.entries.len(), MAX_URLS);
    assert_eq!(sitemap.problem.as_deref(), Some("too-many-urls"));
}

#[test]
fn gzip_bomb_stops_at_the_decoded_limit() {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::fast());
    let chunk = vec![0u8; 1 << 20];
    for _ in 0..200 {
        encoder.write_all(&chunk).unwrap();
    }
    let bomb = encoder.finish().unwrap();
    let started = Instant::now();
    let sitemap = read(&bomb);
    let took = started.elapsed();
    assert_eq!(sitemap.problem.as_deref(), Some("too-large"));
    // Exactly one byte past the limit is read, to tell "too-large" apart.
    assert_eq!(sitemap.decoded_bytes, MAX_DECODED_BYTES as u64 + 1);
    assert!(sitemap.entries.is_empty());
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

#[test]
fn deep_nesting_and_oversized_documents_are_bounded() {
    let deep = format!("<urlset>{}", "<a>".repeat(100_000));
    let sitemap = read(deep.as_bytes());
    assert!(sitemap.entries.is_empty());
    assert!(sitemap.problem.unwrap().starts_with("malformed"));

    let first = "<urlset><url><loc>http://a/1</loc></url>";
    let pad = 60 * 1024 * 1024;
    for (open, close) in [("<!--", "-->"), ("<url><loc>", "</loc></url>"), ("", "")] {
        let mut xml = String::with_capacity(pad + 100);
        xml.push_str(first);
        xml.push_str(open);
        xml.extend(std::iter::repeat_n('x', pad));
        xml.push_str(close);
        xml.push_str("</urlset>");
        let sitemap = read(xml.as_bytes());
        assert_eq!(locs(&sitemap), ["http://a/1"], "{open}");
        assert_eq!(sitemap.problem.as_deref(), Some("too-large"), "{open}");
        assert_eq!(sitemap.decoded_bytes, MAX_DECODED_BYTES as u64 + 1);
    }
}

#[test]
fn other_documents_are_not_sitemaps() {
    let html = "<!DOCTYPE html>\n<html><head><title>x</title></head>\
                <body><a href=\"http://a/\">a</a></body></html>";
    for body in [
        html,
        "<?xml version=\"1.0\"?><note>http://a/</note>",
        "",
        "  \n",
        "hello\nworld\n",
    ] {
        let sitemap = read(body.as_bytes());
        assert_eq!(sitemap.problem.as_deref(), Some("not-a-sitemap"), "{body}");
        assert!(sitemap.entries.is_empty());
    }
    assert_eq!(read(html.as_bytes()).kind, SitemapKind::UrlSet);
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('"', "&quot;")
}

type Generated = (String, Option<String>, bool, Vec<(String, String)>);

fn generated_url() -> impl Strategy<Value = Generated> {
    let url = "https?://[a-z0-9]{1,10}\\.[a-z]{2,3}/[a-zA-Z0-9/._~-]{0,20}(\\?[a-z]{1,4}=[a-z0-9]{0,4}(&[a-z]{1,4}=[a-z0-9]{1,4})?)?";
    let alternate = ("[a-z]{2}(-[A-Z]{2})?|x-default", url);
    (
        url,
        proptest::option::of("20[0-9]{2}-[01][0-9]-[0-3][0-9]"),
        any::<bool>(),
        proptest::collection::vec(alternate, 0..3),
    )
}

fn write_urlset(urls: &[Generated]) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\" \
         xmlns:xhtml=\"http://www.w3.org/1999/xhtml\">\n",
    );
    for (loc, lastmod, cdata, alternates) in urls {
        if *cdata {
            xml.push_str(&format!("<url>\n  <loc><![CDATA[{loc}]]></loc>\n"));
        } else {
            xml.push_str(&format!("<url>\n  <loc> {} </loc>\n", escape(loc)));
        }
        if let Some(lastmod) = lastmod {
            xml.push_str(&format!("  <lastmod>{lastmod}</lastmod>\n"));
        }
        for (lang, href) in alternates {
            let href = escape(href);
            xml.push_str(&format!(
                "  <xhtml:link rel=\"alternate\" hreflang=\"{lang}\" href=\"{href}\"/>\n"
            ));
        }
        xml.push_str("</url>\n");
    }
    xml + "</urlset>\n"
}

const TOKENS: &[&str] = &[
    "<urlset>",
    "</urlset>",
    "<url>",
    "</url>",
    "<loc>",
    "</loc>",
    "<lastmod>",
    "</lastmod>",
    "<",
    ">",
    "&",
    "&amp;",
    "&#x;",
    "&#0;",
    "&#1114112;",
    "<![CDATA[",
    "]]>",
    "http://a/",
    " ",
    "\n",
    "<!--",
    "-->",
    "<?xml?>",
    "<xhtml:link rel=\"alternate\" hreflang=\"th\" href=\"http://b/\"/>",
    "<link href=\"http://c/\"/>",
    "<feed>",
    "<entry>",
    "<rss>",
    "<item>",
    "<link>",
    "\u{feff}",
    "\u{e01}",
    "\x1f",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::testing::cases(256)))]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..4096), gz in any::<bool>()) {
        let body = if gz { gzip(&bytes) } else { bytes };
        let sitemap = read(&body);
        prop_assert!(sitemap.entries.len() <= MAX_URLS);
    }

    #[test]
    fn generated_urlsets_round_trip(urls in proptest::collection::vec(generated_url(), 1..20), gz in any::<bool>()) {
        let xml = write_urlset(&urls);
        let body = if gz { gzip(xml.as_bytes()) } else { xml.clone().into_bytes() };
        let sitemap = read(&body);
        let expected: Vec<Entry> = urls
            .iter()
            .map(|(loc, lastmod, _, alternates)| Entry {
                loc: loc.clone(),
                lastmod: lastmod.clone(),
                alternates: alternates
                    .iter()
                    .map(|(l, h)| Alternate { hreflang: l.clone(), href: h.clone() })
                    .collect(),
            })
            .collect();
        prop_assert_eq!(sitemap.entries, expected);
        prop_assert_eq!(sitemap.problem, None);
        prop_assert_eq!(sitemap.decoded_bytes, xml.len() as u64);
    }

    #[test]
    fn token_soup_never_panics(
        root in proptest::sample::select(&["<urlset>", "<sitemapindex>", "<rss>", "<feed>", ""][..]),
        tokens in proptest::collection::vec(proptest::sample::select(TOKENS), 0..300),
    ) {
        let sitemap = read((root.to_string() + &tokens.concat()).as_bytes());
        prop_assert!(sitemap.entries.len() <= MAX_URLS);
        for e in &sitemap.entries {
            prop_assert!(!e.loc.is_empty() && e.loc.trim() == e.loc);
        }
    }
}
