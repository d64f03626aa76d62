//! `refilter`: re-run a strategy over the stored links of earlier rounds,
//! each round against the crawldb as it stood when that round was merged
//! (`sql/views/crawldb_at_round.sql`), and write the decisions as a named set
//! beside the crawl's own (`<round>/decisions-<name>/`). The crawl itself —
//! crawldb, segments, crawl.json — is never modified. `compare` sets a named
//! set beside the crawl's decisions (`sql/reports/compare_decisions.sql`).

use datafusion::arrow::array::RecordBatch;
use serde::Serialize;

use crate::catalog::{AfterRound, Scratch};
use crate::engine::{Engine, Params};
use crate::error::{Error, Result};
use crate::store::schema::DECISIONS;
use crate::store::{
    valid_set_name, CrawlDir, Phase, RoundId, RoundRange, SegmentWriter, StrategyParams,
    CRAWL_DECISION_SET,
};
use crate::strategy::LinkSelection;

#[derive(Debug, Clone)]
pub struct RefilterOptions {
    pub selection: LinkSelection,
    /// The decision set's name (`decisions-<name>` in each round).
    pub name: String,
    pub rounds: RoundRange,
}

/// One round's refiltered decisions.
#[derive(Debug, Clone, PartialEq)]
pub struct RoundRefiltered {
    pub round: RoundId,
    pub links: usize,
    pub accepted: usize,
}

/// Written beside each set's Parquet file: how it was made.
#[derive(Debug, Serialize)]
struct SetProvenance<'a> {
    strategy: &'a str,
    target_lang: &'a str,
    #[serde(flatten)]
    params: &'a StrategyParams,
}

const PROVENANCE_FILE: &str = "_strategy.json";

/// Writes the decision set `options.name` for every merged round in range.
pub async fn run(
    engine: &Engine,
    crawl: &CrawlDir,
    options: &RefilterOptions,
) -> Result<Vec<RoundRefiltered>> {
    if !valid_set_name(&options.name) {
        return Err(Error::Usage(format!(
            "--name {:?}: a decision set name is letters, digits, - and _ (and not {CRAWL_DECISION_SET:?})",
            options.name
        )));
    }
    let rounds = rounds_to_refilter(crawl, options.rounds)?;
    let mut mark = SetMark::load(crawl, &options.name, &rounds)?;
    let mut done = Vec::new();
    // a learning strategy's frontier, from one round to the next
    let mut carried = None;
    for round in rounds {
        let refiltered = refilter_round(engine, crawl, options, round, &mut carried, &mut mark);
        done.push(refiltered.await?);
    }
    mark.finish()?;
    Ok(done)
}

/// While a set is being replaced round by round, the rounds of it not
/// yet written by one refilter: a mark beside the crawl's rounds, written
/// before the first round's set is replaced and removed when none is
/// left, so a refilter killed part-way (or one of fewer rounds run after
/// it) leaves the set marked as a mix.
struct SetMark {
    path: std::path::PathBuf,
    pending: std::collections::BTreeSet<u32>,
    written: bool,
}

#[derive(Debug, Serialize, serde::Deserialize)]
struct Unfinished {
    /// The rounds whose set a refilter has not written since the mark was.
    rounds: Vec<u32>,
}

impl SetMark {
    /// The mark of set `name`, pending its earlier rounds and `rounds`.
    fn load(crawl: &CrawlDir, name: &str, rounds: &[RoundId]) -> Result<Self> {
        let path = unfinished_mark(crawl, name);
        let mut pending: std::collections::BTreeSet<u32> = rounds.iter().map(|r| r.0).collect();
        let written = path.exists();
        if written {
            let earlier: Unfinished = crate::store::crawl_json::read_json(&path)?;
            pending.extend(earlier.rounds);
        }
        Ok(SetMark {
            path,
            pending,
            written,
        })
    }

    /// Called before a round's set is replaced: the first time, the mark is written.
    fn replacing(&mut self) -> Result<()> {
        if !self.written {
            self.save()?;
            self.written = true;
        }
        Ok(())
    }

    /// Called after `round`'s set was replaced.
    fn replaced(&mut self, round: RoundId) {
        self.pending.remove(&round.0);
    }

    /// Removes the mark when every marked round was written, else keeps the
    /// rounds still left.
    fn finish(self) -> Result<()> {
        if !self.written {
            return Ok(());
        }
        if self.pending.is_empty() {
            return std::fs::remove_file(&self.path).map_err(Error::io(&self.path));
        }
        self.save()
    }

    fn save(&self) -> Result<()> {
        let rounds = self.pending.iter().copied().collect();
        crate::store::crawl_json::write_json(&self.path, &Unfinished { rounds })
    }
}

