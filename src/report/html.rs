//! `report --html`: one self-contained HTML file with Tamura's figures as
//! SVG — harvest rate, coverage, queue size and servers accessed against
//! pages crawled, one line per strategy — and the final tables: the
//! simulation's, and pages per language with the target's share (the form
//! of Chan & Yamana's Table 4) for each strategy. Works on a crawl (one
//! line, from `sql/reports/crawl_metrics.sql`) and on a simulation (its metrics).

use std::path::Path;

use datafusion::arrow::array::{Array, RecordBatch};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::DataType;
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use plotters::prelude::*;

use crate::engine::{Engine, Params};
use crate::error::{Error, Result};
use crate::sim::SimDir;
use crate::store::rows::utf8_column;
use crate::store::{CrawlConfig, CrawlDir, Phase};

/// One strategy's progress: a point per round.
#[derive(Debug, Clone, Default)]
struct Series {
    strategy: String,
    pages: Vec<f64>,
    harvest: Vec<f64>,
    coverage: Vec<Option<f64>>,
    queue: Vec<f64>,
    servers: Vec<f64>,
}

/// A table to print: a heading and its rows as HTML.
struct Section {
    heading: String,
    table: String,
}

/// Writes the report of the crawl or simulation in `root` to `out`;
/// returns the number of figures drawn.
pub async fn write(engine: &Engine, root: &Path, out: &Path) -> Result<usize> {
    let (title, series, sections) = if SimDir::is_simulation(root) {
        simulation(engine, &SimDir::new(root)).await?
    } else {
        crawl(engine, &CrawlDir::open_read_only(root)?).await?
    };
    let mut figures = vec![figure(
        "Cumulative harvest rate",
        ("target pages / pages fetched", Axis::Share),
        &series,
        |s| s.harvest.clone(),
    )?];
    if series
        .iter()
        .any(|s| s.coverage.iter().any(Option::is_some))
    {
        figures.push(figure(
            "Coverage",
            ("target pages fetched / reachable", Axis::Share),
            &series,
            |s| s.coverage.iter().map(|c| c.unwrap_or(0.0)).collect(),
        )?);
    }
    figures.push(figure(
        "Queue size",
        ("URLs waiting", Axis::Count),
        &series,
        |s| s.queue.clone(),
    )?);
    figures.push(figure(
        "Servers accessed",
        ("servers", Axis::Count),
        &series,
        |s| s.servers.clone(),
    )?);
    let html = page(&title, &figures, &sections);
    let temp = out.with_extension("html.tmp");
    // named as asked for: its temp file is ours
    std::fs::write(&temp, html).map_err(Error::io(out))?;
    std::fs::rename(&temp, out).map_err(Error::io(out))?;
    Ok(figures.len())
}

async fn crawl(engine: &Engine, crawl: &CrawlDir) -> Result<(String, Vec<Series>, Vec<Section>)> {
    let config = CrawlConfig::load(crawl)?;
    crate::catalog::crawldb(engine, crawl).await?;
    let params = Params::new().set("strategy", config.strategy.as_str());
    let df = engine
        .query_file("reports/crawl_metrics.sql", &params)
        .await?;
    let series = series(&engine.collect(df).await?)?;
    let target = config.target_lang.clone().unwrap_or_else(|| "und".into());
    let languages = super::language_report(engine, &target).await?;
    let mut sections = vec![Section {
        heading: format!("Pages per language ({}, target {target})", config.strategy),
        table: html_table(&languages)?,
    }];
    if let Some(model) = model_summary(engine, crawl).await? {
        sections.push(Section {
            heading: "What the adaptive strategy learned, round by round (strongest feature values each way, with their log-odds weights)".into(),
            table: html_table(&model)?,
        });
    }
    let title = format!("Crawl {} — {}", crawl.root().display(), config.strategy);
    Ok((title, series, sections))
}

