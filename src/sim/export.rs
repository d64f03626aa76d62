//! `graph export`: a finished crawl as a web graph (`sql/sim/export_*.sql`),
//! so a bfs crawl of the real web can be replayed under every strategy —
//! Tamura's method. Pages the crawl never fetched keep status NULL: a
//! simulation finds them `unrecorded`.

use std::path::Path;

use crate::engine::{Engine, Params};
use crate::error::{Error, Result};
use crate::store::rows::utf8_column;
use crate::store::{CrawlConfig, CrawlDir};
use crate::webgraph::{WebDir, WebInfo};

/// Pages and links written by an export.
#[derive(Debug, Clone, PartialEq)]
pub struct Exported {
    pub pages: usize,
    pub links: usize,
    pub seeds: usize,
}

/// Writes the crawl `crawl` as the web graph `out`.
pub async fn run(engine: &Engine, crawl: &CrawlDir, out: &Path) -> Result<Exported> {
    let config = CrawlConfig::load(crawl)?;
    let target_lang = config.target_lang.clone().ok_or_else(|| {
        Error::Usage(format!(
            "{}: the crawl has no target language",
            crawl.root().display()
        ))
    })?;
    crate::catalog::whole_crawl(engine, crawl, false).await?;
    if engine.context().table("links").await.is_err() {
        return Err(Error::NothingToDo(format!(
            "{}: no round has links yet; crawl a round first",
            crawl.root().display()
        )));
    }
    let web = WebDir::create(out)?;
    let df = engine
        .query_file("sim/export_pages.sql", &Params::new())
        .await?;
    let pages = web.write_pages_from(engine, df).await?;
    let df = engine
        .query_file("sim/export_links.sql", &Params::new())
        .await?;
    let links = web.write_links_from(engine, df).await?;
    let seeds = seeds(engine).await?;
    let info = WebInfo {
        target_lang,
        target_class: None,
        seeds: seeds.clone(),
        made_by: format!("langcrawl graph export --crawl {}", crawl.root().display()),
        pages,
        links,
        stats: Vec::new(),
    };
    web.save_info(&info)?;
    Ok(Exported {
        pages,
        links,
        seeds: seeds.len(),
    })
}

/// The crawl's seeds: the URLs injected, not found by a link.
async fn seeds(engine: &Engine) -> Result<Vec<String>> {
    let sql = "SELECT url FROM crawldb WHERE found_from IS NULL AND depth = 0 ORDER BY url";
    let batches = engine
        .collect(engine.query(sql, &Params::new()).await?)
        .await?;
    let mut seeds = Vec::new();
    for batch in &batches {
        let url = utf8_column(batch, "url")?;
        seeds.extend((0..batch.num_rows()).map(|row| url.value(row).to_string()));
    }
    Ok(seeds)
}
