//! The words of the university web: each class's important terms (Kumar &
//! Vig's Table 1) in English and in Hindi — the Hindi ones are entries of
//! the built-in dictionary, `sql/tables/dictionary.csv` — and the page
//! texts, anchors, contexts and headings made of them.

use crate::websim::rng::Rng;

/// The classes of the paper's taxonomy, in the order of [`super::RULES`].
pub const CLASSES: [&str; 4] = ["CSE", "IT", "ENGG", "COMP"];

/// Each class's terms as `(English, Hindi)`; the first is its main term.
const TERMS: [&[(&str, &str)]; 4] = [
    &[
        ("Comp. Sc. and Engg.", "कंप्यूटर विज्ञान और अभियांत्रिकी"),
        ("Comp. Sc.", "कंप्यूटर विज्ञान"),
        ("Comp. Engg.", "कंप्यूटर अभियांत्रिकी"),
    ],
    &[("Information Tech.", "सूचना प्रौद्योगिकी")],
    &[("Engineering", "इंजीनियरिंग"), ("Engineering", "अभियांत्रिकी")],
    &[("Computer", "कंप्यूटर"), ("Computer", "संगणक")],
];

/// How often a page names its own class: about 6 points of importance
/// whatever the class, so that a page's own class outweighs the classes
/// its links name.
const MENTIONS: [usize; 4] = [4, 12, 20, 15];

const FILLER_EN: &[&str] = &[
    "syllabus",
    "faculty",
    "students",
    "admission",
    "timetable",
    "notice",
    "laboratory",
    "seminar",
    "results",
    "research",
    "placement",
    "library",
    "hostel",
    "fees",
    "calendar",
];
const FILLER_HI: &[&str] = &[
    "छात्र",
    "प्रवेश",
    "परिणाम",
    "पुस्तकालय",
    "छात्रावास",
    "शुल्क",
    "संकाय",
    "शोध",
    "प्रयोगशाला",
    "पाठ्यक्रम",
];
/// Hindi noise words (entries of `sql/tables/stop_words.csv`).
const NOISE_HI: &[&str] = &["के", "में", "और", "की", "का"];

/// The language a page is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writing {
    English,
    /// Hindi–English: the important terms and the words around links in
    /// Hindi.
    Mixed,
}

impl Writing {
    pub fn lang(self) -> &'static str {
        match self {
            Writing::English => "eng",
            Writing::Mixed => "hin",
        }
    }
}

/// A link's texts: anchor, the sentence around it, the heading above it.
pub struct LinkText {
    pub anchor: String,
    pub context: String,
    pub heading: String,
}

fn term(rng: &mut Rng, class: usize, writing: Writing) -> &'static str {
    let (english, hindi) = *rng.pick(TERMS[class]);
    match writing {
        Writing::English => english,
        Writing::Mixed => hindi,
    }
}

fn filler(rng: &mut Rng, writing: Writing) -> &'static str {
    let words = match writing {
        Writing::English => FILLER_EN,
        Writing::Mixed => FILLER_HI,
    };
    words[rng.below(words.len())]
}

/// The page's heading and body: its class named [`MENTIONS`] times among
/// filler, in English (a mixed page's sentences are English with the
/// terms, and some words, in Hindi).
pub fn page_body(rng: &mut Rng, class: usize, writing: Writing) -> String {
    let mut text = match writing {
        Writing::English => format!("{} Department", TERMS[class][0].0),
        Writing::Mixed => format!("{} विभाग", TERMS[class][0].1),
    };
    for _ in 0..MENTIONS[class] {
        let sentence = match writing {
            Writing::English => format!(
                " The {} {} and {}.",
                term(rng, class, writing),
                filler(rng, writing),
                filler(rng, Writing::English)
            ),
            Writing::Mixed => format!(
                " The {} {} {} and {}.",
                term(rng, class, writing),
                rng.pick(NOISE_HI),
                filler(rng, writing),
                filler(rng, Writing::English)
            ),
        };
        text.push_str(&sentence);
    }
    text
}

/// The texts of a link to a page of class `to`: with probability `named`
/// the anchor names the class (else a generic one), and half the time the
/// heading does.
pub fn link_text(rng: &mut Rng, to: usize, writing: Writing, named: f64) -> LinkText {
    let anchor = if rng.chance(named) {
        format!("{} {}", term(rng, to, writing), filler(rng, writing))
    } else {
        let generic: &[&str] = match writing {
            Writing::English => &["more", "details", "click here", "read on"],
            Writing::Mixed => &["और जानें", "यहाँ देखें", "विवरण"],
        };
        rng.pick(generic).to_string()
    };
    let context = match writing {
        Writing::English => format!("See {anchor} for the {}", filler(rng, writing)),
        Writing::Mixed => format!(
            "हमारे {anchor} {} {}",
            rng.pick(NOISE_HI),
            filler(rng, writing)
        ),
    };
    let heading = match (rng.chance(0.5), writing) {
        (true, Writing::English) => format!("{} links", term(rng, to, writing)),
        (true, Writing::Mixed) => format!("{} लिंक", term(rng, to, writing)),
        (false, Writing::English) => "Quick links".to_string(),
        (false, Writing::Mixed) => "उपयोगी लिंक".to_string(),
    };
    LinkText {
        anchor,
        context,
        heading,
    }
}

/// A navigation link: to the department's home, or its next page.
#[derive(Debug, Clone, Copy)]
pub enum Nav {
    Home,
    Next,
}

/// The texts of a navigation link.
pub fn nav_text(writing: Writing, nav: Nav) -> LinkText {
    let (anchor, heading) = match (writing, nav) {
        (Writing::English, Nav::Next) => ("Next page", "Navigation"),
        (Writing::English, Nav::Home) => ("Department home", "Navigation"),
        (Writing::Mixed, Nav::Next) => ("अगला पृष्ठ", "नेविगेशन"),
        (Writing::Mixed, Nav::Home) => ("विभाग मुखपृष्ठ", "नेविगेशन"),
    };
    LinkText {
        anchor: anchor.to_string(),
        context: anchor.to_string(),
        heading: heading.to_string(),
    }
}
