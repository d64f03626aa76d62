//! Parse's worker threads: one per core for the whole phase, taking the
//! fetch rows batch by batch, so that what a thread keeps warm (the
//! n-grams it looked up, the words it scored and the anchors it named
//! lately) serves every page it parses, and the phase's reading and
//! writing go on while the workers parse. Results come back in the
//! batches' order, whichever worker finishes first.

use std::collections::{BTreeMap, VecDeque};
use std::path::Path;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

use datafusion::arrow::array::RecordBatch;

use super::{fetched_pages, guard, page, parse_one, Parsed};
use crate::error::{Error, Result};

/// Batches handed out and not yet taken back, per worker: enough that a
/// worker never waits for the next, few enough to bound the pages held.
const IN_FLIGHT_PER_WORKER: usize = 2;

type Outcome = (u64, Result<Vec<Parsed>>);

/// Parses every batch of `batches` (read from the fetch segment
/// `fetched`) on `workers` threads and gives each batch's rows read and
/// results to `take`, in the batches' order.
pub fn parse_all(
    fetched: &Path,
    batches: impl Iterator<Item = Result<RecordBatch>>,
    target: Option<&str>,
    workers: usize,
    mut take: impl FnMut(usize, Vec<Parsed>) -> Result<()>,
) -> Result<()> {
    let workers = workers.max(1);
    let (jobs, queue) = channel::<(u64, RecordBatch)>();
    let queue = Arc::new(Mutex::new(queue));
    let (done, outcomes) = channel::<Outcome>();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let (queue, done) = (queue.clone(), done.clone());
            scope.spawn(move || work(&queue, &done, target));
        }
        drop(done);
        let mut order = InOrder::new(outcomes, fetched);
        let result = (|| {
            for (seq, batch) in (0u64..).zip(batches) {
                let batch = batch?;
                order.sent.push_back(batch.num_rows());
                let _ = jobs.send((seq, batch));
                while order.sent.len() >= workers * IN_FLIGHT_PER_WORKER {
                    order.take_next(&mut take)?;
                }
            }
            while !order.sent.is_empty() {
                order.take_next(&mut take)?;
            }
            Ok(())
        })();
        drop(jobs);
        result
    })
}

/// A worker's loop: the next batch, parsed, until the queue closes. A
/// panic outside the per-page guard fails its batch, not the phase.
fn work(queue: &Mutex<Receiver<(u64, RecordBatch)>>, done: &Sender<Outcome>, target: Option<&str>) {
    loop {
        let job = queue.lock().map_or(None, |q| q.recv().ok());
        let Some((seq, batch)) = job else { return };
        let parsed = guard::catch(|| {
            let inputs = fetched_pages(&batch)?;
            Ok(inputs.iter().map(|page| parse_one(page, target)).collect())
        });
        let outcome = parsed.unwrap_or_else(|panic| failed_batch(&batch, &panic));
        if done.send((seq, outcome)).is_err() {
            return;
        }
    }
}

/// Every page of a batch whose parse stopped outside the page guard, as
/// a failed page.
fn failed_batch(batch: &RecordBatch, why: &str) -> Result<Vec<Parsed>> {
    let inputs = fetched_pages(batch)?;
    let why = format!("internal error: {why}");
    Ok(inputs
        .iter()
        .map(|input| Parsed::of_page(page::failed(input, why.clone())))
        .collect())
}

/// The rows of each batch sent and not yet taken (the first is batch
/// `next`), and the outcomes that came back ahead of an earlier batch's.
/// The batches themselves are the workers': each is dropped once parsed.
struct InOrder<'a> {
    outcomes: Receiver<Outcome>,
    fetched: &'a Path,
    next: u64,
    sent: VecDeque<usize>,
    early: BTreeMap<u64, Result<Vec<Parsed>>>,
}

