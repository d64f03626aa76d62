//! Tests of the regression: what it learns from counts a reader can check
//! by hand, the rules' prior, and that the last round's weights only
//! speed the fit up; the fit ends at the optimum (zero gradient).

use std::collections::HashMap;

use super::{fit, FitInputs, LabelRow, ModelRow, RULE_WEIGHT};

const FEATURES: [&str; 3] = ["anchor", "dst_server", "src_server"];

fn label(segment: &str, values: [&str; 3], relevant: i64, other: i64) -> LabelRow {
    LabelRow {
        segment: segment.to_string(),
        values: values.iter().map(|v| v.to_string()).collect(),
        relevant,
        other,
    }
}

fn fitted(labels: &[LabelRow], rules: &[(String, String)], leave_out: &[String]) -> Vec<ModelRow> {
    let start = HashMap::new();
    let inputs = FitInputs {
        features: &FEATURES,
        rules,
        leave_out,
        start: &start,
    };
    fit(labels, &inputs)
}

fn weight(model: &[ModelRow], feature: &str, value: &str) -> f64 {
    model
        .iter()
        .find(|r| r.feature == feature && r.value == value)
        .unwrap_or_else(|| panic!("no model row {feature}={value}: {model:?}"))
        .weight
}

/// The probability the model gives a link of `segment` with `values`.
fn probability(model: &[ModelRow], segment: &str, values: [&str; 3]) -> f64 {
    let score: f64 = weight(model, "prior", segment)
        + FEATURES
            .iter()
            .zip(values)
            .map(|(f, v)| weight(model, f, &format!("{segment}:{v}")))
            .sum::<f64>();
    1.0 / (1.0 + (-score).exp())
}

#[test]
fn a_links_probability_is_close_to_the_share_of_its_kind_that_led_to_target_pages() {
    // 300 links with a target anchor, 240 to target pages; 300 without,
    // 30 to target pages. Every other feature takes one value.
    let labels = [
        label("known", ["target", "relevant", "relevant"], 240, 60),
        label("known", ["none", "relevant", "relevant"], 30, 270),
    ];
    let model = fitted(&labels, &[], &[]);
    let with = probability(&model, "known", ["target", "relevant", "relevant"]);
    let without = probability(&model, "known", ["none", "relevant", "relevant"]);
    assert!((with - 0.8).abs() < 0.01, "{with}");
    assert!((without - 0.1).abs() < 0.01, "{without}");
}

#[test]
fn evidence_two_features_share_is_not_counted_twice() {
    // The destination's and the source's server always agree: they are
    // one piece of evidence. Naive Bayes would add its log-odds twice
    // and give an undecided pair with a target anchor far less than the
    // 0.5 its labels show.
    let labels = [
        label("known", ["target", "relevant", "relevant"], 90, 10),
        label("known", ["none", "relevant", "relevant"], 50, 50),
        label("known", ["target", "undecided", "undecided"], 50, 50),
        label("known", ["none", "undecided", "undecided"], 10, 90),
    ];
    let model = fitted(&labels, &[], &[]);
    for (values, share) in [
        (["target", "relevant", "relevant"], 0.9),
        (["none", "relevant", "relevant"], 0.5),
        (["target", "undecided", "undecided"], 0.5),
        (["none", "undecided", "undecided"], 0.1),
    ] {
        let p = probability(&model, "known", values);
        assert!((p - share).abs() < 0.02, "{values:?}: {p} against {share}");
    }
}

#[test]
fn before_any_label_the_rules_values_weigh_and_nothing_else_does() {
    let rules = [("anchor".to_string(), "target".to_string())];
    let model = fitted(&[], &rules, &[]);
    for segment in ["new", "known"] {
        assert_eq!(
            weight(&model, "anchor", &format!("{segment}:target")),
            RULE_WEIGHT
        );
        assert_eq!(weight(&model, "prior", segment), 0.0);
    }
    assert_eq!(model.len(), 4, "{model:?}");
    assert!(model.iter().all(|r| (r.relevant, r.other) == (0, 0)));
}

#[test]
fn the_crawls_labels_outweigh_the_rules_prior() {
    // Target anchors that led nowhere, many times: the rule's prior gives way.
    let rules = [("anchor".to_string(), "target".to_string())];
    let labels = [
        label("new", ["target", "unvisited", "relevant"], 2, 198),
        label("new", ["none", "unvisited", "relevant"], 20, 180),
    ];
    let model = fitted(&labels, &rules, &[]);
    let with = probability(&model, "new", ["target", "unvisited", "relevant"]);
    let without = probability(&model, "new", ["none", "unvisited", "relevant"]);
    assert!(with < without, "{with} {without}");
    assert!(with < 0.03, "{with}");
}

