//! The command line, as glue over the library: clap structs (`args`; their
//! doc comments are the `--help` text), flags turned into the phases'
//! checked options over the crawl's saved settings (`options`), each
//! command's body (`commands`), and here the dispatch.

mod args;
#[cfg(feature = "ballista")]
mod ballista_args;
mod commands;
mod export_args;
mod fetch_args;
mod options;
mod recrawl_args;
mod websim_args;

pub use args::*;
use commands::{crawl, detect, export, inspect, phases, shell_help, sim, websim, Context};
pub use export_args::*;
pub use fetch_args::*;
pub use websim_args::*;

use crate::error::Result;

impl Cli {
    /// The command line as clap reads it: every flag's value may be a
    /// negative number, so that `--rounds -1` is named as that flag's bad
    /// value (its parser refuses it) and not taken for an unknown flag `-1`.
    pub fn command_line() -> clap::Command {
        negative_values_allowed(<Cli as clap::CommandFactory>::command())
    }

    /// Parses `args` (the program's name first) through [`Cli::command_line`].
    pub fn parse_args<I, T>(args: I) -> Result<Cli, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let matches = Cli::command_line().try_get_matches_from(args)?;
        <Cli as clap::FromArgMatches>::from_arg_matches(&matches)
    }
}

/// `command` and its subcommands with negative numbers allowed as the
/// values of every flag that takes one.
fn negative_values_allowed(command: clap::Command) -> clap::Command {
    command
        .mut_args(|arg| {
            let takes_value = arg.get_action().takes_values();
            arg.allow_negative_numbers(takes_value)
        })
        .mut_subcommands(negative_values_allowed)
}

/// Runs the parsed command line.
pub async fn run(cli: Cli) -> Result<()> {
    crate::store::lock::set_task(cli.command.name());
    // A cluster's process does not run SQL itself: no engine to open.
    #[cfg(feature = "ballista")]
    if let Command::Ballista { command } = &cli.command {
        return commands::ballista::run(&cli, command).await;
    }
    // Printed from the clap definitions alone: no crawl, no engine.
    match &cli.command {
        Command::Completions { shell } => return shell_help::completions(*shell),
        Command::Man { command } => return shell_help::man(command),
        _ => {}
    }
    let ctx = Context::new(&cli).await?;
    match &cli.command {
        Command::Inject { seeds, lang } => phases::inject(&ctx, seeds, lang.as_deref()).await,
        Command::Generate(args) => phases::generate(&ctx, args).await,
        Command::Fetch(args) => phases::fetch(&ctx, args).await,
        Command::Parse(part) => phases::parse(&ctx, part),
        Command::Updatedb(args) => phases::updatedb(&ctx, args).await,
        Command::Crawl(args) => crawl::crawl(&ctx, args).await,
        Command::Refilter(args) => crawl::refilter(&ctx, args).await,
        Command::Demo(args) => crawl::demo(&ctx, cli.crawl.as_deref(), args).await,
        Command::Sql(args) => inspect::sql(&ctx, args).await,
        Command::Report(args) => inspect::report(&ctx, args).await,
        Command::Status { json } => inspect::status(&ctx, *json).await,
        Command::Export { command } => export::export(&ctx, command).await,
        Command::Detect(args) => detect::print(args),
        Command::Simulate(args) => sim::simulate(&ctx, args).await,
        Command::Graph {
            command: GraphCommand::Export { out },
        } => sim::export_graph(&ctx, out).await,
        Command::Graph {
            command: GraphCommand::Import { from, out },
        } => sim::import_graph(&ctx, from, out),
        Command::Websim {
            command: WebsimCommand::Serve(args),
        } => websim::serve(args).await,
        Command::Websim {
            command: WebsimCommand::Generate(args),
        } => websim::generate(&ctx, args).await,
        #[cfg(feature = "ballista")]
        Command::Ballista { command } => commands::ballista::run(&cli, command).await,
        Command::Completions { .. } | Command::Man { .. } => unreachable!("printed above"),
    }
}
