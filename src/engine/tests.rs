use super::*;
use datafusion::arrow::datatypes::{DataType, Field, Schema};

/// `sql`'s rows, run on `engine` and printed as a table.
async fn printed(engine: &Engine, sql: &str, params: &Params) -> String {
    let df = engine.query(sql, params).await.unwrap();
    let batches = engine.collect(df).await.unwrap();
    datafusion::arrow::util::pretty::pretty_format_batches(&batches)
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn a_users_query_may_only_read() {
    let engine = Engine::new(None);
    for sql in [
        "CREATE TABLE t AS SELECT 1 AS x",
        "COPY (SELECT 1) TO '/tmp/never-written.parquet'",
        "SET datafusion.execution.batch_size = 1",
        "DROP TABLE IF EXISTS t",
    ] {
        let err = engine.query_read_only(sql).await.unwrap_err();
        assert!(matches!(err, Error::Usage(_)), "{sql}: {err}");
        assert!(err.to_string().contains("only reads"), "{sql}: {err}");
    }
    assert!(!Path::new("/tmp/never-written.parquet").exists());
    let df = engine.query_read_only("SELECT 1 AS x").await.unwrap();
    assert_eq!(engine.collect(df).await.unwrap()[0].num_rows(), 1);
}

#[tokio::test]
async fn a_query_over_the_memory_limit_fails_with_one_line_naming_the_flag() {
    let engine = Engine::with_memory_limit(None, 1 << 20);
    let sql = "SELECT v, count(*) FROM (SELECT CAST(value AS VARCHAR) || repeat('x', 100) AS v FROM generate_series(1, 300000)) GROUP BY v";
    let df = engine.query(sql, &Params::new()).await;
    let err = match df {
        Ok(df) => engine.collect(df).await.unwrap_err(),
        Err(e) => e,
    };
    let line = err.to_string();
    assert!(line.contains("--memory-limit"), "{line}");
    assert!(!line.contains('\n'), "{line}");
}

#[tokio::test]
async fn named_parameters_are_bound() {
    let engine = Engine::new(None);
    let params = Params::new().set("lang", "jpn").set("n", 3i64);
    let text = printed(&engine, "SELECT $lang AS lang, $n + 1 AS n", &params).await;
    assert!(text.contains("jpn") && text.contains('4'), "{text}");
}

/// A segment of `rows` URLs in row groups of 1,000, with a text column.
fn url_segment(dir: &Path, rows: usize) {
    use datafusion::arrow::array::{RecordBatch, StringArray};
    let schema = Arc::new(Schema::new(vec![
        Field::new("url", DataType::Utf8, false),
        Field::new("text", DataType::Utf8, false),
    ]));
    let urls: Vec<String> = (0..rows)
        .map(|i| format!("http://h{}.th/p{i}", i % 97))
        .collect();
    let texts: Vec<String> = (0..rows).map(|i| format!("text of page {i}")).collect();
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![
            Arc::new(StringArray::from(urls)),
            Arc::new(StringArray::from(texts)),
        ],
    )
    .unwrap();
    let mut writer =
        crate::store::SegmentWriter::create_with_limits(dir, schema, 1 << 30, 1000).unwrap();
    writer.write(&batch).unwrap();
    writer.finish().unwrap().commit().unwrap();
}

#[tokio::test]
async fn a_lookup_segment_reads_what_the_plain_one_does() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("pages");
    url_segment(&dir, 20_000);
    // read with a column the files lack: NULL, as register_segment_as promises
    let schema: SchemaRef = Arc::new(Schema::new(vec![
        Field::new("url", DataType::Utf8, false),
        Field::new("text", DataType::Utf8, false),
        Field::new("lang", DataType::Utf8, false),
    ]));
    let engine = &Engine::new(None);
    engine
        .register_segment_as("plain", &dir, &schema)
        .await
        .unwrap();
    engine
        .register_lookup_segment("lookup", &dir, &schema)
        .await
        .unwrap();
    // a few keys (pushed down as a list) and many (as a hash table look-up)
    for keys in [5, 400] {
        let step = 40_000 / keys;
        let found = (0..40_000).step_by(step).filter(|v| *v < 20_000).count();
        let join = |table: &str| {
            format!(
                "SELECT t.url, t.text, t.lang FROM (SELECT 'http://h' || CAST(value % 97 AS VARCHAR) \
                 || '.th/p' || CAST(value AS VARCHAR) AS url FROM generate_series(0, 39999, {})) k \
                 JOIN {table} t ON t.url = k.url ORDER BY t.url",
                step
            )
        };
        let no_params = Params::new();
        let plain = printed(engine, &join("plain"), &no_params).await;
        let lookup = printed(engine, &join("lookup"), &no_params).await;
        assert_eq!(plain, lookup);
        // keys past the segment's 20,000 rows find nothing
        assert_eq!(lookup.matches("text of page").count(), found, "{lookup}");
    }
    let n = printed(
        engine,
        "SELECT count(*) AS n FROM lookup WHERE lang IS NULL",
        &Params::new(),
    )
    .await;
    assert!(n.contains("20000"), "{n}");
}

#[tokio::test]
async fn a_corrupt_lookup_segment_is_named_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("links");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("part-0.parquet"), b"not parquet at all").unwrap();
    let schema: SchemaRef = Arc::new(Schema::new(vec![Field::new("url", DataType::Utf8, false)]));
    let err = Engine::new(None)
        .register_lookup_segment("links", &dir, &schema)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("part-0.parquet") && !err.contains('\n'),
        "{err}"
    );
}

#[tokio::test]
async fn another_tables_file_in_a_segment_is_named_not_read_as_nulls() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("crawldb");
    url_segment(&dir, 10); // columns url, text
    let crawldb_like: SchemaRef = Arc::new(Schema::new(vec![
        Field::new("url", DataType::Utf8, false),
        Field::new("status", DataType::Utf8, false),
    ]));
    let err = Engine::new(None)
        .register_segment_as("crawldb", &dir, &crawldb_like)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(".parquet") && err.contains("never had (text)") && !err.contains('\n'),
        "{err}"
    );
}
