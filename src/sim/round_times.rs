//! How long the phases of each simulated round took (`round_times.csv`):
//! what a strategy's link selection costs round by round — generate and
//! updatedb; the look-up stands in for fetch and parse. Wall-clock
//! seconds, so unlike `metrics.csv` no two runs give the same table.

use std::sync::Arc;
use std::time::Duration;

use datafusion::arrow::array::{Float64Array, Int32Array, Int64Array, RecordBatch, StringArray};

use crate::error::{Error, Result};
use crate::store::schema::ROUND_TIMES;

/// One round's fetch list and the time of each phase.
#[derive(Debug, Default, Clone, Copy)]
pub struct RoundTime {
    pub round: u32,
    pub urls: u64,
    pub generate: Duration,
    pub look_up: Duration,
    pub updatedb: Duration,
}

/// A strategy's rounds, as they were timed.
#[derive(Debug, Default)]
pub struct PhaseTimes {
    rounds: Vec<RoundTime>,
}

impl PhaseTimes {
    pub fn push(&mut self, round: RoundTime) {
        self.rounds.push(round);
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
