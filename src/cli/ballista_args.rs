//! `langcrawl ballista scheduler|executor`: a Ballista cluster started with
//! this binary, so its executors know langcrawl's SQL functions.

use std::path::PathBuf;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum BallistaCommand {
    /// Run a Ballista scheduler (until stopped); crawl commands use it with --engine df://HOST:PORT
    Scheduler {
        /// Address to listen on (0.0.0.0 for every interface)
        #[arg(long, default_value = "127.0.0.1", value_name = "ADDRESS")]
        bind: String,
        /// Port to listen on
        #[arg(long, default_value_t = 50050)]
        port: u16,
    },
    /// Run a Ballista executor (until stopped) for a scheduler; every executor
    /// must see the crawl directory at the same path (NFS or similar)
    Executor {
        /// The scheduler, HOST:PORT
        #[arg(long, default_value = "127.0.0.1:50050", value_name = "HOST:PORT")]
        scheduler: String,
        /// Address to listen on (0.0.0.0 for every interface)
        #[arg(long, default_value = "127.0.0.1", value_name = "ADDRESS")]
        bind: String,
        /// The name other machines reach this executor by [default: its address]
        #[arg(long, value_name = "HOST")]
        external_host: Option<String>,
        /// Port for results and shuffles (Arrow Flight)
        #[arg(long, default_value_t = 50051)]
        port: u16,
        /// Port for the scheduler's calls (gRPC)
        #[arg(long, default_value_t = 50052)]
        grpc_port: u16,
        /// Tasks run at once [default: the number of cores]
        #[arg(long, value_name = "N")]
        concurrent_tasks: Option<usize>,
        /// Where shuffle files are written [default: a temporary directory]
        #[arg(long, value_name = "DIR")]
        work_dir: Option<PathBuf>,
    },
}
