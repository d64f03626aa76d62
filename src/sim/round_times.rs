//! How long the phases of each simulated round took (`round_times.csv`):
//! what a strategy's link selection costs round by round — generate and
//! updatedb; the look-up stands in for fetch and parse — and, within each
//! phase, each SQL file (`query_times.csv`, from the engine's
//! `QueryClock`). Wall-clock seconds, so unlike `metrics.csv` no two runs
//! give the same table.

use std::sync::Arc;
use std::time::Duration;

use datafusion::arrow::array::{Float64Array, Int32Array, Int64Array, RecordBatch, StringArray};

use crate::engine::{Engine, QueryTime};
use crate::error::{Error, Result};
use crate::store::schema::{QUERY_TIMES, ROUND_TIMES};

/// One round's fetch list and the time of each phase.
#[derive(Debug, Default, Clone, Copy)]
pub struct RoundTime {
    pub round: u32,
    pub urls: u64,
    pub generate: Duration,
    pub look_up: Duration,
    pub updatedb: Duration,
}

/// A strategy's rounds, as they were timed, and their queries.
#[derive(Debug, Default)]
pub struct PhaseTimes {
    rounds: Vec<RoundTime>,
    queries: Vec<(u32, &'static str, QueryTime)>,
}

impl PhaseTimes {
    pub fn push(&mut self, round: RoundTime) {
        self.rounds.push(round);
    }

    /// The queries `engine` ran since its clock was last read, as phase
    /// `phase` of round `round`.
    pub fn queries(&mut self, engine: &Engine, round: u32, phase: &'static str) {
        let times = engine.clock().take();
        self.queries
            .extend(times.into_iter().map(|time| (round, phase, time)));
    }

    /// The queries as `QUERY_TIMES` rows of `strategy`.
    pub fn query_batch(&self, strategy: &str) -> Result<RecordBatch> {
        let rows = &self.queries;
        let seconds = |stage: fn(&QueryTime) -> Duration| {
            let values = rows.iter().map(|(_, _, t)| stage(t).as_secs_f64());
            Arc::new(Float64Array::from_iter_values(values))
        };
        RecordBatch::try_new(
            QUERY_TIMES.clone(),
            vec![
                Arc::new(StringArray::from(vec![strategy; rows.len()])),
                Arc::new(Int32Array::from_iter_values(
                    rows.iter().map(|(round, _, _)| *round as i32),
                )),
                Arc::new(StringArray::from_iter_values(
                    rows.iter().map(|(_, phase, _)| *phase),
                )),
                Arc::new(StringArray::from_iter_values(
                    rows.iter().map(|(_, _, time)| time.query.as_str()),
                )),
                Arc::new(Int64Array::from_iter_values(
                    rows.iter().map(|(_, _, t)| i64::from(t.runs)),
                )),
                seconds(|t| t.plan),
                seconds(|t| t.start),
                seconds(|t| t.run),
            ],
        )
        .map_err(Error::arrow("query_times"))
    }

    /// The rounds as `ROUND_TIMES` rows of `strategy`.
    pub fn batch(&self, strategy: &str) -> Result<RecordBatch> {
        let seconds = |phase: fn(&RoundTime) -> Duration| {
            let values = self.rounds.iter().map(|r| phase(r).as_secs_f64());
            Arc::new(Float64Array::from_iter_values(values))
        };
        let rounds = self.rounds.iter();
        RecordBatch::try_new(
            ROUND_TIMES.clone(),
            vec![
                Arc::new(StringArray::from(vec![strategy; self.rounds.len()])),
                Arc::new(Int32Array::from_iter_values(
                    rounds.clone().map(|r| r.round as i32),
                )),
                Arc::new(Int64Array::from_iter_values(rounds.map(|r| r.urls as i64))),
                seconds(|r| r.generate),
                seconds(|r| r.look_up),
                seconds(|r| r.updatedb),
            ],
        )
        .map_err(Error::arrow("round_times"))
    }

    fn total(&self, phase: fn(&RoundTime) -> Duration) -> f64 {
        self.rounds
            .iter()
            .map(phase)
            .sum::<Duration>()
            .as_secs_f64()
    }
}

impl std::fmt::Display for PhaseTimes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "generate {:.1} s, look-up {:.1} s, updatedb {:.1} s",
            self.total(|r| r.generate),
            self.total(|r| r.look_up),
            self.total(|r| r.updatedb)
        )
    }
}
