//! A round split by host for several machines (`generate --partitions N`):
//! part I is a crawl directory of its own, `<round>/parts/<I>/`, with its
//! own writer lock, a copy of `crawl.json`, the hosts table, and the fetch
//! list rows of the hosts whose hash falls in it (all of a host in one part,
//! so politeness holds). `fetch --partition I` and `parse --partition I`
//! run the ordinary phases on it, on any machine that sees the crawl
//! directory; updatedb gathers the parts back into the round (`gather`),
//! refusing while one is not parsed. The parts folder is staged and renamed
//! into place whole.

use std::path::{Path, PathBuf};

use datafusion::arrow::array::{BooleanArray, StringArray};
use datafusion::arrow::compute::filter_record_batch;
use twox_hash::XxHash64;

use super::durable::{link_or_copy, rename_synced};
use super::layout::temp_dir_for;
use super::rows::column;
use super::{read_batches, CrawlDir, Phase, RoundId, SegmentWriter};
use crate::error::{Error, Result};

/// The folder of a round's parts.
const PARTS: &str = "parts";

/// True if `root` is a part of a split round (`<crawl>/<round>/parts/<i>`),
/// a crawl of its own without a crawldb.
pub fn is_part(root: &Path) -> bool {
    root.parent()
        .and_then(Path::file_name)
        .is_some_and(|name| name == PARTS)
}

/// The part a host belongs to among `n`.
pub fn part_of(host: &str, n: usize) -> usize {
    (XxHash64::oneshot(0, host.as_bytes()) % n.max(1) as u64) as usize
}

/// The parts folder of `round`.
fn parts_dir(crawl: &CrawlDir, round: RoundId) -> PathBuf {
    crawl.round_dir(round).join(PARTS)
}

/// How many parts `round` is split into (0: not split).
pub fn count(crawl: &CrawlDir, round: RoundId) -> Result<usize> {
    let dir = parts_dir(crawl, round);
    if !dir.is_dir() {
        return Ok(0);
    }
    let entries = std::fs::read_dir(&dir).map_err(Error::io(&dir))?;
    Ok(entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().parse::<usize>().is_ok())
        .count())
}

/// Splits `round`'s fetch list into `n` parts by host.
pub fn split(crawl: &CrawlDir, round: RoundId, n: usize) -> Result<()> {
    let final_dir = parts_dir(crawl, round);
    let staging = temp_dir_for(&final_dir);
    for part in 0..n {
        let root = staging.join(part.to_string());
        let part_crawl = CrawlDir::create(&root)?;
        std::fs::copy(crawl.crawl_json(), part_crawl.crawl_json())
            .map_err(Error::io(crawl.crawl_json()))?;
        if let Some(hosts) = crawl.hosts_table().current()? {
            part_crawl.hosts_table().adopt_files(&hosts)?;
        }
        std::fs::create_dir_all(part_crawl.round_dir(round))
            .map_err(Error::io(part_crawl.round_dir(round)))?;
        let fetchlist = part_crawl.segment(round, Phase::Fetchlist);
        let mut writer = SegmentWriter::create(&fetchlist, Phase::Fetchlist.schema())?;
        for batch in read_batches(&crawl.segment(round, Phase::Fetchlist), 8192)? {
            let batch = batch?;
            let hosts = column::<StringArray>(&batch, "host")?;
            let ours: BooleanArray = hosts
                .iter()
                .map(|h| Some(part_of(h.unwrap_or(""), n) == part))
                .collect();
            let rows = filter_record_batch(&batch, &ours).map_err(|e| Error::SegmentRead {
                path: fetchlist.clone(),
                message: e.to_string(),
            })?;
            writer.write(&rows)?;
        }
        writer.finish()?.commit()?;
    }
    rename_synced(&staging, &final_dir)
}

/// Part `part` of the latest round of the crawl at `root`, opened to be
/// written (its own lock), and the round.
pub fn open_part(root: &Path, part: usize) -> Result<(CrawlDir, RoundId)> {
    let crawl = CrawlDir::open_read_only(root)?;
    let Some(round) = crawl.latest_round()? else {
        return Err(Error::NothingToDo(format!(
            "{}: no round yet; run `langcrawl generate --partitions N` first",
            root.display()
        )));
    };
    let n = count(&crawl, round)?;
    if n == 0 {
        return Err(Error::Usage(format!(
            "--partition {part}: round {round} in {} is not split; run `langcrawl generate --partitions N`, or leave out --partition",
            root.display()
        )));
    }
    if part >= n {
        return Err(Error::Usage(format!(
            "--partition {part}: round {round} has parts 0 to {}",
            n - 1
        )));
    }
    Ok((
        CrawlDir::open(parts_dir(&crawl, round).join(part.to_string()))?,
        round,
    ))
}

