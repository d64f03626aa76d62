//! The hosts table (`<crawl>/hosts/`, schema `HOSTS`): what fetch keeps
//! about a host between runs — its first robots.txt answer and the origin
//! it is for, reused for 24 hours,
//! and its back-off (`deferred_until`), which `generate` reads to skip the
//! host. Each fetch rewrites the table atomically (a staged segment that
//! replaces the old one), reading only the rows of the hosts it fetches
//! and copying the others batch by batch.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Int32Array, RecordBatch, StringArray,
    TimestampMillisecondArray,
};
use datafusion::arrow::compute::filter_record_batch;

use super::robots::RobotsAnswer;
use crate::error::{Error, Result};
use crate::store::rows::{column, opt_str};
use crate::store::schema::HOSTS;
use crate::store::segment::conform;
use crate::store::{read_batches, CrawlDir};

/// How long a robots.txt answer is reused (RFC 9309 §2.4).
pub const ROBOTS_MAX_AGE_MS: i64 = 24 * 3600 * 1000;

/// One host's row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HostRecord {
    pub host: String,
    pub robots: Option<RobotsAnswer>,
    pub deferred_until_ms: Option<i64>,
    pub deferred_reason: Option<String>,
    pub failures: u32,
    /// The round whose fetch read the host's sitemaps.
    pub sitemaps_round: Option<u32>,
}

impl HostRecord {
    /// True if the row still says something at `now_ms`: a reusable robots
    /// answer, a back-off, or failures to carry over.
    fn current(&self, now_ms: i64) -> bool {
        self.robots
            .as_ref()
            .is_some_and(|r| r.reusable(now_ms, ROBOTS_MAX_AGE_MS))
            || self.deferred_until_ms.is_some_and(|t| t > now_ms)
            || self.failures > 0
    }
}

/// The rows of `hosts` (the others are not read into memory).
pub fn load(crawl: &CrawlDir, hosts: &HashSet<&str>) -> Result<HashMap<String, HostRecord>> {
    let records = read_records(crawl.hosts()?.as_deref(), |host| hosts.contains(host))?;
    Ok(records.into_iter().map(|r| (r.host.clone(), r)).collect())
}

/// The rows of the hosts table in `dir` whose host `keep` names (none if
/// there is no table yet); the others are not decoded.
fn read_records(
    dir: Option<&std::path::Path>,
    keep: impl Fn(&str) -> bool,
) -> Result<Vec<HostRecord>> {
    let mut found = Vec::new();
    let Some(dir) = dir else {
        return Ok(found);
    };
    for batch in table_batches(dir)? {
        let batch = batch?;
        let names = column::<StringArray>(&batch, "host")?;
        for row in 0..batch.num_rows() {
            if keep(names.value(row)) {
                found.push(decode(&batch, row).map_err(|e| in_table(dir, e))?);
            }
        }
    }
    Ok(found)
}

/// Rewrites the table: the old rows of other hosts that are still current,
/// then `records` (those still current at `now_ms`).
pub fn save(crawl: &CrawlDir, records: &[HostRecord], now_ms: i64) -> Result<()> {
    let table = crawl.hosts_table();
    let mut writer = table.writer(HOSTS.clone())?;
    let ours: HashSet<&str> = records.iter().map(|r| r.host.as_str()).collect();
    if let Some(dir) = crawl.hosts()? {
        for batch in table_batches(&dir)? {
            let batch = batch?;
            let keep = (0..batch.num_rows())
                .map(|row| {
                    let record = decode(&batch, row)?;
                    Ok(Some(
                        !ours.contains(record.host.as_str()) && record.current(now_ms),
                    ))
                })
                .collect::<Result<BooleanArray>>()
                .map_err(|e| in_table(&dir, e))?;
            let kept = filter_record_batch(&batch, &keep).map_err(|e| in_table(&dir, e))?;
            writer.write(&kept)?;
        }
    }
    let current: Vec<&HostRecord> = records.iter().filter(|r| r.current(now_ms)).collect();
    for chunk in current.chunks(256) {
        writer.write(&encode(chunk, now_ms))?;
    }
    table.commit(writer.finish()?)
}

