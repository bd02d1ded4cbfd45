//! An order-keeping parallel map for the few places where notarai does the
//! same independent work on many items (hashing files, parsing specs).

/// Apply `f` to every item on all cores (at most 8 threads), results in input
/// order. Below `min_parallel` items, or on one core, it runs inline. Should a
/// thread panic, the items of its chunk get `on_panic` instead, so one bug
/// never takes the whole answer (or the server) down.
pub fn map<T, R>(
    items: &[T],
    min_parallel: usize,
    f: impl Fn(&T) -> R + Sync,
    on_panic: impl Fn(&T) -> R,
) -> Vec<R>
where
    T: Sync,
    R: Send,
{
    // Small inputs run inline before asking for the core count (which
    // reads the cgroup's files: a short-lived process feels it).
    if items.len() < min_parallel.max(2) {
        return items.iter().map(&f).collect();
    }
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    if threads <= 1 {
        return items.iter().map(&f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .zip(items.chunks(chunk))
            .flat_map(|(handle, part)| {
                handle
                    .join()
                    .unwrap_or_else(|_| part.iter().map(&on_panic).collect())
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn keeps_order_and_survives_a_panic() {
        let items: Vec<u32> = (0..1000).collect();
        let out = super::map(&items, 2, |i| i * 2, |_| 0);
        assert_eq!(out, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        let out = super::map(
            &items,
            2,
            |i| {
                assert!(*i != 999, "boom");
                *i
            },
            |_| u32::MAX,
        );
        assert_eq!(out.len(), 1000);
        assert_eq!(out[0], 0);
        assert_eq!(out[999], u32::MAX);
    }
}
