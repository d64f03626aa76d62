//! Ballista (feature `ballista`): the SQL phases on a scheduler and its
//! executors. `connect` gives the engine a context whose queries Ballista
//! runs, in this process (`--engine ballista`) or on a cluster
//! (`--engine df://HOST:PORT`); `run_scheduler` and `run_executor` are the
//! cluster's processes, Ballista's own with langcrawl's SQL functions and
//! in-memory tables known to them, so a cluster is started with this binary.
//!
//! The executors read the segments themselves: every machine must see the
//! crawl directory at the same path (NFS or similar).

use std::net::ToSocketAddrs;
use std::sync::Arc;
use std::time::Duration;

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use ballista_core::registry::BallistaFunctionRegistry;
use ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::start_server;
use datafusion::execution::context::{SessionConfig, SessionContext, SessionState};

use super::mem_table_codec::MemTableCodec;
use super::EngineKind;
use crate::error::{Error, Result};

/// `base` with Ballista's settings and the codec for in-memory tables.
pub(super) fn session_config(base: SessionConfig) -> SessionConfig {
    // Ballista 55's adaptive planner re-plans updatedb's stages without end
    // (stage ids in the thousands for a three-page round): the static one.
    base.upgrade_for_ballista()
        .set_bool("ballista.planner.adaptive.enabled", false)
        // Each query's tables are listed afresh (a crawldb version lives
        // only until it is replaced): no statistics kept from one job for
        // the next.
        .set_bool("ballista.scheduler.share_file_statistics_cache", false)
        .with_ballista_logical_extension_codec(Arc::new(MemTableCodec::default()))
}

/// A context whose queries run on `kind`'s Ballista; `state` carries the
/// functions and memory limit the in-process executor gets.
pub(super) async fn connect(state: SessionState, kind: &EngineKind) -> Result<SessionContext> {
    init_log();
    let context = format!("starting --engine {kind}");
    match kind {
        EngineKind::Cluster { host, port } => {
            reachable(host, *port)?;
            SessionContext::remote_with_state(&format!("df://{host}:{port}"), state).await
        }
        _ => SessionContext::standalone_with_state(state).await,
    }
    .map_err(Error::sql(context))
}

/// Fails with one line unless a scheduler answers at `host:port`:
/// Ballista itself would only fail at the first query.
fn reachable(host: &str, port: u16) -> Result<()> {
    let unreachable = |why: String| {
        Error::Usage(format!(
            "no Ballista scheduler at df://{host}:{port}: {why}"
        ))
    };
    let addresses = (host.trim_matches(['[', ']']), port)
        .to_socket_addrs()
        .map_err(|e| unreachable(e.to_string()))?;
    let mut last = String::from("the name has no address");
    for address in addresses {
        match std::net::TcpStream::connect_timeout(&address, Duration::from_secs(5)) {
            Ok(_) => return Ok(()),
            Err(e) => last = e.to_string(),
        }
    }
    Err(unreachable(last))
}

/// Ballista's log on stderr, as `RUST_LOG` asks (warnings by default; its
/// complaint about combining a stage's metrics for display is noise).
pub fn init_log() {
    let default = "warn,ballista_scheduler::display=off";
    let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(default))
        .try_init();
}

/// The session every query of the cluster gets: `config` with Ballista's
/// settings and the codec, langcrawl's functions, and a pool of
/// `memory_limit` bytes.
fn session_state(config: SessionConfig, memory_limit: usize) -> SessionState {
    super::local_context(session_config(config), memory_limit, false).state()
}

/// A scheduler listening on `bind:port`, until the process is stopped.
pub async fn run_scheduler(bind: &str, port: u16, memory_limit: usize) -> Result<()> {
    let address = format!("{bind}:{port}");
    let socket = address
        .parse()
        .map_err(|e| Error::Usage(format!("scheduler address {address}: {e}")))?;
    let mut config = SchedulerConfig {
        bind_host: bind.to_string(),
        bind_port: port,
        ..SchedulerConfig::default()
    };
    config.override_logical_codec = Some(Arc::new(MemTableCodec::default()));
    config.override_session_builder = Some(Arc::new(move |config: SessionConfig| {
        Ok(session_state(config, memory_limit))
    }));
    config.override_config_producer = Some(Arc::new(|| session_config(super::session_config())));
    let failed = |e: ballista_core::error::BallistaError| {
        Error::Usage(format!("Ballista scheduler on {address}: {e}"))
    };
    let cluster = BallistaCluster::new_from_config(&config)
        .await
        .map_err(failed)?;
    start_server(cluster, socket, Arc::new(config))
        .await
        .map_err(failed)
}

/// Where an executor listens and which scheduler it serves.
#[derive(Debug, Clone)]
pub struct ExecutorOptions {
    /// The scheduler's host and port.
    pub scheduler: (String, u16),
    /// The address to listen on, and the name the others reach it by.
    pub bind: String,
    pub external_host: Option<String>,
    /// Arrow Flight (results, shuffles) and gRPC ports.
    pub port: u16,
    pub grpc_port: u16,
    /// Tasks run at once.
    pub concurrent_tasks: usize,
    /// Where shuffle files go (default: a temporary directory).
    pub work_dir: Option<String>,
}

/// An executor serving `options.scheduler`, until the process is stopped.
pub async fn run_executor(options: ExecutorOptions, memory_limit: usize) -> Result<()> {
    let state = session_state(super::session_config(), memory_limit);
    let (scheduler_host, scheduler_port) = options.scheduler.clone();
    let config = ExecutorProcessConfig {
        bind_host: options.bind.clone(),
        external_host: options.external_host.clone(),
        port: options.port,
        grpc_port: options.grpc_port,
        scheduler_host,
        scheduler_port,
        scheduler_connect_timeout_seconds: 30,
        vcores: options.concurrent_tasks,
        work_dir: options.work_dir.clone(),
        memory_pool_size: (memory_limit != crate::memory::UNLIMITED).then_some(memory_limit as u64),
        // a fresh runtime per task: no Parquet footers cached across rounds
        session_runtime_cache_capacity: 0,
        override_function_registry: Some(Arc::new(BallistaFunctionRegistry::from(&state))),
        override_logical_codec: Some(Arc::new(MemTableCodec::default())),
        ..ExecutorProcessConfig::default()
    };
    start_executor_process(Arc::new(config)).await.map_err(|e| {
        Error::Usage(format!(
            "Ballista executor on {}:{} (scheduler {}:{}): {e}",
            options.bind, options.port, options.scheduler.0, options.scheduler.1
        ))
    })
}
