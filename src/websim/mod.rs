//! The synthetic web: a deterministic multilingual web graph (`generator`)
//! served on loopback as a forward proxy is addressed (`server`), so the
//! crawler reaches it with its ordinary `--proxy` option. Tests, the demo
//! and the benchmarks crawl it; nothing leaves 127.0.0.1.

pub mod calibrated;
pub mod corpus;
pub mod generator;
pub mod graph;
pub mod graph_site;
pub mod render;
pub mod server;
pub mod web_stats;

pub use generator::{Web, WebSpec};
pub use server::{spawn_background, Websim};
