//! Registering a segment folder's Parquet files as a table: as the files
//! say, read with a schema (older segments' missing columns as NULL), or
//! for look-ups, filters applied while decoding.

use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::datasource::file_format::options::ReadOptions;
use datafusion::prelude::ParquetReadOptions;

use super::Engine;
use crate::error::{Error, Result};
use crate::store::segment::{check_files_of, check_footers};

impl Engine {
    /// Registers the Parquet files of a segment folder as table `name`.
    pub async fn register_segment(&self, name: &str, dir: &Path) -> Result<()> {
        self.deregister(name)?;
        let path = dir.to_string_lossy();
        let registered = self
            .ctx
            .register_parquet(name, path.as_ref(), ParquetReadOptions::default())
            .await;
        if registered.is_err() {
            check_footers(dir)?;
        }
        registered.map_err(Error::sql(format!("reading segment {}", dir.display())))
    }

    /// Registers the Parquet files of a segment folder as table `name`, read
    /// with `schema` with every column nullable: a column a file lacks (a
    /// segment written by an older version) reads as NULL.
    pub async fn register_segment_as(
        &self,
        name: &str,
        dir: &Path,
        schema: &SchemaRef,
    ) -> Result<()> {
        self.register_with_schema(name, dir, schema, false).await
    }

    /// [`register_segment_as`](Self::register_segment_as) for a large table
    /// a query joins to a few keys (a replay's web, looked up a round at a
    /// time): its filters, the joins' dynamic ones among them, are applied
    /// while the Parquet is decoded, so its other columns are decoded for
    /// the matching rows only.
    pub async fn register_lookup_segment(
        &self,
        name: &str,
        dir: &Path,
        schema: &SchemaRef,
    ) -> Result<()> {
        self.register_with_schema(name, dir, schema, true).await
    }

    async fn register_with_schema(
        &self,
        name: &str,
        dir: &Path,
        schema: &SchemaRef,
        pushdown_filters: bool,
    ) -> Result<()> {
        self.deregister(name)?;
        // With the schema given, no file is read until a query runs: a
        // corrupt file, or another table's, is named here rather than in
        // the query's error or as rows of NULLs.
        check_files_of(dir, schema)?;
        let mut table_options = self.ctx.copied_table_options();
        table_options.parquet.global.pushdown_filters = pushdown_filters;
        let listing = ParquetReadOptions::default()
            .to_listing_options(&self.ctx.copied_config(), table_options);
        self.ctx
            .register_listing_table(
                name,
                dir.to_string_lossy().as_ref(),
                listing,
                Some(nullable(schema)),
                None,
            )
            .await
            .map_err(Error::sql(format!("reading segment {}", dir.display())))
    }
}

/// `schema` with every column nullable.
pub(super) fn nullable(schema: &SchemaRef) -> SchemaRef {
    let fields: Vec<_> = schema
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_nullable(true))
        .collect();
    Arc::new(Schema::new(fields))
}