/// Takes back the hosts tables of a split round's parts: from part `i`,
/// the rows of the hosts in it (`part_of(host) == i`), written over the
/// crawl's own rows of those hosts.
pub fn gather(crawl: &CrawlDir, parts: &[CrawlDir], part_of: &dyn Fn(&str) -> usize) -> Result<()> {
    let mut records = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        records.extend(read_records(part.hosts()?.as_deref(), |host| {
            part_of(host) == i
        })?);
    }
    save(crawl, &records, super::backoff::now_ms())
}

/// The table's batches in its schema: a table written before a column
/// existed reads it as NULL.
fn table_batches(dir: &std::path::Path) -> Result<impl Iterator<Item = Result<RecordBatch>> + '_> {
    let batches = read_batches(dir, 1024)?;
    Ok(batches.map(move |batch| conform(&batch?, &HOSTS).map_err(|e| in_table(dir, e))))
}

fn in_table(dir: &std::path::Path, e: impl std::fmt::Display) -> Error {
    Error::SegmentRead {
        path: dir.to_path_buf(),
        message: e.to_string(),
    }
}

fn millis(array: &TimestampMillisecondArray, row: usize) -> Option<i64> {
    (!array.is_null(row)).then(|| array.value(row))
}

fn decode(batch: &RecordBatch, row: usize) -> Result<HostRecord> {
    let fetched_at = column::<TimestampMillisecondArray>(batch, "robots_fetched_at")?;
    let status = column::<Int32Array>(batch, "robots_status")?;
    let body = column::<BinaryArray>(batch, "robots_body")?;
    let error = opt_str(column(batch, "robots_error")?, row).map(str::to_string);
    let origin = column::<StringArray>(batch, "robots_origin")?;
    let robots = millis(fetched_at, row).map(|fetched_at_ms| RobotsAnswer {
        fetched_at_ms,
        status: (!status.is_null(row)).then(|| status.value(row).clamp(0, 999) as u16),
        body: if body.is_null(row) {
            Vec::new()
        } else {
            body.value(row).to_vec()
        },
        error,
        retry_after: None,
        origin: opt_str(origin, row).map(str::to_string),
    });
    Ok(HostRecord {
        host: column::<StringArray>(batch, "host")?.value(row).to_string(),
        robots,
        deferred_until_ms: millis(column(batch, "deferred_until")?, row),
        deferred_reason: opt_str(column(batch, "deferred_reason")?, row).map(str::to_string),
        failures: column::<Int32Array>(batch, "failures")?.value(row).max(0) as u32,
        sitemaps_round: Some(column::<Int32Array>(batch, "sitemaps_round")?)
            .filter(|c| !c.is_null(row))
            .and_then(|c| u32::try_from(c.value(row)).ok()),
    })
}

