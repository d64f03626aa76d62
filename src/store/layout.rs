//! The crawl directory: where `crawl.json`, the crawldb and each round's
//! segments live, which rounds exist, the crawldb's versions, and
//! the two ways to open a crawl: as its one writer (under the lock, with
//! recovery) or read-only (no lock, nothing moved or deleted).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use super::durable::write_synced;
use super::lock::{self, WriterLock};
use super::schema::CRAWLDB as CRAWLDB_SCHEMA;
use super::segment::{SegmentWriter, Staged};
use super::versioned::{Pin, VersionedTable};
use crate::error::{Error, Result};

/// A round's number; its folder name is the number padded to five digits,
/// so rounds sort lexically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct RoundId(pub u32);

impl fmt::Display for RoundId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:05}", self.0)
    }
}

impl RoundId {
    fn from_dir_name(name: &str) -> Option<Self> {
        if name.len() != 5 || !name.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        name.parse().ok().map(RoundId)
    }
}

/// A range of rounds (`refilter --rounds`, `export --rounds`): `A..B`,
/// `A..`, `..B` or `A`, inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RoundRange {
    pub first: Option<u32>,
    pub last: Option<u32>,
}

impl std::str::FromStr for RoundRange {
    type Err = String;

    fn from_str(text: &str) -> std::result::Result<Self, String> {
        let number = |part: &str| -> std::result::Result<Option<u32>, String> {
            if part.is_empty() {
                return Ok(None);
            }
            part.parse()
                .map(Some)
                .map_err(|_| format!("{text:?}: not a round range (A..B, A.., ..B or A)"))
        };
        let range = match text.split_once("..") {
            Some((first, last)) => RoundRange {
                first: number(first)?,
                last: number(last)?,
            },
            None => {
                let round = number(text)?;
                RoundRange {
                    first: round,
                    last: round,
                }
            }
        };
        match (range.first, range.last) {
            (Some(a), Some(b)) if a > b => {
                Err(format!("{text:?}: the first round is after the last"))
            }
            _ => Ok(range),
        }
    }
}

impl RoundRange {
    pub fn contains(&self, round: RoundId) -> bool {
        self.first.is_none_or(|a| round.0 >= a) && self.last.is_none_or(|b| round.0 <= b)
    }
}

/// The segments of a round, in the order the phases write them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Fetchlist,
    Fetch,
    Links,
    Parse,
    Decisions,
    /// What a learning strategy (`adaptive`) learned in the round.
    Model,
    /// A learning strategy's score of each link, feature by feature.
    Scores,
    /// A learning strategy's links to URLs not fetched yet, as found.
    Frontier,
    /// A learning strategy's labelled links, counted by their features.
    Labels,
    /// The sitemaps fetch read for the round's hosts and what they list.
    Sitemaps,
}

impl Phase {
    pub const ALL: [Phase; 10] = [
        Phase::Fetchlist,
        Phase::Fetch,
        Phase::Links,
        Phase::Parse,
        Phase::Decisions,
        Phase::Model,
        Phase::Scores,
        Phase::Frontier,
        Phase::Labels,
        Phase::Sitemaps,
    ];

    /// The command that writes this segment.
    pub fn producer(self) -> &'static str {
        match self {
            Phase::Fetchlist => "generate",
            Phase::Fetch | Phase::Sitemaps => "fetch",
            Phase::Links | Phase::Parse => "parse",
            Phase::Decisions | Phase::Model | Phase::Scores | Phase::Frontier | Phase::Labels => {
                "updatedb"
            }
        }
    }

    /// The schema of this phase's segments (`store::schema`).
    pub fn schema(self) -> datafusion::arrow::datatypes::SchemaRef {
        use super::schema::{
            DECISIONS, FETCH, FETCHLIST, FRONTIER, LABELS, LINKS, MODEL, PARSE, SCORES, SITEMAPS,
        };
        match self {
            Phase::Fetchlist => FETCHLIST.clone(),
            Phase::Fetch => FETCH.clone(),
            Phase::Links => LINKS.clone(),
            Phase::Parse => PARSE.clone(),
            Phase::Decisions => DECISIONS.clone(),
            Phase::Model => MODEL.clone(),
            Phase::Scores => SCORES.clone(),
            Phase::Frontier => FRONTIER.clone(),
            Phase::Labels => LABELS.clone(),
            Phase::Sitemaps => SITEMAPS.clone(),
        }
    }

    pub fn dir_name(self) -> &'static str {
        match self {
            Phase::Fetchlist => "fetchlist",
            Phase::Fetch => "fetch",
            Phase::Links => "links",
            Phase::Parse => "parse",
            Phase::Decisions => "decisions",
            Phase::Model => "model",
            Phase::Scores => "scores",
            Phase::Frontier => "frontier",
            Phase::Labels => "labels",
            Phase::Sitemaps => "sitemaps",
        }
    }
}

