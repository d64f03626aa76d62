//! Turning a synthetic page into an HTTP answer: corpus text in the page's
//! language, its links with their anchors (in the markup `shapes` gives
//! them), a charset declared (or not) the way its host does. Shared by the
//! procedural web and the web graphs.

use encoding_rs::{Encoding, UTF_8};

use super::corpus::{self, LANGS};
use super::rng::Rng;
use super::shapes;

/// One HTTP answer of the synthetic web.
#[derive(Debug, Clone, PartialEq)]
pub struct SimResponse {
    pub status: u16,
    pub content_type: Option<String>,
    pub location: Option<String>,
    /// Further response headers (`Link`, ...), sent in this order; a name
    /// may repeat.
    pub headers: Vec<(String, String)>,
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
    /// The link's text (for an image link, its `alt`, if it has one).
    pub anchor: String,
    /// How the link is marked up.
    pub form: LinkForm,
    /// An `hreflang` attribute (a language switcher's links).
    pub hreflang: Option<String>,
}

impl SimLink {
    /// A plain `<a href>anchor</a>`.
    pub fn text(href: impl Into<String>, anchor: impl Into<String>) -> Self {
        SimLink {
            href: href.into(),
            anchor: anchor.into(),
            form: LinkForm::Text,
            hreflang: None,
        }
    }
}

/// The markup of an `<a>` link (see `shapes::link_html`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LinkForm {
    /// `<a href>anchor</a>`.
    #[default]
    Text,
    /// `<a href><img src alt></a>`: the anchor as `alt`, or `alt=""`.
    Image { alt: bool },
    /// `<a href></a>` or `<a href> </a>`: no text at all.
    Empty,
    /// `<a href title><i class="icon"></i></a>`: an icon font glyph.
    Icon,
    /// `<a href><span><b>first</b> rest</span></a>`.
    Nested,
}

/// What a page carries besides its paragraphs and links.
#[derive(Debug, Clone, Default)]
pub struct Extras {
    /// Markup for `<head>` (`<link rel=...>` elements).
    pub head: String,
    /// Markup before the heading (a site menu).
    pub top: String,
    /// Markup after the paragraphs (an iframe, an image map, a footer).
    pub body: String,
    /// Extra response headers.
    pub headers: Vec<(String, String)>,
    /// Garble the markup (see `shapes::garble`).
    pub junk: bool,
}

/// A page in corpus language `lang` (index into `corpus::LANGS`): a title,
/// two to six sentences, and `links` spread over the paragraphs.
pub fn render(style: &PageStyle, lang: usize, rng: &mut Rng, links: &[SimLink]) -> SimResponse {
    render_with(style, lang, rng, links, Extras::default())
}

/// [`render`] with `extras`; `rng` draws the text exactly as `render` does.
pub fn render_with(
    style: &PageStyle,
    lang: usize,
    rng: &mut Rng,
    links: &[SimLink],
    extras: Extras,
) -> SimResponse {
    let sentences = corpus::sentences(lang);
    let start = rng.below(sentences.len());
    let paragraphs: Vec<&str> = (0..2 + rng.below(5))
        .map(|k| sentences[(start + k) % sentences.len()])
        .collect();
    let title = corpus::snippet(lang, paragraphs[0], 4);
    let mut html = String::with_capacity(8192);
    html.push_str("<!DOCTYPE html>\n");
    html.push_str(&head_start(style, lang));
    html.push_str(&extras.head);
    html.push_str(&format!(
        "<title>{}</title></head>\n<body>{}<h1>{}</h1>\n",
        escape(&title),
        extras.top,
        escape(&title)
    ));
    let per_paragraph = links.len().div_ceil(paragraphs.len());
    for (k, paragraph) in paragraphs.iter().enumerate() {
        html.push_str("<p>");
        html.push_str(&escape(paragraph));
        for link in links.iter().skip(k * per_paragraph).take(per_paragraph) {
            html.push(' ');
            html.push_str(&shapes::link_html(link));
        }
        html.push_str("</p>\n");
    }
    html.push_str(&extras.body);
    html.push_str("</body></html>\n");
    if extras.junk {
        html = shapes::garble(&html, rng);
    }
    html_response(style, &html, extras.headers)
}

/// `<html>` (with `lang` if the style sets it), `<head>` and the charset
/// declaration the style calls for; the head is left open.
pub fn head_start(style: &PageStyle, lang: usize) -> String {
    let mut html = if style.html_lang {
        format!("<html lang=\"{}\">", LANGS[lang].tag)
    } else {
        "<html>".to_string()
    };
    html.push_str("<head>");
    match style.declared {
        Declared::Meta => html.push_str(&format!("<meta charset=\"{}\">", label(style.encoding))),
        Declared::WrongMeta if style.encoding != UTF_8 => html.push_str("<meta charset=\"utf-8\">"),
        _ => {}
    }
    html
}

/// A 200 answer with `html` encoded and its charset declared in the
/// `Content-Type` header if the style says so.
pub fn html_response(style: &PageStyle, html: &str, headers: Vec<(String, String)>) -> SimResponse {
    let (bytes, _, _) = style.encoding.encode(html);
    let content_type = match style.declared {
        Declared::Header => format!("text/html; charset={}", label(style.encoding)),
        _ => "text/html".into(),
    };
    SimResponse {
        status: 200,
        content_type: Some(content_type),
        location: None,
        headers,
        body: bytes.into_owned(),
    }
}

/// The charset's name as pages write it: Thai sites name windows-874 by
/// its older standard's name.
fn label(encoding: &'static Encoding) -> &'static str {
    if encoding == encoding_rs::WINDOWS_874 {
        "TIS-620"
    } else {
        encoding.name()
    }
}

/// A plain-text answer (robots.txt, errors).
pub fn text_response(status: u16, body: &str) -> SimResponse {
    SimResponse {
        status,
        content_type: Some("text/plain; charset=utf-8".into()),
        location: None,
        headers: Vec::new(),
        body: body.as_bytes().to_vec(),
    }
}

/// A redirect to `location`.
pub fn redirect(location: String) -> SimResponse {
    SimResponse {
        status: 301,
        content_type: None,
        location: Some(location),
        headers: Vec::new(),
        body: Vec::new(),
    }
}

/// `text` with `&`, `<` and `>` escaped (`"` too, for attribute values).
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
