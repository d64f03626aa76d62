//! Tests of segment writing and reading.

use super::*;
use crate::store::schema::FETCHLIST;
use datafusion::arrow::array::{Float64Array, Int32Array, StringArray};
use std::sync::Arc;

#[test]
fn a_segment_is_invisible_until_committed_and_reads_back() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("fetchlist");
    let mut writer = SegmentWriter::create(&dir, FETCHLIST.clone()).unwrap();
    let batch = wide_rows(1, 12);
    writer.write(&batch).unwrap();
    let staged = writer.finish().unwrap();
    assert!(!dir.exists());
    assert_eq!(staged.commit().unwrap(), 1);
    let rows: usize = read_batches(&dir, 10)
        .unwrap()
        .map(|b| b.unwrap().num_rows())
        .sum();
    assert_eq!(rows, 1);
}

/// The folders in `dir`.
fn folders(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_segment_given_up_before_its_commit_leaves_no_temp_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("fetchlist");
    // a phase that fails while writing
    let mut writer = SegmentWriter::create(&dir, FETCHLIST.clone()).unwrap();
    writer.write(&wide_rows(3, 10)).unwrap();
    assert_eq!(
        folders(tmp.path()).len(),
        1,
        "the temp folder while writing"
    );
    drop(writer);
    assert!(folders(tmp.path()).is_empty(), "{:?}", folders(tmp.path()));
    // one that fails after writing, before its commit
    let mut writer = SegmentWriter::create(&dir, FETCHLIST.clone()).unwrap();
    writer.write(&wide_rows(3, 10)).unwrap();
    drop(writer.finish().unwrap());
    assert!(folders(tmp.path()).is_empty(), "{:?}", folders(tmp.path()));
    // a commit refused (the segment exists) leaves the one there alone
    std::fs::create_dir(&dir).unwrap();
    let writer = SegmentWriter::create(&dir, FETCHLIST.clone()).unwrap();
    assert!(writer.finish().unwrap().commit().is_err());
    assert_eq!(folders(tmp.path()), ["fetchlist"]);
    // handed on, the folder stays for its new owner
    let scratch = tmp.path().join("scratch");
    let mut writer = SegmentWriter::scratch(&scratch, FETCHLIST.clone()).unwrap();
    writer.write(&wide_rows(3, 10)).unwrap();
    let kept = writer.finish().unwrap().hand_on();
    assert_eq!(part_files(&kept).unwrap().len(), 1);
    assert_eq!(folders(tmp.path()).len(), 2);
}

/// `rows` fetch-list rows whose URLs are `width` bytes of varied text.
fn wide_rows(rows: usize, width: usize) -> RecordBatch {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut text = |_| {
        (0..width)
            .map(|_| {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                char::from(b'a' + (state >> 59) as u8 % 26)
            })
            .collect::<String>()
    };
    let urls: Vec<String> = (0..rows).map(&mut text).collect();
    RecordBatch::try_new(
        FETCHLIST.clone(),
        vec![
            Arc::new(StringArray::from(urls)),
            Arc::new(StringArray::from(vec!["a.jp"; rows])),
            Arc::new(Int32Array::from(vec![0; rows])),
            Arc::new(Float64Array::from(vec![1.0; rows])),
            Arc::new(StringArray::from(vec!["rank"; rows])),
            Arc::new(StringArray::from(vec![None::<&str>; rows])),
            Arc::new(StringArray::from(vec![None::<&str>; rows])),
        ],
    )
    .unwrap()
}

/// The row groups of a committed one-file segment: (rows, bytes).
fn row_groups(dir: &Path) -> Vec<(i64, i64)> {
    let file = File::open(&part_files(dir).unwrap()[0]).unwrap();
    let builder = ParquetRecordBatchReaderBuilder::try_new(file).unwrap();
    let groups = builder.metadata().row_groups();
    groups
        .iter()
        .map(|g| (g.num_rows(), g.total_byte_size()))
        .collect()
}

#[test]
fn row_groups_close_by_bytes_and_by_rows() {
    let tmp = tempfile::tempdir().unwrap();
    let limit = 64 << 10;
    let by_bytes = tmp.path().join("wide");
    let mut writer =
        SegmentWriter::create_with_limits(&by_bytes, FETCHLIST.clone(), limit, 1 << 20).unwrap();
    // 2 MB in one batch, as fetch hands over its pages.
    writer.write(&wide_rows(200, 10_000)).unwrap();
    assert_eq!(writer.finish().unwrap().commit().unwrap(), 200);
    let groups = row_groups(&by_bytes);
    assert!(groups.len() >= 20, "{groups:?}");
    assert_eq!(groups.iter().map(|g| g.0).sum::<i64>(), 200);
    let largest = groups.iter().map(|g| g.1).max().unwrap();
    assert!(largest <= 2 * limit as i64, "{largest} bytes: {groups:?}");

    let by_rows = tmp.path().join("narrow");
    let mut writer =
        SegmentWriter::create_with_limits(&by_rows, FETCHLIST.clone(), 1 << 30, 7).unwrap();
    writer.write(&wide_rows(20, 10)).unwrap();
    writer.finish().unwrap().commit().unwrap();
    let rows: Vec<i64> = row_groups(&by_rows).iter().map(|g| g.0).collect();
    assert_eq!(rows, [7, 7, 6]);
    let read: usize = read_batches(&by_bytes, 64)
        .unwrap()
        .map(|b| b.unwrap().num_rows())
        .sum();
    assert_eq!(read, 200);
}

#[test]
fn a_corrupt_file_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("part-0.parquet"), b"not parquet").unwrap();
    let err = read_batches(tmp.path(), 10)
        .unwrap()
        .next()
        .unwrap()
        .unwrap_err();
    assert!(err.to_string().contains("part-0.parquet"), "{err}");
}
