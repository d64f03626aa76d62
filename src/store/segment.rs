//! Reading and writing segments: a segment is a folder of Parquet files,
//! written into a temp folder and renamed into place when complete (each
//! file and folder flushed to disk before its rename). Writers close a row
//! group at [`ROW_GROUP_BYTES`] in memory or [`ROW_GROUP_ROWS`] rows, so a
//! segment of pages never holds more than one bounded row group in memory.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use datafusion::arrow::array::{new_null_array, ArrayRef, RecordBatch};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::basic::{Compression, ZstdLevel};
use datafusion::parquet::file::properties::WriterProperties;

use super::durable::{rename_synced, sync_dir, sync_file};
use super::layout::{aside_for, temp_dir_for};
use crate::error::{Error, Result};

/// A new name for a segment's Parquet file, never used before: a file is
/// never replaced under its name, so a reader holding an old listing finds
/// the file gone rather than another file in its place.
fn new_part_file_name() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("part-{nanos:x}-{:x}-{n}.parquet", std::process::id())
}

/// A row group is closed when the writer holds this many bytes for it.
pub const ROW_GROUP_BYTES: usize = 32 << 20;
/// A row group is closed at this many rows, whatever their size.
pub const ROW_GROUP_ROWS: usize = 128 * 1024;

/// Writes one segment: rows go to `<segment>.tmp-<pid>/part-<new name>.parquet`;
/// [`SegmentWriter::finish`] closes the file and returns the staged folder.
pub struct SegmentWriter {
    final_dir: PathBuf,
    temp_dir: PathBuf,
    /// Removes `temp_dir` if the writer is dropped unfinished.
    guard: TempGuard,
    file: PathBuf,
    schema: SchemaRef,
    writer: ArrowWriter<File>,
    rows: usize,
    row_group_bytes: usize,
    /// Flushed to disk when finished; a scratch file is not (and not
    /// compressed): it is read once or twice and removed.
    durable: bool,
}

/// A complete segment folder that is not yet in its final place; dropped
/// uncommitted, it is removed.
#[must_use = "a staged segment must be committed"]
pub struct Staged {
    pub temp_dir: PathBuf,
    /// The Parquet file in `temp_dir`.
    pub file: PathBuf,
    pub final_dir: PathBuf,
    pub rows: usize,
    guard: TempGuard,
}

/// A temp folder, removed when this is dropped unless it was handed on: a
/// phase that fails with an error leaves no half segment behind (one
/// that is killed leaves it to the next writer's recovery).
#[derive(Debug)]
struct TempGuard(Option<PathBuf>);

