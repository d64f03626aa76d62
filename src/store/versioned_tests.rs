//! Tests of versioned tables: commits, readers' pins, recovery.

use std::sync::Arc;

use datafusion::arrow::array::{Int32Array, RecordBatch};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use super::*;
use crate::store::segment::read_batches;

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new("n", DataType::Int32, false)]))
}

/// Commits a version of `table` holding the one row `n`.
fn commit(table: &VersionedTable, n: i32) {
    let mut writer = table.writer(schema()).unwrap();
    let column = Arc::new(Int32Array::from(vec![n]));
    writer
        .write(&RecordBatch::try_new(schema(), vec![column]).unwrap())
        .unwrap();
    table.commit(writer.finish().unwrap()).unwrap();
}

/// The one row of the version in `dir`.
fn row(dir: &Path) -> i32 {
    let batches: Vec<RecordBatch> = read_batches(dir, 16).unwrap().map(|b| b.unwrap()).collect();
    let column = batches[0].column(0).as_any().downcast_ref::<Int32Array>();
    column.unwrap().value(0)
}

/// The names in the table's folder, sorted.
fn names(table: &VersionedTable) -> Vec<String> {
    let mut names: Vec<String> = entries(table.dir())
        .unwrap()
        .into_iter()
        .map(|(_, n)| n)
        .collect();
    names.sort();
    names
}

#[test]
fn a_commit_makes_the_new_version_current_and_removes_the_old_one() {
    let tmp = tempfile::tempdir().unwrap();
    let table = VersionedTable::new(tmp.path().join("t"));
    assert_eq!(table.current().unwrap(), None);
    assert!(table.pin().unwrap().is_none());
    commit(&table, 1);
    commit(&table, 2);
    assert_eq!(row(&table.current().unwrap().unwrap()), 2);
    assert_eq!(names(&table), ["CURRENT", "v000002"]);
}

#[test]
fn a_pinned_version_stays_whole_until_its_reader_lets_go() {
    let tmp = tempfile::tempdir().unwrap();
    let table = VersionedTable::new(tmp.path().join("t"));
    commit(&table, 1);
    let pin = table.pin().unwrap().unwrap();
    commit(&table, 2);
    commit(&table, 3);
    assert_eq!(row(&pin.dir), 1, "the reader still reads its version");
    assert_eq!(names(&table), ["CURRENT", "v000001", "v000003"]);
    drop(pin);
    commit(&table, 4);
    assert_eq!(names(&table), ["CURRENT", "v000004"]);
}

#[test]
fn recovery_removes_what_a_killed_commit_left_and_keeps_the_current_version() {
    let tmp = tempfile::tempdir().unwrap();
    let table = VersionedTable::new(tmp.path().join("t"));
    commit(&table, 1);
    // killed after the version was renamed in, before the pointer moved
    let dir = table.dir().to_path_buf();
    std::fs::create_dir(dir.join("v000002")).unwrap();
    std::fs::create_dir(dir.join("v000003.tmp-9")).unwrap();
    std::fs::write(dir.join("CURRENT.tmp"), "v000002").unwrap();
    table.recover().unwrap();
    assert_eq!(names(&table), ["CURRENT", "v000001"]);
    assert_eq!(row(&table.current().unwrap().unwrap()), 1);
}

#[test]
fn a_table_from_before_versions_becomes_its_first_version() {
    let tmp = tempfile::tempdir().unwrap();
    let table = VersionedTable::new(tmp.path().join("t"));
    commit(&table, 7);
    // The layout before versions: the Parquet files in the table's folder.
    let version = table.current().unwrap().unwrap();
    for (path, name) in entries(&version).unwrap() {
        std::fs::rename(path, table.dir().join(name)).unwrap();
    }
    std::fs::remove_dir(&version).unwrap();
    std::fs::remove_file(table.dir().join(POINTER)).unwrap();
    let reader = table.pin().unwrap().unwrap();
    assert_eq!((reader.dir.as_path(), row(&reader.dir)), (table.dir(), 7));
    drop(reader);
    table.recover().unwrap();
    assert_eq!(row(&table.current().unwrap().unwrap()), 7);
    assert_eq!(names(&table), ["CURRENT", "v000001"]);
}

#[test]
fn a_pointer_to_no_version_is_damage_and_nothing_is_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let table = VersionedTable::new(tmp.path().join("t"));
    commit(&table, 1);
    for garbage in ["", "../../x", "/etc", "v7", "v000001/.."] {
        std::fs::write(table.dir().join(POINTER), garbage).unwrap();
        let err = table.recover().unwrap_err();
        assert!(err.to_string().contains("damaged"), "{garbage:?}: {err}");
        assert!(table.pin().is_err(), "{garbage:?}");
        assert_eq!(names(&table), ["CURRENT", "v000001"], "{garbage:?}");
    }
}
