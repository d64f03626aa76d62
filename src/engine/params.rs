//! Named values for a query's `$placeholders`, bound by DataFusion (never
//! spliced into the SQL text).

use datafusion::scalar::ScalarValue;

/// Named values for a query's `$placeholders`.
#[derive(Debug, Clone, Default)]
pub struct Params(Vec<(String, ScalarValue)>);

impl Params {
    pub fn new() -> Self {
        Params::default()
    }

    pub fn set(mut self, name: &str, value: impl Into<ScalarValue>) -> Self {
        self.0.retain(|(n, _)| n != name);
        self.0.push((name.to_string(), value.into()));
        self
    }

    /// The value set for `name`.
    pub fn get(&self, name: &str) -> Option<&ScalarValue> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// Only the parameters that `sql` mentions, so DataFusion sees no strays.
    pub(super) fn used_by(&self, sql: &str) -> Vec<(String, ScalarValue)> {
        self.0
            .iter()
            .filter(|(name, _)| mentions_placeholder(sql, name))
            .cloned()
            .collect()
    }
}

fn mentions_placeholder(sql: &str, name: &str) -> bool {
    let needle = format!("${name}");
    sql.match_indices(&needle).any(|(at, _)| {
        let next = sql[at + needle.len()..].chars().next();
        !next.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_match_whole_names() {
        assert!(mentions_placeholder("WHERE a = $round", "round"));
        assert!(!mentions_placeholder("WHERE a = $round_id", "round"));
        assert!(!mentions_placeholder("WHERE a = 1", "round"));
    }
}