async fn simulation(engine: &Engine, sim: &SimDir) -> Result<(String, Vec<Series>, Vec<Section>)> {
    let final_table = crate::sim::final_table(engine, sim).await?;
    let df = engine
        .query(
            "SELECT * FROM sim_metrics ORDER BY strategy, round",
            &Params::new(),
        )
        .await?;
    let series = series(&engine.collect(df).await?)?;
    let goals = crate::sim::coverage_goals(engine).await?;
    let mut sections = vec![
        Section {
            heading: "Final table".into(),
            table: html_table(&final_table)?,
        },
        Section {
            heading: "Pages to reach 90% and 99% of the coverage bfs reaches".into(),
            table: html_table(&goals)?,
        },
    ];
    for s in &series {
        let crawl = CrawlDir::open_read_only(sim.crawl(&s.strategy))?;
        let target = CrawlConfig::load(&crawl)?.target_lang.unwrap_or_default();
        crate::catalog::crawldb(engine, &crawl).await?;
        sections.push(Section {
            heading: format!("Pages per language: {} (target {target})", s.strategy),
            table: html_table(&super::language_report(engine, &target).await?)?,
        });
    }
    let title = format!("Simulation {}", sim.root().display());
    Ok((title, series, sections))
}

/// The model of a crawl that learned (`sql/reports/model_summary.sql`),
/// or `None` if no round holds one.
async fn model_summary(engine: &Engine, crawl: &CrawlDir) -> Result<Option<Vec<RecordBatch>>> {
    if !crawl
        .rounds()?
        .into_iter()
        .any(|r| crawl.has(r, Phase::Model))
    {
        return Ok(None);
    }
    crate::catalog::whole_crawl(engine, crawl, false).await?;
    let df = engine
        .query_file("reports/model_summary.sql", &Params::new())
        .await?;
    Ok(Some(engine.collect(df).await?))
}

/// Metrics rows (strategy, round order) as one series per strategy.
fn metrics_column(column: &str, message: String) -> Error {
    Error::Column {
        context: "simulation metrics".into(),
        column: column.into(),
        message,
    }
}

fn series(batches: &[RecordBatch]) -> Result<Vec<Series>> {
    let mut all: Vec<Series> = Vec::new();
    for batch in batches {
        let strategy = utf8_column(batch, "strategy")?;
        let numbers = |name: &str| -> Result<Vec<Option<f64>>> {
            let column = batch
                .column_by_name(name)
                .ok_or_else(|| metrics_column(name, "no such column".into()))?;
            let column = cast(column, &DataType::Float64)
                .map_err(|e| metrics_column(name, e.to_string()))?;
            let column = column
                .as_any()
                .downcast_ref::<datafusion::arrow::array::Float64Array>()
                .expect("cast to Float64");
            Ok((0..column.len())
                .map(|i| (!column.is_null(i)).then(|| column.value(i)))
                .collect())
        };
        let (pages, harvest) = (numbers("pages_fetched")?, numbers("harvest_rate")?);
        let (coverage, queue) = (numbers("coverage")?, numbers("queue_size")?);
        let servers = numbers("servers_accessed")?;
        for row in 0..batch.num_rows() {
            let name = strategy.value(row);
            if all.last().is_none_or(|s| s.strategy != name) {
                all.push(Series {
                    strategy: name.to_string(),
                    ..Series::default()
                });
            }
            let s = all.last_mut().expect("a series was pushed");
            s.pages.push(pages[row].unwrap_or(0.0));
            s.harvest.push(harvest[row].unwrap_or(0.0));
            s.coverage.push(coverage[row]);
            s.queue.push(queue[row].unwrap_or(0.0));
            s.servers.push(servers[row].unwrap_or(0.0));
        }
    }
    Ok(all)
}

/// One line chart as SVG: `y` of each series against pages crawled.
/// What a figure's y axis shows: a share (0 to 1) or a count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Axis {
    Share,
    Count,
}

