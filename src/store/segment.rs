//! Reading and writing segments: a segment is a folder of Parquet files,
//! written into a temp folder and renamed into place when complete.

use std::fs::File;
use std::path::{Path, PathBuf};

use datafusion::arrow::array::{new_null_array, ArrayRef, RecordBatch};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::basic::{Compression, ZstdLevel};
use datafusion::parquet::file::properties::WriterProperties;

use super::layout::temp_dir_for;
use crate::error::{Error, Result};

const PART_FILE: &str = "part-0.parquet";

/// Writes one segment: rows go to `<segment>.tmp-<pid>/part-0.parquet`;
/// [`SegmentWriter::finish`] closes the file and returns the staged folder.
pub struct SegmentWriter {
    final_dir: PathBuf,
    temp_dir: PathBuf,
    schema: SchemaRef,
    writer: ArrowWriter<File>,
    rows: usize,
}

/// A complete segment folder that is not yet in its final place.
#[must_use = "a staged segment must be committed"]
pub struct Staged {
    pub temp_dir: PathBuf,
    pub final_dir: PathBuf,
    pub rows: usize,
}

impl Staged {
    /// Renames the staged folder into place; refuses to overwrite.
    pub fn commit(self) -> Result<usize> {
        if self.final_dir.exists() {
            return Err(Error::SegmentWrite {
                path: self.final_dir,
                message: "already exists".into(),
            });
        }
        std::fs::rename(&self.temp_dir, &self.final_dir).map_err(Error::io(&self.temp_dir))?;
        Ok(self.rows)
    }

    /// Renames the staged folder into place, replacing a folder that is
    /// there (for derived segments only: the old one is moved aside first
    /// and removed last, and a crash in between leaves it to be cleaned up).
    pub fn replace(self) -> Result<usize> {
        if self.final_dir.exists() {
            let aside = PathBuf::from(format!("{}-old", temp_dir_for(&self.final_dir).display()));
            std::fs::rename(&self.final_dir, &aside).map_err(Error::io(&self.final_dir))?;
            std::fs::rename(&self.temp_dir, &self.final_dir).map_err(Error::io(&self.temp_dir))?;
            std::fs::remove_dir_all(&aside).map_err(Error::io(&aside))?;
            return Ok(self.rows);
        }
        self.commit()
    }
}

impl SegmentWriter {
    pub fn create(final_dir: &Path, schema: SchemaRef) -> Result<Self> {
        let temp_dir = temp_dir_for(final_dir);
        if temp_dir.exists() {
            std::fs::remove_dir_all(&temp_dir).map_err(Error::io(&temp_dir))?;
        }
        std::fs::create_dir_all(&temp_dir).map_err(Error::io(&temp_dir))?;
        let path = temp_dir.join(PART_FILE);
        let file = File::create(&path).map_err(Error::io(&path))?;
        let props = WriterProperties::builder()
            .set_compression(Compression::ZSTD(ZstdLevel::default()))
            .build();
        let writer = ArrowWriter::try_new(file, schema.clone(), Some(props))
            .map_err(|e| write_error(&path, e))?;
        Ok(SegmentWriter {
            final_dir: final_dir.to_path_buf(),
            temp_dir,
            schema,
            writer,
            rows: 0,
        })
    }

    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Writes a batch, cast by column name to the segment's schema.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let batch = conform(batch, &self.schema).map_err(|m| self.error(m))?;
        self.rows += batch.num_rows();
        self.writer.write(&batch).map_err(|e| self.error(e))
    }

    pub fn finish(self) -> Result<Staged> {
        let path = self.temp_dir.join(PART_FILE);
        self.writer.close().map_err(|e| write_error(&path, e))?;
        Ok(Staged {
            temp_dir: self.temp_dir,
            final_dir: self.final_dir,
            rows: self.rows,
        })
    }

    fn error(&self, message: impl ToString) -> Error {
        write_error(&self.final_dir, message)
    }
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
        let file = File::open(&path).map_err(Error::io(&path))?;
        ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| Error::SegmentRead {
            path: path.clone(),
            message: e.to_string(),
        })?;
    }
    Ok(())
}

/// Reads a segment in batches of `batch_size` rows, file by file.
pub fn read_batches(
    dir: &Path,
    batch_size: usize,
) -> Result<impl Iterator<Item = Result<RecordBatch>>> {
    let files = part_files(dir)?;
    let readers = files.into_iter().map(move |path| {
        let read_error = |e: &dyn std::fmt::Display| Error::SegmentRead {
            path: path.clone(),
            message: e.to_string(),
        };
        let file = File::open(&path).map_err(|e| read_error(&e))?;
        let reader = ParquetRecordBatchReaderBuilder::try_new(file)
            .map_err(|e| read_error(&e))?
            .with_batch_size(batch_size)
            .build()
            .map_err(|e| read_error(&e))?;
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
mod tests {
    use super::*;
    use crate::store::schema::FETCHLIST;
    use datafusion::arrow::array::{Float64Array, Int32Array, StringArray};
    use std::sync::Arc;

    #[test]
    fn a_segment_is_invisible_until_committed_and_reads_back() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("fetchlist");
        let mut writer = SegmentWriter::create(&dir, FETCHLIST.clone()).unwrap();
        let batch = RecordBatch::try_new(
            FETCHLIST.clone(),
            vec![
                Arc::new(StringArray::from(vec!["http://a.jp/"])),
                Arc::new(StringArray::from(vec!["a.jp"])),
                Arc::new(Int32Array::from(vec![0])),
                Arc::new(Float64Array::from(vec![1.0])),
            ],
        )
        .unwrap();
        writer.write(&batch).unwrap();
        let staged = writer.finish().unwrap();
        assert!(!dir.exists());
        assert_eq!(staged.commit().unwrap(), 1);
        let rows: usize = read_batches(&dir, 10)
            .unwrap()
            .map(|b| b.unwrap().num_rows())
            .sum();
        assert_eq!(rows, 1);
    }

    #[test]
    fn a_corrupt_file_is_an_error_naming_it() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("part-0.parquet"), b"not parquet").unwrap();
        let err = read_batches(tmp.path(), 10)
            .unwrap()
            .next()
            .unwrap()
            .unwrap_err();
        assert!(err.to_string().contains("part-0.parquet"), "{err}");
    }
}
