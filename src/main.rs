//! The `langcrawl` command: parse the command line, run it, print any error
//! on one line and exit non-zero.

/// mimalloc, not the system allocator: parse allocates per link on every
/// core and frees on the writing thread, and glibc's malloc spent ~40% of
/// a link-dense parse in its own bookkeeping.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The stack of the thread that plans and runs the command: deep query
/// plans (a long `sql` expression, Ballista's plan decoding, unoptimized
/// builds above all) recurse deeply. Only the pages used count.
const STACK_BYTES: usize = 256 << 20;

fn main() {
    no_huge_pages();
    end_quietly_when_stdout_closes();
    let cli = match langcrawl::cli::Cli::parse_args(std::env::args_os()) {
        Ok(cli) => cli,
        Err(e) => argument_error(e),
    };
    let code = std::thread::Builder::new()
        .name("langcrawl".into())
        .stack_size(STACK_BYTES)
        .spawn(move || run(cli))
        .map_or_else(
            |e| {
                eprintln!("langcrawl: starting: {e}");
                1
            },
            |thread| thread.join().unwrap_or(101),
        );
    std::process::exit(code);
}

/// No transparent huge pages for this process: the allocator asks for
/// them, and the first touch of one zeroes all of its 2 MiB however little
/// is used. Without them (paired runs, medians): a fetch of 50,000 URLs
/// held 360 MiB at its peak instead of 461, a parse of 45,426 pages 200
/// instead of 228, an updatedb of 550,000 links 584 instead of 635, as
/// fast (wall 1.02×, 0.99×, 0.92×).
fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(PR_SET_THP_DISABLE) takes integers and sets a flag of
    // this process; a kernel without it answers EINVAL, which is harmless.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// A reader that stops reading (`langcrawl sql ... | head`) closes the
/// pipe, and `println!` panics on it; end quietly instead, with status 0
/// as ripgrep does (a `set -o pipefail` script goes on), not SIGPIPE's
/// death (SIGPIPE stays ignored: a peer closing a socket must not kill a
/// crawl). A phase stopped so is left as a killed one is: its previous
/// state readable, the phase re-runnable.
fn end_quietly_when_stdout_closes() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        report(info);
    }));
}

/// Runs the command on a tokio runtime; its exit status.
fn run(cli: langcrawl::cli::Cli) -> i32 {
    // worker threads get more than tokio's 2 MiB stack too
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(16 << 20)
        .build();
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("langcrawl: starting the runtime: {e}");
            return 1;
        }
    };
    match runtime.block_on(langcrawl::cli::run(cli)) {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("langcrawl: {error}");
            if let langcrawl::error::Error::Stopped { status, .. } = error {
                langcrawl::shutdown::die_of_signal(status);
            }
            error.exit_code()
        }
    }
}

/// `--help` and `--version` as clap prints them; any other argument error
/// on one line, exit status 2.
fn argument_error(e: clap::Error) -> ! {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion)
        || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    {
        e.exit();
    }
    let text = e.render().to_string();
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("bad arguments");
    let line = line.strip_prefix("error: ").unwrap_or(line);
    // the values a flag takes and clap's suggestion for a misspelt value
    // or flag, on the same line
    let mut said = line.to_string();
    if e.kind() == ErrorKind::MissingRequiredArgument {
        // clap lists what is missing on the lines below, then the usage
        let missing: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.contains("not provided"))
            .skip(1)
            .map(str::trim)
            .take_while(|l| !l.is_empty())
            .collect();
        said += &format!(" {}", missing.join(", "));
        if let Some(usage) = text.lines().find_map(|l| l.trim().strip_prefix("Usage: ")) {
            said += &format!("; usage: {usage}");
        }
    }
    for l in text.lines().map(str::trim) {
        if let Some(tip) = l.strip_prefix("tip: ") {
            said += &format!("; {tip}");
        } else if l.starts_with("[possible values: ") {
            said += &format!(" {l}");
        }
    }
    eprintln!("langcrawl: {said} (see --help)");
    std::process::exit(2);
}
