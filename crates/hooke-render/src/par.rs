//! Frames drawn and encoded on every core: a picture's frames do not depend on one another,
//! so a run's GIF costs its wall time divided by the cores (the simulation has finished
//! when they are drawn).

/// `f(i)` for every `i` in `0..n`, in order, spread in contiguous runs over the machine's
/// cores (scoped threads); on the calling thread alone where there is one core or threads
/// cannot be made (the browser).
pub(crate) fn map_indexed<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let threads = cores.min(n);
    if threads <= 1 {
        return (0..n).map(f).collect();
    }
    let per = n.div_ceil(threads);
    let f = &f;
    std::thread::scope(|s| {
        let runs: Vec<_> = (0..threads)
            .map(|t| s.spawn(move || (t * per..n.min((t + 1) * per)).map(f).collect::<Vec<T>>()))
            .collect();
        (runs.into_iter())
            .flat_map(|r| r.join().expect("a frame's thread panicked"))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn results_come_in_order() {
        for n in [0, 1, 2, 7, 64] {
            let v = super::map_indexed(n, |i| i * i);
            assert_eq!(v, (0..n).map(|i| i * i).collect::<Vec<_>>());
        }
    }
}