#[test]
fn a_feature_left_out_keeps_its_counts_and_weighs_nothing() {
    let labels = [
        label("known", ["target", "relevant", "relevant"], 8, 2),
        label("known", ["none", "relevant", "relevant"], 1, 9),
    ];
    let model = fitted(&labels, &[], &["anchor".to_string()]);
    let target = model
        .iter()
        .find(|r| r.feature == "anchor" && r.value == "known:target")
        .unwrap();
    assert_eq!((target.relevant, target.other, target.weight), (8, 2, 0.0));
    let prior = model
        .iter()
        .find(|r| r.feature == "prior" && r.value == "known")
        .unwrap();
    assert_eq!((prior.relevant, prior.other), (9, 11));
}

#[test]
fn the_last_rounds_weights_change_where_the_fit_starts_not_where_it_ends() {
    let labels = [
        label("known", ["target", "relevant", "relevant"], 30, 5),
        label("new", ["none", "unvisited", "undecided"], 2, 40),
        label("new", ["target", "unvisited", "relevant"], 12, 9),
    ];
    let rules = [("anchor".to_string(), "target".to_string())];
    let cold = fitted(&labels, &rules, &[]);
    let start: HashMap<(String, String), f64> = cold
        .iter()
        .map(|r| ((r.feature.clone(), r.value.clone()), r.weight + 0.7))
        .collect();
    let inputs = FitInputs {
        features: &FEATURES,
        rules: &rules,
        leave_out: &[],
        start: &start,
    };
    let warm = fit(&labels, &inputs);
    assert_eq!(cold.len(), warm.len());
    for (a, b) in cold.iter().zip(&warm) {
        assert_eq!((&a.feature, &a.value), (&b.feature, &b.value));
        assert!((a.weight - b.weight).abs() < 1e-4, "{a:?} {b:?}");
    }
}

/// The penalised log-likelihood's gradient at the fitted weights, worked
/// out here from the model rows and the labels alone: each weight's prior
/// pull plus, over the label rows it appears in, expected minus observed
/// target links.
fn gradient(model: &[ModelRow], labels: &[LabelRow], rules: &[(String, String)]) -> Vec<f64> {
    model
        .iter()
        .map(|m| {
            let (mean, strength) = if m.feature == "prior" {
                (0.0, super::INTERCEPT_STRENGTH)
            } else if rules
                .iter()
                .any(|(f, v)| *f == m.feature && m.value.ends_with(&format!(":{v}")))
            {
                (RULE_WEIGHT, super::PRIOR_STRENGTH)
            } else {
                (0.0, super::PRIOR_STRENGTH)
            };
            let data: f64 = labels
                .iter()
                .filter(|l| {
                    let values: Vec<&str> = l.values.iter().map(String::as_str).collect();
                    let with = |f: &str, v: &str| {
                        format!("{}:{v}", l.segment) == m.value && f == m.feature
                    };
                    (m.feature == "prior" && m.value == l.segment)
                        || FEATURES.iter().zip(values).any(|(f, v)| with(f, v))
                })
                .map(|l| {
                    let values = [&l.values[0], &l.values[1], &l.values[2]].map(String::as_str);
                    let p = probability(model, &l.segment, values);
                    (l.relevant + l.other) as f64 * p - l.relevant as f64
                })
                .sum();
            strength * (m.weight - mean) + data
        })
        .collect()
}

#[test]
fn the_fit_ends_where_the_gradient_vanishes() {
    // counts spread over every combination of 3 features × 2 segments,
    // some rows lopsided, a few empty of targets: a fit that stops early
    // (as coordinate descent did at 500 sweeps) leaves a gradient
    let anchors = ["target", "en", "none", "fr", "de"];
    let servers = [
        "relevant",
        "undecided-1",
        "undecided-2+",
        "irrelevant",
        "unvisited",
    ];
    let sources = ["relevant", "undecided", "irrelevant"];
    let mut labels = Vec::new();
    let mut seed: i64 = 7;
    for segment in ["new", "known"] {
        for a in anchors {
            for s in servers {
                for src in sources {
                    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
                    let relevant = seed % 37;
                    let other = (seed / 37) % 211;
                    labels.push(label(segment, [a, s, src], relevant, other));
                }
            }
        }
    }
    let rules = [
        ("anchor".to_string(), "target".to_string()),
        ("src_server".to_string(), "relevant".to_string()),
    ];
    let model = fitted(&labels, &rules, &[]);
    let g = gradient(&model, &labels, &rules);
    let worst = g.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    assert!(worst < 1e-6, "largest gradient {worst}: {g:?}");
    // and the check can fail: a nudged weight leaves a gradient
    let mut nudged = model.clone();
    nudged[0].weight += 0.01;
    let g = gradient(&nudged, &labels, &rules);
    assert!(g.iter().any(|x| x.abs() > 1e-3));
}