pub(super) const CRAWL_JSON: &str = "crawl.json";
const CRAWLDB: &str = "crawldb";
pub(super) const CRAWLDB_OLD: &str = "crawldb.old";
const HOSTS: &str = "hosts";
/// Written into the crawldb folder: the last round merged into it.
const MERGED_ROUND: &str = "_merged_round";
/// Marks a folder being written; removed (or left behind by a crash).
pub(super) const TEMP_MARK: &str = ".tmp-";
/// Ends the name of a segment moved aside while its replacement goes in.
pub(super) const ASIDE_MARK: &str = "-old";
/// Between `decisions` and a refiltered decision set's name.
const DECISION_SET_MARK: &str = "-";
/// The name the crawl's own decisions go by beside refiltered sets.
pub const CRAWL_DECISION_SET: &str = "crawl";

/// True if `name` can name a refiltered decision set: letters, digits,
/// `-` and `_`, and not the crawl's own set.
pub fn valid_set_name(name: &str) -> bool {
    !name.is_empty()
        && name != CRAWL_DECISION_SET
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// An opened crawl directory. A writer's (from [`open`](Self::open) or
/// [`create`](Self::create)) holds the crawl's writer lock until it and
/// all its clones are dropped.
#[derive(Debug, Clone)]
pub struct CrawlDir {
    root: PathBuf,
    lock: Option<Arc<WriterLock>>,
    /// A reader's versions of the crawldb and the hosts table, pinned when
    /// first read and held until the last clone is dropped.
    pins: Arc<ReadPins>,
}

#[derive(Debug, Default)]
struct ReadPins {
    crawldb: OnceLock<PinResult>,
    hosts: OnceLock<PinResult>,
}

/// A reader's pin, or why it could not be taken (kept, so every read of
/// the crawl fails alike rather than one seeing no table).
type PinResult = std::result::Result<Option<Pin>, String>;

impl CrawlDir {
    /// Opens an existing crawl directory to write into it: takes the
    /// writer lock (refused while another process holds it), then finishes
    /// an interrupted crawldb swap and removes folders left behind by
    /// killed phases.
    pub fn open(root: impl Into<PathBuf>) -> Result<Self> {
        // recovery may finish what would read as damage
        CrawlDir::unchecked(root.into())?.lock_and_recover()
    }

    /// Opens an existing crawl directory to read it, while a writer may be
    /// at work: no lock, and nothing is moved or deleted. The crawldb and
    /// the hosts table are read at the version first seen (see
    /// [`crawldb`](Self::crawldb)).
    pub fn open_read_only(root: impl Into<PathBuf>) -> Result<Self> {
        let crawl = CrawlDir::unchecked(root.into())?;
        super::recover::check_whole(&crawl, &crawl.rounds()?)?;
        Ok(crawl)
    }

    /// The crawl at `root`, if it has a crawl.json, without a lock.
    fn unchecked(root: PathBuf) -> Result<Self> {
        let crawl = CrawlDir::unlocked(root);
        if !crawl.crawl_json().is_file() {
            return Err(Error::NotACrawl { path: crawl.root });
        }
        Ok(crawl)
    }

    /// Opens `root` as a crawl directory to write into it, creating the
    /// folder if needed (the caller writes `crawl.json`).
    pub fn create(root: impl Into<PathBuf>) -> Result<Self> {
        let root = root.into();
        super::create_folder(&root)?;
        CrawlDir::unlocked(root).lock_and_recover()
    }

    fn unlocked(root: PathBuf) -> Self {
        let (lock, pins) = (None, Arc::default());
        CrawlDir { root, lock, pins }
    }

    fn lock_and_recover(mut self) -> Result<Self> {
        self.lock = Some(lock::acquire(&self.root)?);
        super::recover::recover(&self)?;
        Ok(self)
    }

    /// True if opened with [`open_read_only`](Self::open_read_only).
    pub fn is_read_only(&self) -> bool {
        self.lock.is_none()
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn crawl_json(&self) -> PathBuf {
        self.root.join(CRAWL_JSON)
    }

    /// The hosts table (robots.txt answers and back-off per host).
    pub fn hosts_table(&self) -> VersionedTable {
        VersionedTable::new(self.root.join(HOSTS))
    }

    /// The crawldb (one row per known URL).
    pub fn crawldb_table(&self) -> VersionedTable {
        VersionedTable::new(self.root.join(CRAWLDB))
    }

    /// The hosts table's current folder (a reader's: the version it
    /// pinned), `None` before fetch first wrote it.
    pub fn hosts(&self) -> Result<Option<PathBuf>> {
        self.version_of(&self.hosts_table(), &self.pins.hosts)
    }

    /// The crawldb's current folder (a reader's: the version it pinned,
    /// kept whole however often a writer replaces it), `None` before inject.
    pub fn crawldb(&self) -> Result<Option<PathBuf>> {
        self.version_of(&self.crawldb_table(), &self.pins.crawldb)
    }

    fn version_of(
        &self,
        table: &VersionedTable,
        pin: &OnceLock<PinResult>,
    ) -> Result<Option<PathBuf>> {
        if !self.is_read_only() {
            return table.current();
        }
        match pin.get_or_init(|| table.pin().map_err(|e| e.to_string())) {
            Ok(pinned) => Ok(pinned.as_ref().map(|p| p.dir.clone())),
            Err(message) => Err(Error::SegmentRead {
                path: table.dir().to_path_buf(),
                message: message.clone(),
            }),
        }
    }

    pub fn has_crawldb(&self) -> Result<bool> {
        Ok(self.crawldb()?.is_some())
    }

    pub fn round_dir(&self, round: RoundId) -> PathBuf {
        self.root.join(round.to_string())
    }

    pub fn segment(&self, round: RoundId, phase: Phase) -> PathBuf {
        self.round_dir(round).join(phase.dir_name())
    }

    /// The folder of the decision set `name` of a round (written by
    /// `refilter` beside the crawl's own `decisions`).
    pub fn decision_set(&self, round: RoundId, name: &str) -> PathBuf {
        self.round_dir(round).join(format!(
            "{}{DECISION_SET_MARK}{name}",
            Phase::Decisions.dir_name()
        ))
    }

    /// The names of a round's refiltered decision sets, sorted.
    pub fn decision_sets(&self, round: RoundId) -> Result<Vec<String>> {
        let dir = self.round_dir(round);
        let prefix = format!("{}{DECISION_SET_MARK}", Phase::Decisions.dir_name());
        let mut names: Vec<String> = std::fs::read_dir(&dir)
            .map_err(Error::io(&dir))?
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_dir())
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let set = name.strip_prefix(&prefix)?.to_string();
                valid_set_name(&set).then_some(set)
            })
            .collect();
        names.sort();
        Ok(names)
    }

    pub fn has(&self, round: RoundId, phase: Phase) -> bool {
        self.segment(round, phase).is_dir()
    }

    /// All rounds, oldest first.
    pub fn rounds(&self) -> Result<Vec<RoundId>> {
        let entries = std::fs::read_dir(&self.root).map_err(Error::io(&self.root))?;
        let mut rounds: Vec<RoundId> = entries
            .filter_map(|e| e.ok())
            .filter(|e| e.path().is_dir())
            .filter_map(|e| RoundId::from_dir_name(&e.file_name().to_string_lossy()))
            .collect();
        rounds.sort();
        Ok(rounds)
    }

    pub fn latest_round(&self) -> Result<Option<RoundId>> {
        Ok(self.rounds()?.last().copied())
    }

    /// The latest round if it has the `needs` segment and lacks `produces`;
    /// otherwise says what to run instead.
    pub fn round_needing(&self, needs: Phase, produces: Phase) -> Result<RoundId> {
        let Some(round) = self.latest_round()? else {
            return Err(Error::NothingToDo(format!(
                "{}: no round yet; run `langcrawl generate` first",
                self.root.display()
            )));
        };
        if !self.has(round, needs) {
            return Err(Error::NothingToDo(format!(
                "round {round} in {} has no {} segment; run `langcrawl {}` first",
                self.root.display(),
                needs.dir_name(),
                needs.producer()
            )));
        }
        if self.has(round, produces) {
            return Err(Error::NothingToDo(format!(
                "round {round} in {} already has a {} segment; the next step is `langcrawl {}`",
                self.root.display(),
                produces.dir_name(),
                self.next_step(round)?
            )));
        }
        Ok(round)
    }

    /// The phase to run next on `round`: `generate` once it is merged, else
    /// the producer of its first missing segment.
    pub fn next_step(&self, round: RoundId) -> Result<&'static str> {
        if self.merged_round()? >= round {
            return Ok("generate");
        }
        // fetch writes `sitemaps` beside `fetch`; a round fetched before
        // sitemaps were read has none
        Ok(Phase::ALL
            .iter()
            .filter(|&&p| p != Phase::Sitemaps)
            .find(|&&p| !self.has(round, p))
            .map_or("updatedb", |p| p.producer()))
    }

    /// The latest round if it is parsed but not yet merged into the crawldb
    /// (a killed updatedb may have left its decisions; they are redone).
    pub fn round_to_merge(&self) -> Result<RoundId> {
        let Some(round) = self.latest_round()? else {
            return Err(Error::NothingToDo(format!(
                "{}: no round yet; run `langcrawl generate` first",
                self.root.display()
            )));
        };
        if self.merged_round()? >= round {
            return Err(Error::NothingToDo(format!(
                "round {round} in {} is already in the crawldb; the next step is `langcrawl generate`",
                self.root.display()
            )));
        }
        if !self.has(round, Phase::Parse) {
            return Err(Error::NothingToDo(format!(
                "round {round} in {} has no parse segment; run `langcrawl {}` first",
                self.root.display(),
                self.next_step(round)?
            )));
        }
        Ok(round)
    }

    /// The last round whose results are in the crawldb (0 after inject).
    pub fn merged_round(&self) -> Result<RoundId> {
        let Some(path) = self.crawldb()?.map(|dir| dir.join(MERGED_ROUND)) else {
            return Ok(RoundId(0));
        };
        if !path.exists() {
            return Ok(RoundId(0));
        }
        let text = std::fs::read_to_string(&path).map_err(Error::io(&path))?;
        text.trim()
            .parse()
            .map(RoundId)
            .map_err(|_| Error::SegmentRead {
                path,
                message: format!("not a round number: {text:?}"),
            })
    }

    /// A writer for the crawldb's next version.
    pub fn crawldb_writer(&self) -> Result<SegmentWriter> {
        self.crawldb_table().writer(CRAWLDB_SCHEMA.clone())
    }

    /// Makes `staged` (from [`crawldb_writer`](Self::crawldb_writer)) the
    /// current crawldb, with `merged` its last merged round.
    pub fn swap_crawldb(&self, staged: Staged, merged: RoundId) -> Result<()> {
        if self.is_read_only() {
            return Err(Error::ReadOnly {
                crawl: self.root.clone(),
                what: "the crawldb cannot be replaced".into(),
            });
        }
        write_synced(
            &staged.temp_dir.join(MERGED_ROUND),
            merged.0.to_string().as_bytes(),
        )?;
        self.crawldb_table().commit(staged)
    }
}

/// The temp folder a segment is written to before it is renamed to `final_dir`.
pub fn temp_dir_for(final_dir: &Path) -> PathBuf {
    let name = final_dir.file_name().unwrap_or_default().to_string_lossy();
    final_dir.with_file_name(format!("{name}{TEMP_MARK}{}", std::process::id()))
}

/// Where [`Staged::replace`](super::segment::Staged::replace) moves the
/// segment it replaces (`NAME.tmp-PID-old`) until the new one is in place.
pub fn aside_for(final_dir: &Path) -> PathBuf {
    let temp = temp_dir_for(final_dir);
    temp.with_file_name(format!(
        "{}{ASIDE_MARK}",
        temp.file_name().unwrap_or_default().to_string_lossy()
    ))
}

#[cfg(test)]
#[path = "layout_tests.rs"]
mod tests;
