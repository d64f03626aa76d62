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
use crate::store::{CrawlDir, Phase, RoundId, RoundRange};

/// The crawl's rounds in `rounds` that have a fetch segment; an error if
/// there are none.
fn fetched_rounds(crawl: &CrawlDir, rounds: RoundRange) -> Result<Vec<RoundId>> {
    let found: Vec<RoundId> = crawl
        .rounds()?
        .into_iter()
        .filter(|&r| rounds.contains(r) && crawl.has(r, Phase::Fetch))
        .collect();
    if found.is_empty() {
        return Err(Error::NothingToDo(format!(
            "{}: no fetched round to export{}",
            crawl.root().display(),
            if rounds == RoundRange::default() {
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
