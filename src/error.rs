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

    /// A signal stopped the command after it committed what it had done
    /// (`done` says what that is).
    #[error("stopped on request (exit status {status}): {done}")]
    Stopped { status: i32, done: &'static str },

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

    /// A crawl's file that cannot be read as it should: a segment's
    /// Parquet, crawl.json, a table's CURRENT (the path says which).
    #[error("reading {path}: {message}")]
    SegmentRead { path: PathBuf, message: String },

    #[error("writing segment {path}: {message}")]
    SegmentWrite { path: PathBuf, message: String },

    /// A writer's step on a crawl opened to be read (`sql`, `report`).
    #[error("{crawl}: opened read-only, {what}")]
    ReadOnly { crawl: PathBuf, what: String },

    /// A batch or query result lacks a column, or has it in another type.
    #[error("{context}: column {column}: {message}")]
    Column {
        context: String,
        column: String,
        message: String,
    },

    #[error("{context}: {}", one_line(.source))]
    Sql {
        context: String,
        source: datafusion::error::DataFusionError,
    },

    /// A query needed more memory than the pool of `--memory-limit`.
    #[error("running query: it needs more memory than --memory-limit gives ({pool}); raise --memory-limit above that pool size")]
    OutOfMemory { pool: String },

    /// A SQL file (or data table) the pipeline reads is neither built in
    /// nor in `--sql-dir`.
    #[error("no SQL file {name}")]
    MissingSql { name: String },

    /// Building or formatting Arrow data (a table, a batch, a result).
    #[error("{context}: {source}")]
    Arrow {
        context: String,
        source: datafusion::arrow::error::ArrowError,
    },

    #[error("writing {what} as JSON: {source}")]
    Json {
        what: String,
        source: serde_json::Error,
    },

    /// Drawing a figure of `report --html`.
    #[error("drawing the figure {title:?}: {message}")]
    Figure { title: String, message: String },

    /// The synthetic web could not start (runtime, socket).
    #[error("starting the synthetic web: {source}")]
    Websim { source: std::io::Error },

    /// The HTTP client could not be built (TLS, proxy settings).
    #[error("building the HTTP client: {message}")]
    HttpClient { message: String },

    /// The fetch phase of a round failed as a whole; nothing was written.
    #[error("fetch round {round:05}: {message}; nothing was written")]
    Fetch { round: u32, message: String },

    /// A web graph (from `websim generate` or `graph export`) that cannot be read or written.
    #[error("web graph {path}: {message}")]
    WebGraph { path: PathBuf, message: String },
}

impl Error {
    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { path, source }
    }

    pub fn arrow(
        context: impl Into<String>,
    ) -> impl FnOnce(datafusion::arrow::error::ArrowError) -> Error {
        let context = context.into();
        move |source| Error::Arrow { context, source }
    }

    pub fn sql(
        context: impl Into<String>,
    ) -> impl FnOnce(datafusion::error::DataFusionError) -> Error {
        let context = context.into();
        move |source| Error::Sql { context, source }
    }

    /// Exit code for this error: 2 for bad input (a bad value or query, a
    /// path that is missing, not allowed or of the wrong kind, a corrupt
    /// segment or `crawl.json`, a broken `--sql-dir` file), 3 for "nothing to
    /// do", 4 when another process is writing the crawl, 1 otherwise (a full
    /// disk, a failed fetch round, a bug).
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_)
            | Error::NotACrawl { .. }
            | Error::SegmentRead { .. }
            | Error::MissingSql { .. }
            | Error::WebGraph { .. } => 2,
            Error::Io { source, .. } if bad_path(source.kind()) => 2,
            Error::Sql { source, .. } if bad_query(source) => 2,
            Error::NothingToDo(_) => 3,
            Error::Locked { .. } => 4,
            Error::Stopped { status, .. } => *status,
            _ => 1,
        }
    }
}

/// An I/O error that says the path given is wrong, not the machine.
fn bad_path(kind: std::io::ErrorKind) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        kind,
        NotFound
            | PermissionDenied
            | NotADirectory
            | IsADirectory
            | AlreadyExists
            | InvalidInput
            | InvalidData
    )
}

/// A query that cannot be parsed or planned (a user's query, or a broken
/// `--sql-dir` file), or whose values cannot be computed (a cast that
/// fails, a division by zero), as opposed to one that failed otherwise.
fn bad_query(e: &datafusion::error::DataFusionError) -> bool {
    use datafusion::arrow::error::ArrowError as A;
    use datafusion::error::DataFusionError::*;
    match e.find_root() {
        SQL(..) | Plan(_) | SchemaError(..) => true,
        ArrowError(arrow, _) => matches!(
            arrow.as_ref(),
            A::CastError(_) | A::DivideByZero | A::ArithmeticOverflow(_)
        ),
        _ => false,
    }
}

/// A DataFusion error on one line, as a user reads it: the error and its
/// causes, the parser's message as its words (DataFusion shows its Debug
/// form).
pub fn one_line(e: &datafusion::error::DataFusionError) -> String {
    use datafusion::sql::sqlparser::parser::ParserError;
    let mut text = e.strip_backtrace();
    if let datafusion::error::DataFusionError::SQL(parser, _) = e.find_root() {
        if let ParserError::ParserError(m) | ParserError::TokenizerError(m) = parser.as_ref() {
            text = text.replace(&format!("{parser:?}"), m);
        }
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
