//! How big a query of the user's may be: planning recurses through the
//! query's expression tree, so its length and its operators are bounded
//! before DataFusion sees it, with one line beyond the bound.

use crate::error::{Error, Result};

/// The longest query `langcrawl sql` takes, in bytes.
pub const MAX_QUERY_BYTES: usize = 64 << 10;

/// The most operators a query of the user's may hold: a chain of them
/// (`1+1+…`) is a plan as deep, and planning recurses through it.
pub const MAX_QUERY_OPERATORS: usize = 4096;

/// Refuses, with one line, a query longer than [`MAX_QUERY_BYTES`] or with
/// more operators than [`MAX_QUERY_OPERATORS`] (outside quotes).
pub(super) fn check_query_size(sql: &str) -> Result<()> {
    if sql.len() > MAX_QUERY_BYTES {
        return Err(Error::Usage(format!(
            "the query is {} bytes; at most {MAX_QUERY_BYTES} are taken",
            sql.len()
        )));
    }
    let mut quote = None;
    let mut operators = 0;
    for c in sql.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if "+-*/%<>=|&^".contains(c) => operators += 1,
            None => {}
        }
    }
    operators += sql
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| w.eq_ignore_ascii_case("and") || w.eq_ignore_ascii_case("or"))
        .count();
    if operators > MAX_QUERY_OPERATORS {
        return Err(Error::Usage(format!(
            "the query has {operators} operators; at most {MAX_QUERY_OPERATORS} are taken"
        )));
    }
    Ok(())
}
