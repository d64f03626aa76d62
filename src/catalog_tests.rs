use datafusion::arrow::array::Int64Array;
use datafusion::arrow::datatypes::{DataType, Field, Schema};

use super::*;

/// `rows` rows of about 120 bytes: `n` from 1 to `rows`, and some text.
async fn numbers(engine: &Engine, rows: i64) -> DataFrame {
    let sql = "SELECT value AS n, repeat('x', 100) AS text FROM generate_series(1, 100000) WHERE value <= $rows";
    let params = Params::new().set("rows", rows);
    engine.query(sql, &params).await.unwrap()
}

fn numbers_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("n", DataType::Int64, false),
        Field::new("text", DataType::Utf8, false),
    ]))
}

/// The count and the sum of `n` in table `name`.
async fn count_and_sum(engine: &Engine, name: &str) -> (i64, i64) {
    let sql = format!("SELECT count(*) AS c, sum(n) AS s FROM {name}");
    let df = engine.query(&sql, &Params::new()).await.unwrap();
    let batches = engine.collect(df).await.unwrap();
    let column = |i: usize| {
        batches[0]
            .column(i)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap()
            .value(0)
    };
    (column(0), column(1))
}

/// The folders in `dir`.
fn folders(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir).unwrap().count()
}

#[tokio::test]
async fn a_held_result_reads_the_same_from_memory_and_past_the_budget_from_parquet() {
    let dir = tempfile::tempdir().unwrap();
    // the smallest pool: held results keep at most 2 MiB in memory
    let engine = Engine::with_memory_limit(None, crate::memory::MIN_LIMIT);
    let at = dir.path().join("held");
    // 1,000 rows fit in memory; 100,000 (about 12 MiB) go to Parquet
    for (rows, on_disk) in [(1_000, false), (100_000, true)] {
        let df = numbers(&engine, rows).await;
        let held = scratch(&engine, "held", df, &at, &numbers_schema())
            .await
            .unwrap();
        assert_eq!(folders(dir.path()), usize::from(on_disk), "{rows} rows");
        // read twice: the query ran once, its rows stay
        for _ in 0..2 {
            let expected = (rows, rows * (rows + 1) / 2);
            assert_eq!(count_and_sum(&engine, "held").await, expected);
        }
        drop(held);
        assert_eq!(folders(dir.path()), 0, "{rows} rows: nothing left behind");
        if !on_disk {
            let exists = engine.context().table_exist("held").unwrap();
            assert!(!exists, "the memory it held is given back");
        }
    }
}

#[tokio::test]
async fn dropping_a_held_result_leaves_a_table_registered_since_under_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(None);
    let (at, schema) = (dir.path().join("held"), numbers_schema());
    let first = scratch(&engine, "held", numbers(&engine, 10).await, &at, &schema);
    let first = first.await.unwrap();
    let second = scratch(&engine, "held", numbers(&engine, 20).await, &at, &schema);
    let second = second.await.unwrap();
    drop(first);
    assert_eq!(count_and_sum(&engine, "held").await, (20, 210));
    drop(second);
    assert!(!engine.context().table_exist("held").unwrap());
}

#[tokio::test]
async fn results_held_at_once_share_one_budget() {
    let dir = tempfile::tempdir().unwrap();
    // held results keep at most 2 MiB in memory, all together; 10,000
    // rows take about 1.2 MiB
    let engine = Engine::with_memory_limit(None, crate::memory::MIN_LIMIT);
    let schema = numbers_schema();
    let hold = |name: &'static str| {
        let (engine, at, schema) = (&engine, dir.path().join(name), &schema);
        async move {
            let df = numbers(engine, 10_000).await;
            scratch(engine, name, df, &at, schema).await.unwrap()
        }
    };
    let first = hold("first").await;
    assert_eq!(folders(dir.path()), 0, "the first fits in memory");
    let second = hold("second").await;
    assert_eq!(folders(dir.path()), 1, "the second is past what is left");
    drop(first);
    let third = hold("third").await;
    assert_eq!(folders(dir.path()), 1, "the first's share is given back");
    for name in ["second", "third"] {
        assert_eq!(count_and_sum(&engine, name).await, (10_000, 50_005_000));
    }
    drop((second, third));
    assert_eq!(folders(dir.path()), 0);
}
