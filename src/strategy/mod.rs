//! Link selection — where links are filtered. Each strategy is one SQL file
//! under `sql/strategies/` plus one entry in [`STRATEGIES`]. This module
//! registers what the strategies read (the server and directory tables,
//! `link_facts`, the data tables) and turns a round's links into decision
//! rows; `updatedb` and `refilter` both decide through it.

use std::path::Path;

use datafusion::dataframe::DataFrame;

mod fit;
mod learn;
pub use learn::Learned;

use crate::catalog::Scratch;
use crate::engine::{Engine, Params};
use crate::error::{Error, Result};
use crate::lang::TargetLang;
use crate::store::schema::{
    CLASS_RULES, DICTIONARY, DIR_STATS, IMPORTANCE, LINKS, SERVER_STATS, STOP_WORDS, TARGET_TLDS,
};
use crate::store::{CrawlLimits, StrategyParams};

/// What a strategy does with URLs still queued on a server (or in a
/// directory) that has turned irrelevant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prune {
    Nothing,
    Servers,
    Dirs,
}

/// A link-selection strategy: SQL over `link_facts` (and, for `ontology`,
/// the source pages and the data tables) returning
/// `src_url, url, accepted, priority, reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Strategy {
    pub name: &'static str,
    /// Path under `sql/`.
    pub sql: &'static str,
    pub prune: Prune,
    /// Needs the whole web graph (`simulate` only).
    pub simulation_only: bool,
    /// Learns from the crawl before it decides ([`LinkSelection::learn`]).
    pub learns: bool,
    /// What the strategy reads beyond the shared views, registered in
    /// order before it runs.
    pub tables: &'static [StrategyTable],
    pub about: &'static str,
}

/// A query a strategy reads as a table: a view, or computed once a round
/// and kept in memory (for a result read several times).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StrategyTable {
    pub name: &'static str,
    /// Path under `sql/`.
    pub sql: &'static str,
    pub in_memory: bool,
}

/// The `ontology` strategies' texts, word by word (a view: one row per
/// word of every page would not fit in memory on a large round) and
/// transcribed (one row per text, read by both scores).
const ONTOLOGY_TABLES: &[StrategyTable] = &[
    StrategyTable {
        name: "context_words",
        sql: "views/context_words.sql",
        in_memory: false,
    },
    StrategyTable {
        name: "transcribed_texts",
        sql: "views/transcribed_texts.sql",
        in_memory: true,
    },
];

/// The round's tables [`LinkSelection::register_inputs`] holds; keep it
/// until the round is decided.
#[must_use = "the round's tables are dropped with it"]
pub struct RoundInputs {
    _held: Vec<Scratch>,
}

/// `ontology` without its dictionary: the paper's "non-multilingual" crawler.
pub const MONOLINGUAL_ONTOLOGY: &str = "ontology-monolingual";

pub const STRATEGIES: &[Strategy] = &[
    Strategy {
        name: "bfs",
        sql: "strategies/bfs.sql",
        prune: Prune::Nothing,
        simulation_only: false,
        learns: false,
        tables: &[],
        about: "Nutch's default (the papers' control group): follow every link, breadth first",
    },
    Strategy {
        name: "tld-anchor",
        sql: "strategies/tld-anchor.sql",
        prune: Prune::Nothing,
        simulation_only: false,
        learns: false,
        tables: &[],
        about: "Chan & Yamana: follow links into the target ccTLDs (--tld), else links whose anchor is in the target language",
    },
    Strategy {
        name: "hard-focused",
        sql: "strategies/hard-focused.sql",
        prune: Prune::Nothing,
        simulation_only: false,
        learns: false,
        tables: &[],
        about: "Tamura: follow only the links of pages in the target language",
    },
    Strategy {
        name: "soft-focused",
        sql: "strategies/soft-focused.sql",
        prune: Prune::Nothing,
        simulation_only: false,
        learns: false,
        tables: &[],
        about: "Tamura: follow every link, those of target-language pages first",
    },
    Strategy {
        name: "server-aggressive",
        sql: "strategies/server-aggressive.sql",
        prune: Prune::Servers,
        simulation_only: false,
        learns: false,
        tables: &[],
        about: "Tamura §4.1: drop links to servers judged irrelevant (--tolerance T), the rest by page language",
    },
    Strategy {
        name: "server-conservative",
        sql: "strategies/server-conservative.sql",
        prune: Prune::Servers,
        simulation_only: false,
        learns: false,
        tables: &[],
        about: "Tamura §4.2: as server-aggressive, and servers without a target page may not open unvisited servers",
    },
    Strategy {
        name: "dir-conservative",
        sql: "strategies/dir-conservative.sql",
        prune: Prune::Dirs,
        simulation_only: false,
        learns: false,
        tables: &[],
        about: "Tamura §4.3: the conservative rule per top-level directory instead of per server",
    },
    Strategy {
        name: "ontology",
        sql: "strategies/ontology.sql",
        prune: Prune::Nothing,
        simulation_only: false,
        learns: false,
        tables: ONTOLOGY_TABLES,
        about: "Kumar & Vig: OBRS of the link context (anchor, text around it, heading; transcribed with --dictionary) over --importance, else LARS of the page's class over --class-rules",
    },
    Strategy {
        name: MONOLINGUAL_ONTOLOGY,
        sql: "strategies/ontology.sql",
        prune: Prune::Nothing,
        simulation_only: false,
        learns: false,
        tables: ONTOLOGY_TABLES,
        about: "ontology without the transcriptor (Kumar & Vig's non-multilingual crawler): contexts and pages scored as written",
    },
    Strategy {
        name: "adaptive",
        sql: "strategies/adaptive.sql",
        prune: Prune::Nothing,
        simulation_only: false,
        learns: true,
        tables: &[],
        about: "beyond the papers: a frontier ranked by a model learned from this crawl's own fetches, re-scored each round, with a share spent exploring (--explore-share) and a stop by measured yield (--min-yield)",
    },
    Strategy {
        name: "perfect",
        sql: "strategies/perfect.sql",
        prune: Prune::Nothing,
        simulation_only: true,
        learns: false,
        tables: &[],
        about: "Tamura's oracle (simulate only): follow exactly the links that lead to target pages",
    },
];

