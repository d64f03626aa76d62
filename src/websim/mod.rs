//! The synthetic web, served on loopback as a forward proxy is addressed
//! (`server`), so the crawler reaches it with its ordinary `--proxy`
//! option; nothing leaves 127.0.0.1. Two webs:
//!
//! - `generator`: a procedural web whose pages are made on request, with
//!   the protocol's hard cases (legacy charsets, robots.txt that fails,
//!   redirects, errors, a crawler trap) and the markup's (`shapes`: image
//!   links, framesets, refresh pages, image maps, hreflang alternates,
//!   junk) — the phase tests and `websim serve`.
//! - `calibrated`: an explicit web graph shaped after Tamura's
//!   measurements of the Thai web, written as a web directory
//!   (`crate::webgraph`) by `websim generate` (statistics in `web_stats`);
//!   `graph_site` serves any web graph, `simulate` replays one.
//!
//! Both render pages through `render`, and draw every choice from `rng`.

pub mod calibrated;
pub mod corpus;
pub mod discovery;
pub mod generator;
pub mod graph_site;
pub mod render;
pub mod revisions;
pub mod rng;
pub mod server;
pub mod shapes;
pub mod traps;
pub mod university;
pub mod web_stats;

pub use generator::{Web, WebSpec};
pub use server::{spawn_background, Websim};
