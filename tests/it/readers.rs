//! Readers beside a writer: `sql` reads (the library calls the `sql`
//! command makes) run while a writer replaces the crawldb every few
//! milliseconds, and each read sees one whole version of it — never a
//! failure, never a mix of two versions, never an empty table.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use datafusion::arrow::array::{Array, Int32Array, Int64Array, RecordBatch};
use datafusion::arrow::compute::concat_batches;
use langcrawl::engine::Engine;
use langcrawl::store::{read_batches, CrawlDir, RoundId};

use crate::util::{langcrawl, succeeded};

const READERS: usize = 2;
/// Each reader reads at least this often, and on until the writer has
/// committed `MIN_VERSIONS`: the reads span that many replacements however
/// fast or slow the machine is.
const READS_EACH: usize = 250;
const MIN_VERSIONS: usize = 200;
/// Version k holds `k % ROWS_CYCLE + 1` rows, each with discovered_round k.
const ROWS_CYCLE: i64 = 50;
const SEEDS: i64 = 60;

/// How many rows version `k` holds (0: the injected crawldb).
fn rows_of_version(k: i64) -> i64 {
    if k == 0 {
        SEEDS
    } else {
        k % ROWS_CYCLE + 1
    }
}

/// A crawl of `SEEDS` injected URLs; its crawldb's rows.
fn injected(dir: &Path) -> RecordBatch {
    let seeds = dir.with_file_name("seeds.txt");
    let urls: Vec<String> = (0..SEEDS)
        .map(|i| format!("http://h{i}.example.jp/\n"))
        .collect();
    std::fs::write(&seeds, urls.concat()).unwrap();
    let args = ["inject", seeds.to_str().unwrap(), "--lang", "ja", "--crawl"];
    let mut args: Vec<&str> = args.to_vec();
    args.push(dir.to_str().unwrap());
    succeeded(langcrawl(&args), &args);
    let crawl = CrawlDir::open_read_only(dir).unwrap();
    let current = crawl.crawldb().unwrap().unwrap();
    let batches: Vec<RecordBatch> = read_batches(&current, 1024)
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
    concat_batches(&batches[0].schema(), &batches).unwrap()
}

/// Version `k` of the crawldb: the first `k % ROWS_CYCLE + 1` rows, all
/// discovered in round `k`.
fn version(rows: &RecordBatch, k: i64) -> RecordBatch {
    let n = (k % ROWS_CYCLE + 1) as usize;
    let slice = rows.slice(0, n);
    let schema = slice.schema();
    let at = schema.index_of("discovered_round").unwrap();
    let mut columns = slice.columns().to_vec();
    columns[at] = Arc::new(Int32Array::from(vec![k as i32; n]));
    RecordBatch::try_new(schema, columns).unwrap()
}

/// Replaces the crawldb of the crawl `dir` every 2 ms until `stop`,
/// counting the committed versions in `committed`.
fn replace_until(dir: &Path, rows: &RecordBatch, stop: &AtomicBool, committed: &AtomicUsize) {
    let crawl = CrawlDir::open(dir).unwrap();
    let mut k = 1;
    while !stop.load(Ordering::Relaxed) {
        let mut writer = crawl.crawldb_writer().unwrap();
        writer.write(&version(rows, k)).unwrap();
        crawl
            .swap_crawldb(writer.finish().unwrap(), RoundId(0))
            .unwrap();
        committed.store(k as usize, Ordering::Relaxed);
        k += 1;
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// One `sql` read: (rows, first and last discovered_round) of the crawldb.
async fn read(dir: &Path) -> Result<(i64, i64, i64), String> {
    let crawl = CrawlDir::open_read_only(dir).map_err(|e| e.to_string())?;
    let engine = Engine::new(None);
    langcrawl::catalog::whole_crawl(&engine, &crawl, false)
        .await
        .map_err(|e| e.to_string())?;
    let query = "SELECT count(*), min(discovered_round), max(discovered_round) FROM crawldb";
    let batches = langcrawl::report::query(&engine, query)
        .await
        .map_err(|e| e.to_string())?;
    let b = &batches[0];
    let n = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
    let lo = b.column(1).as_any().downcast_ref::<Int32Array>().unwrap();
    let hi = b.column(2).as_any().downcast_ref::<Int32Array>().unwrap();
    if lo.is_null(0) {
        return Err(format!("{} rows", n.value(0)));
    }
    Ok((n.value(0), lo.value(0).into(), hi.value(0).into()))
}

#[test]
fn sql_reads_beside_a_writer_replacing_the_crawldb_each_see_one_whole_version() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("crawl");
    let rows = injected(&dir);
    let stop = Arc::new(AtomicBool::new(false));
    let committed = Arc::new(AtomicUsize::new(0));
    let writer = {
        let (dir, stop, committed) = (dir.clone(), stop.clone(), committed.clone());
        std::thread::spawn(move || replace_until(&dir, &rows, &stop, &committed))
    };
    let readers: Vec<_> = (0..READERS)
        .map(|_| {
            let (dir, committed) = (dir.clone(), committed.clone());
            std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .build()
                    .unwrap();
                let mut results = Vec::new();
                while results.len() < READS_EACH || committed.load(Ordering::Relaxed) < MIN_VERSIONS
                {
                    results.push(runtime.block_on(read(&dir)));
                }
                results
            })
        })
        .collect();
    let (mut bad, mut reads, mut seen) = (Vec::new(), 0, BTreeSet::new());
    for reader in readers {
        for result in reader.join().unwrap() {
            reads += 1;
            match result {
                Ok((n, lo, hi)) if lo == hi && n == rows_of_version(lo) => {
                    seen.insert(lo);
                }
                other => bad.push(format!("{other:?}")),
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    assert!(bad.is_empty(), "{} of {reads} reads: {bad:?}", bad.len());
    // The reads really met a crawldb replaced under them, many times.
    assert!(
        seen.len() >= 20,
        "the reads saw {} versions of {}",
        seen.len(),
        committed.load(Ordering::Relaxed)
    );
}
