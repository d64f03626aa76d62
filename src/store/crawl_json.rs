//! `crawl.json`: the crawl's target language, strategy and parameters, and
//! a log of what each phase did. Written atomically (temp file, rename).

use serde::{Deserialize, Serialize};

use super::layout::CrawlDir;
use crate::error::{Error, Result};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CrawlConfig {
    /// ISO 639-3 code of the target language, once one was given.
    pub target_lang: Option<String>,
    pub strategy: String,
    /// Tamura's T: irrelevant pages a server may show before it is judged irrelevant.
    pub tolerance: u32,
    /// ccTLDs that count as the target country.
    pub target_tlds: Vec<String>,
    /// One line per completed phase run, oldest first.
    #[serde(default)]
    pub log: Vec<PhaseLog>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct PhaseLog {
    pub phase: String,
    pub round: u32,
    pub summary: String,
}

impl Default for CrawlConfig {
    fn default() -> Self {
        CrawlConfig {
            target_lang: None,
            strategy: "bfs".into(),
            tolerance: 10,
            target_tlds: Vec::new(),
            log: Vec::new(),
        }
    }
}

impl CrawlConfig {
    pub fn load(crawl: &CrawlDir) -> Result<Self> {
        let path = crawl.crawl_json();
        let text = std::fs::read_to_string(&path).map_err(Error::io(&path))?;
        serde_json::from_str(&text).map_err(|e| Error::SegmentRead {
            path,
            message: format!("not a valid crawl.json: {e}"),
        })
    }

    pub fn save(&self, crawl: &CrawlDir) -> Result<()> {
        let path = crawl.crawl_json();
        let temp = path.with_extension("json.tmp");
        let text = serde_json::to_string_pretty(self).expect("config serializes");
        std::fs::write(&temp, text).map_err(Error::io(&temp))?;
        std::fs::rename(&temp, &path).map_err(Error::io(&path))
    }

    /// Appends a phase's summary to the log and saves.
    pub fn record(crawl: &CrawlDir, phase: &str, round: u32, summary: &str) -> Result<()> {
        let mut config = CrawlConfig::load(crawl)?;
        config.log.push(PhaseLog {
            phase: phase.into(),
            round,
            summary: summary.into(),
        });
        config.save(crawl)
    }
}
