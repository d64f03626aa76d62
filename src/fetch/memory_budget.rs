//! The page bytes fetch holds in memory at once, bounded whatever
//! `--max-content-bytes` is: before its GET, a request reserves the most
//! its body may take (the content cap), gives back what the body did not
//! use once it is read, and holds the rest until the writer has written
//! its row. With the default 8 MiB cap and 512 MiB the bound binds above
//! 64 requests in flight (the default concurrency is 32); with a 64 MiB
//! cap, 8 bodies are in memory at once and the other requests wait for
//! room.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The default bound (`--page-memory`).
pub const PAGE_MEMORY: usize = 512 << 20;

/// The budget is counted in KiB (a semaphore's permits are bounded).
const UNIT: usize = 1024;

/// Room for page bytes, shared by every request of a fetch.
#[derive(Debug, Clone)]
pub struct PageMemory {
    room: Arc<Semaphore>,
    units: usize,
}

/// Bytes reserved for one page, given back when dropped.
#[derive(Debug)]
pub struct Reserved(OwnedSemaphorePermit);

impl PageMemory {
    pub fn new(bytes: usize) -> Self {
        let units = (bytes / UNIT).clamp(1, Semaphore::MAX_PERMITS.min(u32::MAX as usize));
        PageMemory {
            room: Arc::new(Semaphore::new(units)),
            units,
        }
    }

    /// How much of the budget rows waiting to be written may hold while
    /// they wait for more rows to fill a batch: so little that a request
    /// reserving `cap` bytes always fits once the requests in flight are
    /// done (0 when the budget is no larger than a page: each row is
    /// written as it comes). Held longer, they could take the room the
    /// next request waits for, while the writer waits for its row.
    pub fn room_for_waiting_rows(&self, cap: usize) -> usize {
        (self.units * UNIT).saturating_sub(cap) / 2
    }

    /// Waits for room for `bytes` (all of the budget if it is smaller: one
    /// page at a time).
    pub async fn reserve(&self, bytes: usize) -> Reserved {
        let units = bytes.div_ceil(UNIT).clamp(1, self.units);
        let permit = self.room.clone().acquire_many_owned(units as u32).await;
        Reserved(permit.expect("the page memory semaphore is never closed"))
    }
}

impl Reserved {
    /// The bytes it holds (whole KiB: a page holds at least one).
    pub fn bytes(&self) -> usize {
        self.0.num_permits() * UNIT
    }

    /// Gives back all but `bytes` of the reservation.
    pub fn shrink_to(&mut self, bytes: usize) {
        let keep = bytes.div_ceil(UNIT).max(1);
        let extra = self.0.num_permits().saturating_sub(keep);
        drop(self.0.split(extra));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiting_rows_leave_room_for_the_largest_request() {
        // a budget no larger than a page: every row is written as it comes
        assert_eq!(PageMemory::new(4 * UNIT).room_for_waiting_rows(8 * UNIT), 0);
        assert_eq!(PageMemory::new(8 * UNIT).room_for_waiting_rows(8 * UNIT), 0);
        // else half of what a request at the cap leaves
        let memory = PageMemory::new(100 * UNIT);
        let room = memory.room_for_waiting_rows(20 * UNIT);
        assert_eq!(room, 40 * UNIT);
        assert!(room + 20 * UNIT <= 100 * UNIT);
    }

    #[tokio::test]
    async fn reservations_wait_for_room_and_give_back_what_bodies_did_not_use() {
        let memory = PageMemory::new(4 * UNIT);
        let mut first = memory.reserve(3 * UNIT).await;
        assert_eq!(memory.room.available_permits(), 1);
        first.shrink_to(UNIT / 2);
        assert_eq!(memory.room.available_permits(), 3);
        // A page larger than the budget takes all of it, once the rest is back.
        let waiting = tokio::spawn({
            let memory = memory.clone();
            async move { memory.reserve(100 * UNIT).await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        drop(first);
        let whole = waiting.await.unwrap();
        assert_eq!(memory.room.available_permits(), 0);
        drop(whole);
        assert_eq!(memory.room.available_permits(), 4);
    }
}
