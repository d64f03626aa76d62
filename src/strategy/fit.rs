//! `adaptive`'s model: a logistic regression fitted on the labelled links
//! (`<round>/labels/`, counted by `sql/steps/count_labels.sql`). One
//! weight per feature value within each segment (`new`: links into a
//! server not visited yet; `known`) and an intercept per segment (rows
//! `prior`); a link's score is its segment's intercept plus the weight of
//! each of its values, its probability `1 / (1 + exp(-score))`.
//!
//! Unlike naive Bayes, a regression does not count the same evidence
//! twice: the server's state, the directory's, the source's and the hops
//! from a relevant page often say one thing, and naive Bayes adds their
//! log-odds as if they were independent, burying a target-language anchor
//! under them. The fit is exact on the label counts (the sufficient
//! statistics of a regression on categorical features), so each round's
//! model depends on the labels alone, not on the order they came in.
//!
//! Every weight has a Gaussian prior: mean 0, or [`RULE_WEIGHT`] for the
//! values the papers' rules name (`sql/views/rule_values.sql`), so before
//! any label the model ranks as the rules do; the intercepts a weak one.
//! Fitted by cyclic coordinate descent, one Newton step per weight,
//! started from the last round's weights.

use std::collections::{BTreeMap, HashMap};

/// The log-odds the papers' rules (a target-language anchor, a target
/// ccTLD, a link from a relevant page) start with before any label.
pub const RULE_WEIGHT: f64 = 2.0;

/// How strongly a weight is held to its prior mean: the inverse of the
/// prior's variance (a label adds at most 1/4).
const PRIOR_STRENGTH: f64 = 1.0;

/// The same for a segment's intercept: weak.
const INTERCEPT_STRENGTH: f64 = 0.01;

/// No Newton step moves a weight further than this.
const MAX_STEP: f64 = 1.0;

/// The fit stops when no weight moved more than this in a sweep…
const TOLERANCE: f64 = 1e-7;

/// … or after this many sweeps.
const MAX_SWEEPS: usize = 500;

/// The segments of the model, each with its own intercept and weights.
pub const SEGMENTS: [&str; 2] = ["new", "known"];

/// A row of the labels: a segment, a value per feature, and how many
/// labelled links with those values led to target pages and to others.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelRow {
    pub segment: String,
    pub values: Vec<String>,
    pub relevant: i64,
    pub other: i64,
}

/// A row of the model: a feature value within a segment (`segment:value`;
/// feature `prior`, value the segment, for an intercept), its counts among
/// the labels and its weight.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRow {
    pub feature: String,
    pub value: String,
    pub relevant: i64,
    pub other: i64,
    pub weight: f64,
}

/// What the fit needs besides the labels.
#[derive(Debug, Clone)]
pub struct FitInputs<'a> {
    /// The feature names, in the order of [`LabelRow::values`].
    pub features: &'a [&'a str],
    /// The (feature, value) pairs the papers' rules name.
    pub rules: &'a [(String, String)],
    /// Features counted but not weighed (ablations).
    pub leave_out: &'a [String],
    /// The last round's weights by (feature, value), to start from.
    pub start: &'a HashMap<(String, String), f64>,
}

type Key = (String, String);

/// One weight of the fit: its prior and the label rows it appears in.
struct Coordinate {
    mean: f64,
    strength: f64,
    rows: Vec<usize>,
}

impl Coordinate {
    fn new(mean: f64, strength: f64) -> Self {
        Coordinate {
            mean,
            strength,
            rows: Vec::new(),
        }
    }
}

