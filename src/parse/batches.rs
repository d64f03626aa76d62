//! `parse` and `links` rows as Arrow batches of their segment schemas.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array, BooleanArray, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
};

use super::{LinkRow, PageRow};
use crate::store::schema::{LINKS, PARSE};

fn strings<'a, T: 'a>(rows: &[&'a T], f: impl Fn(&'a T) -> Option<&'a str>) -> Arc<StringArray> {
    Arc::new(rows.iter().map(|r| f(r)).collect::<StringArray>())
}

pub fn page_batch<'a>(rows: impl Iterator<Item = &'a PageRow>) -> RecordBatch {
    let rows: Vec<&PageRow> = rows.collect();
    let columns: Vec<Arc<dyn Array>> = vec![
        strings(&rows, |r| Some(&r.url)),
        strings(&rows, |r| Some(&r.host)),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.parsed))
                .collect::<BooleanArray>(),
        ),
        strings(&rows, |r| r.content_type.as_deref()),
        strings(&rows, |r| r.title.as_deref()),
        strings(&rows, |r| r.text_sample.as_deref()),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.text_chars))
                .collect::<Int64Array>(),
        ),
        strings(&rows, |r| r.lang.as_deref()),
        Arc::new(
            rows.iter()
                .map(|r| r.lang_confidence)
                .collect::<Float64Array>(),
        ),
        strings(&rows, |r| Some(r.lang_source)),
        strings(&rows, |r| r.script),
        Arc::new(
            rows.iter()
                .map(|r| r.target_share)
                .collect::<Float64Array>(),
        ),
        strings(&rows, |r| r.charset),
        strings(&rows, |r| r.charset_source),
        strings(&rows, |r| r.html_lang.as_deref()),
        strings(&rows, |r| r.meta_charset.as_deref()),
        strings(&rows, |r| r.digest.as_deref()),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.outlinks))
                .collect::<Int32Array>(),
        ),
        strings(&rows, |r| r.error.as_deref()),
        strings(&rows, |r| r.lang2.as_deref()),
        Arc::new(rows.iter().map(|r| r.lang2_share).collect::<Float64Array>()),
        strings(&rows, |r| r.text.as_deref()),
        // the recorded class of a simulated page; a live crawl has none
        strings(&rows, |_| None),
        strings(&rows, |r| r.limits.as_deref()),
        strings(&rows, |r| r.content_language.as_deref()),
    ];
    RecordBatch::try_new(PARSE.clone(), columns).expect("parse rows match the parse schema")
}

