//! `crawl.json`: the crawl's target language, strategy and parameters, and
//! a log of what each phase did. Written atomically (temp file, rename).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::layout::CrawlDir;
use crate::error::{Error, Result};

/// Reads a JSON file of the crawl (or of a web graph), naming it on error.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let text = std::fs::read_to_string(path).map_err(Error::io(path))?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    serde_json::from_str(&text).map_err(|e| Error::SegmentRead {
        path: path.to_path_buf(),
        message: format!("not a valid {name}: {e}"),
    })
}

/// Writes `value` as JSON to `path`: a temp file flushed to disk, then a
/// rename (and the folder flushed).
pub fn write_json<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let temp = path.with_extension("json.tmp");
    let text = serde_json::to_string_pretty(value).map_err(|source| Error::Json {
        what: path.display().to_string(),
        source,
    })?;
    super::durable::write_synced(&temp, text.as_bytes())?;
    super::durable::rename_synced(&temp, path)
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CrawlConfig {
    /// ISO 639-3 code of the target language, once one was given.
    pub target_lang: Option<String>,
    pub strategy: String,
    /// The strategies' parameters (stored flat beside `strategy`).
    #[serde(flatten)]
    pub params: StrategyParams,
    /// Crawler-trap limits and the address guard, applied to every strategy.
    #[serde(default)]
    pub limits: CrawlLimits,
    /// What fetch asks servers for beyond pages: a language, sitemaps.
    #[serde(default)]
    pub fetch: FetchSettings,
    /// When fetched pages are due again (off: each URL is fetched once).
    #[serde(default)]
    pub recrawl: crate::schedule::Schedule,
    /// One line per completed phase run, oldest first.
    #[serde(default)]
    pub log: Vec<PhaseLog>,
    /// Why the crawl stopped by itself, if it did (`crate::stop`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<Stopped>,
}

/// A crawl's stop by its own rule: after which round, and why.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Stopped {
    pub round: u32,
    pub reason: String,
}

/// The parameters of the link-selection strategies; each strategy reads
/// the ones it needs. Table files left unset use the built-in tables under
/// `sql/tables/`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct StrategyParams {
    /// Tamura's T: irrelevant pages a server (or directory) may show before
    /// it is judged irrelevant.
    pub tolerance: u32,
    /// ccTLDs that count as the target country (`tld-anchor`).
    pub target_tlds: Vec<String>,
    /// A Han-only anchor counts as a Japanese or Chinese target's language.
    pub han_matches: bool,
    /// `ontology`: follow a link whose OBRS exceeds this.
    pub min_ont_rel: f64,
    /// `ontology`: else follow it if its LARS exceeds this.
    pub min_la_rel: f64,
    /// `ontology`: the class sought (default: the class of the most important term).
    pub target_class: Option<String>,
    /// A simulated topic crawl's target: the pages of this class are the
    /// relevant ones (`simulate` sets it from the web's `target_class`);
    /// `None`: the pages in the target language.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relevant_class: Option<String>,
    /// `ontology`: CSV `term,importance,class`.
    pub importance: Option<PathBuf>,
    /// `ontology`: CSV `source_term,target_term`.
    pub dictionary: Option<PathBuf>,
    /// `ontology`: CSV `lang,word` (noise words the transcriptor drops).
    pub stop_words: Option<PathBuf>,
    /// `ontology`: class rules chained up to this many steps for LARS.
    pub rule_depth: u32,
    /// `ontology`: CSV `from_class,to_class,probability`.
    pub class_rules: Option<PathBuf>,
    /// `adaptive`: the share of each round's fetch list spent on the
    /// servers the crawl knows least (generate's bandit).
    pub explore_share: f64,
    /// `adaptive`: a round holds at least this share of the pages fetched
    /// so far (generate's round size). Larger shares take fewer rounds,
    /// so less work per page; smaller ones keep each round to the URLs
    /// the model ranks best, so fewer requests reach the target pages. A
    /// crawl.json written before the option keeps the tenth its crawl ran
    /// with.
    #[serde(default = "round_floor_before_the_option")]
    pub round_floor: f64,
    /// Stop when the target share of the last round's fetches (with as
    /// many rounds before it as it takes to hold 10 / this requests),
    /// ranked and explored alike, falls below this (`crate::stop`).
    pub min_yield: Option<f64>,
    /// Stop after this many fetch requests.
    pub max_pages: Option<u64>,
    /// `adaptive`: features the model leaves out (for ablations).
    pub leave_out: Vec<String>,
}

/// The round floor of crawls started before `--round-floor` existed.
fn round_floor_before_the_option() -> f64 {
    0.1
}

impl Default for StrategyParams {
    fn default() -> Self {
        StrategyParams {
            tolerance: 10,
            target_tlds: Vec::new(),
            han_matches: true,
            min_ont_rel: 5.0,
            min_la_rel: 0.15,
            target_class: None,
            relevant_class: None,
            importance: None,
            dictionary: None,
            stop_words: None,
            rule_depth: 2,
            class_rules: None,
            explore_share: 0.02,
            round_floor: 0.02,
            min_yield: None,
            max_pages: None,
            leave_out: Vec::new(),
        }
    }
}

