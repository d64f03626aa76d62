//! The `langcrawl` command: parse the command line, run it, print any error
//! on one line and exit non-zero.

use clap::Parser;

fn main() {
    let cli = langcrawl::cli::Cli::parse();
    // Deep query plans recurse deeply (Ballista's plan decoding, unoptimized
    // builds above all): worker threads get more than tokio's 2 MiB stack.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(16 << 20)
        .build();
    let runtime = match runtime {
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
