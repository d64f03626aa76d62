//! What the unit tests share.

/// How many inputs a generated (proptest) test tries: `PROPTEST_CASES`,
/// or `default`, what a CI run tries (`scripts/fuzz-parse` sets more).
pub(crate) fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}