/// Limits that keep a crawl out of traps, whatever the strategy: a link
/// past one of them is rejected with its own reason (`max-depth`, ...).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct CrawlLimits {
    /// Links followed from a seed (a redirect counts as one).
    pub max_depth: u32,
    /// Characters in a URL.
    pub max_url_length: u32,
    /// Times one path segment may appear in a URL (`/a/b/a/b/a/` has `a` 3 times).
    pub max_repeated_segment: u32,
    /// URLs one host may hold in the crawldb, across rounds.
    pub host_budget: u64,
    /// Links followed from one page (the first ones in the page).
    pub max_outlinks: u32,
    /// Redirects followed in a row.
    pub max_redirects: u32,
    /// Fetches of a URL that fail (timeouts, 5xx) before it is `gone`.
    pub max_retries: u32,
    /// Fetch loopback, private, link-local and other special addresses.
    pub allow_private: bool,
}

impl Default for CrawlLimits {
    fn default() -> Self {
        CrawlLimits {
            max_depth: 50,
            max_url_length: 2048,
            max_repeated_segment: 2,
            host_budget: 100_000,
            max_outlinks: 1_000,
            max_redirects: 5,
            max_retries: 3,
            allow_private: false,
        }
    }
}

/// What fetch asks servers for beyond the fetch list's pages.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct FetchSettings {
    /// The `Accept-Language` header sent (`th, en;q=0.5`), `off` for none;
    /// unset until the crawl has a target, whose tag it then takes.
    pub accept_language: Option<String>,
    /// Read the sitemaps robots.txt names.
    pub sitemaps: bool,
    /// Where robots.txt names no sitemap, try `/sitemap.xml`.
    pub guess_sitemap: bool,
    /// Which hosts share a politeness queue.
    pub queue_by: crate::fetch::politeness::QueueBy,
    /// A host's delay is at least this many times its last response time.
    pub delay_factor: f64,
}

impl Default for FetchSettings {
    fn default() -> Self {
        FetchSettings {
            accept_language: None,
            sitemaps: true,
            guess_sitemap: false,
            queue_by: crate::fetch::politeness::QueueBy::Host,
            delay_factor: 0.0,
        }
    }
}

impl FetchSettings {
    /// Takes the `new` target's Accept-Language unless one was set apart
    /// from the `old` target's (the value of `--accept-language` stays).
    pub fn follow_target(
        &mut self,
        old: Option<&crate::lang::TargetLang>,
        new: &crate::lang::TargetLang,
    ) {
        let old_default = old.map(crate::lang::TargetLang::accept_language);
        if self.accept_language.is_none() || self.accept_language == old_default {
            self.accept_language = Some(new.accept_language());
        }
    }

    /// The header to send: the setting, none for `off`.
    pub fn accept_language_header(&self) -> Option<String> {
        self.accept_language
            .clone()
            .filter(|v| !v.eq_ignore_ascii_case("off"))
    }
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
            params: StrategyParams::default(),
            limits: CrawlLimits::default(),
            fetch: FetchSettings::default(),
            recrawl: crate::schedule::Schedule::default(),
            log: Vec::new(),
            stopped: None,
        }
    }
}

impl CrawlConfig {
    /// The settings of a new crawl for `lang`: the defaults, with the
    /// language's ccTLDs for `tld-anchor`.
    pub fn for_lang(lang: &crate::lang::TargetLang) -> CrawlConfig {
        let mut config = CrawlConfig {
            target_lang: Some(lang.code().to_string()),
            ..CrawlConfig::default()
        };
        config.params.target_tlds = lang.default_tlds();
        config.fetch.follow_target(None, lang);
        config
    }

    /// Refuses `lang` for a crawl that targets another language and has
    /// rounds: its pages were judged for that one, and a new target would
    /// mix the two in every count. `refilter` replays old rounds for
    /// another target without saving it.
    pub fn keep_target(&self, crawl: &CrawlDir, lang: Option<&str>) -> Result<()> {
        let (Some(current), Some(lang)) = (self.target_lang.as_deref(), lang) else {
            return Ok(());
        };
        let asked = crate::lang::TargetLang::parse(lang)?;
        if asked.code() == current || crawl.rounds()?.is_empty() {
            return Ok(());
        }
        Err(Error::Usage(format!(
            "--lang {lang}: {} targets {current} and its rounds judged pages for it; \
             start a new crawl with another --crawl DIR, or replay it with `langcrawl refilter --lang {lang}`",
            crawl.root().display()
        )))
    }

    pub fn load(crawl: &CrawlDir) -> Result<Self> {
        read_json(&crawl.crawl_json())
    }

    pub fn save(&self, crawl: &CrawlDir) -> Result<()> {
        write_json(&crawl.crawl_json(), self)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A crawl resumed after an upgrade goes on as it ran: its crawl.json
    /// has no round floor, and it ran with a tenth; a new crawl gets the
    /// default.
    #[test]
    fn a_crawl_json_without_a_round_floor_keeps_the_tenth_it_ran_with() {
        let old: StrategyParams = serde_json::from_str(r#"{"tolerance": 10}"#).unwrap();
        assert_eq!(old.round_floor, 0.1);
        assert_eq!(StrategyParams::default().round_floor, 0.02);
        let saved = serde_json::to_string(&StrategyParams::default()).unwrap();
        let back: StrategyParams = serde_json::from_str(&saved).unwrap();
        assert_eq!(back.round_floor, 0.02);
    }
}
