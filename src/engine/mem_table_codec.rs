//! Ballista sends the client's logical plans to its scheduler as protobuf,
//! and DataFusion's codec knows Parquet and CSV listings but not tables
//! held in memory. langcrawl registers a few (the seeds, the strategy's CSV
//! tables, the learned models, replay's oracle): this codec carries them in
//! the plan as Arrow IPC and leaves every other node to Ballista's own codec.

use std::sync::Arc;

use ballista_core::serde::BallistaLogicalExtensionCodec;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::ipc::reader::StreamReader;
use datafusion::arrow::ipc::writer::StreamWriter;
use datafusion::catalog::TableProvider;
use datafusion::common::{DataFusionError, Result, TableReference};
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::datasource::MemTable;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{AggregateUDF, Extension, LogicalPlan, ScalarUDF, WindowUDF};
use datafusion_proto::logical_plan::LogicalExtensionCodec;

/// The first byte of an encoded table: ours, or Ballista's.
const MEMORY_TABLE: u8 = 1;
const OTHER: u8 = 0;

/// Ballista's logical codec, plus in-memory tables.
#[derive(Debug, Default)]
pub struct MemTableCodec {
    ballista: BallistaLogicalExtensionCodec,
}

impl LogicalExtensionCodec for MemTableCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.ballista.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.ballista.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        match buf.split_first() {
            Some((&MEMORY_TABLE, ipc)) => Ok(Arc::new(decode_batches(ipc, schema)?)),
            Some((&OTHER, rest)) => self
                .ballista
                .try_decode_table_provider(rest, table_ref, schema, ctx),
            _ => Err(DataFusionError::Internal(format!(
                "table {table_ref}: not encoded by langcrawl's codec"
            ))),
        }
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        if let Some(table) = node.downcast_ref::<MemTable>() {
            buf.push(MEMORY_TABLE);
            return encode_batches(table, buf);
        }
        buf.push(OTHER);
        self.ballista
            .try_encode_table_provider(table_ref, node, buf)
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        self.ballista.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        self.ballista.try_encode_file_format(buf, node)
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.ballista.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.ballista.try_encode_udf(node, buf)
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.ballista.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.ballista.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.ballista.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.ballista.try_encode_udwf(node, buf)
    }
}

/// The table's rows, all partitions in one IPC stream.
fn encode_batches(table: &MemTable, buf: &mut Vec<u8>) -> Result<()> {
    let schema = table.schema();
    let mut writer = StreamWriter::try_new(&mut *buf, &schema)?;
    for partition in &table.batches {
        let batches = partition.try_read().map_err(|_| {
            DataFusionError::Execution("an in-memory table is being written to".into())
        })?;
        for batch in batches.iter() {
            writer.write(batch)?;
        }
    }
    writer.finish()?;
    Ok(())
}

fn decode_batches(ipc: &[u8], schema: SchemaRef) -> Result<MemTable> {
    let reader = StreamReader::try_new(ipc, None)?;
    let mut batches = reader.collect::<Result<Vec<RecordBatch>, _>>()?;
    if batches.is_empty() {
        // A partition without batches never finishes its Ballista stage.
        batches.push(RecordBatch::new_empty(schema.clone()));
    }
    MemTable::try_new(schema, vec![batches])
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{Int64Array, StringArray};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};

    #[tokio::test]
    async fn an_in_memory_table_crosses_the_codec_whole() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("tld", DataType::Utf8, false),
            Field::new("n", DataType::Int64, true),
        ]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(StringArray::from(vec!["jp", "cn"])),
                Arc::new(Int64Array::from(vec![Some(1), None])),
            ],
        )
        .unwrap();
        let table = MemTable::try_new(schema.clone(), vec![vec![batch.clone()], vec![]]).unwrap();
        let codec = MemTableCodec::default();
        let mut buf = Vec::new();
        let name = TableReference::bare("target_tlds");
        codec
            .try_encode_table_provider(&name, Arc::new(table), &mut buf)
            .unwrap();
        let ctx = datafusion::prelude::SessionContext::new();
        let decoded = codec
            .try_decode_table_provider(&buf, &name, schema, &ctx.task_ctx())
            .unwrap();
        ctx.register_table("t", decoded).unwrap();
        let rows = ctx.table("t").await.unwrap().collect().await.unwrap();
        assert_eq!(rows, vec![batch]);
        let err = codec
            .try_decode_table_provider(&[7], &name, Arc::new(Schema::empty()), &ctx.task_ctx())
            .unwrap_err();
        assert!(err.to_string().contains("target_tlds"), "{err}");
    }
}
