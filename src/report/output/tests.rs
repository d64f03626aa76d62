use std::io::Write;
use std::sync::Arc;

use datafusion::arrow::array::{Int64Array, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};

use super::{write_query, Written};
use crate::engine::Engine;
use crate::report::Format;

/// An engine with table `t` of `rows` rows (`n`, `url`), in batches of 100.
fn engine_with_rows(rows: i64) -> Engine {
    let schema = Arc::new(Schema::new(vec![
        Field::new("n", DataType::Int64, false),
        Field::new("url", DataType::Utf8, false),
    ]));
    let batches = (0..rows)
        .step_by(100)
        .map(|start| {
            let n: Vec<i64> = (start..(start + 100).min(rows)).collect();
            let url: Vec<String> = n.iter().map(|n| format!("http://a.jp/{n}")).collect();
            RecordBatch::try_new(
                schema.clone(),
                vec![
                    Arc::new(Int64Array::from(n)),
                    Arc::new(StringArray::from(url)),
                ],
            )
            .unwrap()
        })
        .collect();
    let engine = Engine::new(None);
    engine.register_batches("t", schema, batches).unwrap();
    engine
}

async fn write_rows(rows: i64, sql: &str, format: Format, max: Option<usize>) -> (String, Written) {
    let engine = engine_with_rows(rows);
    let mut out = Vec::new();
    let written = write_query(&engine, sql, format, max, &mut out)
        .await
        .unwrap();
    (String::from_utf8(out).unwrap(), written)
}

#[tokio::test]
async fn csv_streams_every_row_under_one_header() {
    let (text, written) =
        write_rows(1_050, "SELECT n, url FROM t ORDER BY n", Format::Csv, None).await;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1_051, "a header and every row");
    assert_eq!(lines[0], "n,url");
    assert_eq!(lines[1_050], "1049,http://a.jp/1049");
    assert_eq!(
        written,
        Written {
            rows: 1_050,
            more: false
        }
    );
}

#[tokio::test]
async fn a_table_stops_at_its_cap_and_says_there_is_more() {
    let sql = "SELECT n FROM t ORDER BY n";
    let (text, written) = write_rows(1_050, sql, Format::Table, Some(250)).await;
    assert_eq!(
        written,
        Written {
            rows: 250,
            more: true
        }
    );
    assert!(
        text.contains("| 249 |") && !text.contains("| 250 |"),
        "{text}"
    );
    // a cap that falls on a batch's end, with rows after it
    // (the table's unsorted scan comes in batches of 100)
    let (_, written) = write_rows(1_050, "SELECT n FROM t", Format::Json, Some(100)).await;
    assert!(written.more);
    // a cap no smaller than the result: nothing more
    let (text, written) = write_rows(200, sql, Format::Json, Some(200)).await;
    assert_eq!((written.rows, written.more), (200, false));
    assert_eq!(text.lines().count(), 200);
}

#[tokio::test]
async fn an_empty_result_still_names_its_columns() {
    let sql = "SELECT n, url FROM t WHERE n < 0";
    let (table, _) = write_rows(10, sql, Format::Table, None).await;
    assert!(table.contains("| n | url |"), "{table}");
    let (csv, _) = write_rows(10, sql, Format::Csv, None).await;
    assert_eq!(csv, "n,url\n");
}

/// A reader that closes its end after `open` bytes.
struct ClosesAfter {
    open: usize,
    taken: usize,
}

impl Write for ClosesAfter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.taken >= self.open {
            return Err(std::io::ErrorKind::BrokenPipe.into());
        }
        self.taken += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_reader_that_closes_the_output_ends_the_query_quietly() {
    let engine = engine_with_rows(5_000);
    let out = ClosesAfter { open: 10, taken: 0 };
    let sql = "SELECT n, url FROM t";
    let written = write_query(&engine, sql, Format::Csv, None, out)
        .await
        .unwrap();
    assert!(written.rows < 5_000, "stopped early: {written:?}");
}

#[tokio::test]
async fn a_query_past_the_memory_limit_says_which_flag_to_raise() {
    let engine = Engine::with_memory_limit(None, 1 << 20);
    let sql = "SELECT v, count(*) FROM (SELECT CAST(value AS VARCHAR) || repeat('x', 100) AS v \
               FROM generate_series(1, 300000)) GROUP BY v";
    let err = write_query(&engine, sql, Format::Csv, None, Vec::new())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("--memory-limit") && !err.contains('\n'),
        "{err}"
    );
}
