//! What the benchmarks share: where their input data is.

use std::path::{Path, PathBuf};

/// `$env_var` if set, else the shared workplace corpus `../shared/corpus/NAME`
/// when it exists (the full data), else the small copy under `tests/`.
pub fn data_dir(env_var: &str, shared: &str, in_repo: &str) -> PathBuf {
    if let Some(dir) = std::env::var_os(env_var) {
        return dir.into();
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let full = root.join("../shared/corpus").join(shared);
    if full.is_dir() {
        full
    } else {
        root.join(in_repo)
    }
}
