//! When a crawl stops by itself: after `--max-pages` fetch requests, or
//! when what it fetches stops paying. The yield is measured, not
//! predicted: the target pages among the fetch requests of the last
//! merged round — and of as many rounds before it as it takes to expect
//! ten target pages at the minimum yield (200 requests at 0.05) —
//! (`sql/reports/round_yield.sql`), apart for the URLs
//! generate picked by rank and those it picked to explore. The crawl stops
//! when both fall below `--min-yield` (a round without explored URLs counts
//! the ranked ones only). The stop and its reason are kept in crawl.json.

use datafusion::arrow::array::{Int32Array, Int64Array, StringArray};

use crate::engine::{Engine, Params};
use crate::error::Result;
use crate::store::rows::column;
use crate::store::{row_count, CrawlConfig, CrawlDir, Phase, StrategyParams};

/// The yield is pooled over the last round, and over as many earlier
/// rounds as it takes to hold enough fetch requests to expect this many
/// target pages at the yield `--min-yield` names (200 requests at 0.05):
/// a learning strategy's rounds vary in size, and the yield of a few
/// dozen requests says little.
const YIELD_EVIDENCE: f64 = 10.0;

/// One round's fetch requests picked one way (`rank` or `explore`).
#[derive(Debug, Clone, PartialEq)]
pub struct RoundYield {
    pub round: u32,
    pub pick: String,
    pub requests: u64,
    pub targets: u64,
}

/// The fetch requests of every round generated so far, as the fetch
/// lists' Parquet footers count them (no query: generate asks every round).
pub fn requests(crawl: &CrawlDir) -> Result<u64> {
    let mut requests = 0;
    for round in crawl.rounds()? {
        if crawl.has(round, Phase::Fetchlist) {
            requests += row_count(&crawl.segment(round, Phase::Fetchlist))? as u64;
        }
    }
    Ok(requests)
}

/// Requests and targets pooled over some rounds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Pooled {
    pub requests: u64,
    pub targets: u64,
}

impl Pooled {
    pub fn share(self) -> Option<f64> {
        (self.requests > 0).then(|| self.targets as f64 / self.requests as f64)
    }
}

/// Every merged round's requests and target pages by pick.
pub async fn yields(engine: &Engine, crawl: &CrawlDir) -> Result<Vec<RoundYield>> {
    crate::catalog::crawldb(engine, crawl).await?;
    crate::catalog::fetchlists(engine, crawl).await?;
    let params = Params::new().set("merged", crawl.merged_round()?.0 as i32);
    let df = engine
        .query_file("reports/round_yield.sql", &params)
        .await?;
    let batches = engine.collect(df).await?;
    let mut rows = Vec::new();
    for batch in &batches {
        let rounds = column::<Int32Array>(batch, "round")?;
        let picks = column::<StringArray>(batch, "pick")?;
        let requests = column::<Int64Array>(batch, "requests")?;
        let targets = column::<Int64Array>(batch, "targets")?;
        for i in 0..batch.num_rows() {
            rows.push(RoundYield {
                round: rounds.value(i) as u32,
                pick: picks.value(i).to_string(),
                requests: requests.value(i) as u64,
                targets: targets.value(i) as u64,
            });
        }
    }
    Ok(rows)
}

/// The requests and targets of `pick` over rounds `from..=to`.
pub fn pooled(yields: &[RoundYield], pick: &str, from: u32, to: u32) -> Pooled {
    yields
        .iter()
        .filter(|y| y.pick == pick && (from..=to).contains(&y.round))
        .fold(Pooled::default(), |p, y| Pooled {
            requests: p.requests + y.requests,
            targets: p.targets + y.targets,
        })
}

/// Why the crawl should stop after `requests` fetch requests, if
/// `--max-pages` says so.
fn max_pages_reached(requests: u64, params: &StrategyParams) -> Option<String> {
    let max = params.max_pages.filter(|&max| requests >= max)?;
    Some(format!(
        "max-pages: {requests} fetch requests (--max-pages {max})"
    ))
}

/// Why the crawl should stop now under `--min-yield`, if it should.
pub fn low_yield(yields: &[RoundYield], params: &StrategyParams) -> Option<String> {
    let min = params.min_yield?;
    let last = yields.iter().map(|y| y.round).max()?;
    let needed = (YIELD_EVIDENCE / min.max(f64::MIN_POSITIVE)).ceil() as u64;
    let first = window_start(yields, last, needed)?;
    let ranked = pooled(yields, "rank", first, last).share();
    let explored = pooled(yields, "explore", first, last).share();
    let below = |share: Option<f64>| share.is_none_or(|s| s < min);
    if ranked.is_none() && explored.is_none() || !below(ranked) || !below(explored) {
        return None;
    }
    let show = |share: Option<f64>| share.map_or("-".to_string(), |s| format!("{s:.3}"));
    let rounds = match first == last {
        true => format!("round {last}"),
        false => format!("rounds {first}-{last}"),
    };
    Some(format!(
        "min-yield: target share of {rounds}'s fetches {} ranked, {} explored, below {min}",
        show(ranked),
        show(explored)
    ))
}

