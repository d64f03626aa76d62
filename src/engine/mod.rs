//! The only place that builds a DataFusion `SessionContext`. It loads the
//! pipeline's SQL (embedded at build time, or from `--sql-dir`), binds named
//! `$params`, registers segments as tables and streams results into segments.
//! Queries share a memory pool of `--memory-limit` bytes; sorts, aggregates
//! and joins that can spill go to disk (under `TMPDIR`) beyond it. The
//! user's own queries (`langcrawl sql`) may only read.
//!
//! With the `ballista` feature the same context can run its queries on
//! Apache DataFusion Ballista (`--engine ballista` or `df://HOST:PORT`,
//! see `cluster`); everything else here is the same for every engine.

mod bounds;
mod clock;
#[cfg(feature = "ballista")]
pub mod cluster;
mod kind;
#[cfg(feature = "ballista")]
mod mem_table_codec;
mod params;
mod run;
mod segments;
mod staging;

pub use bounds::{MAX_QUERY_BYTES, MAX_QUERY_OPERATORS};
pub use clock::{QueryClock, QueryTime};
pub use kind::{host_and_port, EngineKind};
pub use params::Params;
pub(crate) use run::run_error;
use segments::nullable;
pub use staging::{release, Held, Reservation, STAGE_BYTES};

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use datafusion::arrow::datatypes::SchemaRef;
use datafusion::dataframe::DataFrame;
use datafusion::datasource::MemTable;
use datafusion::error::DataFusionError;
use datafusion::execution::context::{SQLOptions, SessionConfig, SessionContext};
use datafusion::execution::disk_manager::DiskManagerBuilder;
use datafusion::execution::memory_pool::{FairSpillPool, MemoryPool, UnboundedMemoryPool};
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::scalar::ScalarValue;

use crate::error::{Error, Result};

/// A DataFusion session and the SQL it runs.
pub struct Engine {
    ctx: SessionContext,
    sql_dir: Option<PathBuf>,
    /// What results held for several readers may keep in memory, all
    /// together ([`Engine::hold`]); a limit of 0 writes every one to
    /// Parquet.
    stage: Arc<staging::StageBudget>,
    /// How long each query took ([`Engine::clock`]).
    clock: QueryClock,
    /// The names [`register_view`](Self::register_view) registered, each
    /// once, for [`PhaseViews`].
    views: std::sync::Mutex<Vec<String>>,
}

/// The views registered while it lives, dropped with it: a view keeps the
/// tables its plan reads — results a phase held among them — and would
/// keep their memory past the phase, until the next round registers the
/// view again.
pub struct PhaseViews<'a> {
    engine: &'a Engine,
    from: usize,
}

impl Drop for PhaseViews<'_> {
    fn drop(&mut self) {
        let names = {
            let mut views = self.engine.view_names();
            let from = self.from.min(views.len());
            views.split_off(from)
        };
        for name in names {
            let _ = self.engine.ctx.deregister_table(&name);
        }
    }
}

impl Engine {
    /// `sql_dir` overrides the embedded SQL files with files of the same
    /// names; the memory limit is this machine's default.
    pub fn new(sql_dir: Option<PathBuf>) -> Self {
        Engine::with_memory_limit(sql_dir, crate::memory::default_limit())
    }

    /// An engine whose queries share `memory_limit` bytes, spilling to disk
    /// beyond them where they can.
    pub fn with_memory_limit(sql_dir: Option<PathBuf>, memory_limit: usize) -> Self {
        let ctx = local_context(session_config(), memory_limit, true);
        Engine::over(ctx, sql_dir, staging::budget(memory_limit))
    }

    /// An engine of `kind`: this process (`local`), or Ballista. Ballista's
    /// executors get the same functions and memory limit.
    pub async fn open(
        sql_dir: Option<PathBuf>,
        memory_limit: usize,
        kind: &EngineKind,
    ) -> Result<Self> {
        match kind {
            EngineKind::Local => Ok(Engine::with_memory_limit(sql_dir, memory_limit)),
            #[cfg(feature = "ballista")]
            remote => {
                let config = cluster::session_config(session_config());
                let state = local_context(config, memory_limit, false).state();
                let ctx = cluster::connect(state, remote).await?;
                // Ballista's session replaces the scalar functions with its own list.
                crate::functions::register(&ctx);
                // a table in memory would travel in every plan sent out
                Ok(Engine::over(ctx, sql_dir, Arc::new(staging::StageBudget::of(0))))
            }
            #[cfg(not(feature = "ballista"))]
            remote => Err(Error::Usage(format!(
                "--engine {remote}: this langcrawl was built without Ballista (build it with `--features ballista`)"
            ))),
        }
    }

    fn over(
        ctx: SessionContext,
        sql_dir: Option<PathBuf>,
        stage: Arc<staging::StageBudget>,
    ) -> Self {
        if let Some(dir) = &sql_dir {
            for name in crate::sql_files::unused_overrides(dir) {
                eprintln!(
                    "langcrawl: warning: --sql-dir {}: {name} is not a pipeline file and is not used (they are under steps/, views/, strategies/, reports/, sim/ and tables/)",
                    dir.display()
                );
            }
        }
        Engine {
            ctx,
            sql_dir,
            stage,
            clock: QueryClock::default(),
            views: std::sync::Mutex::default(),
        }
    }

