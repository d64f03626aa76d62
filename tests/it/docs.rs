//! The guides cannot rot: every `sh` block of `docs/*.md` runs as a user
//! would paste it, in a folder where `segments/demo` is a demo crawl (and
//! `segments`, the default crawl, a copy of it), with `langcrawl` on the
//! PATH. A block that fails names its guide and line. Blocks marked `text`
//! (command synopses, crawls of the real web, clusters, other tools) are
//! not run.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{command, succeeded};

/// One `sh` block: its guide, the line it starts on, its text.
struct Block {
    guide: PathBuf,
    line: usize,
    text: String,
}

fn sh_blocks(guide: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(guide).unwrap();
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for (n, line) in text.lines().enumerate() {
        match (&mut open, line.trim_end()) {
            (None, "```sh") => {
                open = Some(Block {
                    guide: guide.to_path_buf(),
                    line: n + 1,
                    text: String::new(),
                })
            }
            (Some(_), "```") => blocks.push(open.take().unwrap()),
            (Some(block), line) => block.text += &format!("{line}\n"),
            // any other language would be skipped unseen: sh runs, text
            // does not, a bare fence is output
            (None, fence) if fence.starts_with("```") => assert!(
                ["```", "```text"].contains(&fence),
                "{}:{}: a block is sh, text or bare, not {fence}",
                guide.display(),
                n + 1
            ),
            (None, _) => {}
        }
    }
    assert!(open.is_none(), "{}: a block is not closed", guide.display());
    blocks
}

/// A folder with the demo crawl in `segments/demo` and a copy as
/// `segments`, and a `bin/langcrawl` to put on the PATH.
fn demo_folder() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let demo = tmp.path().join("segments/demo");
    let args = [
        "demo",
        "--crawl",
        demo.to_str().unwrap(),
        "--max-pages",
        "300",
    ];
    succeeded(command(&args).arg("--quiet").output().unwrap(), &args);
    let copied = Command::new("cp")
        .arg("-a")
        .arg(demo.join("."))
        .arg(tmp.path().join("segments"))
        .status()
        .unwrap();
    assert!(copied.success());
    let bin = tmp.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_langcrawl"), bin.join("langcrawl")).unwrap();
    tmp
}

#[test]
fn every_sh_block_of_the_guides_runs() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    let mut guides: Vec<PathBuf> = std::fs::read_dir(&docs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    guides.sort();
    let blocks: Vec<Block> = guides.iter().flat_map(|g| sh_blocks(g)).collect();
    assert!(blocks.len() >= 8, "{} sh blocks in docs/", blocks.len());
    let folder = demo_folder();
    let path = format!(
        "{}:{}",
        folder.path().join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failed = Vec::new();
    for block in &blocks {
        assert!(
            block.text.contains("langcrawl "),
            "{}:{}",
            block.guide.display(),
            block.line
        );
        let mut bash = Command::new("bash");
        bash.args(["-euo", "pipefail", "-c", &block.text])
            .current_dir(folder.path())
            .env("PATH", &path)
            .env("NO_COLOR", "1");
        for var in langcrawl::fetch::guard::PROXY_VARIABLES {
            bash.env_remove(var);
        }
        let started = std::time::Instant::now();
        let out = bash.output().unwrap();
        let seconds = started.elapsed().as_secs_f64();
        eprintln!("{}:{}: {seconds:.1} s", block.guide.display(), block.line);
        if !out.status.success() {
            failed.push(format!(
                "{}:{}: {}\n{}",
                block.guide.display(),
                block.line,
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
