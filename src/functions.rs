//! SQL functions written in Rust, registered in every DataFusion session
//! (`crate::engine`), for the checks that need more than SQL:
//!
//! - `blocked_address(host)`: why the address guard refuses `host` (a
//!   literal private, loopback, link-local... address, or `localhost`), or
//!   NULL (`crate::address::blocked_host`);
//! - `repeated_segment(url)`: how often the most repeated segment of the
//!   URL's path occurs (`/a/b/a/b/a/` → 3), the sign of a relative-link trap;
//! - `anchor_matches(anchor_lang, target_lang, han_matches)`: whether an
//!   anchor's language counts as the target (`crate::lang::matches_target`,
//!   the one definition of that rule);
//! - `anchor_language(text)`: the language of a short text by the anchor
//!   rules (`crate::lang::anchor_lang`: the script decides, else `und`
//!   below four words), the transcriptor's guess at its dictionary's
//!   language;
//! - `text_script(text)`: the script most of its letters are in
//!   (`crate::lang::ScriptCounts::dominant`), the transcriptor's word test;
//! - `url_lang(url)`: the language the URL names (`/th/`, `hl=ja`, `ko.`
//!   hosts), or NULL (`crate::lang::url_lang`).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, BooleanArray, Int32Array, StringArray};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::cast::{as_boolean_array, as_string_array};
use datafusion::error::Result as DfResult;
use datafusion::logical_expr::{create_udf, ColumnarValue, Volatility};
use datafusion::prelude::SessionContext;

/// Registers the functions in `ctx`.
pub fn register(ctx: &SessionContext) {
    text_function(ctx, "blocked_address", |host| {
        crate::address::blocked_host(host).map(str::to_string)
    });
    text_function(ctx, "url_lang", crate::lang::url_lang);
    text_function(ctx, "anchor_language", |text| {
        Some(crate::lang::anchor::anchor_lang(text))
    });
    text_function(ctx, "text_script", |text| {
        crate::lang::ScriptCounts::of(text)
            .dominant()
            .map(str::to_string)
    });
    ctx.register_udf(create_udf(
        "repeated_segment",
        vec![DataType::Utf8],
        DataType::Int32,
        Volatility::Immutable,
        Arc::new(|args| {
            map_strings(args, |urls| {
                let out: Int32Array = urls.iter().map(|u| u.map(repeated_segment)).collect();
                Arc::new(out) as ArrayRef
            })
        }),
    ));
    ctx.register_udf(create_udf(
        "anchor_matches",
        vec![DataType::Utf8, DataType::Utf8, DataType::Boolean],
        DataType::Boolean,
        Volatility::Immutable,
        Arc::new(anchor_matches),
    ));
}

/// Registers `name(text)` → text, row by row with `f` (NULL in, NULL out).
fn text_function(ctx: &SessionContext, name: &str, f: fn(&str) -> Option<String>) {
    ctx.register_udf(create_udf(
        name,
        vec![DataType::Utf8],
        DataType::Utf8,
        Volatility::Immutable,
        Arc::new(move |args| {
            map_strings(args, |texts| {
                let out: StringArray = texts.iter().map(|t| t.and_then(f)).collect();
                Arc::new(out) as ArrayRef
            })
        }),
    ));
}

/// `anchor_matches(anchor_lang, target_lang, han_matches)`, row by row.
fn anchor_matches(args: &[ColumnarValue]) -> DfResult<ColumnarValue> {
    let arrays = ColumnarValue::values_to_arrays(args)?;
    let anchor = as_string_array(&arrays[0])?;
    let target = as_string_array(&arrays[1])?;
    let han = as_boolean_array(&arrays[2])?;
    let out: BooleanArray = (0..anchor.len())
        .map(|i| {
            let valid = anchor.is_valid(i) && target.is_valid(i) && han.is_valid(i);
            valid.then(|| {
                crate::lang::matches_target(anchor.value(i), target.value(i), han.value(i))
            })
        })
        .collect();
    Ok(ColumnarValue::Array(Arc::new(out)))
}

/// Applies `f` to the single string argument of a function.
fn map_strings(
    args: &[ColumnarValue],
    f: impl Fn(&StringArray) -> ArrayRef,
) -> DfResult<ColumnarValue> {
    let arrays = ColumnarValue::values_to_arrays(args)?;
    let strings = as_string_array(&arrays[0])?;
    Ok(ColumnarValue::Array(f(strings)))
}

/// How often the most repeated non-empty segment of the URL's path occurs.
pub fn repeated_segment(url: &str) -> i32 {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let path = after_scheme
        .split_once('/')
        .map_or("", |(_, path)| path)
        .split(['?', '#'])
        .next()
        .unwrap_or("");
    let mut counts: std::collections::HashMap<&str, i32> = std::collections::HashMap::new();
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        *counts.entry(segment).or_default() += 1;
    }
    counts.into_values().max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_segments_are_counted_in_the_path_only() {
        assert_eq!(repeated_segment("http://a.jp/"), 0);
        assert_eq!(repeated_segment("http://a.jp/a/b/c.html"), 1);
        assert_eq!(repeated_segment("http://a.jp/a/b/a/b/a/"), 3);
        assert_eq!(repeated_segment("http://a.jp/x?q=/a/a/a/a"), 1);
        assert_eq!(repeated_segment("http://a.a.a.jp/a"), 1);
    }

    #[tokio::test]
    async fn functions_run_in_sql() {
        let ctx = SessionContext::new();
        register(&ctx);
        let batches = ctx
            .sql("SELECT blocked_address('169.254.169.254') AS b, blocked_address('a.jp') AS p, repeated_segment('http://h/a/b/a/b/a/') AS r, \
                  anchor_matches('han', 'cmn', true) AS m, anchor_matches('han', 'kor', true) AS k, \
                  url_lang('https://example.com/th/') AS u")
            .await
            .unwrap()
            .collect()
            .await
            .unwrap();
        let text = datafusion::arrow::util::pretty::pretty_format_batches(&batches)
            .unwrap()
            .to_string();
        assert!(
            text.contains("| link-local |   | 3 | true | false | tha |"),
            "{text}"
        );
    }
}