    pub fn context(&self) -> &SessionContext {
        &self.ctx
    }

    /// How long each query took since the clock was last read.
    pub fn clock(&self) -> &QueryClock {
        &self.clock
    }

    /// The text of `sql/<name>`: from `--sql-dir` if that has it, else embedded.
    pub fn sql_text(&self, name: &str) -> Result<String> {
        if let Some(path) = self.overriding(name) {
            return std::fs::read_to_string(&path).map_err(Error::io(path));
        }
        crate::sql_files::builtin(name)
            .map(str::to_string)
            .ok_or_else(|| Error::MissingSql { name: name.into() })
    }

    /// `--sql-dir`'s copy of `sql/<name>`, if it has one.
    fn overriding(&self, name: &str) -> Option<PathBuf> {
        let path = self.sql_dir.as_ref()?.join(name);
        path.exists().then_some(path)
    }

    /// Where `sql/<name>`'s text comes from, as errors name it.
    pub fn sql_source(&self, name: &str) -> String {
        match self.overriding(name) {
            Some(path) => path.display().to_string(),
            None => format!("sql/{name}"),
        }
    }

    /// Plans `sql/<name>` with `params` bound.
    pub async fn query_file(&self, name: &str, params: &Params) -> Result<DataFrame> {
        let sql = self.sql_text(name)?;
        let started = Instant::now();
        let df = self
            .plan(&sql, params)
            .await
            .map_err(|e| with_context(e, &format!("running {}", self.sql_source(name))))?;
        self.clock.planned(name, started.elapsed());
        Ok(df)
    }

    /// Table `name` as it is, read on the clock as `table NAME`.
    pub async fn table(&self, name: &str) -> Result<DataFrame> {
        let started = Instant::now();
        let df = self.ctx.table(name).await.map_err(Error::sql(name))?;
        self.clock
            .planned(&format!("table {name}"), started.elapsed());
        Ok(df)
    }

    /// Plans a SQL statement with `params` bound.
    pub async fn query(&self, sql: &str, params: &Params) -> Result<DataFrame> {
        let started = Instant::now();
        let df = self.plan(sql, params).await?;
        self.clock
            .planned(&clock::inline_label(sql), started.elapsed());
        Ok(df)
    }

    async fn plan(&self, sql: &str, params: &Params) -> Result<DataFrame> {
        let context = "running SQL";
        let df = self.ctx.sql(sql).await.map_err(Error::sql(context))?;
        let values = params.used_by(sql);
        if values.is_empty() {
            return Ok(df);
        }
        df.with_param_values(values).map_err(Error::sql(context))
    }

    /// Plans a query of the user's that may only read: DDL (CREATE, DROP),
    /// DML (INSERT, COPY) and statements (SET) are refused with one line.
    pub async fn query_read_only(&self, sql: &str) -> Result<DataFrame> {
        bounds::check_query_size(sql)?;
        let plan = self
            .ctx
            .state()
            .create_logical_plan(sql)
            .await
            .map_err(|e| {
                let why = crate::error::one_line(&e);
                Error::Usage(format!("planning the query: {why}"))
            })?;
        let read_only = SQLOptions::new()
            .with_allow_ddl(false)
            .with_allow_dml(false)
            .with_allow_statements(false);
        if let Err(refused) = read_only.verify_plan(&plan) {
            let why = match refused {
                DataFusionError::Plan(why) => why,
                other => other.to_string(),
            };
            return Err(Error::Usage(format!(
                "`langcrawl sql` only reads the crawl: {why} (the phases write it)"
            )));
        }
        self.ctx
            .execute_logical_plan(plan)
            .await
            .map_err(Error::sql("planning the query"))
    }

    /// Registers an empty table with `schema` (a segment that does not exist yet).
    pub fn register_empty(&self, name: &str, schema: SchemaRef) -> Result<()> {
        self.register_batches(name, schema, Vec::new())
    }

    /// Registers in-memory batches as table `name`.
    pub fn register_batches(
        &self,
        name: &str,
        schema: SchemaRef,
        batches: Vec<datafusion::arrow::array::RecordBatch>,
    ) -> Result<()> {
        self.register_memory(name, schema, batches).map(|_| ())
    }

    /// [`register_batches`](Self::register_batches), returning the table
    /// registered (to tell it from one registered later under `name`).
    fn register_memory(
        &self,
        name: &str,
        schema: SchemaRef,
        batches: Vec<datafusion::arrow::array::RecordBatch>,
    ) -> Result<Arc<dyn datafusion::datasource::TableProvider>> {
        self.deregister(name)?;
        let table = MemTable::try_new(schema, vec![batches]).map_err(Error::sql(name))?;
        let table: Arc<dyn datafusion::datasource::TableProvider> = Arc::new(table);
        self.ctx
            .register_table(name, Arc::clone(&table))
            .map_err(Error::sql(name))?;
        Ok(table)
    }

