//! The refetch schedule of a crawl that runs again and again: when a
//! fetched page is due again, and what share of a round due pages may take.
//! The interval adapts as Nutch's AdaptiveFetchSchedule does: a page found
//! changed comes back sooner (× 0.8), an unchanged one later (× 1.4),
//! within bounds. The arithmetic is SQL (`views/apply_fetch.sql`, and
//! `steps/generate.sql` for the due pages); this module holds the settings
//! and the durations users write.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::engine::Params;

/// The interval of a page that changed is multiplied by this ...
pub const CHANGED_FACTOR: f64 = 0.8;
/// ... and of a page that did not, by this (Nutch's dec and inc rates).
pub const UNCHANGED_FACTOR: f64 = 1.4;

/// The refetch settings, saved in `crawl.json` (`recrawl`).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Schedule {
    /// A page fetched for the first time is due again after this long;
    /// `None`: pages are fetched once (a one-shot crawl).
    pub refetch_after_ms: Option<u64>,
    /// The bounds of the adapted interval (widened to include
    /// `refetch_after_ms`).
    pub min_interval_ms: u64,
    pub max_interval_ms: u64,
    /// The share of a fetch list due pages may take while new URLs wait;
    /// either kind fills the room the other leaves.
    pub refetch_share: f64,
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule {
            refetch_after_ms: None,
            min_interval_ms: 60_000,
            max_interval_ms: 365 * 86_400_000,
            refetch_share: 0.25,
        }
    }
}

/// Settings given on the command line, each `None` when not given.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ScheduleChange {
    /// `Some(None)`: recrawl off.
    pub refetch_after: Option<Option<Duration>>,
    pub min_interval: Option<Duration>,
    pub max_interval: Option<Duration>,
    pub refetch_share: Option<f64>,
}

impl Schedule {
    /// Takes the settings `change` gives; true if one differs. Bounds
    /// the wrong way round (the shortest interval longer than the
    /// longest) are refused, and nothing is taken.
    pub fn apply(&mut self, change: &ScheduleChange) -> Result<bool, String> {
        let before = *self;
        let ms = |d: Duration| d.as_millis() as u64;
        if let Some(after) = change.refetch_after {
            self.refetch_after_ms = after.map(ms);
        }
        if let Some(min) = change.min_interval {
            self.min_interval_ms = ms(min);
        }
        if let Some(max) = change.max_interval {
            self.max_interval_ms = ms(max);
        }
        if let Some(share) = change.refetch_share {
            self.refetch_share = share;
        }
        // bounds saved so by an older version are left as they are (the
        // interval's parameters widen them to take in the first interval)
        let bounds_given = change.min_interval.is_some() || change.max_interval.is_some();
        if bounds_given && self.min_interval_ms > self.max_interval_ms {
            let (min, max) = (self.min_interval_ms, self.max_interval_ms);
            *self = before;
            return Err(format!(
                "the shortest refetch interval (--refetch-min, {min} ms) is longer than \
                 the longest (--refetch-max, {max} ms); the schedule adapts between them"
            ));
        }
        // a bound given must take in the first interval (the help says so)
        let after = self.refetch_after_ms.unwrap_or(0);
        let outside = match (change.min_interval, change.max_interval) {
            (Some(_), _) if after > 0 && self.min_interval_ms > after => Some("--refetch-min"),
            (_, Some(_)) if after > 0 && self.max_interval_ms < after => Some("--refetch-max"),
            _ => None,
        };
        if let Some(flag) = outside {
            *self = before;
            return Err(format!(
                "{flag} must take in --refetch-after ({after} ms): the shortest interval is at \
                 most it, the longest at least it"
            ));
        }
        Ok(*self != before)
    }

    /// The SQL parameters of `generate.sql`: `$refetch`, `$refetch_after_ms`
    /// (when a page fetched before recrawl was on is due), `$refetch_share`,
    /// and `$due_by`, `ahead` past `now_ms` (a page due by then is
    /// fetched now, as Nutch's `generate -adddays`).
    pub fn due_params(&self, params: Params, now_ms: i64, ahead: Duration) -> Params {
        let due_by = now_ms.saturating_add(ahead.as_millis() as i64);
        params
            .set("refetch", self.refetch_after_ms.is_some())
            .set(
                "refetch_after_ms",
                self.refetch_after_ms.unwrap_or(0) as i64,
            )
            .set("refetch_share", self.refetch_share)
            .set("due_by", crate::engine::timestamp(due_by))
    }
    /// The SQL parameters of `apply_fetch.sql`: `$refetch_after_ms` (0:
    /// off), `$min_interval_ms`, `$max_interval_ms`, and the two factors.
    pub fn interval_params(&self, params: Params) -> Params {
        let after = self.refetch_after_ms.unwrap_or(0);
        params
            .set("refetch_after_ms", after as i64)
            .set(
                "min_interval_ms",
                self.min_interval_ms.min(after.max(1)) as i64,
            )
            .set("max_interval_ms", self.max_interval_ms.max(after) as i64)
            .set("changed_factor", CHANGED_FACTOR)
            .set("unchanged_factor", UNCHANGED_FACTOR)
    }
}

