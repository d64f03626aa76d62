//! `sql`, `report` and `status`: read-only looks at a crawl (or a simulation).

use super::super::args::{ReportArgs, SqlArgs};
use super::Context;
use crate::error::{Error, Result};
use crate::store::CrawlDir;

pub(in crate::cli) async fn sql(ctx: &Context, args: &SqlArgs) -> Result<()> {
    let crawl = CrawlDir::open_read_only(&ctx.root)?;
    crate::catalog::whole_crawl(&ctx.engine, &crawl, args.content).await?;
    let query = match (&args.query, &args.file) {
        (Some(query), _) => query.clone(),
        (None, Some(file)) => read_query(file)?,
        (None, None) => return Err(Error::Usage("no query given".into())),
    };
    let max_rows = args
        .max_rows
        .or((!args.format.streams()).then_some(TABLE_ROWS));
    let out = std::io::BufWriter::new(std::io::stdout());
    let written =
        crate::report::write_query(&ctx.engine, &query, args.format, max_rows, out).await?;
    if written.more && !ctx.quiet {
        let streams = if args.format.streams() {
            ""
        } else {
            ", --format csv or json writes every row as it comes"
        };
        // on stderr: the rows on stdout stay the query's
        eprintln!(
            "sql: the first {} rows are shown and the query has more; --max-rows N shows more{streams}",
            written.rows
        );
    }
    Ok(())
}

/// The rows `sql` prints as a table unless `--max-rows` says otherwise: a
/// table is laid out once all its rows are in, so it holds them.
const TABLE_ROWS: usize = 10_000;

pub(in crate::cli) async fn report(ctx: &Context, args: &ReportArgs) -> Result<()> {
    if let Some(out) = &args.html {
        crate::store::outside::refuse_inside_crawl(&ctx.root, out, "--html")?;
        let figures = crate::report::html::write(&ctx.engine, &ctx.root, out).await?;
        ctx.say(format!("report: {figures} figures -> {}", out.display()));
    }
    if crate::sim::SimDir::is_simulation(&ctx.root) {
        let sim = crate::sim::SimDir::new(&ctx.root);
        return super::sim::print_tables(ctx, &sim).await;
    }
    let crawl = CrawlDir::open_read_only(&ctx.root)?;
    println!("{}", crate::report::full_report(&ctx.engine, &crawl).await?);
    Ok(())
}

pub(in crate::cli) async fn status(ctx: &Context, json: bool) -> Result<()> {
    let status = crate::status::read(&ctx.engine, &ctx.root).await?;
    if json {
        let text = serde_json::to_string(&status).map_err(|source| Error::Json {
            what: "status".into(),
            source,
        })?;
        println!("{text}");
    } else {
        println!("{status}");
    }
    Ok(())
}

/// The query in `file` ([`MAX_QUERY_BYTES`](crate::engine::MAX_QUERY_BYTES) at most).
fn read_query(file: &std::path::Path) -> Result<String> {
    let limit = crate::engine::MAX_QUERY_BYTES as u64;
    let bytes = crate::input::read_capped(file, limit, "query file")?;
    String::from_utf8(bytes)
        .map_err(|_| Error::Usage(format!("{}: the query is not UTF-8", file.display())))
}
