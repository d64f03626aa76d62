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
//! Fitted by Newton's method (conjugate gradients for each step), started
//! from the last round's weights.

use std::collections::{BTreeMap, HashMap};

/// The log-odds the papers' rules (a target-language anchor, a target
/// ccTLD, a link from a relevant page) start with before any label.
pub const RULE_WEIGHT: f64 = 2.0;

/// How strongly a weight is held to its prior mean: the inverse of the
/// prior's variance (a label adds at most 1/4).
const PRIOR_STRENGTH: f64 = 1.0;

/// The same for a segment's intercept: weak.
const INTERCEPT_STRENGTH: f64 = 0.01;

/// The fit stops when no weight moved more than this in a step…
const TOLERANCE: f64 = 1e-9;

/// … or after this many Newton steps.
const MAX_STEPS: usize = 100;

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

/// Minimises the penalised negative log-likelihood by Newton's method;
/// returns the weights in the order of `coordinates`. Each step solves
/// H·δ = g by conjugate gradients, the Hessian applied through the label
/// rows and never formed (so the cost of a step grows with the label rows
/// times the features, whatever the number of weights), and is halved
/// until the objective falls. Convex with a positive definite Hessian (the
/// priors), so it converges from any start, in a few steps from a warm one.
fn descend(
    labels: &[LabelRow],
    coordinates: &BTreeMap<Key, Coordinate>,
    start: &HashMap<Key, f64>,
) -> Vec<f64> {
    let problem = Problem::new(labels, coordinates);
    let mut weights: Vec<f64> = coordinates
        .iter()
        .map(|(key, c)| start.get(key).copied().unwrap_or(c.mean))
        .collect();
    let mut objective = problem.objective(&weights);
    for _ in 0..MAX_STEPS {
        let (gradient, curvature) = problem.gradient(&weights);
        let step = problem.newton_direction(&gradient, &curvature);
        let slope: f64 = gradient.iter().zip(&step).map(|(g, d)| g * d).sum();
        if slope.is_nan() || slope <= 0.0 {
            break;
        }
        let mut scale = 1.0;
        let (moved, value) = loop {
            let moved: Vec<f64> = weights
                .iter()
                .zip(&step)
                .map(|(w, d)| w - scale * d)
                .collect();
            let value = problem.objective(&moved);
            if value <= objective - 1e-4 * scale * slope || scale < 1e-12 {
                break (moved, value);
            }
            scale /= 2.0;
        };
        let largest = step.iter().fold(0.0f64, |m, d| m.max((scale * d).abs()));
        (weights, objective) = (moved, value);
        if largest < TOLERANCE {
            break;
        }
    }
    weights
}

/// The fit's objective over the label rows: each row's links (n of them,
/// r led to target pages) and the weights they carry.
struct Problem<'a> {
    labels: &'a [LabelRow],
    coordinates: Vec<&'a Coordinate>,
    /// For each label row, the coordinates it carries.
    members: Vec<Vec<usize>>,
}

impl<'a> Problem<'a> {
    fn new(labels: &'a [LabelRow], coordinates: &'a BTreeMap<Key, Coordinate>) -> Self {
        let mut members = vec![Vec::new(); labels.len()];
        for (j, c) in coordinates.values().enumerate() {
            for &i in &c.rows {
                members[i].push(j);
            }
        }
        Problem {
            labels,
            coordinates: coordinates.values().collect(),
            members,
        }
    }

    /// Each label row's score at `weights`.
    fn margins<'b>(&'b self, weights: &'b [f64]) -> impl Iterator<Item = f64> + 'b {
        self.members
            .iter()
            .map(move |m| m.iter().map(|&j| weights[j]).sum())
    }

    /// The penalised negative log-likelihood at `weights`.
    fn objective(&self, weights: &[f64]) -> f64 {
        let likelihood: f64 = self
            .margins(weights)
            .zip(self.labels)
            .map(|(m, row)| {
                let softplus = m.max(0.0) + (-m.abs()).exp().ln_1p();
                (row.relevant + row.other) as f64 * softplus - row.relevant as f64 * m
            })
            .sum();
        let prior: f64 = self
            .coordinates
            .iter()
            .zip(weights)
            .map(|(c, w)| 0.5 * c.strength * (w - c.mean).powi(2))
            .sum();
        likelihood + prior
    }

    /// The gradient at `weights`, and each row's curvature n·p·(1 − p).
    fn gradient(&self, weights: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let mut gradient: Vec<f64> = self
            .coordinates
            .iter()
            .zip(weights)
            .map(|(c, w)| c.strength * (w - c.mean))
            .collect();
        let mut curvature = Vec::with_capacity(self.labels.len());
        for ((m, row), members) in self.margins(weights).zip(self.labels).zip(&self.members) {
            let (p, n) = (sigmoid(m), (row.relevant + row.other) as f64);
            for &j in members {
                gradient[j] += n * p - row.relevant as f64;
            }
            curvature.push(n * p * (1.0 - p));
        }
        (gradient, curvature)
    }

    /// The Hessian (rows' `curvature`) times `v`.
    fn hessian_times(&self, curvature: &[f64], v: &[f64]) -> Vec<f64> {
        let mut product: Vec<f64> = self
            .coordinates
            .iter()
            .zip(v)
            .map(|(c, x)| c.strength * x)
            .collect();
        for (members, d) in self.members.iter().zip(curvature) {
            let along = d * members.iter().map(|&j| v[j]).sum::<f64>();
            for &j in members {
                product[j] += along;
            }
        }
        product
    }

    /// δ with H·δ = `gradient`, by conjugate gradients preconditioned by
    /// the Hessian's diagonal.
    fn newton_direction(&self, gradient: &[f64], curvature: &[f64]) -> Vec<f64> {
        let mut diagonal: Vec<f64> = self.coordinates.iter().map(|c| c.strength).collect();
        for (members, d) in self.members.iter().zip(curvature) {
            for &j in members {
                diagonal[j] += d;
            }
        }
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
        let mut x = vec![0.0; gradient.len()];
        let mut residual = gradient.to_vec();
        let mut z: Vec<f64> = residual.iter().zip(&diagonal).map(|(r, d)| r / d).collect();
        let mut direction = z.clone();
        let mut rz = dot(&residual, &z);
        let enough = 1e-24 * dot(gradient, gradient);
        for _ in 0..gradient.len().max(10) {
            if dot(&residual, &residual) <= enough {
                break;
            }
            let hd = self.hessian_times(curvature, &direction);
            let alpha = rz / dot(&direction, &hd);
            for ((x, r), (p, h)) in x
                .iter_mut()
                .zip(&mut residual)
                .zip(direction.iter().zip(&hd))
            {
                *x += alpha * p;
                *r -= alpha * h;
            }
            z = residual.iter().zip(&diagonal).map(|(r, d)| r / d).collect();
            let next = dot(&residual, &z);
            for (p, z) in direction.iter_mut().zip(&z) {
                *p = z + next / rz * *p;
            }
            rz = next;
        }
        x
    }
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
