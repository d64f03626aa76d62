//! `websim generate`: write a calibrated web to a web directory and measure
//! what was achieved against what was aimed at — the shares by SQL over the
//! written graph (`sql/reports/web_stats.sql`), the distances between nearest
//! target pages by a walk over its topology.

use std::path::Path;

use datafusion::arrow::array::Float64Array;

use super::calibrated::{self, aims, CalibratedSpec, Shape};
use crate::engine::{Engine, Params};
use crate::error::Result;
use crate::lang::TargetLang;
use crate::store::rows::{column, utf8_column};
use crate::webgraph::{Statistic, Topology, WebDir, WebInfo, UNREACHABLE};

/// The aims of `sql/reports/web_stats.sql`'s rows, in its order, for a web
/// of `shape`.
fn share_aims(shape: &Shape) -> [f64; 9] {
    [
        shape.target_pages,
        shape.off_cctld,
        aims::TARGET_SERVERS,
        shape.from_target,
        aims::FROM_TARGET_INTER,
        aims::FROM_OTHER_ON_TARGET_SERVER,
        aims::FROM_OTHER_ON_TARGET_SERVER_INTER,
        aims::FROM_OTHER_ELSEWHERE,
        aims::FROM_OTHER_ELSEWHERE_INTER,
    ]
}

/// The farthest pair of nearest target pages Tamura found (§3.3).
const MAX_NEAREST_DISTANCE: f64 = 10.0;

/// Generates the calibrated web `spec` into `out`, measures it, and returns
/// what web.json records.
pub async fn generate_into(
    engine: &Engine,
    spec: CalibratedSpec,
    target: &TargetLang,
    out: &Path,
) -> Result<WebInfo> {
    let web = WebDir::create(out)?;
    let generated = calibrated::generate_into(spec, &web)?;
    let mut info = WebInfo {
        target_lang: target.code().to_string(),
        target_class: None,
        seeds: generated.seeds,
        made_by: made_by(&spec, target),
        pages: generated.pages,
        links: generated.links,
        stats: Vec::new(),
    };
    web.save_info(&info)?;
    info.stats = measure(engine, &web, &generated.topology, target, &spec.shape).await?;
    web.save_info(&info)?;
    Ok(info)
}

/// The command that makes the web `spec` (and its shape, if drawn).
fn made_by(spec: &CalibratedSpec, target: &TargetLang) -> String {
    let command = format!(
        "langcrawl websim generate --lang {} --pages {} --seed {}",
        target.code(),
        spec.pages,
        spec.seed
    );
    match spec.shape_seed {
        Some(seed) => format!("{command} --shape-seed {seed} ({})", spec.shape.describe()),
        None => command,
    }
}

/// The statistics of a web: the shares of `sql/reports/web_stats.sql` beside the
/// aims, then the distances between nearest target pages.
pub async fn measure(
    engine: &Engine,
    web: &WebDir,
    topology: &Topology,
    target: &TargetLang,
    shape: &Shape,
) -> Result<Vec<Statistic>> {
    let aims = share_aims(shape);
    engine.register_segment("web_pages", &web.pages()).await?;
    engine.register_segment("web_links", &web.links()).await?;
    crate::strategy::register_target_tlds(engine, &target.default_tlds())?;
    let params = Params::new().set("target_lang", target.code());
    let df = engine.query_file("reports/web_stats.sql", &params).await?;
    let mut stats = Vec::new();
    for batch in engine.collect(df).await? {
        let name = utf8_column(&batch, "name")?;
        let achieved = column::<Float64Array>(&batch, "achieved")?;
        for row in 0..batch.num_rows() {
            stats.push(Statistic {
                name: name.value(row).to_string(),
                target: aims.get(stats.len()).copied(),
                achieved: achieved.value(row),
                unit: "%".into(),
            });
        }
    }
    stats.extend(distance_stats(topology));
    Ok(stats)
}

/// Tamura §3.3: most target pages are one hop from another target page,
/// fewer and fewer further away, up to about ten.
fn distance_stats(topology: &Topology) -> Vec<Statistic> {
    let distances: Vec<u32> = topology
        .nearest_target_distances()
        .into_iter()
        .filter(|&d| d != UNREACHABLE)
        .collect();
    let share = |keep: &dyn Fn(u32) -> bool| {
        distances.iter().filter(|&&d| keep(d)).count() as f64 / distances.len().max(1) as f64
    };
    let histogram: Vec<String> = (1..=MAX_NEAREST_DISTANCE as u32)
        .map(|d| distances.iter().filter(|&&x| x == d).count().to_string())
        .collect();
    vec![
        Statistic {
            name: "target pages 1 hop from the nearest other".into(),
            target: None,
            achieved: share(&|d| d == 1),
            unit: "%".into(),
        },
        Statistic {
            name: "  2 or more hops".into(),
            target: None,
            achieved: share(&|d| d > 1),
            unit: "%".into(),
        },
        Statistic {
            name: format!("  pages at 1..10 hops: {}", histogram.join(" ")),
            target: None,
            achieved: distances.len() as f64,
            unit: "pages".into(),
        },
        Statistic {
            name: "farthest nearest target page".into(),
            target: Some(MAX_NEAREST_DISTANCE),
            achieved: distances.iter().copied().max().unwrap_or(0) as f64,
            unit: "hops".into(),
        },
    ]
}

/// The statistics as a table: measure, aim, achieved.
pub fn table(stats: &[Statistic]) -> String {
    let value = |v: f64, unit: &str| match unit {
        "%" => format!("{:.1}%", 100.0 * v),
        _ => format!("{v:.0} {unit}"),
    };
    let mut out = String::from("| measure | aim | achieved |\n|---|---:|---:|\n");
    for s in stats {
        let aim = s.target.map_or("".into(), |t| value(t, &s.unit));
        out.push_str(&format!(
            "| {} | {aim} | {} |\n",
            s.name,
            value(s.achieved, &s.unit)
        ));
    }
    out
}