pub fn link_batch<'a>(rows: impl Iterator<Item = &'a LinkRow>) -> RecordBatch {
    let rows: Vec<&LinkRow> = rows.collect();
    let columns: Vec<Arc<dyn Array>> = vec![
        strings(&rows, |r| Some(&r.src_url)),
        strings(&rows, |r| Some(&r.src_host)),
        strings(&rows, |r| r.src_lang.as_deref()),
        strings(&rows, |r| Some(&r.dst.url)),
        strings(&rows, |r| Some(&r.dst.host)),
        strings(&rows, |r| Some(&r.dst.domain)),
        strings(&rows, |r| Some(&r.dst.tld)),
        strings(&rows, |r| Some(&r.dst.dir)),
        strings(&rows, |r| Some(&r.anchor)),
        strings(&rows, |r| Some(&r.anchor_lang)),
        strings(&rows, |r| Some(&r.context)),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.nofollow))
                .collect::<BooleanArray>(),
        ),
        strings(&rows, |r| Some(r.kind)),
        strings(&rows, |r| r.hreflang.as_deref()),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.position))
                .collect::<Int32Array>(),
        ),
        strings(&rows, |r| Some(&r.heading)),
        strings(&rows, |r| r.lastmod.as_deref()),
        Arc::new(
            rows.iter()
                .map(|r| r.first_link_to_dst)
                .collect::<BooleanArray>(),
        ),
        strings(&rows, |r| r.anchor_source),
    ];
    RecordBatch::try_new(LINKS.clone(), columns).expect("link rows match the links schema")
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::util::pretty::pretty_format_batches;

    use super::*;
    use crate::engine::{Engine, Params};
    use crate::parse::{parse_one, FetchedPage};

    /// `sql/views/page_links.sql` over `rows`, one line per row.
    async fn page_links(rows: &[LinkRow]) -> Vec<String> {
        let engine = Engine::new(None);
        let batch = link_batch(rows.iter());
        engine
            .register_batches("links", LINKS.clone(), vec![batch])
            .unwrap();
        let params = Params::new();
        let df = engine
            .query_file("views/page_links.sql", &params)
            .await
            .unwrap();
        engine.register_view("page_links", df).unwrap();
        // the rows as link selection sees them, the mark aside
        let sql = "SELECT * EXCLUDE (first_link_to_dst) FROM page_links ORDER BY dst_url";
        let df = engine.query(sql, &params).await.unwrap();
        let batches = engine.collect(df).await.unwrap();
        let text = pretty_format_batches(&batches).unwrap().to_string();
        text.lines().map(str::to_string).collect()
    }

    /// The mark survives the `links` segment, written in slices and row
    /// groups: true and false, not NULL.
    #[tokio::test]
    async fn the_first_row_mark_is_written_and_read_back() {
        let marks = [Some(true), Some(false), None];
        let rows: Vec<LinkRow> = (0..30_000)
            .map(|i| marks[i % 3])
            .map(|first| LinkRow {
                first_link_to_dst: first,
                ..crate::parse::outlinks::bare_link(
                    "http://a.jp/",
                    "a.jp",
                    &url::Url::parse("http://b.jp/").unwrap(),
                    crate::parse::html::LinkKind::A,
                )
            })
            .collect();
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("links");
        let mut writer =
            crate::store::SegmentWriter::create_with_limits(&dir, LINKS.clone(), 1 << 20, 1 << 20)
                .unwrap();
        for chunk in rows.chunks(7_001) {
            writer.write(&link_batch(chunk.iter())).unwrap();
        }
        writer.finish().unwrap().commit().unwrap();
        let engine = Engine::new(None);
        engine.register_segment("links", &dir).await.unwrap();
        let sql = "SELECT CAST(first_link_to_dst AS VARCHAR) AS first, count(*) AS n
                   FROM links GROUP BY 1 ORDER BY 1";
        let df = engine.query(sql, &Params::new()).await.unwrap();
        let batches = engine.collect(df).await.unwrap();
        let text = pretty_format_batches(&batches).unwrap().to_string();
        let expected = [
            "| false | 10000 |",
            "| true  | 10000 |",
            "|       | 10000 |",
        ];
        for row in expected {
            assert!(text.contains(row), "{row} in\n{text}");
        }
    }

    /// Link selection reads a destination's first row: the one parse marks
    /// is the one the window over positions picks in rows not marked (a
    /// segment written before the mark).
    #[tokio::test]
    async fn page_links_takes_the_row_parse_marks_as_the_window_would() {
        let html = r#"<p><a href="/a"><img src="x.png"></a> intro</p>
            <h2>One</h2><p>See <a href="/a">first</a> and <a href="/b">bee</a></p>
            <h2>Two</h2><p>Again <a href="/a">second</a>, <a href="/b">bee</a> and <a href="/c">sea</a></p>"#;
        let page = FetchedPage {
            url: "http://example.jp/dir/page.html",
            host: "example.jp",
            status: "fetched",
            content_type: Some("text/html"),
            headers: Some(""),
            content: Some(html.as_bytes()),
            redirect_to: None,
        };
        let marked = parse_one(&page, None).links;
        assert!(marked.iter().any(|l| l.first_link_to_dst == Some(false)));
        let unmarked: Vec<LinkRow> = marked
            .iter()
            .cloned()
            .map(|l| LinkRow {
                first_link_to_dst: None,
                ..l
            })
            .collect();
        let picked = page_links(&marked).await;
        // the header and three rules, and one row for each of /a, /b, /c
        assert_eq!(picked.len(), 4 + 3, "{picked:#?}");
        assert_eq!(picked, page_links(&unmarked).await);
    }
}
