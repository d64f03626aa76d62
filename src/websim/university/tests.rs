//! The university web has the paper's shape: its classes link as Table 3
//! says, a fifth of its pages are mixed, and the hidden CSE pages are
//! linked from mixed pages only.

use super::*;

fn planned(count: usize) -> (Vec<Page>, Departments, PlannedLinks) {
    let mut rng = Rng::new(&[7]);
    let pages = plan_pages(&mut rng, count);
    let departments = departments(&pages);
    let links = plan_links(&mut rng, &pages, &departments);
    (pages, departments, links)
}

fn is_nav(link: &LinkText) -> bool {
    ["Navigation", "नेविगेशन"].contains(&link.heading.as_str())
}

#[test]
fn class_links_follow_table_3() {
    let (pages, _, links) = planned(10_000);
    let mut counts = [[0usize; 4]; 4];
    for (src, out) in links.iter().enumerate() {
        for (dst, _) in out.iter().filter(|(_, l)| !is_nav(l)) {
            counts[pages[src].class][pages[*dst as usize].class] += 1;
        }
    }
    for (from, row) in counts.iter().enumerate() {
        let total: usize = row.iter().sum();
        for (to, &n) in row.iter().enumerate() {
            let share = n as f64 / total as f64;
            let rule = RULES[from][to];
            assert!(
                (share - rule).abs() < 0.03,
                "{} → {}: {share:.3} of the links, rule {rule}",
                CLASSES[from],
                CLASSES[to]
            );
        }
    }
}

#[test]
fn a_fifth_mixed_and_hidden_pages_reached_only_through_mixed_ones() {
    let (pages, departments, links) = planned(5_000);
    let mixed = pages.iter().filter(|p| p.writing == Writing::Mixed).count();
    let share = mixed as f64 / pages.len() as f64;
    assert!((share - 0.2).abs() < 0.02, "mixed share {share}");
    assert!(
        departments.hidden.len() > 100,
        "{}",
        departments.hidden.len()
    );
    let mut inlinks = vec![0usize; pages.len()];
    for (src, out) in links.iter().enumerate() {
        for (dst, _) in out {
            if pages[*dst as usize].hidden {
                assert_eq!(
                    pages[src].writing,
                    Writing::Mixed,
                    "page {src} → hidden {dst}"
                );
                inlinks[*dst as usize] += 1;
            }
        }
    }
    assert!(departments.hidden.iter().all(|&h| inlinks[h as usize] > 0));
}

#[test]
fn mixed_pages_name_classes_in_hindi_only() {
    let (pages, _, links) = planned(2_000);
    let english_terms = ["Comp.", "Information Tech.", "Engineering", "Computer"];
    for (src, out) in links.iter().enumerate() {
        if pages[src].writing != Writing::Mixed {
            continue;
        }
        for (_, link) in out {
            let texts = [&link.anchor, &link.context, &link.heading];
            assert!(
                !texts
                    .iter()
                    .any(|t| english_terms.iter().any(|e| t.contains(e))),
                "{:?}",
                (&link.anchor, &link.context, &link.heading)
            );
        }
    }
}

#[test]
fn the_same_spec_writes_the_same_web() {
    let written = |dir: &std::path::Path| {
        let web = WebDir::create(dir).unwrap();
        let generated = generate_into(
            UniversitySpec {
                pages: 300,
                seed: 3,
            },
            &web,
        )
        .unwrap();
        let bytes = |path: std::path::PathBuf| {
            let mut files: Vec<_> = std::fs::read_dir(path)
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            files.sort();
            files
                .iter()
                .map(|f| std::fs::read(f).unwrap())
                .collect::<Vec<_>>()
        };
        (
            generated.seeds,
            generated.pages,
            bytes(web.pages()),
            bytes(web.links()),
        )
    };
    let tmp = tempfile::tempdir().unwrap();
    let a = written(&tmp.path().join("a"));
    let b = written(&tmp.path().join("b"));
    assert_eq!(a.1, 300);
    assert_eq!(a.0, ["http://www.uiet.ac.in/cse/"]);
    assert!(a == b, "two runs of one spec differ");
}
