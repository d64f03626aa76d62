//! The schemas of the web graph (`crate::webgraph`) and of replay
//! (`crate::sim`): pages and links of a recorded or generated web, a
//! simulation's metrics and its oracle's tables.

use std::sync::{Arc, LazyLock};

use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use super::{boolean, float64, int32, utf8};

/// A recorded or generated web graph (`websim generate`, `graph export`;
/// read and written by `webgraph`): one row per page. `status` is the HTTP status a fetch gets (NULL for a
/// page never fetched), `lang` its language when it answers 200.
pub static WEB_PAGES: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("url", false),
        utf8("host", false),
        utf8("domain", false),
        utf8("tld", false),
        utf8("dir", false),
        utf8("lang", true),
        int32("status", true),
        utf8("redirect_to", true),
        boolean("robots_allowed", false),
        // a topic class and the page's text, where the web records them
        // (the university web of `websim generate --kind university`)
        utf8("class", true),
        utf8("text", true),
    ]))
});

/// The links of a web graph: one row per link of a page (a page may link
/// one URL more than once, each with its own context).
pub static WEB_LINKS: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("src_url", false),
        utf8("src_host", false),
        utf8("dst_url", false),
        utf8("dst_host", false),
        utf8("dst_domain", false),
        utf8("dst_tld", false),
        utf8("dst_dir", false),
        utf8("anchor", false),
        utf8("anchor_lang", false),
        // as in links (NULL in webs written before: `a`, no hreflang)
        utf8("kind", true),
        utf8("hreflang", true),
        // the text around the link and the heading it appears under, where
        // the web records them (NULL: the anchor is the context)
        utf8("context", true),
        utf8("heading", true),
        // as in links: text, alt, title, aria-label (NULL: not recorded —
        // generated and imported webs, webs written before)
        utf8("anchor_source", true),
    ]))
});

/// `simulate`'s measurements: one row per strategy and round.
pub static SIM_METRICS: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("strategy", false),
        int32("round", false),
        Field::new("requests", DataType::Int64, false),
        Field::new("pages_fetched", DataType::Int64, false),
        Field::new("target_fetched", DataType::Int64, false),
        float64("harvest_rate", false),
        float64("coverage", false),
        Field::new("queue_size", DataType::Int64, false),
        Field::new("servers_accessed", DataType::Int64, false),
    ]))
});

/// `simulate`'s timings (`sim/round_times.rs`): per strategy and round, the
/// fetch list's URLs and each phase's wall-clock seconds.
pub static ROUND_TIMES: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("strategy", false),
        int32("round", false),
        Field::new("urls", DataType::Int64, false),
        float64("generate_s", false),
        float64("look_up_s", false),
        float64("updatedb_s", false),
    ]))
});

/// `simulate`'s query timings (`sim/round_times.rs`, `engine::QueryClock`):
/// per strategy, round and phase, each SQL file (or inline statement, or
/// table read as it is) with the times it ran and the wall-clock seconds
/// it took to plan, to start (its physical plan) and to run.
pub static QUERY_TIMES: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("strategy", false),
        int32("round", false),
        utf8("phase", false),
        utf8("query", false),
        Field::new("runs", DataType::Int64, false),
        float64("plan_s", false),
        float64("start_s", false),
        float64("run_s", false),
    ]))
});

/// `simulate`'s miss ratio against distance from the seeds, per strategy.
pub static MISS_BY_DISTANCE: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("strategy", false),
        int32("distance", false),
        Field::new("target_pages", DataType::Int64, false),
        Field::new("missed", DataType::Int64, false),
        float64("cumulative_miss_ratio", false),
    ]))
});

/// The oracle of the `perfect` strategy: which URLs lead to target pages.
pub static ORACLE: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("url", false),
        boolean("follow", false),
    ]))
});

/// Target pages reachable from the seeds and their distance from them.
pub static TARGET_DISTANCE: LazyLock<SchemaRef> = LazyLock::new(|| {
    Arc::new(Schema::new(vec![
        utf8("url", false),
        int32("distance", false),
    ]))
});
