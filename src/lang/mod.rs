//! Language and charset identification: decode a page's bytes, name the
//! language of its visible text, and name the language of a short anchor.

pub mod anchor;
pub mod charset;
pub mod codes;
pub mod page;

pub use anchor::anchor_lang;
pub use charset::{decode, Decoded};
pub use codes::TargetLang;
pub use page::{identify_page, PageLang};
