//! Fetch progress: a bar with pages/s, bytes and errors on a terminal,
//! a plain log line every few seconds otherwise.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

const LOG_EVERY: Duration = Duration::from_secs(5);

pub struct Progress {
    bar: Option<ProgressBar>,
    total: u64,
    done: u64,
    bytes: u64,
    errors: u64,
    started: Instant,
    last_log: Instant,
    quiet: bool,
}

impl Progress {
    pub fn new(total: u64, quiet: bool) -> Self {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new(total);
            let style = ProgressStyle::with_template(
                "fetch {bar:30} {pos}/{len} {per_sec} {msg} eta {eta}",
            )
            .expect("valid template");
            bar.set_style(style);
            bar
        });
        Progress {
            bar,
            total,
            done: 0,
            bytes: 0,
            errors: 0,
            started: Instant::now(),
            last_log: Instant::now(),
            quiet,
        }
    }

    pub fn record(&mut self, bytes: usize, error: bool) {
        self.done += 1;
        self.bytes += bytes as u64;
        self.errors += u64::from(error);
        if let Some(bar) = &self.bar {
            bar.set_position(self.done);
            bar.set_message(format!("{} KiB, {} errors", self.bytes / 1024, self.errors));
        } else if !self.quiet && self.last_log.elapsed() >= LOG_EVERY {
            self.last_log = Instant::now();
            eprintln!("fetch: {}", self.line());
        }
    }

    fn line(&self) -> String {
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        format!(
            "{}/{} pages, {:.0} pages/s, {} KiB, {} errors",
            self.done,
            self.total,
            self.done as f64 / secs,
            self.bytes / 1024,
            self.errors
        )
    }

    /// Rows recorded so far.
    pub fn done(&self) -> u64 {
        self.done
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