/// A duration as users write it: `500ms`, `90s`, `45m`, `8h`, `30d`.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let unit_ms: u64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => 0,
    };
    let count: u64 = number.parse().unwrap_or(0);
    match count.checked_mul(unit_ms) {
        Some(ms) if ms > 0 && ms <= 10 * 365 * 86_400_000 => Ok(Duration::from_millis(ms)),
        _ => Err(format!(
            "{text}: give a duration such as 500ms, 90s, 45m, 8h or 30d (at most ten years)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::common::ScalarValue;

    #[test]
    fn durations_read_as_written() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration(" 2d "), Ok(Duration::from_secs(2 * 86_400)));
        for bad in [
            "",
            "0s",
            "5",
            "5w",
            "-3s",
            "s",
            "99999999999999999d",
            "4000d",
        ] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn bounds_the_wrong_way_round_are_refused_and_nothing_is_taken() {
        let mut schedule = Schedule::default();
        let day = Duration::from_secs(86_400);
        let change = ScheduleChange {
            min_interval: Some(30 * day),
            max_interval: Some(day),
            ..ScheduleChange::default()
        };
        let err = schedule.apply(&change).unwrap_err();
        assert!(
            err.contains("2592000000 ms") && err.contains("86400000 ms"),
            "{err}"
        );
        assert_eq!(schedule, Schedule::default());
        // one bound given, against the other as saved
        let shorter = ScheduleChange {
            max_interval: Some(Duration::from_secs(30)),
            ..ScheduleChange::default()
        };
        assert!(schedule.apply(&shorter).is_err());
        let fine = ScheduleChange {
            min_interval: Some(day),
            ..ScheduleChange::default()
        };
        assert_eq!(schedule.apply(&fine), Ok(true));
        assert_eq!(schedule.apply(&fine), Ok(false));
        // bounds an older version saved the wrong way round do not stop a
        // change that leaves them alone
        let mut saved = Schedule {
            min_interval_ms: 10_000,
            max_interval_ms: 5_000,
            ..Schedule::default()
        };
        let share = ScheduleChange {
            refetch_share: Some(0.5),
            ..ScheduleChange::default()
        };
        assert_eq!(saved.apply(&share), Ok(true));
    }

    #[test]
    fn bounds_given_must_take_in_the_first_interval() {
        let hour = Duration::from_secs(3_600);
        for (min, max, flag) in [
            (Some(2 * hour), None, "--refetch-min"),
            (None, Some(hour / 2), "--refetch-max"),
        ] {
            let mut schedule = Schedule::default();
            let change = ScheduleChange {
                refetch_after: Some(Some(hour)),
                min_interval: min,
                max_interval: max,
                ..ScheduleChange::default()
            };
            let err = schedule.apply(&change).unwrap_err();
            assert!(err.starts_with(flag) && err.contains("3600000 ms"), "{err}");
            assert_eq!(schedule, Schedule::default(), "nothing taken");
        }
        // an interval shorter than the saved shortest, no bound given: the
        // interval's parameters widen the bound (the help's default 1m)
        let mut schedule = Schedule::default();
        let short = ScheduleChange {
            refetch_after: Some(Some(Duration::from_secs(30))),
            ..ScheduleChange::default()
        };
        assert_eq!(schedule.apply(&short), Ok(true));
    }

    #[test]
    fn the_bounds_take_in_the_first_interval() {
        let schedule = Schedule {
            refetch_after_ms: Some(1_000),
            ..Schedule::default()
        };
        let params = schedule.interval_params(Params::new());
        let ms = |p: &Params, name| p.get(name).cloned();
        let int = |v: i64| Some(ScalarValue::Int64(Some(v)));
        assert_eq!(ms(&params, "min_interval_ms"), int(1_000));
        assert_eq!(ms(&params, "max_interval_ms"), int(365 * 86_400_000));
        let off = Schedule::default().interval_params(Params::new());
        assert_eq!(ms(&off, "refetch_after_ms"), int(0));
    }
}
