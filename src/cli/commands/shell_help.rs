//! Shell completions and the manual page, generated from the clap
//! definitions (`clap_complete`, `clap_mangen`), so they name every
//! command, flag and strategy the binary has.

use std::io::Write;
use std::path::Path;

use super::super::args::Cli;
use crate::error::{Error, Result};

/// Prints `shell`'s completion script for langcrawl.
pub fn completions(shell: clap_complete::Shell) -> Result<()> {
    print(&script(shell))
}

fn script(shell: clap_complete::Shell) -> Vec<u8> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command_line(), "langcrawl", &mut script);
    script
}

/// Prints the manual page of langcrawl, or of one of its commands
/// (`langcrawl-crawl(1)`, `langcrawl-websim-serve(1)` for `man websim
/// serve`), roff for `man`.
pub fn man(command: &[String]) -> Result<()> {
    print(&page(command)?)
}

fn page(command: &[String]) -> Result<Vec<u8>> {
    let mut of = Cli::command_line();
    of.build(); // names each command's page `langcrawl-NAME` (`-SUB`)
    for (depth, name) in command.iter().enumerate() {
        of = of.find_subcommand(name).cloned().ok_or_else(|| {
            Error::Usage(format!(
                "man {}: no such command (see langcrawl {}--help)",
                command[..=depth].join(" "),
                command[..depth]
                    .iter()
                    .map(|c| format!("{c} "))
                    .collect::<String>()
            ))
        })?;
    }
    let mut page = Vec::new();
    let rendered = clap_mangen::Man::new(of).render(&mut page);
    rendered.expect("writing into memory cannot fail");
    Ok(page)
}

/// Writes `bytes` to standard output; a reader that stopped early (`| head`)
/// is not an error.
fn print(bytes: &[u8]) -> Result<()> {
    match std::io::stdout().lock().write_all(bytes) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Error::io(Path::new("standard output"))(e))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completions_and_the_manual_name_every_command_and_strategy() {
        let words = |text: &str| text.split(' ').map(String::from).collect::<Vec<_>>();
        let main = String::from_utf8(page(&[]).unwrap()).unwrap();
        let script = String::from_utf8(script(clap_complete::Shell::Bash)).unwrap();
        for command in Cli::command_line().get_subcommands() {
            let name = command.get_name();
            assert!(script.contains(name), "completions: no {name}");
            assert!(main.contains(name), "man page: no {name}");
        }
        let crawl = String::from_utf8(page(&words("crawl")).unwrap()).unwrap();
        assert!(crawl.contains(".TH langcrawl-crawl 1"), "{crawl}");
        for strategy in crate::strategy::STRATEGIES {
            assert!(
                script.contains(strategy.name),
                "completions: no {}",
                strategy.name
            );
            let name = strategy.name.replace('-', "\\-");
            assert!(crawl.contains(&name), "crawl's page: no {name}");
        }
        let serve = String::from_utf8(page(&words("websim serve")).unwrap()).unwrap();
        assert!(serve.contains(".TH langcrawl-websim-serve 1"), "{serve}");
        assert!(serve.contains("\\-\\-listen"), "{serve}");
        assert!(page(&words("nope")).is_err());
        let nested = page(&words("websim nope")).unwrap_err().to_string();
        assert!(
            nested.contains("man websim nope: no such command (see langcrawl websim --help)"),
            "{nested}"
        );
    }
}