/// Fits the model on `labels`; rows sorted by feature and value, both
/// segments' intercepts always present. Every feature value is counted;
/// those of a feature left out are not weighed (weight 0).
pub fn fit(labels: &[LabelRow], inputs: &FitInputs) -> Vec<ModelRow> {
    let weighed =
        |feature: &str| feature == "prior" || !inputs.leave_out.iter().any(|l| l == feature);
    let mut coordinates: BTreeMap<Key, Coordinate> = BTreeMap::new();
    for segment in SEGMENTS {
        coordinates.insert(
            intercept_key(segment),
            Coordinate::new(0.0, INTERCEPT_STRENGTH),
        );
        for (feature, value) in inputs.rules.iter().filter(|(f, _)| weighed(f)) {
            let rule = Coordinate::new(RULE_WEIGHT, PRIOR_STRENGTH);
            coordinates.insert((feature.clone(), format!("{segment}:{value}")), rule);
        }
    }
    let mut model: BTreeMap<Key, ModelRow> = BTreeMap::new();
    for (i, row) in labels.iter().enumerate() {
        let values = inputs
            .features
            .iter()
            .zip(&row.values)
            .map(|(feature, value)| (feature.to_string(), format!("{}:{value}", row.segment)));
        for key in std::iter::once(intercept_key(&row.segment)).chain(values) {
            let counted = model.entry(key.clone()).or_insert_with(|| unweighed(&key));
            counted.relevant += row.relevant;
            counted.other += row.other;
            if weighed(&key.0) {
                let c = coordinates
                    .entry(key)
                    .or_insert_with(|| Coordinate::new(0.0, PRIOR_STRENGTH));
                c.rows.push(i);
            }
        }
    }
    let weights = descend(labels, &coordinates, inputs.start);
    for (key, weight) in coordinates.keys().zip(weights) {
        model
            .entry(key.clone())
            .or_insert_with(|| unweighed(key))
            .weight = weight;
    }
    model.into_values().collect()
}

/// The row of `key` before anything is counted or fitted.
fn unweighed(key: &Key) -> ModelRow {
    ModelRow {
        feature: key.0.clone(),
        value: key.1.clone(),
        relevant: 0,
        other: 0,
        weight: 0.0,
    }
}

fn intercept_key(segment: &str) -> Key {
    ("prior".to_string(), segment.to_string())
}

/// Minimises the penalised negative log-likelihood by cyclic coordinate
/// descent; returns the weights in the order of `coordinates`.
fn descend(
    labels: &[LabelRow],
    coordinates: &BTreeMap<Key, Coordinate>,
    start: &HashMap<Key, f64>,
) -> Vec<f64> {
    let mut weights: Vec<f64> = coordinates
        .iter()
        .map(|(key, c)| start.get(key).copied().unwrap_or(c.mean))
        .collect();
    let mut margins = vec![0.0; labels.len()];
    for (c, w) in coordinates.values().zip(&weights) {
        for &i in &c.rows {
            margins[i] += w;
        }
    }
    for _ in 0..MAX_SWEEPS {
        let mut largest: f64 = 0.0;
        for (c, w) in coordinates.values().zip(weights.iter_mut()) {
            let step = newton_step(c, *w, labels, &margins);
            *w -= step;
            for &i in &c.rows {
                margins[i] -= step;
            }
            largest = largest.max(step.abs());
        }
        if largest < TOLERANCE {
            break;
        }
    }
    weights
}

/// One Newton step for one weight, bounded by [`MAX_STEP`].
fn newton_step(c: &Coordinate, weight: f64, labels: &[LabelRow], margins: &[f64]) -> f64 {
    let mut gradient = c.strength * (weight - c.mean);
    let mut curvature = c.strength;
    for &i in &c.rows {
        let p = sigmoid(margins[i]);
        let (relevant, n) = (
            labels[i].relevant as f64,
            (labels[i].relevant + labels[i].other) as f64,
        );
        gradient += n * p - relevant;
        curvature += n * p * (1.0 - p);
    }
    if curvature <= 0.0 {
        return 0.0;
    }
    (gradient / curvature).clamp(-MAX_STEP, MAX_STEP)
}

fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

#[cfg(test)]
#[path = "fit_tests.rs"]
mod tests;
