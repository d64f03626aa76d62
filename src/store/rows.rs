//! Typed access to a batch's columns by name, with an error naming the
//! column when the segment does not have it.

use datafusion::arrow::array::{Array, RecordBatch, StringArray};

use crate::error::{Error, Result};

/// The column `name` of `batch` as the array type `T`.
pub fn column<'a, T: Array + 'static>(batch: &'a RecordBatch, name: &str) -> Result<&'a T> {
    batch
        .column_by_name(name)
        .and_then(|c| c.as_any().downcast_ref::<T>())
        .ok_or_else(|| {
            let wanted = std::any::type_name::<T>().rsplit("::").next();
            missing(
                name,
                &format!("none of type {}", wanted.unwrap_or_default()),
            )
        })
}

/// The value at `row` of a nullable string column, as an `Option`.
pub fn opt_str(array: &StringArray, row: usize) -> Option<&str> {
    (!array.is_null(row)).then(|| array.value(row))
}

/// The column `name` of `batch` as UTF-8 strings, whatever string type
/// the query gave (`Utf8`, `LargeUtf8`, `Utf8View`).
pub fn utf8_column(batch: &RecordBatch, name: &str) -> Result<StringArray> {
    let array = batch
        .column_by_name(name)
        .ok_or_else(|| missing(name, "no such column"))?;
    let cast =
        datafusion::arrow::compute::cast(array, &datafusion::arrow::datatypes::DataType::Utf8)
            .map_err(|e| missing(name, &e.to_string()))?;
    cast.as_any()
        .downcast_ref::<StringArray>()
        .cloned()
        .ok_or_else(|| missing(name, "not text"))
}

fn missing(column: &str, message: &str) -> Error {
    Error::Column {
        context: "reading a batch".into(),
        column: column.into(),
        message: message.into(),
    }
}