/// Refuses to run `phase` on the whole of the latest round when it is split.
pub fn refuse_whole(crawl: &CrawlDir, phase: &str) -> Result<()> {
    let Some(round) = crawl.latest_round()? else {
        return Ok(());
    };
    match count(crawl, round)? {
        0 => Ok(()),
        n => Err(Error::Usage(format!(
            "round {round} in {} is split into {n} parts: run `langcrawl {phase} --partition I` for each I from 0 to {}",
            crawl.root().display(),
            n - 1
        ))),
    }
}

/// Gathers the parts of the latest round back into it (fetch, parse and
/// links as one Parquet file per part; `merge_hosts` takes each part's
/// hosts table back, given the parts and the host → part function), then
/// removes the parts. An error names the first part that is not parsed
/// yet. Nothing to do for a round that is not split.
pub fn gather(
    crawl: &CrawlDir,
    merge_hosts: impl FnOnce(&[CrawlDir], &dyn Fn(&str) -> usize) -> Result<()>,
) -> Result<()> {
    let Some(round) = crawl.latest_round()? else {
        return Ok(());
    };
    let n = count(crawl, round)?;
    let phases = [Phase::Fetch, Phase::Parse, Phase::Links];
    if n == 0 {
        return Ok(());
    }
    let parts: Vec<CrawlDir> = (0..n)
        .map(|i| CrawlDir::open(parts_dir(crawl, round).join(i.to_string())))
        .collect::<Result<_>>()?;
    if !phases.iter().all(|&p| crawl.has(round, p)) {
        for (i, part) in parts.iter().enumerate() {
            if let Some(missing) = phases.iter().find(|&&p| !part.has(round, p)) {
                return Err(Error::NothingToDo(format!(
                    "round {round} in {}: part {i} has no {} segment yet; run `langcrawl {} --partition {i}`",
                    crawl.root().display(),
                    missing.dir_name(),
                    missing.producer()
                )));
            }
        }
        merge_hosts(&parts, &|host| part_of(host, n))?;
        // `sitemaps` is gathered when every part has one (a part fetched
        // before sitemaps were read has none)
        let sitemaps = parts.iter().all(|p| p.has(round, Phase::Sitemaps));
        let gathered = sitemaps
            .then_some(Phase::Sitemaps)
            .into_iter()
            .chain(phases);
        for phase in gathered.filter(|&p| !crawl.has(round, p)) {
            link_parts(crawl, &parts, round, phase)?;
        }
    }
    drop(parts);
    let dir = parts_dir(crawl, round);
    let doomed = temp_dir_for(&dir);
    rename_synced(&dir, &doomed)?;
    std::fs::remove_dir_all(&doomed).map_err(Error::io(&doomed))
}

/// The round's `phase` segment made of the parts' files (hard links, so a
/// part stays whole until every segment is in place).
fn link_parts(crawl: &CrawlDir, parts: &[CrawlDir], round: RoundId, phase: Phase) -> Result<()> {
    let final_dir = crawl.segment(round, phase);
    let staging = temp_dir_for(&final_dir);
    std::fs::create_dir_all(&staging).map_err(Error::io(&staging))?;
    for (i, part) in parts.iter().enumerate() {
        let files = super::segment::part_files(&part.segment(round, phase))?;
        for (k, file) in files.iter().enumerate() {
            link_or_copy(file, &staging.join(format!("part-{i}-{k}.parquet")))?;
        }
    }
    super::durable::sync_dir(&staging)?;
    rename_synced(&staging, &final_dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_is_always_in_the_same_part() {
        assert_eq!(part_of("a.jp", 4), part_of("a.jp", 4));
        let hosts: Vec<String> = (0..400).map(|i| format!("h{i}.jp")).collect();
        let mut sizes = [0; 4];
        for h in &hosts {
            sizes[part_of(h, 4)] += 1;
        }
        assert!(sizes.iter().all(|&s| s > 60), "{sizes:?}");
        assert_eq!(part_of("a.jp", 1), 0);
    }
}