/// The strategy called `name`, or an error listing the known ones.
pub fn find(name: &str) -> Result<&'static Strategy> {
    STRATEGIES.iter().find(|s| s.name == name).ok_or_else(|| {
        let known: Vec<&str> = STRATEGIES.iter().map(|s| s.name).collect();
        Error::Usage(format!(
            "--strategy {name}: no such strategy (known: {})",
            known.join(", ")
        ))
    })
}

/// A strategy with its target and parameters: everything needed to decide
/// a round's links.
#[derive(Debug, Clone)]
pub struct LinkSelection {
    pub strategy: &'static Strategy,
    pub target_lang: TargetLang,
    pub params: StrategyParams,
    /// Trap limits and the address guard, checked before the strategy.
    pub limits: CrawlLimits,
}

impl LinkSelection {
    /// `strategy` for `target_lang` with the default parameters (and the
    /// language's default ccTLDs).
    pub fn new(strategy: &'static Strategy, target_lang: TargetLang) -> Self {
        let params = StrategyParams {
            target_tlds: target_lang.default_tlds(),
            ..StrategyParams::default()
        };
        LinkSelection {
            strategy,
            target_lang,
            params,
            limits: CrawlLimits::default(),
        }
    }

    /// The SQL parameters of every strategy file, bound by name.
    pub fn sql_params(&self) -> Params {
        let p = &self.params;
        Params::new()
            .set("target_lang", self.target_lang.code())
            .set("tolerance", p.tolerance as i64)
            .set("han_matches", p.han_matches)
            .set("min_ont_rel", p.min_ont_rel)
            .set("min_la_rel", p.min_la_rel)
            .set("target_class", p.target_class.clone().unwrap_or_default())
            .set("rule_depth", i64::from(p.rule_depth))
            .set(
                "relevant_class",
                p.relevant_class.clone().unwrap_or_default(),
            )
            .set("transcribe", self.strategy.name != MONOLINGUAL_ONTOLOGY)
            .set("leave_out", p.leave_out.join(","))
            .set("allow_private", self.limits.allow_private)
            .set("max_depth", i64::from(self.limits.max_depth))
            .set("max_url_length", i64::from(self.limits.max_url_length))
            .set(
                "max_repeated_segment",
                i64::from(self.limits.max_repeated_segment),
            )
            .set("max_outlinks", i64::from(self.limits.max_outlinks))
            .set("max_redirects", i64::from(self.limits.max_redirects))
            .set("host_budget", self.limits.host_budget as i64)
            .set("max_retries", i64::from(self.limits.max_retries))
            .set(
                "prune",
                match self.strategy.prune {
                    Prune::Dirs => "dir",
                    _ => "server",
                },
            )
    }

    /// Registers what the strategies read of a round: the data tables,
    /// `servers`, `dirs` and `page_links`, then the views `link_facts` and
    /// `link_limits`. `servers`, `dirs` and `page_links`, read by several
    /// steps, are computed once and held (`catalog::scratch`: in memory
    /// within the engine's budget, else as scratch Parquet in the folder
    /// `stage`, in a crawl the round's own) until the returned
    /// [`RoundInputs`] is dropped. Expects the tables of
    /// `catalog::crawldb_after_round` (with `links` and `parse`) to be
    /// registered.
    pub async fn register_inputs(&self, engine: &Engine, stage: &Path) -> Result<RoundInputs> {
        self.register_tables(engine)?;
        let params = self.sql_params();
        let mut held = Vec::new();
        for (table, file, schema) in [
            ("servers", "views/server_stats.sql", &SERVER_STATS),
            ("dirs", "views/dir_stats.sql", &DIR_STATS),
            ("page_links", "views/page_links.sql", &LINKS),
        ] {
            let df = engine.query_file(file, &params).await?;
            let at = stage.join(table);
            held.push(crate::catalog::scratch(engine, table, df, &at, schema).await?);
        }
        let views = [
            ("link_facts", "views/link_facts.sql"),
            ("link_limits", "views/link_limits.sql"),
        ];
        engine.register_query_views(&views, &params).await?;
        Ok(RoundInputs { _held: held })
    }

