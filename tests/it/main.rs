//! Integration tests: each starts the synthetic web on 127.0.0.1:0 and runs
//! the `langcrawl` binary against it through `--proxy`.

mod adaptive;
mod crash;
mod discovery;
mod docs;
mod errors;
mod export;
mod focused;
mod frontier;
mod golden;
mod graceful_stop;
mod guarded_writes;
mod hostile;
mod hostile_server;
mod hostile_sitemap_files;
mod hostile_sitemaps;
mod langid;
mod limits;
mod link_kinds;
mod lock;
mod old_segments;
mod ontology;
mod partitions;
mod phases;
mod politeness;
mod readers;
mod real_pages;
mod recovery;
mod recrawl;
mod robots_origins;
mod simulation;
mod status;
mod strategies;
mod strategy_fixture;
mod target_langid;
mod util;
