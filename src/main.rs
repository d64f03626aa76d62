//! The `langcrawl` command: parse the command line, run it, print any error
//! on one line and exit non-zero.

use clap::Parser;

fn main() {
    let cli = langcrawl::cli::Cli::parse();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("langcrawl: starting the runtime: {e}");
            std::process::exit(1);
        }
    };
    if let Err(error) = runtime.block_on(langcrawl::cli::run(cli)) {
        eprintln!("langcrawl: {error}");
        std::process::exit(error.exit_code());
    }
}
