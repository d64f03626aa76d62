//! A crawl written by an older langcrawl — segments without the columns
//! added since — can still be inspected, refiltered and continued: every
//! table is read with its declared schema, a missing column as NULL.

use std::path::Path;

use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;

use crate::util::{parquet_files, table_version, Crawl};

/// Rewrites every Parquet file of `dir` without the columns in `drop`.
fn drop_columns(dir: &Path, drop: &[&str]) {
    for path in parquet_files(dir) {
        let file = std::fs::File::open(&path).unwrap();
        let reader = ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap();
        let batches: Vec<_> = reader
            .map(|batch| {
                let batch = batch.unwrap();
                let keep: Vec<usize> = (0..batch.num_columns())
                    .filter(|&i| !drop.contains(&batch.schema().field(i).name().as_str()))
                    .collect();
                batch.project(&keep).unwrap()
            })
            .collect();
        let out = std::fs::File::create(&path).unwrap();
        let mut writer = ArrowWriter::try_new(out, batches[0].schema(), None).unwrap();
        for batch in &batches {
            writer.write(batch).unwrap();
        }
        writer.close().unwrap();
    }
}

#[test]
fn a_crawl_without_the_newer_columns_is_read_refiltered_and_continued() {
    let crawl = Crawl::new();
    crawl.crawl_japanese(2);
    let round_one = crawl.dir().join("00001");
    let merge_columns = [
        "kind",
        "anchor",
        "dst_host",
        "dst_domain",
        "dst_tld",
        "dst_dir",
        "depth",
        "redirect_hops",
    ];
    drop_columns(&round_one.join("decisions"), &merge_columns);
    drop_columns(&round_one.join("links"), &["hreflang", "position"]);
    drop_columns(
        &table_version(&crawl.dir(), "crawldb"),
        &["redirect_hops", "retry_round"],
    );

    let old_decisions = crawl.number(
        "SELECT count(*) FROM decision_sets WHERE round = 1 AND kind IS NULL AND dst_host IS NULL",
    );
    let all_round_one = crawl.number("SELECT count(*) FROM decision_sets WHERE round = 1");
    assert!(all_round_one > 0);
    assert_eq!(
        old_decisions, all_round_one,
        "round 1 reads its missing columns as NULL"
    );
    assert!(
        crawl.number("SELECT count(*) FROM decision_sets WHERE round = 2 AND kind IS NOT NULL") > 0
    );

    crawl.ok(&["refilter", "--strategy", "soft-focused", "--name", "soft"]);
    let refiltered = "SELECT count(*) FROM decision_sets WHERE decision_set = 'soft' AND round = 1";
    assert!(crawl.number(refiltered) > 0);
    let known = crawl.number("SELECT count(*) FROM crawldb");
    crawl.ok(&["crawl", "--rounds", "1"]);
    assert!(crawl.number("SELECT count(*) FROM crawldb") > known);
    let new_without_hops =
        "SELECT count(*) FROM crawldb WHERE discovered_round = 3 AND redirect_hops IS NULL";
    assert_eq!(
        crawl.number(new_without_hops),
        0,
        "round 3 writes the new columns again"
    );
}