fn unfinished_mark(crawl: &CrawlDir, name: &str) -> std::path::PathBuf {
    crawl
        .root()
        .join(format!("decisions-{name}.unfinished.json"))
}

/// An error if a refilter of the set `name` stopped before its last round
/// (or a refilter of fewer rounds ran after it): its rounds would mix
/// that refilter's decisions with none or an older set's.
fn refuse_unfinished(crawl: &CrawlDir, name: &str) -> Result<()> {
    let mark = unfinished_mark(crawl, name);
    if !mark.exists() {
        return Ok(());
    }
    let rounds = crate::store::crawl_json::read_json::<Unfinished>(&mark)
        .map(|u| format!("rounds {:?} not rewritten", u.rounds))
        .unwrap_or_else(|e| e.to_string());
    Err(Error::Usage(format!(
        "{}: decision set {name:?} is unfinished (a refilter of it stopped before its last round: {rounds}); \
         run that refilter again over every round",
        crawl.root().display(),
    )))
}

/// The merged rounds in `range` that have links; an error if there are none.
fn rounds_to_refilter(crawl: &CrawlDir, range: RoundRange) -> Result<Vec<RoundId>> {
    let merged = crawl.merged_round()?;
    let rounds: Vec<RoundId> = crawl
        .rounds()?
        .into_iter()
        .filter(|&r| r <= merged && range.contains(r) && crawl.has(r, Phase::Links))
        .collect();
    if rounds.is_empty() {
        return Err(Error::NothingToDo(format!(
            "{}: no merged round with links in the range given; run a crawl round first",
            crawl.root().display()
        )));
    }
    Ok(rounds)
}

/// Refilters `round`; a learning strategy starts from the frontier
/// `carried` from the round before and leaves this round's there.
async fn refilter_round(
    engine: &Engine,
    crawl: &CrawlDir,
    options: &RefilterOptions,
    round: RoundId,
    carried: &mut Option<Scratch>,
    mark: &mut SetMark,
) -> Result<RoundRefiltered> {
    // dropped last: the round's views, and with them what it held
    let _views = engine.phase_views();
    let selection = &options.selection;
    let params = selection.sql_params().set("round", round.0 as i32);
    let how = AfterRound::Rebuilt;
    let _after_round =
        crate::catalog::crawldb_after_round(engine, crawl, round, how, &params).await?;
    let _inputs = selection
        .register_inputs(engine, &crawl.round_dir(round))
        .await?;
    let scored = selection.learn(engine, crawl, round, None).await?;
    let decisions = selection.link_decisions(engine).await?;
    let dir = crawl.decision_set(round, &options.name);
    let staged = engine
        .write(decisions, SegmentWriter::create(&dir, DECISIONS.clone())?)
        .await?;
    let provenance = SetProvenance {
        strategy: selection.strategy.name,
        target_lang: selection.target_lang.code(),
        params: &selection.params,
    };
    let path = staged.temp_dir.join(PROVENANCE_FILE);
    let json = serde_json::to_string_pretty(&provenance).expect("provenance serializes");
    std::fs::write(&path, json).map_err(Error::io(&path))?;
    mark.replacing()?;
    let links = staged.replace()?;
    mark.replaced(round);
    if let Some(scored) = scored {
        // the round before's frontier is read: this round's goes on
        *carried = scored.carried_frontier;
    }
    crate::catalog::segment(engine, "refiltered_round", &dir, &DECISIONS).await?;
    let accepted = engine
        .count_rows("refiltered_round", Some("accepted"))
        .await?;
    Ok(RoundRefiltered {
        round,
        links,
        accepted,
    })
}

/// Per round: the set `name` beside the crawl's own decisions (links,
/// accepted by each, decisions that differ, target share of the accepted
/// links whose pages were fetched).
pub async fn compare(engine: &Engine, crawl: &CrawlDir, name: &str) -> Result<Vec<RecordBatch>> {
    refuse_unfinished(crawl, name)?;
    crate::catalog::whole_crawl(engine, crawl, false).await?;
    let exists = crawl
        .rounds()?
        .into_iter()
        .any(|r| crawl.decision_set(r, name).is_dir());
    if !exists {
        return Err(Error::Usage(format!(
            "{}: no decision set {name:?}; write it with `langcrawl refilter --strategy S --name {name}`",
            crawl.root().display()
        )));
    }
    let sets = "SELECT round, src_url, url, accepted FROM decision_sets \
                WHERE decision_set = $set AND reason NOT LIKE 'queued-%'";
    for (view, set) in [("original", CRAWL_DECISION_SET), ("refiltered", name)] {
        let df = engine.query(sets, &Params::new().set("set", set)).await?;
        engine.register_view(view, df)?;
    }
    let df = engine
        .query_file("reports/compare_decisions.sql", &Params::new())
        .await?;
    engine.collect(df).await
}
