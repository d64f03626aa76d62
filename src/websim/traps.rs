//! Crawler traps on the synthetic web's trap hosts, endless URL spaces a
//! crawler must limit: a calendar (each month links to the next month and
//! to 20 of its days; each day to the next day) and relative links that
//! build ever longer paths (`/loop/` links to `a/` and `b/`, so
//! `/loop/a/b/a/b/...` doubles each step).

use super::render::SimLink;

/// A page of a trap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrapPage {
    /// `/cal/YYYY-MM/`
    Month { year: u32, month: u32 },
    /// `/cal/YYYY-MM/DD.html`
    Day { year: u32, month: u32, day: u32 },
    /// `/loop/...`, a folder: any depth, any path of `a` and `b`.
    Loop { depth: u32 },
}

/// Days of a month the calendar links to.
const DAYS: u32 = 20;

impl TrapPage {
    /// The trap page at `path`, if it is one.
    pub fn at(path: &str) -> Option<TrapPage> {
        if let Some(rest) = path.strip_prefix("/loop/") {
            let segments: Vec<&str> = rest.split('/').collect();
            let (last, folders) = segments.split_last()?;
            let ok = last.is_empty() && folders.iter().all(|s| *s == "a" || *s == "b");
            return ok.then_some(TrapPage::Loop {
                depth: folders.len() as u32,
            });
        }
        let rest = path.strip_prefix("/cal/")?;
        let (month_part, day_part) = rest.split_once('/')?;
        let (year, month) = month_part.split_once('-')?;
        let (year, month): (u32, u32) = (year.parse().ok()?, month.parse().ok()?);
        if !(1..=12).contains(&month) || year > 9999 {
            return None;
        }
        if day_part.is_empty() {
            return Some(TrapPage::Month { year, month });
        }
        let day: u32 = day_part.strip_suffix(".html")?.parse().ok()?;
        (1..=DAYS)
            .contains(&day)
            .then_some(TrapPage::Day { year, month, day })
    }

    /// A number that tells pages apart (seeds the page's text).
    pub fn key(&self) -> u64 {
        match *self {
            TrapPage::Month { year, month } => u64::from(year * 100 + month) * 100,
            TrapPage::Day { year, month, day } => {
                u64::from(year * 100 + month) * 100 + u64::from(day)
            }
            TrapPage::Loop { depth } => 1 << 40 | u64::from(depth),
        }
    }

    /// The page's links, as written in its HTML.
    pub fn links(&self) -> Vec<SimLink> {
        match *self {
            TrapPage::Month { year, month } => {
                let (next_year, next_month) = next_month(year, month);
                let mut links = vec![SimLink::text(
                    month_path(next_year, next_month),
                    format!("{next_year}-{next_month:02}"),
                )];
                links.extend(
                    (1..=DAYS).map(|d| SimLink::text(day_path(year, month, d), d.to_string())),
                );
                links
            }
            TrapPage::Day { year, month, day } if day < DAYS => {
                vec![SimLink::text(day_path(year, month, day + 1), "next day")]
            }
            TrapPage::Day { year, month, .. } => {
                let (y, m) = next_month(year, month);
                vec![SimLink::text(month_path(y, m), "next month")]
            }
            TrapPage::Loop { .. } => vec![SimLink::text("a/", "a"), SimLink::text("b/", "b")],
        }
    }
}

/// The entry to the calendar in month `n` (0-based from January 2026).
pub fn calendar_entry(n: u32) -> String {
    month_path(2026 + n / 12, 1 + n % 12)
}

fn next_month(year: u32, month: u32) -> (u32, u32) {
    if month == 12 {
        (year + 1, 1)
    } else {
        (year, month + 1)
    }
}

fn month_path(year: u32, month: u32) -> String {
    format!("/cal/{year:04}-{month:02}/")
}

fn day_path(year: u32, month: u32, day: u32) -> String {
    format!("/cal/{year:04}-{month:02}/{day:02}.html")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trap_paths_parse_and_link_onward() {
        let month = TrapPage::at("/cal/2026-12/").unwrap();
        let links = month.links();
        assert_eq!(links.len(), 21);
        assert_eq!(links[0].href, "/cal/2027-01/");
        assert_eq!(
            TrapPage::at(&links[1].href),
            Some(TrapPage::Day {
                year: 2026,
                month: 12,
                day: 1
            })
        );
        assert_eq!(
            TrapPage::at("/loop/a/b/a/"),
            Some(TrapPage::Loop { depth: 3 })
        );
        assert_eq!(TrapPage::at("/loop/a/c/"), None);
        assert_eq!(TrapPage::at("/cal/2026-13/"), None);
        assert_eq!(TrapPage::at("/cal/2026-01/21.html"), None);
        assert_eq!(calendar_entry(13), "/cal/2027-02/");
    }
}