    /// Registers a CSV table (with a header row) as table `name`: the file
    /// `path` if given, else the built-in `sql/<builtin>` (or its copy in
    /// `--sql-dir`). Columns are read by position as `schema`'s.
    pub fn register_csv(
        &self,
        name: &str,
        schema: SchemaRef,
        path: Option<&Path>,
        builtin: &str,
    ) -> Result<()> {
        let (origin, text) = match path {
            Some(path) => (
                path.display().to_string(),
                std::fs::read_to_string(path).map_err(|e| {
                    Error::Usage(format!("reading table {name} from {}: {e}", path.display()))
                })?,
            ),
            None => (format!("sql/{builtin}"), self.sql_text(builtin)?),
        };
        let bad_table = |e: datafusion::arrow::error::ArrowError| {
            Error::Usage(format!("table {name} in {origin}: {e}"))
        };
        let reader = datafusion::arrow::csv::ReaderBuilder::new(schema.clone())
            .with_header(true)
            .build(std::io::Cursor::new(text.into_bytes()))
            .map_err(bad_table)?;
        let batches = reader.collect::<Result<Vec<_>, _>>().map_err(bad_table)?;
        self.register_batches(name, schema, batches)
    }

    /// Runs `df` once and registers its rows as the table `name`: for a
    /// small result several queries read (a view runs again in each).
    pub async fn register_result(&self, name: &str, df: DataFrame) -> Result<()> {
        let planned = std::sync::Arc::new(df.schema().as_arrow().clone());
        let batches = self.collect(df).await?;
        // the batches' own schema: the plan's may differ in nullability
        let schema = batches.first().map_or(planned, |b| b.schema());
        self.register_batches(name, schema, batches)
    }

    /// Registers a planned query as view `name`.
    pub fn register_view(&self, name: &str, df: DataFrame) -> Result<()> {
        self.clock.viewed();
        self.deregister(name)?;
        self.ctx
            .register_table(name, df.into_view())
            .map_err(Error::sql(name))?;
        let mut views = self.view_names();
        if !views.iter().any(|v| v == name) {
            views.push(name.to_string());
        }
        Ok(())
    }

    /// Views registered from now on are dropped with what this returns
    /// (keep it for the phase).
    pub fn phase_views(&self) -> PhaseViews<'_> {
        PhaseViews {
            engine: self,
            from: self.view_names().len(),
        }
    }

    fn view_names(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.views
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Registers each `(name, sql file)` as a view, in order, so a later
    /// file may read an earlier view.
    pub async fn register_query_views(
        &self,
        views: &[(&str, &str)],
        params: &Params,
    ) -> Result<()> {
        for (name, file) in views {
            self.register_view(name, self.query_file(file, params).await?)?;
        }
        Ok(())
    }

    fn deregister(&self, name: &str) -> Result<()> {
        self.ctx
            .deregister_table(name)
            .map(|_| ())
            .map_err(Error::sql(name))
    }
}

/// The session settings every engine starts from.
fn session_config() -> SessionConfig {
    SessionConfig::new()
        .with_information_schema(true)
        .with_target_partitions(std::thread::available_parallelism().map_or(2, |n| n.get()))
}

/// A context with `config`, a memory pool of `memory_limit` bytes that
/// spills to disk, and langcrawl's SQL functions. Without `file_caches`, no
/// file listings, statistics or Parquet footers are kept between queries:
/// a table's folder holds other files from one round to the next.
pub(crate) fn local_context(
    config: SessionConfig,
    memory_limit: usize,
    file_caches: bool,
) -> SessionContext {
    let pool: Arc<dyn MemoryPool> = if memory_limit == crate::memory::UNLIMITED {
        Arc::new(UnboundedMemoryPool::default())
    } else {
        Arc::new(FairSpillPool::new(memory_limit))
    };
    let mut runtime = RuntimeEnvBuilder::new()
        .with_memory_pool(pool)
        .with_disk_manager_builder(DiskManagerBuilder::default());
    if !file_caches {
        runtime = runtime
            .with_metadata_cache_limit(0)
            .with_object_list_cache_limit(0);
    }
    let runtime = runtime.build_arc();
    let ctx = match runtime {
        Ok(runtime) => SessionContext::new_with_config_rt(config, runtime),
        Err(e) => {
            eprintln!("langcrawl: warning: SQL runs without a memory limit: {e}");
            SessionContext::new_with_config(config)
        }
    };
    crate::functions::register(&ctx);
    ctx
}

/// The current time as a SQL parameter (`$now`, a UTC timestamp).
pub fn now() -> ScalarValue {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    timestamp(ms)
}

/// A time in milliseconds since 1970 as a SQL parameter (a UTC timestamp).
pub fn timestamp(ms: i64) -> ScalarValue {
    ScalarValue::TimestampMillisecond(Some(ms), Some("UTC".into()))
}

fn with_context(error: Error, context: &str) -> Error {
    match error {
        Error::Sql { source, .. } => Error::Sql {
            context: context.to_string(),
            source,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests;