    fn register_tables(&self, engine: &Engine) -> Result<()> {
        register_target_tlds(engine, &self.params.target_tlds)?;
        let p = &self.params;
        engine.register_csv(
            "importance",
            IMPORTANCE.clone(),
            p.importance.as_deref(),
            "tables/importance.csv",
        )?;
        engine.register_csv(
            "dictionary",
            DICTIONARY.clone(),
            p.dictionary.as_deref(),
            "tables/dictionary.csv",
        )?;
        engine.register_csv(
            "stop_words",
            STOP_WORDS.clone(),
            p.stop_words.as_deref(),
            "tables/stop_words.csv",
        )?;
        engine.register_csv(
            "class_rules",
            CLASS_RULES.clone(),
            p.class_rules.as_deref(),
            "tables/class_rules.csv",
        )
    }

    /// Every link's fate under the strategy (`sql/steps/decide.sql`). Call after
    /// [`register_inputs`](Self::register_inputs).
    pub async fn link_decisions(&self, engine: &Engine) -> Result<DataFrame> {
        let params = self.sql_params();
        for table in self.strategy.tables {
            let df = engine.query_file(table.sql, &params).await?;
            if !table.in_memory {
                engine.register_view(table.name, df)?;
                continue;
            }
            engine.register_result(table.name, df).await?;
        }
        let out = engine.query_file(self.strategy.sql, &params).await?;
        check_strategy_columns(engine, self.strategy.sql, &out)?;
        engine.register_view("strategy_out", out)?;
        engine.query_file("steps/decide.sql", &params).await
    }

    /// The round's decisions: [`link_decisions`](Self::link_decisions) and,
    /// for strategies that prune the queue, one row per queued URL dropped
    /// (`sql/steps/prune_queue.sql`).
    pub async fn decisions(&self, engine: &Engine) -> Result<DataFrame> {
        let decided = self.link_decisions(engine).await?;
        if self.strategy.prune == Prune::Nothing {
            return Ok(decided);
        }
        let pruned = engine
            .query_file("steps/prune_queue.sql", &self.sql_params())
            .await?;
        decided
            .union(pruned)
            .map_err(Error::sql("adding the pruned queue to the decisions"))
    }
}

/// What a strategy's SQL returns, one row per link (`sql/steps/decide.sql`
/// reads them).
const STRATEGY_COLUMNS: [&str; 5] = ["src_url", "url", "accepted", "priority", "reason"];

/// Refuses a strategy's SQL (`sql`, planned as `out`) without the columns
/// [`STRATEGY_COLUMNS`], naming its file: decide.sql, which reads them,
/// would be blamed.
fn check_strategy_columns(engine: &Engine, sql: &str, out: &DataFrame) -> Result<()> {
    let missing: Vec<&str> = STRATEGY_COLUMNS
        .into_iter()
        .filter(|c| out.schema().field_with_unqualified_name(c).is_err())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "{}: no column {} (a strategy returns {})",
        engine.sql_source(sql),
        missing.join(", "),
        STRATEGY_COLUMNS.join(", ")
    )))
}

/// Registers table `target_tlds` (column `tld`) with `tlds`, once each.
pub fn register_target_tlds(engine: &Engine, tlds: &[String]) -> Result<()> {
    let mut tlds: Vec<&str> = tlds.iter().map(String::as_str).collect();
    tlds.sort_unstable();
    tlds.dedup();
    let column = datafusion::arrow::array::StringArray::from(tlds);
    let batch = datafusion::arrow::array::RecordBatch::try_new(
        TARGET_TLDS.clone(),
        vec![std::sync::Arc::new(column)],
    )
    .map_err(Error::arrow("table target_tlds"))?;
    engine.register_batches("target_tlds", TARGET_TLDS.clone(), vec![batch])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_strategy_has_a_file_and_every_file_an_entry() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sql");
        for strategy in STRATEGIES {
            assert!(dir.join(strategy.sql).is_file(), "{}", strategy.sql);
        }
        for entry in std::fs::read_dir(dir.join("strategies")).unwrap() {
            let name = format!(
                "strategies/{}",
                entry.unwrap().file_name().to_string_lossy()
            );
            assert!(
                STRATEGIES.iter().any(|s| s.sql == name),
                "{name} has no registry entry"
            );
        }
    }

    #[test]
    fn unknown_strategy_lists_the_known_ones() {
        let err = find("server-agresive").unwrap_err().to_string();
        assert!(err.contains("known: bfs, tld-anchor"), "{err}");
    }
}
