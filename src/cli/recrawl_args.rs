//! The recrawl flags (`generate` and `crawl` share them): when a fetched
//! page is due again, and how much of a round due pages may take.

use std::time::Duration;

use clap::Args;

use crate::schedule::{parse_duration, ScheduleChange};

#[derive(Debug, Args)]
pub struct RecrawlArgs {
    /// Fetch a page again this long after its first fetch (500ms, 90s, 45m,
    /// 8h, 30d), with If-None-Match / If-Modified-Since; the interval then
    /// shrinks when the page changed and grows when not; `off`: fetch each
    /// URL once; saved in crawl.json [default: off]
    #[arg(long, value_name = "DURATION|off", value_parser = parse_refetch_after)]
    pub refetch_after: Option<RefetchAfter>,
    /// The shortest interval the schedule adapts to (at most
    /// --refetch-after); saved in crawl.json [default: 1m]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub refetch_min: Option<Duration>,
    /// The longest interval the schedule adapts to (at least
    /// --refetch-after); saved in crawl.json [default: 365d]
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub refetch_max: Option<Duration>,
    /// The share of a fetch list due pages may take while new URLs wait
    /// (they take all the room new URLs leave); saved in crawl.json
    /// [default: 0.25]
    #[arg(long, value_name = "F", value_parser = share)]
    pub refetch_share: Option<f64>,
    /// Count a page due within this time as due now (as Nutch's
    /// `generate -adddays`): a recrawl pass ahead of the schedule
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub refetch_ahead: Option<Duration>,
}

impl RecrawlArgs {
    pub fn change(&self) -> ScheduleChange {
        ScheduleChange {
            refetch_after: self.refetch_after.map(|after| after.0),
            min_interval: self.refetch_min,
            max_interval: self.refetch_max,
            refetch_share: self.refetch_share,
        }
    }
}

/// `--refetch-after`'s value: a duration, or none for `off`.
#[derive(Debug, Clone, Copy)]
pub struct RefetchAfter(Option<Duration>);

fn parse_refetch_after(text: &str) -> Result<RefetchAfter, String> {
    if text.trim().eq_ignore_ascii_case("off") {
        return Ok(RefetchAfter(None));
    }
    parse_duration(text).map(|d| RefetchAfter(Some(d)))
}

fn share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
        _ => Err(format!("{text}: give a share between 0 and 1")),
    }
}
