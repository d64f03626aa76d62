//! Turning a synthetic page into an HTTP answer: corpus text in the page's
//! language, its links with their anchors, a charset declared (or not) the
//! way its host does. Shared by the procedural web and the web graphs.

use encoding_rs::{Encoding, UTF_8};

use super::corpus::{self, LANGS};
use super::generator::Rng;

/// One HTTP answer of the synthetic web.
#[derive(Debug, Clone, PartialEq)]
pub struct SimResponse {
    pub status: u16,
    pub content_type: Option<String>,
    pub location: Option<String>,
    pub body: Vec<u8>,
}

/// How a host says which charset its pages are in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declared {
    Header,
    Meta,
    Undeclared,
    /// `<meta charset=utf-8>` on pages that are not UTF-8.
    WrongMeta,
}

/// How often each declaration occurs: a header or `<meta>` most often.
pub const DECLARATIONS: [Declared; 6] = [
    Declared::Header,
    Declared::Header,
    Declared::Meta,
    Declared::Meta,
    Declared::Undeclared,
    Declared::WrongMeta,
];

/// How a page is written: its bytes' charset, how the charset is declared,
/// and whether `<html lang>` is set.
#[derive(Debug, Clone, Copy)]
pub struct PageStyle {
    pub encoding: &'static Encoding,
    pub declared: Declared,
    pub html_lang: bool,
}

/// A link as written into a page.
#[derive(Debug, Clone, PartialEq)]
pub struct SimLink {
    pub href: String,
    pub anchor: String,
}

/// A page in corpus language `lang` (index into `corpus::LANGS`): a title,
/// two to six sentences, and `links` spread over the paragraphs.
pub fn render(style: &PageStyle, lang: usize, rng: &mut Rng, links: &[SimLink]) -> SimResponse {
    let sentences = corpus::sentences(lang);
    let start = rng.below(sentences.len());
    let paragraphs: Vec<&str> = (0..2 + rng.below(5))
        .map(|k| sentences[(start + k) % sentences.len()])
        .collect();
    let title = corpus::snippet(lang, paragraphs[0], 4);
    let encoding = style.encoding;
    // Thai sites name windows-874 by its older standard's name.
    let label = if encoding == encoding_rs::WINDOWS_874 {
        "TIS-620"
    } else {
        encoding.name()
    };
    let mut html = String::with_capacity(8192);
    html.push_str("<!DOCTYPE html>\n");
    if style.html_lang {
        html.push_str(&format!("<html lang=\"{}\">", LANGS[lang].tag));
    } else {
        html.push_str("<html>");
    }
    html.push_str("<head>");
    match style.declared {
        Declared::Meta => html.push_str(&format!("<meta charset=\"{label}\">")),
        Declared::WrongMeta if encoding != UTF_8 => html.push_str("<meta charset=\"utf-8\">"),
        _ => {}
    }
    html.push_str(&format!(
        "<title>{}</title></head>\n<body><h1>{}</h1>\n",
        escape(&title),
        escape(&title)
    ));
    let per_paragraph = links.len().div_ceil(paragraphs.len());
    for (k, paragraph) in paragraphs.iter().enumerate() {
        html.push_str("<p>");
        html.push_str(&escape(paragraph));
        for link in links.iter().skip(k * per_paragraph).take(per_paragraph) {
            html.push_str(&format!(
                " <a href=\"{}\">{}</a>",
                link.href,
                escape(&link.anchor)
            ));
        }
        html.push_str("</p>\n");
    }
    html.push_str("</body></html>\n");
    let (bytes, _, _) = encoding.encode(&html);
    let content_type = match style.declared {
        Declared::Header => format!("text/html; charset={label}"),
        _ => "text/html".into(),
    };
    SimResponse {
        status: 200,
        content_type: Some(content_type),
        location: None,
        body: bytes.into_owned(),
    }
}

/// A plain-text answer (robots.txt, errors).
pub fn text_response(status: u16, body: &str) -> SimResponse {
    SimResponse {
        status,
        content_type: Some("text/plain; charset=utf-8".into()),
        location: None,
        body: body.as_bytes().to_vec(),
    }
}

/// A redirect to `location`.
pub fn redirect(location: String) -> SimResponse {
    SimResponse {
        status: 301,
        content_type: None,
        location: Some(location),
        body: Vec::new(),
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
