//! What users take home from a crawl: WARC files with CDXJ indexes for
//! archivists (`warc`: `warc_record` writes records, `warc_file` files and
//! indexes), and a clean text corpus for corpus builders (`text`: the main
//! text of each page in the language, `dedup`: exact and near duplicates
//! dropped). Both read the crawl's segments round by round.

pub mod dedup;
pub mod main_text;
pub mod site_lines;
pub mod text;
pub mod warc;
pub mod warc_file;
pub mod warc_record;

use crate::catalog;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::store::schema::PARSE;
use crate::store::{CrawlDir, Phase, RoundId};

/// The rounds to export: all, or those from `first` to `last` (inclusive).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rounds {
    pub first: Option<u32>,
    pub last: Option<u32>,
}

impl Rounds {
    /// `A..B`, `A..`, `..B` or `A` (one round).
    pub fn parse(text: &str) -> std::result::Result<Self, String> {
        let bound = |s: &str| -> std::result::Result<Option<u32>, String> {
            let s = s.trim();
            if s.is_empty() {
                return Ok(None);
            }
            s.parse()
                .map(Some)
                .map_err(|_| format!("{s:?} is not a round number"))
        };
        match text.split_once("..") {
            Some((a, b)) => Ok(Rounds {
                first: bound(a)?,
                last: bound(b)?,
            }),
            None => {
                let one = bound(text)?;
                Ok(Rounds {
                    first: one,
                    last: one,
                })
            }
        }
    }

    fn contains(&self, round: RoundId) -> bool {
        self.first.is_none_or(|a| round.0 >= a) && self.last.is_none_or(|b| round.0 <= b)
    }
}

/// The crawl's rounds in `rounds` that have a fetch segment; an error if
/// there are none.
fn fetched_rounds(crawl: &CrawlDir, rounds: Rounds) -> Result<Vec<RoundId>> {
    let found: Vec<RoundId> = crawl
        .rounds()?
        .into_iter()
        .filter(|&r| rounds.contains(r) && crawl.has(r, Phase::Fetch))
        .collect();
    if found.is_empty() {
        return Err(Error::NothingToDo(format!(
            "{}: no fetched round to export{}",
            crawl.root().display(),
            if rounds == Rounds::default() {
                ""
            } else {
                " in --rounds"
            }
        )));
    }
    Ok(found)
}

/// Registers round `round`'s `fetch` and `parse` (empty if not parsed yet).
async fn register_round(engine: &Engine, crawl: &CrawlDir, round: RoundId) -> Result<()> {
    catalog::round(engine, crawl, round, &[Phase::Fetch]).await?;
    if crawl.has(round, Phase::Parse) {
        catalog::round(engine, crawl, round, &[Phase::Parse]).await
    } else {
        engine.register_empty("parse", PARSE.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_ranges_read_as_written() {
        let r = |a, b| Rounds { first: a, last: b };
        assert_eq!(Rounds::parse("2..5"), Ok(r(Some(2), Some(5))));
        assert_eq!(Rounds::parse("3.."), Ok(r(Some(3), None)));
        assert_eq!(Rounds::parse("..4"), Ok(r(None, Some(4))));
        assert_eq!(Rounds::parse("7"), Ok(r(Some(7), Some(7))));
        assert!(Rounds::parse("x..2").unwrap_err().contains("\"x\""));
        assert!(r(Some(2), Some(3)).contains(RoundId(3)));
        assert!(!r(Some(2), Some(3)).contains(RoundId(4)));
    }
}