impl<'a> InOrder<'a> {
    fn new(outcomes: Receiver<Outcome>, fetched: &'a Path) -> Self {
        InOrder {
            outcomes,
            fetched,
            next: 0,
            sent: VecDeque::new(),
            early: BTreeMap::new(),
        }
    }

    /// Waits for the earliest batch sent and gives its results to `take`.
    fn take_next(&mut self, take: &mut impl FnMut(usize, Vec<Parsed>) -> Result<()>) -> Result<()> {
        let Some(rows) = self.sent.pop_front() else {
            return Ok(());
        };
        let seq = self.next;
        self.next += 1;
        while !self.early.contains_key(&seq) {
            let (got, outcome) = self.outcomes.recv().map_err(|_| Error::SegmentRead {
                path: self.fetched.to_path_buf(),
                message: "the parse workers stopped before its last batch".into(),
            })?;
            self.early.insert(got, outcome);
        }
        let outcome = self.early.remove(&seq).expect("checked above");
        take(rows, outcome?)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use datafusion::arrow::array::{BinaryArray, StringArray};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};

    use super::*;

    /// One fetched page a batch, the fetch segment's columns parse reads.
    fn batch(url: &str, content: &[u8]) -> Result<RecordBatch> {
        let text = |name: &str| Field::new(name, DataType::Utf8, true);
        let schema = Schema::new(vec![
            text("url"),
            text("host"),
            text("status"),
            text("content_type"),
            text("headers"),
            Field::new("content", DataType::Binary, true),
            text("redirect_to"),
        ]);
        let one = |s: Option<&str>| Arc::new(StringArray::from(vec![s]));
        let columns: Vec<Arc<dyn datafusion::arrow::array::Array>> = vec![
            one(Some(url)),
            one(Some("a.jp")),
            one(Some("fetched")),
            one(Some("text/html")),
            one(None),
            Arc::new(BinaryArray::from(vec![Some(content)])),
            one(None),
        ];
        Ok(RecordBatch::try_new(Arc::new(schema), columns).unwrap())
    }

    #[test]
    fn results_come_back_in_the_batches_order_whichever_worker_is_first() {
        let long = "<p>ภาษาไทย</p>".repeat(2000);
        let batches: Vec<_> = (0..40)
            .map(|i| {
                let body = if i % 3 == 0 {
                    long.as_str()
                } else {
                    "<p>short</p>"
                };
                batch(&format!("http://a.jp/{i}"), body.as_bytes())
            })
            .collect();
        let mut urls = Vec::new();
        parse_all(
            Path::new("fetch"),
            batches.into_iter(),
            Some("tha"),
            3,
            |_, parsed| {
                urls.extend(
                    parsed
                        .iter()
                        .filter_map(|p| p.page.as_ref())
                        .map(|p| p.url.clone()),
                );
                Ok(())
            },
        )
        .unwrap();
        let expected: Vec<String> = (0..40).map(|i| format!("http://a.jp/{i}")).collect();
        assert_eq!(urls, expected);
    }

    #[test]
    fn a_batch_parse_cannot_read_fails_the_phase_without_hanging_it() {
        let unreadable = RecordBatch::new_empty(Arc::new(Schema::new(vec![Field::new(
            "url",
            DataType::Utf8,
            true,
        )])));
        let batches = (0..10).map(|i| match i {
            5 => Ok(unreadable.clone()),
            _ => batch(&format!("http://a.jp/{i}"), b"<p>x</p>"),
        });
        let mut taken = 0;
        let outcome = parse_all(Path::new("fetch"), batches, None, 2, |_, _| {
            taken += 1;
            Ok(())
        });
        assert!(outcome.is_err());
        assert_eq!(taken, 5, "the batches before the unreadable one were taken");
        let failing_take = parse_all(
            Path::new("fetch"),
            (0..10).map(|i| batch(&i.to_string(), b"x")),
            None,
            2,
            |_, _| Err(Error::Usage("the writer failed".into())),
        );
        assert!(matches!(failing_take, Err(Error::Usage(_))));
    }
}