/// An axis label: counts (pages, URLs, servers) as integers.
fn tick(value: f64, axis: Axis) -> String {
    match axis {
        Axis::Share => format!("{value:.2}"),
        Axis::Count => format!("{value:.0}"),
    }
}

fn figure(
    title: &str,
    (y_label, y_axis): (&str, Axis),
    series: &[Series],
    y: impl Fn(&Series) -> Vec<f64>,
) -> Result<String> {
    let lines: Vec<(String, Vec<(f64, f64)>)> = series
        .iter()
        .map(|s| {
            (
                s.strategy.clone(),
                s.pages.iter().copied().zip(y(s)).collect(),
            )
        })
        .collect();
    let x_max = max_of(lines.iter().flat_map(|(_, p)| p.iter().map(|&(x, _)| x)));
    let y_max = max_of(lines.iter().flat_map(|(_, p)| p.iter().map(|&(_, y)| y)));
    let mut svg = String::new();
    draw(&mut svg, title, (y_label, y_axis), &lines, x_max, y_max).map_err(|e| Error::Figure {
        title: title.to_string(),
        message: e.to_string(),
    })?;
    Ok(svg)
}

fn draw(
    svg: &mut String,
    title: &str,
    (y_label, y_axis): (&str, Axis),
    lines: &[(String, Vec<(f64, f64)>)],
    x_max: f64,
    y_max: f64,
) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::with_string(svg, (760, 420)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0f64..x_max, 0f64..y_max)?;
    chart
        .configure_mesh()
        .x_desc("pages crawled")
        .y_desc(y_label)
        .x_label_formatter(&|x| tick(*x, Axis::Count))
        .y_label_formatter(&|y| tick(*y, y_axis))
        .draw()?;
    for (index, (name, points)) in lines.iter().enumerate() {
        let color = Palette99::pick(index).to_rgba();
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                color.stroke_width(2),
            ))?
            .label(name.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}

/// The largest value, with headroom; 1 if there is none.
fn max_of(values: impl Iterator<Item = f64>) -> f64 {
    let max = values.fold(0.0f64, f64::max);
    if max > 0.0 {
        max * 1.05
    } else {
        1.0
    }
}

fn html_table(batches: &[RecordBatch]) -> Result<String> {
    let options = FormatOptions::default();
    let bad = |e| Error::arrow("formatting a table")(e);
    let mut html = String::from("<table>\n");
    if let Some(first) = batches.first() {
        let header: String = first
            .schema()
            .fields()
            .iter()
            .map(|f| format!("<th>{}</th>", escape(f.name())))
            .collect();
        html.push_str(&format!("<tr>{header}</tr>\n"));
    }
    for batch in batches {
        let columns = batch
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(bad)?;
        for row in 0..batch.num_rows() {
            let cells: String = columns
                .iter()
                .map(|c| format!("<td>{}</td>", escape(&c.value(row).to_string())))
                .collect();
            html.push_str(&format!("<tr>{cells}</tr>\n"));
        }
    }
    html.push_str("</table>\n");
    Ok(html)
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn page(title: &str, figures: &[String], sections: &[Section]) -> String {
    let mut html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title>\n\
         <style>body {{ font-family: sans-serif; margin: 2em; }} \
         table {{ border-collapse: collapse; margin-bottom: 1.5em; max-width: 100%; }} \
         td, th {{ border: 1px solid #bbb; padding: 0.2em 0.6em; text-align: right; \
         overflow-wrap: anywhere; }} \
         svg {{ max-width: 100%; height: auto; }} \
         figure {{ margin: 1em 0; }}</style></head>\n<body>\n<h1>{t}</h1>\n",
        t = escape(title)
    );
    html.push_str("<h2>Figures</h2>\n");
    for svg in figures {
        html.push_str(&format!("<figure>{svg}</figure>\n"));
    }
    for section in sections {
        html.push_str(&format!(
            "<h2>{}</h2>\n{}",
            escape(&section.heading),
            section.table
        ));
    }
    html.push_str("</body></html>\n");
    html
}