/// The first round of the window the yield is judged on, ending at round
/// `last`: the latest rounds that hold `needed` requests; `None` while the
/// crawl has not made that many, or has made only the seeds' round (the
/// user's choice, not the strategy's).
fn window_start(yields: &[RoundYield], last: u32, needed: u64) -> Option<u32> {
    if last < 2 {
        return None;
    }
    let mut requests = 0;
    for first in (1..=last).rev() {
        requests += yields
            .iter()
            .filter(|y| y.round == first)
            .map(|y| y.requests)
            .sum::<u64>();
        if requests >= needed {
            return Some(first);
        }
    }
    None
}

/// The yield line of round `round`: its ranked and explored requests and
/// the target share of each.
pub fn round_line(yields: &[RoundYield], round: u32) -> String {
    let part = |pick: &str| {
        let p = pooled(yields, pick, round, round);
        match p.share() {
            Some(share) => format!("{pick} {share:.3} of {}", p.requests),
            None => format!("{pick} -"),
        }
    };
    format!(
        "yield round {round:05}: target share {}, {}",
        part("rank"),
        part("explore")
    )
}

/// After a merged round: logs its yield (with a `log`) and, if the crawl
/// should stop, records the stop in crawl.json (clearing a stop that no
/// longer holds). Returns the reason to stop, if any. `--max-pages` is
/// judged on the fetch lists' footers; the yield is measured only to be
/// logged or judged by `--min-yield`.
pub async fn after_round(
    engine: &Engine,
    crawl: &CrawlDir,
    log: Option<&mut dyn FnMut(String)>,
) -> Result<Option<String>> {
    let mut config = CrawlConfig::load(crawl)?;
    let merged = crawl.merged_round()?.0;
    let yields = if log.is_some() || config.params.min_yield.is_some() {
        yields(engine, crawl).await?
    } else {
        Vec::new()
    };
    if let Some(log) = log.filter(|_| merged > 0) {
        log(round_line(&yields, merged));
    }
    let why = max_pages_reached(requests(crawl)?, &config.params)
        .or_else(|| low_yield(&yields, &config.params));
    let stopped = why.as_ref().map(|reason| crate::store::Stopped {
        round: merged,
        reason: reason.clone(),
    });
    if config.stopped != stopped {
        config.stopped = stopped;
        config.save(crawl)?;
    }
    Ok(why)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn y(round: u32, pick: &str, requests: u64, targets: u64) -> RoundYield {
        RoundYield {
            round,
            pick: pick.into(),
            requests,
            targets,
        }
    }

    fn params(min_yield: Option<f64>, max_pages: Option<u64>) -> StrategyParams {
        StrategyParams {
            min_yield,
            max_pages,
            ..StrategyParams::default()
        }
    }

    #[test]
    fn stops_when_ranked_and_explored_yield_both_fall_below_the_minimum() {
        let low = [
            y(1, "rank", 90, 50),
            y(1, "explore", 10, 5),
            y(2, "rank", 90, 4),
            y(2, "explore", 10, 0),
            y(3, "rank", 90, 3),
            y(3, "explore", 10, 1),
        ];
        // rounds 2-3: ranked 7/180 = 0.039, explored 1/20 = 0.05
        assert_eq!(low_yield(&low, &params(Some(0.05), None)), None);
        let why = low_yield(&low, &params(Some(0.06), None)).unwrap();
        assert!(why.contains("rounds 2-3") && why.contains("0.039"), "{why}");
        // exploration still pays: go on
        let mut paying = low.to_vec();
        paying[5] = y(3, "explore", 10, 4);
        assert_eq!(low_yield(&paying, &params(Some(0.06), None)), None);
        // no --min-yield, no stop
        assert_eq!(low_yield(&low, &params(None, None)), None);
    }

    #[test]
    fn small_rounds_are_pooled_until_they_hold_enough_requests() {
        // at 0.05, ten target pages' worth: 200 requests
        let rows = [
            y(1, "rank", 150, 100),
            y(2, "rank", 120, 1),
            y(3, "rank", 40, 1),
            y(4, "rank", 40, 0),
        ];
        let why = low_yield(&rows, &params(Some(0.05), None)).unwrap();
        assert!(why.contains("rounds 2-4") && why.contains("0.010"), "{why}");
        // rounds 3-4 alone (1 of 80) would stop too soon: round 2 found
        // little, but a large round 1 within the window keeps it going
        let paying = [
            y(1, "rank", 150, 100),
            y(2, "rank", 40, 1),
            y(3, "rank", 40, 0),
        ];
        assert_eq!(low_yield(&paying, &params(Some(0.05), None)), None);
        // too few requests in all: no judgement yet
        let few = [y(1, "rank", 50, 0), y(2, "rank", 50, 0)];
        assert_eq!(low_yield(&few, &params(Some(0.05), None)), None);
        // a last round that holds enough is judged alone
        let large = [y(1, "rank", 150, 100), y(2, "rank", 300, 2)];
        let why = low_yield(&large, &params(Some(0.05), None)).unwrap();
        assert!(
            why.contains("of round 2's") && why.contains("0.007"),
            "{why}"
        );
    }

    #[test]
    fn the_seeds_round_alone_is_not_judged() {
        let first = [y(1, "rank", 100, 0)];
        assert_eq!(low_yield(&first, &params(Some(0.5), None)), None);
    }

    #[test]
    fn stops_after_max_pages_requests() {
        assert!(max_pages_reached(100, &params(None, Some(100)))
            .unwrap()
            .starts_with("max-pages"));
        assert_eq!(max_pages_reached(100, &params(None, Some(101))), None);
    }
}
