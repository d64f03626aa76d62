//! The crate's error type: every variant names what was being done and to
//! which file, URL or segment, so `main` can print it on one line.

use std::path::PathBuf;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Input the user gave that cannot be used (bad flag value, bad file).
    #[error("{0}")]
    Usage(String),

    /// There is nothing for a phase to do (no segment in the right state).
    #[error("{0}")]
    NothingToDo(String),

    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("{path} is not a crawl directory (no crawl.json); start one with `langcrawl inject --crawl {path} SEEDS`")]
    NotACrawl { path: PathBuf },

    /// Another live process holds the crawl's writer lock.
    #[error("{crawl} is being written by {holder}; wait for it or stop it")]
    Locked { crawl: PathBuf, holder: String },

    #[error("reading segment {path}: {message}")]
    SegmentRead { path: PathBuf, message: String },

    #[error("writing segment {path}: {message}")]
    SegmentWrite { path: PathBuf, message: String },

    #[error("{context}: {source}")]
    Sql {
        context: String,
        source: datafusion::error::DataFusionError,
    },

    #[error("{0}")]
    Other(String),
}

impl Error {
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }

    pub fn sql(
        context: impl Into<String>,
    ) -> impl FnOnce(datafusion::error::DataFusionError) -> Error {
        let context = context.into();
        move |source| Error::Sql { context, source }
    }

    /// Exit code for this error: 2 for bad input, 3 for "nothing to do",
    /// 4 when another process is writing the crawl, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) | Error::NotACrawl { .. } => 2,
            Error::NothingToDo(_) => 3,
            Error::Locked { .. } => 4,
            _ => 1,
        }
    }
}
