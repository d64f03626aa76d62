//! Work spread over the machine's cores: a slice mapped in one chunk per
//! core, the results in the slice's order.

/// The cores work is spread over (1 when the machine does not say).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `f` of every item, in order; the items of a chunk whose thread
/// panicked get `failed` instead, so the results still line up with the
/// items.
pub fn map<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
    failed: impl Fn(&T) -> R,
) -> Vec<R> {
    let threads = cores();
    let chunk = items.len().div_ceil(threads).max(1);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| {
                (
                    part,
                    scope.spawn(move || part.iter().map(f).collect::<Vec<_>>()),
                )
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|(part, handle)| {
                handle
                    .join()
                    .unwrap_or_else(|_| part.iter().map(&failed).collect())
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_keep_the_items_order_and_a_panicked_chunk_is_filled_in() {
        let items: Vec<u32> = (0..1000).collect();
        assert_eq!(
            super::map(&items, |n| n * 2, |_| 0),
            items.iter().map(|n| n * 2).collect::<Vec<_>>()
        );
        let out = super::map(
            &items,
            |&n| if n == 999 { panic!("boom") } else { n as i64 },
            |_| -1,
        );
        assert_eq!(out.len(), 1000);
        assert_eq!(out[999], -1);
        assert_eq!(out[0], 0);
    }
}
