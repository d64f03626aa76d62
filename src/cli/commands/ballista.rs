//! `langcrawl ballista scheduler|executor`: options checked, then the
//! library's cluster processes run until stopped.

use crate::cli::args::Cli;
use crate::cli::ballista_args::BallistaCommand;
use crate::engine::cluster::{self, ExecutorOptions};
use crate::error::{Error, Result};

pub(in crate::cli) async fn run(cli: &Cli, command: &BallistaCommand) -> Result<()> {
    let memory_limit = super::memory_limit(cli);
    cluster::init_log();
    match command {
        BallistaCommand::Scheduler { bind, port } => {
            if !cli.quiet {
                println!("langcrawl: Ballista scheduler on {bind}:{port}");
            }
            cluster::run_scheduler(bind, *port, memory_limit).await
        }
        BallistaCommand::Executor {
            scheduler,
            bind,
            external_host,
            port,
            grpc_port,
            concurrent_tasks,
            work_dir,
        } => {
            let options = ExecutorOptions {
                scheduler: crate::engine::host_and_port(scheduler)
                    .map_err(|why| Error::Usage(format!("--scheduler {scheduler}: {why}")))?,
                bind: bind.clone(),
                external_host: external_host.clone(),
                port: *port,
                grpc_port: *grpc_port,
                concurrent_tasks: concurrent_tasks
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get())),
                work_dir: work_dir.as_ref().map(|d| d.display().to_string()),
            };
            if !cli.quiet {
                println!("langcrawl: Ballista executor on {bind}:{port} for {scheduler}");
            }
            cluster::run_executor(options, memory_limit).await
        }
    }
}
