use super::*;

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
    let df = engine
        .query("SELECT $lang AS lang, $n + 1 AS n", &params)
        .await
        .unwrap();
    let batches = engine.collect(df).await.unwrap();
    let text = datafusion::arrow::util::pretty::pretty_format_batches(&batches)
        .unwrap()
        .to_string();
    assert!(text.contains("jpn") && text.contains('4'), "{text}");
}
