//! Rebuild the crate when anything under `sql/` changes: the folder is
//! embedded whole (`include_dir`, in `src/sql_files.rs`), and cargo does
//! not track the files of an embedded folder by itself.

fn main() {
    println!("cargo:rerun-if-changed=sql");
}
