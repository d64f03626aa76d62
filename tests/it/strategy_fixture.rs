//! The strategies' test bench: a handful of pages, links and page texts
//! registered as updatedb registers a round, and a strategy's decisions
//! over them.

use langcrawl::engine::Engine;
use langcrawl::lang::{anchor_lang, TargetLang};
use langcrawl::store::StrategyParams;
use langcrawl::strategy::{find, LinkSelection};
use langcrawl::urls;

/// A crawldb row as the strategies see it: fetched (with its relevance) or
/// still queued.
pub(crate) struct Page {
    url: String,
    fetched: bool,
    relevant: bool,
}

pub(crate) fn fetched(url: impl Into<String>, relevant: bool) -> Page {
    Page {
        url: url.into(),
        fetched: true,
        relevant,
    }
}

pub(crate) fn queued(url: &str) -> Page {
    Page {
        url: url.into(),
        fetched: false,
        relevant: false,
    }
}

/// A link with its anchor (and context: the anchor when empty).
pub(crate) struct Link {
    pub src: &'static str,
    pub dst: &'static str,
    pub anchor: &'static str,
    pub context: &'static str,
    /// The heading the link appears under ("" when none).
    pub heading: &'static str,
}

pub(crate) fn link(src: &'static str, dst: &'static str, anchor: &'static str) -> Link {
    Link {
        src,
        dst,
        anchor,
        context: "",
        heading: "",
    }
}

/// One decision row: url, accepted, priority, reason.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Decision {
    pub src: String,
    pub url: String,
    pub accepted: bool,
    pub priority: f64,
    pub reason: String,
}

fn sql_text(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// An engine with a round's tables registered, and what holds them.
pub(crate) struct Fixture {
    pub engine: Engine,
    _inputs: langcrawl::strategy::RoundInputs,
    _stage: tempfile::TempDir,
}

/// Registers `crawldb_after_round`, `links` and `parse` (page texts, as
/// `text`) as the updatedb
/// phase would, and the strategy's inputs over them.
pub(crate) async fn fixture(
    selection: &LinkSelection,
    pages: &[Page],
    links: &[Link],
    texts: &[(&str, &str)],
) -> Fixture {
    let engine = Engine::new(None);
    let page_rows: Vec<String> = pages
        .iter()
        .map(|p| {
            let parts = urls::parts(&urls::normalize(&p.url).unwrap());
            format!(
                "({}, {}, {}, {}, {}, CAST(1.0 AS DOUBLE), CAST(NULL AS VARCHAR), 1, CAST(NULL AS INT))",
                sql_text(&parts.url),
                sql_text(&parts.host),
                sql_text(&parts.dir),
                sql_text(if p.fetched { "fetched" } else { "unfetched" }),
                if p.fetched {
                    p.relevant.to_string()
                } else {
                    "NULL".into()
                },
            )
        })
        .collect();
    let link_rows: Vec<String> = links
        .iter()
        .enumerate()
        .map(|(position, l)| {
            let src = urls::parts(&urls::normalize(l.src).unwrap());
            let dst = urls::parts(&urls::normalize(l.dst).unwrap());
            let context = if l.context.is_empty() {
                l.anchor
            } else {
                l.context
            };
            format!(
                "({}, {}, {}, {}, {}, {}, {}, {}, {}, {}, 'a', CAST(NULL AS VARCHAR), CAST({position} AS INT), {})",
                sql_text(&src.url),
                sql_text(&src.host),
                sql_text(&dst.url),
                sql_text(&dst.host),
                sql_text(&dst.domain),
                sql_text(&dst.dir),
                sql_text(&dst.tld),
                sql_text(l.anchor),
                sql_text(&anchor_lang(l.anchor)),
                sql_text(context),
                sql_text(l.heading),
            )
        })
        .collect();
    let mut text_rows: Vec<String> = texts
        .iter()
        .map(|(url, text)| {
            let url = urls::normalize(url).unwrap().to_string();
            format!("({}, '', '', {})", sql_text(&url), sql_text(text))
        })
        .collect();
    text_rows.push("('', '', '', '')".into());
    let tables = [
        (
            "crawldb_after_round",
            "url, host, dir, status, relevant, priority, found_from, depth, redirect_hops",
            page_rows,
        ),
        (
            "links",
            "src_url, src_host, dst_url, dst_host, dst_domain, dst_dir, dst_tld, anchor, anchor_lang, context, kind, hreflang, position, heading",
            link_rows,
        ),
        ("parse", "url, title, text_sample, text", text_rows),
    ];
    for (name, columns, mut rows) in tables {
        let mut filter = "";
        if rows.is_empty() {
            let blanks = vec!["''"; columns.split(',').count()];
            rows.push(format!("({})", blanks.join(", ")));
            filter = " WHERE false";
        }
        // links not marked by parse (as in segments written before the
        // mark): page_links picks each destination's first row itself
        let unmarked = match name {
            "links" => ", CAST(NULL AS BOOLEAN) AS first_link_to_dst",
            _ => "",
        };
        let sql = format!(
            "SELECT *{unmarked} FROM (VALUES {}) AS t({columns}){filter}",
            rows.join(", ")
        );
        let df = engine.query(&sql, &Default::default()).await.unwrap();
        engine.register_view(name, df).unwrap();
    }
    let stage = tempfile::tempdir().unwrap();
    let inputs = selection
        .register_inputs(&engine, stage.path())
        .await
        .unwrap();
    Fixture {
        engine,
        _inputs: inputs,
        _stage: stage,
    }
}

/// The strategy's decisions over `crawldb_after_round` and `links`, ordered by url.
pub(crate) async fn decide(
    selection: &LinkSelection,
    pages: &[Page],
    links: &[Link],
    texts: &[(&str, &str)],
) -> Vec<Decision> {
    let fixture = fixture(selection, pages, links, texts).await;
    let engine = &fixture.engine;
    let df = selection.decisions(engine).await.unwrap();
    let batches = engine.collect(df).await.unwrap();
    let mut rows = Vec::new();
    for batch in &batches {
        let text = |name: &str, row: usize| {
            let column = datafusion::arrow::compute::cast(
                batch.column_by_name(name).unwrap(),
                &datafusion::arrow::datatypes::DataType::Utf8,
            )
            .unwrap();
            datafusion::arrow::array::AsArray::as_string::<i32>(&column)
                .value(row)
                .to_string()
        };
        for row in 0..batch.num_rows() {
            rows.push(Decision {
                src: text("src_url", row),
                url: text("url", row),
                accepted: text("accepted", row) == "true",
                priority: text("priority", row).parse().unwrap(),
                reason: text("reason", row),
            });
        }
    }
    rows.sort_by(|a, b| (&a.url, &a.src).cmp(&(&b.url, &b.src)));
    rows
}

pub(crate) fn selection(strategy: &str, lang: &str, params: StrategyParams) -> LinkSelection {
    let mut selection =
        LinkSelection::new(find(strategy).unwrap(), TargetLang::parse(lang).unwrap());
    let tlds = selection.params.target_tlds.clone();
    selection.params = StrategyParams {
        target_tlds: tlds,
        ..params
    };
    selection
}

pub(crate) fn verdict<'a>(decisions: &'a [Decision], url: &str) -> &'a Decision {
    let url = urls::normalize(url).unwrap().to_string();
    decisions
        .iter()
        .find(|d| d.url == url)
        .unwrap_or_else(|| panic!("no decision for {url}: {decisions:#?}"))
}
