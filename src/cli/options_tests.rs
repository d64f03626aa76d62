//! Flags as the user types them, parsed and checked into options.

use super::*;

fn parse(line: &str) -> Result<Cli, String> {
    Cli::parse_args(line.split_whitespace()).map_err(|e| e.to_string())
}

fn command(line: &str) -> Command {
    parse(line)
        .unwrap_or_else(|e| panic!("{line}: {e}"))
        .command
}

fn fetch_options(line: &str) -> Result<FetchOptions> {
    match command(line) {
        Command::Fetch(args) => args.fetch.options(true),
        other => panic!("{line}: {other:?}"),
    }
}

fn update_args(line: &str) -> UpdateArgs {
    match command(line) {
        Command::Updatedb(args) => args,
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn fetch_is_polite_by_default() {
    let options = fetch_options("langcrawl fetch").unwrap();
    assert_eq!(options.delay, Duration::from_secs(1));
    assert_eq!(options.concurrency, 32);
    assert_eq!(options.max_crawl_delay, Duration::from_secs(10));
    assert_eq!(options.client.timeout, Duration::from_secs(30));
    assert_eq!(options.client.max_content_bytes, 8 << 20);
    let library = crate::fetch::client::ClientOptions::default();
    assert_eq!(library.max_content_bytes, options.client.max_content_bytes);
    assert!(!options.allow_private, "the address guard is on");
    assert!(options.max_fetch_time.is_none());
}

#[test]
fn fetch_values_out_of_range_are_refused_with_the_flag_named() {
    for (flag, needle) in [
        (
            "--delay-ms 60001",
            "--delay-ms 60001: must be at most 60000",
        ),
        ("--max-crawl-delay-ms 600001", "--max-crawl-delay-ms"),
        ("--timeout 0", "--timeout 0: must be a positive number"),
        ("--connect-timeout=-1", "--connect-timeout -1"),
        ("--max-fetch-time 1e30", "at most 604800"),
        ("--concurrency 0", "--concurrency 0: must be at least 1"),
        (
            "--concurrency 2305843009213693952",
            "--concurrency 2305843009213693952: at most 65536",
        ),
        ("--max-host-failures 0", "--max-host-failures 0"),
        (
            "--max-content-bytes 3GiB",
            "--max-content-bytes 3221225472: must be at most 1GiB",
        ),
    ] {
        let line = format!("langcrawl fetch {flag}");
        let error = fetch_options(&line).unwrap_err().to_string();
        assert!(error.contains(needle), "{line}: {error}");
    }
}

#[test]
fn counts_must_be_positive() {
    let error = parse("langcrawl generate --top-n 0").unwrap_err();
    assert!(error.contains("--top-n"), "{error}");
    assert!(parse("langcrawl crawl --rounds 0").is_err());
    // a negative number is the flag's bad value, not an unknown flag
    for (flag, value) in [
        ("--refetch-share", "-0.1"),
        ("--rounds", "-1"),
        ("--top-n", "-5"),
    ] {
        let error = parse(&format!("langcrawl crawl {flag} {value}")).unwrap_err();
        assert!(error.contains(flag) && error.contains(value), "{error}");
        assert!(!error.contains("unexpected argument"), "{error}");
    }
    // past i64::MAX a number turns negative in SQL
    for flag in ["--top-n", "--max-per-host", "--host-budget"] {
        let error = parse(&format!("langcrawl crawl {flag} 9223372036854775808")).unwrap_err();
        assert!(
            error.contains(flag) && error.contains("at most 9223372036854775807"),
            "{error}"
        );
        assert!(parse(&format!("langcrawl crawl {flag} 9223372036854775807")).is_ok());
    }
    let Command::Generate(args) = command("langcrawl generate --max-per-host 7") else {
        panic!("not generate");
    };
    assert_eq!((args.top_n, args.max_per_host), (50_000, 7));
}

#[test]
fn memory_limit_takes_sizes_and_none() {
    let cli = parse("langcrawl --memory-limit 2GiB report").unwrap();
    assert_eq!(cli.memory_limit, Some(2 << 30));
    let cli = parse("langcrawl report --memory-limit none").unwrap();
    assert_eq!(cli.memory_limit, Some(crate::memory::UNLIMITED));
    assert!(parse("langcrawl report --memory-limit lots").is_err());
    assert_eq!(parse("langcrawl report").unwrap().memory_limit, None);
}

#[test]
fn updatedb_flags_layer_over_the_saved_settings() {
    let mut config = CrawlConfig::for_lang(&TargetLang::parse("ja").unwrap());
    config.strategy = "server-conservative".into();
    config.params.tolerance = 5;
    config.limits.max_depth = 9;
    let args = update_args("langcrawl updatedb --tolerance 7 --max-outlinks 20");
    let selection = args.resolve(&mut config).unwrap();
    assert_eq!(selection.strategy.name, "server-conservative", "kept");
    assert_eq!(selection.target_lang.code(), "jpn");
    assert_eq!(selection.params.tolerance, 7, "given");
    assert_eq!(selection.limits.max_depth, 9, "kept");
    assert_eq!(selection.limits.max_outlinks, 20, "given");
    assert_eq!(
        config.params.tolerance, 7,
        "the config takes what was given"
    );
}

#[test]
fn a_new_language_brings_its_own_cctlds() {
    let mut config = CrawlConfig::for_lang(&TargetLang::parse("ja").unwrap());
    assert_eq!(config.params.target_tlds, ["jp"]);
    let selection = update_args("langcrawl updatedb --lang th")
        .resolve(&mut config)
        .unwrap();
    assert_eq!(selection.params.target_tlds, ["th"]);
    let tlds = update_args("langcrawl updatedb --tld .JP,cn,")
        .resolve(&mut config)
        .unwrap()
        .params
        .target_tlds;
    assert_eq!(tlds, ["jp", "cn"]);
}

#[test]
fn a_crawl_without_a_language_or_with_a_bad_choice_says_so() {
    let resolve = |line: &str| {
        update_args(line)
            .resolve(&mut CrawlConfig::default())
            .unwrap_err()
            .to_string()
    };
    assert!(resolve("langcrawl updatedb").contains("--lang is required"));
    assert!(resolve("langcrawl updatedb --lang xx").contains("xx"));
    let perfect = resolve("langcrawl updatedb --lang ja --strategy perfect");
    assert!(perfect.contains("simulate"), "{perfect}");
    // refused as the line is read, with the names it takes
    let unknown = parse("langcrawl updatedb --lang ja --strategy nope").unwrap_err();
    assert!(unknown.contains("possible values: bfs"), "{unknown}");
    let missing = resolve("langcrawl updatedb --lang ja --importance /no/such.csv");
    assert!(missing.contains("--importance /no/such.csv: no such file"));
}

#[test]
fn the_crawl_directory_defaults_to_segments() {
    assert_eq!(
        parse("langcrawl report").unwrap().crawl_dir(),
        Path::new("segments")
    );
    let cli = parse("langcrawl sql --crawl /tmp/c SELECT").unwrap();
    assert_eq!(cli.crawl_dir(), Path::new("/tmp/c"));
}

/// What `langcrawl ARGS` prints or refuses with.
fn rendered(args: &[&str]) -> String {
    let line = std::iter::once("langcrawl").chain(args.iter().copied());
    match Cli::parse_args(line) {
        Ok(_) => panic!("{args:?} parsed"),
        Err(e) => e.render().to_string(),
    }
}

#[test]
fn strategy_help_names_every_registered_strategy_with_what_it_does() {
    for command in ["crawl", "updatedb", "refilter", "simulate"] {
        let help = rendered(&[command, "--help"]);
        for strategy in crate::strategy::STRATEGIES {
            let entry = format!("- {}:", strategy.name);
            let line = help.lines().find(|l| l.trim_start().starts_with(&entry));
            let line = line.unwrap_or_else(|| panic!("{command} --help: no {entry}\n{help}"));
            assert!(line.ends_with(strategy.about), "{command}: {line}");
        }
    }
    let refused = rendered(&["crawl", "--strategy", "adaptiv"]);
    assert!(refused.contains("'adaptive'"), "{refused}");
}
