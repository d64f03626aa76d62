//! The `ballista` feature's tests (`cargo test --features ballista --test
//! ballista`): the SQL phases on Ballista decide exactly as on local
//! DataFusion, in this process and on a cluster of langcrawl's own
//! scheduler and executor processes on 127.0.0.1.

#[path = "../it/util.rs"]
#[allow(dead_code)]
mod util;

mod cluster;
mod ontology;
mod same_crawl;
