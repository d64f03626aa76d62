//! Language and charset identification: decode a page's bytes, name the
//! language of its visible text, name the language of a short anchor, and
//! the language a URL names (`/th/`, `hl=ja`, `ko.` hosts).

pub mod anchor;
pub mod charset;
pub mod codes;
pub mod eval;
pub mod letters;
pub mod markers;
pub mod naming_eval;
pub mod neighbours;
pub mod ngram_model;
pub mod page;
pub mod script;
pub mod target_eval;
pub mod url;

pub use anchor::{
    anchor_lang, identify_anchor, matches_target, recent_anchor_lang, AnchorLang, HAN,
};
pub use charset::{decode, Decoded};
pub use codes::TargetLang;
pub use page::{identify_page, PageLang};
pub use script::ScriptCounts;
pub use url::url_lang;
