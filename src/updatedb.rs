//! The updatedb phase: DataFusion SQL applies the round's fetch and parse
//! results to the crawldb, the strategy (`crate::strategy`) decides every
//! link (`decisions` segment), and the merge adds the accepted new URLs as
//! unfetched, raises the priority of queued URLs a link favoured, and marks
//! URLs pruned from the queue `skipped`.

use crate::catalog::{self, AfterRound};
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::store::activity::ActivityFile;
use crate::store::schema::DECISIONS;
use crate::store::{CrawlConfig, CrawlDir, Phase, SegmentWriter};
use crate::strategy::{Learned, LinkSelection};

#[derive(Debug, Clone, PartialEq)]
pub struct UpdateReport {
    pub round: u32,
    pub links: usize,
    pub accepted: usize,
    pub new_urls: usize,
    /// Queued URLs dropped because their server (or directory) turned irrelevant.
    pub skipped: usize,
    pub crawldb_urls: usize,
}

impl std::fmt::Display for UpdateReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "updatedb round {:05}: {} links decided, {} accepted, {} new URLs, {} queued URLs skipped; crawldb has {} URLs",
            self.round, self.links, self.accepted, self.new_urls, self.skipped, self.crawldb_urls
        )
    }
}

/// Merges the latest parsed round into the crawldb.
pub async fn run(
    engine: &Engine,
    crawl: &CrawlDir,
    selection: &LinkSelection,
) -> Result<UpdateReport> {
    crate::store::parts::gather(crawl, |parts, part_of| {
        crate::fetch::hosts::gather(crawl, parts, part_of)
    })?;
    let round = crawl.round_to_merge()?;
    let _activity = ActivityFile::start(crawl.root(), "updatedb", round.0, None);
    // dropped last: the round's views, and with them what it held
    let _views = engine.phase_views();
    for phase in [
        Phase::Decisions,
        Phase::Model,
        Phase::Scores,
        Phase::Frontier,
        Phase::Labels,
    ] {
        let stale = crawl.segment(round, phase);
        if stale.exists() {
            std::fs::remove_dir_all(&stale).map_err(Error::io(&stale))?;
        }
    }
    let stale = crawl.segment(round, Phase::Decisions);
    let schedule = CrawlConfig::load(crawl)?.recrawl;
    let params = schedule.interval_params(selection.sql_params().set("round", round.0 as i32));
    let _after_round =
        catalog::crawldb_after_round(engine, crawl, round, AfterRound::Applied, &params).await?;
    let crawldb_before = engine.count_rows("crawldb", None).await?;
    let _inputs = selection
        .register_inputs(engine, &crawl.round_dir(round))
        .await?;
    // one decision per link of a page and destination (`page_links`)
    let links = engine.count_rows("page_links", None).await?;
    let (model, scores, frontier, labels) = (
        crawl.segment(round, Phase::Model),
        crawl.segment(round, Phase::Scores),
        crawl.segment(round, Phase::Frontier),
        crawl.segment(round, Phase::Labels),
    );
    let keep = Learned {
        model: &model,
        scores: &scores,
        frontier: &frontier,
        labels: &labels,
    };
    // held until the merge has read the URL scores
    let _scored = selection.learn(engine, crawl, round, Some(keep)).await?;

    let decisions = selection.decisions(engine).await?;
    let staged = engine
        .write(decisions, SegmentWriter::create(&stale, DECISIONS.clone())?)
        .await?;
    let decided = staged.commit()?;
    catalog::segment(engine, "decisions", &stale, &DECISIONS).await?;
    let accepted = engine.count_rows("decisions", Some("accepted")).await?;
    let skipped = decided - links;

    let merged = engine
        .query_file("steps/merge_crawldb.sql", &params)
        .await?;
    let staged = engine.write(merged, crawl.crawldb_writer()?).await?;
    let crawldb_urls = staged.rows;
    if crawldb_urls < crawldb_before {
        // a merge never drops a URL (a pruned one is marked skipped): a
        // step changed through --sql-dir would lose the crawl's queue
        return Err(Error::Usage(format!(
            "{}: gave {crawldb_urls} URLs for a crawldb of {crawldb_before}; a merge keeps every URL, \
             so the crawldb is left as it was",
            engine.sql_source("steps/merge_crawldb.sql")
        )));
    }
    crawl.swap_crawldb(staged, round)?;
    let report = UpdateReport {
        round: round.0,
        links,
        accepted,
        new_urls: crawldb_urls - crawldb_before,
        skipped,
        crawldb_urls,
    };
    CrawlConfig::record(crawl, "updatedb", round.0, &report.to_string())?;
    Ok(report)
}