impl TempGuard {
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for TempGuard {
    fn drop(&mut self) {
        if let Some(dir) = self.0.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

impl Staged {
    /// Renames the staged folder's one Parquet file to `file` (replacing
    /// it) and removes the folder: a table exported as a single file.
    pub fn commit_file(mut self, file: &Path) -> Result<usize> {
        rename_synced(&self.file, file)?;
        std::fs::remove_dir(&self.temp_dir).map_err(Error::io(&self.temp_dir))?;
        self.guard.disarm();
        Ok(self.rows)
    }

    /// Renames the staged folder into place; refuses to overwrite.
    pub fn commit(mut self) -> Result<usize> {
        if self.final_dir.exists() {
            return Err(Error::SegmentWrite {
                path: self.final_dir.clone(),
                message: "already exists".into(),
            });
        }
        rename_synced(&self.temp_dir, &self.final_dir)?;
        self.guard.disarm();
        Ok(self.rows)
    }

    /// Renames the staged folder into place, replacing a folder that is
    /// there (for derived segments only: the old one is moved aside first
    /// and removed last, and a crash in between leaves it to be cleaned up).
    pub fn replace(mut self) -> Result<usize> {
        if self.final_dir.exists() {
            let aside = aside_for(&self.final_dir);
            rename_synced(&self.final_dir, &aside)?;
            rename_synced(&self.temp_dir, &self.final_dir)?;
            self.guard.disarm();
            std::fs::remove_dir_all(&aside).map_err(Error::io(&aside))?;
            return Ok(self.rows);
        }
        self.commit()
    }

    /// A staged segment of the folder `temp_dir` as found (a test's
    /// leftover), never removed by this.
    #[cfg(test)]
    pub(crate) fn found(temp_dir: PathBuf, final_dir: PathBuf) -> Self {
        Staged {
            file: temp_dir.join("part-0.parquet"),
            temp_dir,
            final_dir,
            rows: 0,
            guard: TempGuard(None),
        }
    }

    /// Hands the staged folder on as it is (to a caller that moves it into
    /// place itself, or reads it as scratch and removes it): no longer
    /// removed when this is dropped.
    pub fn hand_on(mut self) -> PathBuf {
        self.guard.disarm();
        self.temp_dir
    }
}

impl SegmentWriter {
    pub fn create(final_dir: &Path, schema: SchemaRef) -> Result<Self> {
        Self::create_with_limits(final_dir, schema, ROW_GROUP_BYTES, ROW_GROUP_ROWS)
    }

    /// A writer for rows a phase stages for its own later queries and
    /// never commits: uncompressed, and not flushed to disk.
    pub fn scratch(final_dir: &Path, schema: SchemaRef) -> Result<Self> {
        Self::open(final_dir, schema, ROW_GROUP_BYTES, ROW_GROUP_ROWS, false)
    }

    /// A writer whose row groups close at `row_group_bytes` in memory or
    /// `row_group_rows` rows.
    pub fn create_with_limits(
        final_dir: &Path,
        schema: SchemaRef,
        row_group_bytes: usize,
        row_group_rows: usize,
    ) -> Result<Self> {
        Self::open(final_dir, schema, row_group_bytes, row_group_rows, true)
    }

    fn open(
        final_dir: &Path,
        schema: SchemaRef,
        row_group_bytes: usize,
        row_group_rows: usize,
        durable: bool,
    ) -> Result<Self> {
        let temp_dir = temp_dir_for(final_dir);
        if temp_dir.exists() {
            std::fs::remove_dir_all(&temp_dir).map_err(Error::io(&temp_dir))?;
        }
        std::fs::create_dir_all(&temp_dir).map_err(Error::io(&temp_dir))?;
        let guard = TempGuard(Some(temp_dir.clone()));
        let path = temp_dir.join(new_part_file_name());
        let file = File::create(&path).map_err(Error::io(&path))?;
        let props = WriterProperties::builder()
            .set_compression(if durable {
                Compression::ZSTD(ZstdLevel::default())
            } else {
                Compression::UNCOMPRESSED
            })
            .set_max_row_group_row_count(Some(row_group_rows.max(1)))
            .set_max_row_group_bytes(Some(row_group_bytes.max(1)))
            .build();
        let writer = ArrowWriter::try_new(file, schema.clone(), Some(props))
            .map_err(|e| write_error(&path, e))?;
        Ok(SegmentWriter {
            final_dir: final_dir.to_path_buf(),
            temp_dir,
            guard,
            file: path,
            schema,
            writer,
            rows: 0,
            row_group_bytes: row_group_bytes.max(1),
            durable,
        })
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Writes a batch, cast by column name to the segment's schema. A big
    /// batch goes in slices (the Parquet writer would put a first batch
    /// whole into one row group), and a row group is closed when the
    /// writer's memory for it reaches the limit.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let batch = conform(batch, &self.schema).map_err(|m| self.error(m))?;
        self.rows += batch.num_rows();
        let step = rows_per_slice(&batch, self.row_group_bytes);
        let mut offset = 0;
        while offset < batch.num_rows() {
            let len = step.min(batch.num_rows() - offset);
            let slice = batch.slice(offset, len);
            self.writer.write(&slice).map_err(|e| self.error(e))?;
            offset += len;
            if self.writer.memory_size() >= self.row_group_bytes {
                self.writer.flush().map_err(|e| self.error(e))?;
            }
        }
        Ok(())
    }

    /// Closes the file, flushes it and its folder to disk, and returns the
    /// staged segment.
    pub fn finish(self) -> Result<Staged> {
        let path = self.file;
        let file = self
            .writer
            .into_inner()
            .map_err(|e| write_error(&path, e))?;
        if self.durable {
            sync_file(&file, &path)?;
            sync_dir(&self.temp_dir)?;
        }
        Ok(Staged {
            temp_dir: self.temp_dir,
            file: path,
            final_dir: self.final_dir,
            rows: self.rows,
            guard: self.guard,
        })
    }

    fn error(&self, message: impl ToString) -> Error {
        write_error(&self.final_dir, message)
    }
}

/// Rows of `batch` written at a time: about a quarter of a row group's
/// bytes, at least one row.
fn rows_per_slice(batch: &RecordBatch, row_group_bytes: usize) -> usize {
    let per_row = batch
        .get_array_memory_size()
        .div_ceil(batch.num_rows().max(1))
        .max(1);
    (row_group_bytes / 4 / per_row).max(1)
}

fn write_error(path: &Path, message: impl ToString) -> Error {
    Error::SegmentWrite {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

/// Projects and casts `batch` to `schema` by column name; a column the
/// batch lacks is all nulls if the schema allows it.
pub fn conform(batch: &RecordBatch, schema: &SchemaRef) -> Result<RecordBatch, String> {
    let columns = schema
        .fields()
        .iter()
        .map(|field| {
            let Some(column) = batch.column_by_name(field.name()) else {
                if field.is_nullable() {
                    return Ok(new_null_array(field.data_type(), batch.num_rows()));
                }
                return Err(format!("missing column {}", field.name()));
            };
            if column.data_type() == field.data_type() {
                return Ok(column.clone());
            }
            cast(column, field.data_type()).map_err(|e| format!("column {}: {e}", field.name()))
        })
        .collect::<Result<Vec<ArrayRef>, String>>()?;
    RecordBatch::try_new(schema.clone(), columns).map_err(|e| e.to_string())
}

/// The Parquet files of a segment folder, sorted.
pub fn part_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).map_err(Error::io(dir))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .collect();
    files.sort();
    Ok(files)
}

/// Checks that every file of a segment has a readable Parquet footer, so a
/// failure can name the file at fault.
pub fn check_footers(dir: &Path) -> Result<()> {
    for path in part_files(dir)? {
        metadata(&path)?;
    }
    Ok(())
}

/// [`check_footers`], and that every file is one of `schema`'s table: a
/// file with a column the table has never had (another table's file put
/// in the segment) is named, where reading it as `schema` would give rows
/// of NULLs. A file may lack columns (an older version wrote it): no
/// column has ever been dropped from a table, only added.
pub fn check_files_of(dir: &Path, schema: &SchemaRef) -> Result<()> {
    for path in part_files(dir)? {
        let reader = footer(&path)?;
        let foreign: Vec<&str> = reader
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .filter(|name| schema.field_with_name(name).is_err())
            .collect();
        if !foreign.is_empty() {
            return Err(Error::SegmentRead {
                path,
                message: format!(
                    "not a file of this table: it has columns the table never had ({}); \
                     move it out of the segment",
                    foreign.join(", ")
                ),
            });
        }
    }
    Ok(())
}

/// The rows of a segment, as its files' footers count them.
pub fn row_count(dir: &Path) -> Result<usize> {
    let mut rows = 0;
    for path in part_files(dir)? {
        rows += metadata(&path)?.file_metadata().num_rows().max(0) as usize;
    }
    Ok(rows)
}

/// The largest mean row size (uncompressed bytes) of any row group of a
/// segment: what a reader of `n` rows at a time may hold, about, is `n`
/// times this (the writer closes row groups by size, so a large row sits
/// in a small row group).
pub fn largest_row_bytes(dir: &Path) -> Result<usize> {
    let mut largest = 0;
    for path in part_files(dir)? {
        for group in metadata(&path)?.row_groups() {
            let rows = group.num_rows().max(1) as usize;
            largest = largest.max(group.total_byte_size().max(0) as usize / rows);
        }
    }
    Ok(largest)
}

/// A Parquet file's footer.
fn metadata(
    path: &Path,
) -> Result<std::sync::Arc<datafusion::parquet::file::metadata::ParquetMetaData>> {
    Ok(footer(path)?.metadata().clone())
}

/// A Parquet file opened at its footer (its metadata and Arrow schema
/// read); an unreadable one is named.
fn footer(path: &Path) -> Result<ParquetRecordBatchReaderBuilder<File>> {
    let file = File::open(path).map_err(Error::io(path))?;
    ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| Error::SegmentRead {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Reads a segment in batches of `batch_size` rows, file by file.
pub fn read_batches(
    dir: &Path,
    batch_size: usize,
) -> Result<impl Iterator<Item = Result<RecordBatch>>> {
    read_columns(dir, batch_size, &[])
}

/// Reads the columns named `columns` of a segment (all if none are
/// named) in batches of `batch_size` rows, file by file; the other columns
/// are not decoded.
pub fn read_columns(
    dir: &Path,
    batch_size: usize,
    columns: &[&str],
) -> Result<impl Iterator<Item = Result<RecordBatch>>> {
    let files = part_files(dir)?;
    let columns: Vec<String> = columns.iter().map(|c| c.to_string()).collect();
    let readers = files.into_iter().map(move |path| {
        let read_error = |e: &dyn std::fmt::Display| Error::SegmentRead {
            path: path.clone(),
            message: e.to_string(),
        };
        let file = File::open(&path).map_err(|e| read_error(&e))?;
        let mut builder = ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(|e| read_error(&e))?
            .with_batch_size(batch_size);
        if !columns.is_empty() {
            let mask = datafusion::parquet::arrow::ProjectionMask::columns(
                builder.parquet_schema(),
                columns.iter().map(String::as_str),
            );
            builder = builder.with_projection(mask);
        }
        let reader = builder.build().map_err(|e| read_error(&e))?;
        let path = path.clone();
        Ok(reader.map(move |batch| {
            batch.map_err(|e| Error::SegmentRead {
                path: path.clone(),
                message: e.to_string(),
            })
        }))
    });
    Ok(readers.flat_map(
        |reader: Result<_>| -> Box<dyn Iterator<Item = Result<RecordBatch>>> {
            match reader {
                Ok(batches) => Box::new(batches),
                Err(e) => Box::new(std::iter::once(Err(e))),
            }
        },
    ))
}

#[cfg(test)]
#[path = "segment_tests.rs"]
mod tests;
