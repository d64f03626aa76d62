//! The language-identification benchmark run by `scripts/bench-langid`:
//! per-language precision and recall on UDHR paragraphs and on short
//! anchors cut from them, and page identification throughput per core.

use std::path::Path;
use std::time::Instant;

use langcrawl::lang::eval::{self, Sample};
use langcrawl::lang::identify_page;

fn main() -> anyhow::Result<()> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/udhr");
    let paragraphs = eval::load_paragraphs(&dir)?;
    let pages = eval::score_pages(&paragraphs);
    println!(
        "## Paragraphs as pages ({} samples)\n\n{}",
        paragraphs.len(),
        eval::table(&pages)
    );
    println!(
        "mean recall over languages whatlang knows: {:.2}%\n",
        100.0 * eval::mean_recall(&pages, eval::whatlang_knows)
    );

    let anchors: Vec<Sample> = paragraphs
        .iter()
        .flat_map(|p| eval::anchors(p, 3))
        .collect();
    let scores = eval::score_anchors(&anchors);
    println!(
        "## Anchors, 2-5 words or 2-8 characters ({} samples)\n\n{}",
        anchors.len(),
        eval::table(&scores)
    );
    println!(
        "confident wrong: {:.2}% of anchors\n",
        100.0 * eval::confident_wrong_rate(&scores)
    );

    let bytes: usize = paragraphs.iter().map(|p| p.text.len()).sum();
    let rounds = 5;
    let started = Instant::now();
    for _ in 0..rounds {
        for p in &paragraphs {
            std::hint::black_box(identify_page(&p.text, None, "UTF-8"));
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!("| measure | value |\n|---|---:|");
    println!(
        "| page identification, one core | {:.1} MB/s |",
        (rounds * bytes) as f64 / secs / 1e6
    );
    Ok(())
}
