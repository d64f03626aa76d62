//! What `hostile_server`'s `sitemap-*` hosts serve: robots.txt naming each
//! one's sitemap, the small sitemap files, and the large ones streamed in
//! chunks (a 60 MB file, 1,000,000 URLs, a gzip bomb).

use std::sync::LazyLock;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

use crate::hostile_server::gzip_bomb;

/// The `sitemap-*` hosts and the sitemap each one's robots.txt names.
pub const SITEMAP_HOSTS: [(&str, &str); 6] = [
    ("sitemap-big.test", "http://sitemap-big.test/big.xml"),
    ("sitemap-bomb.test", "http://sitemap-bomb.test/bomb.xml.gz"),
    (
        "sitemap-million.test",
        "http://sitemap-million.test/million.txt",
    ),
    (
        "sitemap-malformed.test",
        "http://sitemap-malformed.test/bad.xml",
    ),
    ("sitemap-self.test", "http://sitemap-self.test/index.xml"),
    ("sitemap-cross.test", "http://sitemap-store.test/cross.xml"),
];

/// Bytes of comments `sitemap-big.test`'s /big.xml holds after its one URL.
pub const BIG_SITEMAP_BYTES: usize = 60_000_000;
/// URLs `sitemap-million.test`'s /million.txt lists.
pub const MILLION: usize = 1_000_000;

const URLSET: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
                      <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n";

fn urls(locs: &[&str]) -> String {
    locs.iter()
        .map(|loc| format!("<url><loc>{loc}</loc></url>\n"))
        .collect()
}

/// robots.txt and the small sitemap files of the `sitemap-*` hosts.
pub(crate) fn sitemap_file(host: &str, path: &str) -> Option<String> {
    let named = SITEMAP_HOSTS.iter().find(|(h, _)| *h == host);
    let index = "<?xml version=\"1.0\"?>\n<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n\
                 <sitemap><loc>http://sitemap-self.test/index.xml</loc></sitemap>\n\
                 <sitemap><loc>/child.xml</loc></sitemap>\n</sitemapindex>\n";
    Some(match (host, path) {
        (_, "/robots.txt") => format!("User-agent: *\nDisallow: /private/\n\nSitemap: {}\n", named?.1),
        ("sitemap-malformed.test", "/bad.xml") => format!(
            "{URLSET}{}<url><loc>http://sitemap-malformed.test/3</lo></url>\n<url><loc>http://sitemap-malformed.test/4",
            urls(&["http://sitemap-malformed.test/1", "http://sitemap-malformed.test/2"])
        ),
        ("sitemap-self.test", "/index.xml") => index.to_string(),
        ("sitemap-self.test", "/child.xml") => format!(
            "{URLSET}{}</urlset>\n",
            urls(&["http://sitemap-self.test/c/1", "http://sitemap-self.test/c/2"])
        ),
        ("sitemap-store.test", "/cross.xml") => format!(
            "{URLSET}{}</urlset>\n",
            urls(&[
                "http://sitemap-cross.test/listed",
                "http://sitemap-store.test/own",
                "http://third-party.test/elsewhere",
            ])
        ),
        _ => return None,
    })
}

/// /big.xml of `sitemap-big.test`, in chunks: a urlset with one URL, then
/// [`BIG_SITEMAP_BYTES`] of comments, then its end tag.
pub(crate) fn big_sitemap() -> impl Iterator<Item = String> + Send {
    let head = format!("{URLSET}{}", urls(&["http://sitemap-big.test/first"]));
    let comments = "<!-- padding -->\n".repeat(4096);
    let count = BIG_SITEMAP_BYTES / comments.len() + 1;
    let padding = std::iter::repeat_n(comments, count);
    std::iter::once(head)
        .chain(padding)
        .chain(std::iter::once("</urlset>\n".to_string()))
}

/// /million.txt of `sitemap-million.test`: [`MILLION`] URL lines, in chunks
/// of 10,000 lines.
pub(crate) fn million_sitemap() -> impl Iterator<Item = String> + Send {
    (0..MILLION / 10_000).map(|chunk| {
        (chunk * 10_000..(chunk + 1) * 10_000)
            .map(|n| format!("http://sitemap-million.test/p/{n}\n"))
            .collect()
    })
}

/// `sitemap-bomb.test`'s /bomb.xml.gz: a urlset head and one URL, then
/// [`BOMB_BYTES`] of spaces, gzipped.
pub(crate) static SITEMAP_BOMB: LazyLock<Vec<u8>> = LazyLock::new(|| {
    let head = format!("{URLSET}{}", urls(&["http://sitemap-bomb.test/first"]));
    gzip_bomb(head.as_bytes(), b' ')
});

/// A 200 answer with a chunked body: each item one chunk (streamed, never
/// all in memory).
pub(crate) async fn chunked<B: AsRef<[u8]>>(
    stream: &mut TcpStream,
    content_type: &str,
    chunks: impl IntoIterator<Item = B>,
) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nTransfer-Encoding: chunked\r\n\
         Connection: close\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await?;
    for chunk in chunks {
        let chunk = chunk.as_ref();
        stream
            .write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
            .await?;
        stream.write_all(chunk).await?;
        stream.write_all(b"\r\n").await?;
    }
    stream.write_all(b"0\r\n\r\n").await
}

#[test]
fn the_sitemap_bomb_starts_with_a_urlset_then_spaces() {
    let mut decoder = flate2::read::GzDecoder::new(&SITEMAP_BOMB[..]);
    let mut head = vec![0u8; 1 << 20];
    std::io::Read::read_exact(&mut decoder, &mut head).unwrap();
    let text = String::from_utf8(head).unwrap();
    assert!(text.starts_with(URLSET), "{}", &text[..200]);
    assert!(text.contains("<loc>http://sitemap-bomb.test/first</loc></url>\n   "));
    assert!(SITEMAP_BOMB.len() < 2 << 20, "{} bytes", SITEMAP_BOMB.len());
}
