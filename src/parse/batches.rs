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
        strings(&rows, |r| r.limits),
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
    ];
    RecordBatch::try_new(LINKS.clone(), columns).expect("link rows match the links schema")
}