fn encode(records: &[&HostRecord], now_ms: i64) -> RecordBatch {
    let utc = |values: Vec<Option<i64>>| -> ArrayRef {
        Arc::new(TimestampMillisecondArray::from(values).with_timezone("UTC"))
    };
    let robots = |f: fn(&RobotsAnswer) -> Option<&str>| -> ArrayRef {
        Arc::new(
            records
                .iter()
                .map(|r| r.robots.as_ref().and_then(f))
                .collect::<StringArray>(),
        )
    };
    let columns: Vec<ArrayRef> = vec![
        Arc::new(
            records
                .iter()
                .map(|r| Some(r.host.as_str()))
                .collect::<StringArray>(),
        ),
        utc(records
            .iter()
            .map(|r| r.robots.as_ref().map(|a| a.fetched_at_ms))
            .collect()),
        Arc::new(
            records
                .iter()
                .map(|r| r.robots.as_ref().and_then(|a| a.status).map(i32::from))
                .collect::<Int32Array>(),
        ),
        Arc::new(
            records
                .iter()
                .map(|r| {
                    r.robots
                        .as_ref()
                        .filter(|a| a.error.is_none())
                        .map(|a| a.body.as_slice())
                })
                .collect::<BinaryArray>(),
        ),
        robots(|a| a.error.as_deref()),
        utc(records.iter().map(|r| r.deferred_until_ms).collect()),
        Arc::new(
            records
                .iter()
                .map(|r| r.deferred_reason.as_deref())
                .collect::<StringArray>(),
        ),
        Arc::new(
            records
                .iter()
                .map(|r| Some(r.failures.min(i32::MAX as u32) as i32))
                .collect::<Int32Array>(),
        ),
        utc(vec![Some(now_ms); records.len()]),
        Arc::new(
            records
                .iter()
                .map(|r| r.sitemaps_round.and_then(|n| i32::try_from(n).ok()))
                .collect::<Int32Array>(),
        ),
        robots(|a| a.origin.as_deref()),
    ];
    RecordBatch::try_new(HOSTS.clone(), columns).expect("host rows match the hosts schema")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crawl() -> (tempfile::TempDir, CrawlDir) {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("crawl.json"), "{}").unwrap();
        let crawl = CrawlDir::open(tmp.path()).unwrap();
        (tmp, crawl)
    }

    fn record(host: &str, robots_at: i64, deferred_until: Option<i64>) -> HostRecord {
        HostRecord {
            host: host.into(),
            robots: Some(RobotsAnswer {
                fetched_at_ms: robots_at,
                status: Some(200),
                body: b"Disallow: /x/\n".to_vec(),
                origin: Some(format!("http://{host}")),
                ..RobotsAnswer::default()
            }),
            deferred_until_ms: deferred_until,
            deferred_reason: deferred_until.map(|_| "HTTP 429".into()),
            failures: 0,
            sitemaps_round: None,
        }
    }

    #[test]
    fn rows_round_trip_and_stale_ones_are_dropped() {
        let (_tmp, crawl) = crawl();
        let now = 10 * ROBOTS_MAX_AGE_MS;
        let fresh = record("a.jp", now - 1000, None);
        let stale = record("b.jp", now - ROBOTS_MAX_AGE_MS - 1, None);
        let deferred = record("c.jp", now - ROBOTS_MAX_AGE_MS - 1, Some(now + 5000));
        save(&crawl, &[fresh.clone(), stale, deferred.clone()], now).unwrap();
        let all: HashSet<&str> = ["a.jp", "b.jp", "c.jp"].into();
        let loaded = load(&crawl, &all).unwrap();
        assert_eq!(loaded.len(), 2, "{loaded:?}");
        assert_eq!(loaded["a.jp"], fresh);
        assert_eq!(loaded["c.jp"], deferred);

        // A later run that fetched only a.jp keeps c.jp's row.
        let mut again = fresh.clone();
        again.failures = 2;
        save(&crawl, &[again.clone()], now + 1).unwrap();
        let loaded = load(&crawl, &all).unwrap();
        assert_eq!((loaded["a.jp"].failures, loaded.len()), (2, 2));
        // The pointer and the one version: the older one is removed.
        let entries = std::fs::read_dir(crawl.hosts_table().dir()).unwrap();
        assert_eq!(entries.count(), 2);
    }

    #[test]
    fn a_table_written_before_sitemaps_round_and_robots_origin_is_read_and_rewritten() {
        let (_tmp, crawl) = crawl();
        let now = 10 * ROBOTS_MAX_AGE_MS;
        let old = record("a.jp", now - 1000, None);
        // the table as a build before the column wrote it
        let batch = encode(&[&old], now);
        let without = batch.project(&[0, 1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        assert!(without.column_by_name("sitemaps_round").is_none());
        assert!(without.column_by_name("robots_origin").is_none());
        let table = crawl.hosts_table();
        let mut writer =
            crate::store::SegmentWriter::create(&table.next_version().unwrap(), without.schema())
                .unwrap();
        writer.write(&without).unwrap();
        table.commit(writer.finish().unwrap()).unwrap();
        let all: HashSet<&str> = ["a.jp", "b.jp"].into();
        let mut read_back = old.clone();
        read_back.robots.as_mut().unwrap().origin = None; // fetched again
        assert_eq!(load(&crawl, &all).unwrap()["a.jp"], read_back);
        save(&crawl, &[record("b.jp", now, None)], now).unwrap();
        assert_eq!(load(&crawl, &all).unwrap().len(), 2, "the old row kept");
    }
}
