//! How long each query took: to plan (SQL to a logical plan), to start
//! (the physical plan, made and started) and to run (its rows read to the
//! end), counted against the SQL file it came from. `simulate` writes the
//! sums of each phase of each round as `query_times.csv`, so the cost of a
//! strategy's SQL — the built-in files or a `--sql-dir`'s — is a table.
//!
//! A run is counted against the query planned last (so a caller plans
//! each query just before it runs it); a view's work is counted in the
//! query that reads it (DataFusion plans and runs the two as one), its own
//! planning against its file. A table read as it is (`Engine::table`,
//! `Engine::count_rows`) is counted as `table NAME`; a run nothing was
//! planned for as `a registered table`.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What one query (SQL file, inline statement or table) took, summed over
/// the times it was run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueryTime {
    pub query: String,
    /// Times it was run (read to the end, or started as a stream).
    pub runs: u32,
    pub plan: Duration,
    pub start: Duration,
    pub run: Duration,
}

/// The engine's clock: the query planned last, until it runs or becomes a
/// view, and the times since the last [`take`](Self::take).
#[derive(Debug, Default)]
pub struct QueryClock {
    planned: Mutex<Option<String>>,
    spent: Mutex<Vec<QueryTime>>,
}

/// Which of a query's stages a duration is.
#[derive(Debug, Clone, Copy)]
pub enum Stage {
    Plan,
    Start,
    Run,
}

/// The label of an inline statement: its text on one line, cut short.
pub fn inline_label(sql: &str) -> String {
    let line = sql.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(72) {
        Some((at, _)) => format!("{}...", &line[..at]),
        None => line,
    }
}

impl QueryClock {
    /// `query` was planned in `took`: what runs next is counted against it.
    pub fn planned(&self, query: &str, took: Duration) {
        *lock(&self.planned) = Some(query.to_string());
        self.add(query, Stage::Plan, took, false);
    }

    /// What was planned last became a view: its work is its readers'.
    pub fn viewed(&self) {
        *lock(&self.planned) = None;
    }

    /// The query planned last (or, given, the table `table`) spent `took`
    /// in `stage`: starting, or running to the end (`Stage::Run`, which
    /// counts a run and, for the query planned last, closes it).
    pub fn spent(&self, table: Option<&str>, stage: Stage, took: Duration) {
        let query = match table {
            Some(name) => format!("table {name}"),
            None => lock(&self.planned)
                .clone()
                .unwrap_or_else(|| "a registered table".to_string()),
        };
        let ends = !matches!(stage, Stage::Start);
        if ends && table.is_none() {
            *lock(&self.planned) = None;
        }
        self.add(&query, stage, took, ends);
    }

    /// As [`spent`](Self::spent), for a stage that began at `since` and
    /// ends now.
    pub fn since(&self, table: Option<&str>, stage: Stage, since: Instant) {
        self.spent(table, stage, since.elapsed());
    }

    /// The times since the last call, in the order queries first came.
    pub fn take(&self) -> Vec<QueryTime> {
        std::mem::take(&mut *lock(&self.spent))
    }

    fn add(&self, query: &str, stage: Stage, took: Duration, ran: bool) {
        let mut spent = lock(&self.spent);
        let at = match spent.iter().position(|t| t.query == query) {
            Some(at) => at,
            None => {
                spent.push(QueryTime {
                    query: query.to_string(),
                    ..QueryTime::default()
                });
                spent.len() - 1
            }
        };
        let time = &mut spent[at];
        match stage {
            Stage::Plan => time.plan += took,
            Stage::Start => time.start += took,
            Stage::Run => time.run += took,
        }
        time.runs += u32::from(ran);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Duration = Duration::from_millis(1);

    #[test]
    fn a_run_counts_against_the_file_planned_last_and_a_view_against_its_reader() {
        let clock = QueryClock::default();
        clock.planned("views/server_stats.sql", MS);
        clock.viewed();
        clock.planned("steps/merge_crawldb.sql", 2 * MS);
        clock.spent(None, Stage::Start, 3 * MS);
        clock.spent(None, Stage::Run, 4 * MS);
        // nothing planned since: a registered table written out
        clock.spent(None, Stage::Run, 5 * MS);
        clock.spent(Some("crawldb"), Stage::Run, 6 * MS);
        clock.planned("steps/merge_crawldb.sql", MS);
        clock.spent(None, Stage::Run, MS);
        let times = clock.take();
        let of = |q: &str| times.iter().find(|t| t.query == q).cloned().unwrap();
        assert_eq!(times.len(), 4);
        assert_eq!(
            (
                of("views/server_stats.sql").runs,
                of("views/server_stats.sql").plan
            ),
            (0, MS)
        );
        let b = of("steps/merge_crawldb.sql");
        assert_eq!(
            (b.runs, b.plan, b.start, b.run),
            (2, 3 * MS, 3 * MS, 5 * MS)
        );
        assert_eq!(of("a registered table").run, 5 * MS);
        assert_eq!(of("table crawldb").runs, 1);
        assert!(clock.take().is_empty(), "taken once");
    }

    #[test]
    fn an_inline_statement_is_labelled_by_its_text_on_one_line() {
        assert_eq!(
            inline_label("SELECT *\n  FROM open_links WHERE dst_relevant IS NULL"),
            "SELECT * FROM open_links WHERE dst_relevant IS NULL"
        );
        let long = format!("SELECT {} FROM t", "a, ".repeat(40));
        assert!(inline_label(&long).ends_with("..."));
        assert_eq!(inline_label(&long).chars().count(), 75);
    }
}
