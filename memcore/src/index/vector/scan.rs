//! Exact nearest-neighbour search: SIMD dot products chosen for the CPU at run time, a
//! bounded top-k, and a scan over contiguous rows split across a few threads when large.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::ops::Range;

use simsimd::SpatialSimilarity;

/// Rows below which a scan stays on the calling thread (spawning costs more than it saves).
const PARALLEL_MIN_ROWS: usize = 16_384;

/// Threads a large scan is split over at most.
const MAX_THREADS: usize = 4;

/// The dot product of two slices of equal length (0 for slices of different lengths, which
/// callers never pass).
///
/// SimSIMD picks the widest kernel the CPU offers at run time (AVX-512, AVX2, NEON, SVE), so
/// portable builds (the Python wheel, distribution packages) run as fast as native ones: the
/// compiler alone, targeting baseline x86-64, vectorised this loop two floats wide.
#[inline]
pub(super) fn dot(a: &[f32], b: &[f32]) -> f32 {
    <f32 as SpatialSimilarity>::dot(a, b).unwrap_or(0.0) as f32
}

/// A candidate: a row and its similarity to the query.
#[derive(Debug, Clone, Copy)]
struct Hit {
    /// Cosine similarity.
    score: f32,
    /// Row number.
    row: u32,
}

impl PartialEq for Hit {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Hit {}

impl PartialOrd for Hit {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Hit {
    /// Reversed, so that [`BinaryHeap`] keeps the *worst* kept hit on top: lower score first,
    /// and among equal scores the higher row (rows are kept in ascending order on ties).
    fn cmp(&self, other: &Self) -> Ordering {
        other.score.total_cmp(&self.score).then(self.row.cmp(&other.row))
    }
}

/// The `k` best hits seen so far.
#[derive(Debug)]
pub(super) struct TopK {
    /// How many to keep.
    k: usize,
    /// Min-heap (by [`Hit`]'s reversed order) of the kept hits.
    heap: BinaryHeap<Hit>,
}

impl TopK {
    /// An empty top-`k`.
    pub(super) fn new(k: usize) -> Self {
        Self { k, heap: BinaryHeap::with_capacity(k.saturating_add(1).min(4096)) }
    }

    /// Offers a hit; kept if it beats the worst kept one.
    #[inline]
    pub(super) fn push(&mut self, row: u32, score: f32) {
        let hit = Hit { score, row };
        if self.heap.len() < self.k {
            self.heap.push(hit);
        } else if let Some(mut worst) = self.heap.peek_mut()
            && hit < *worst
        {
            *worst = hit;
        }
    }

    /// Adds every hit of `other`.
    pub(super) fn merge(&mut self, other: TopK) {
        for hit in other.heap {
            self.push(hit.row, hit.score);
        }
    }

    /// The kept hits, best first.
    pub(super) fn into_sorted(self) -> Vec<(u32, f32)> {
        // `into_sorted_vec` is ascending by `Ord`, i.e. best first with the reversed order.
        self.heap.into_sorted_vec().into_iter().map(|h| (h.row, h.score)).collect()
    }
}

/// Scans `range` of the row-major `rows` (`dim` floats each), keeping rows for which `keep`
/// holds, and returns the `k` most similar to `query`, best first.
///
/// Large ranges are split over a few scoped threads (each with its own top-k, merged after).
pub(super) fn scan(
    rows: &[f32],
    dim: usize,
    query: &[f32],
    range: Range<usize>,
    k: usize,
    keep: &(dyn Fn(usize) -> bool + Sync),
) -> Vec<(u32, f32)> {
    let threads = if range.len() >= PARALLEL_MIN_ROWS {
        std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS)
    } else {
        1
    };
    if threads <= 1 {
        return scan_range(rows, dim, query, range, k, keep).into_sorted();
    }
    let step = range.len().div_ceil(threads);
    let parts: Vec<Range<usize>> = (0..threads)
        .map(|t| (range.start + t * step)..(range.start + (t + 1) * step).min(range.end))
        .collect();
    let mut top = TopK::new(k);
    std::thread::scope(|s| {
        let spawned: Vec<_> = parts[1..]
            .iter()
            .map(|part| {
                let part = part.clone();
                s.spawn(move || scan_range(rows, dim, query, part, k, keep))
            })
            .collect();
        top.merge(scan_range(rows, dim, query, parts[0].clone(), k, keep));
        for handle in spawned {
            match handle.join() {
                Ok(part) => top.merge(part),
                // A scan does not panic; if one ever did, re-raise it on the caller.
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    top.into_sorted()
}

/// [`scan`] on the calling thread only (for measurements).
#[cfg(test)]
pub(super) fn scan_one(
    rows: &[f32],
    dim: usize,
    query: &[f32],
    range: Range<usize>,
    k: usize,
    keep: &(dyn Fn(usize) -> bool + Sync),
) -> Vec<(u32, f32)> {
    scan_range(rows, dim, query, range, k, keep).into_sorted()
}

/// [`scan`] on the calling thread.
fn scan_range(
    rows: &[f32],
    dim: usize,
    query: &[f32],
    range: Range<usize>,
    k: usize,
    keep: &(dyn Fn(usize) -> bool + Sync),
) -> TopK {
    let mut top = TopK::new(k);
    let start = range.start;
    let Some(slab) = rows.get(range.start * dim..range.end * dim) else {
        return top;
    };
    for (i, row) in slab.chunks_exact(dim).enumerate() {
        let r = start + i;
        if keep(r) {
            top.push(r as u32, dot(query, row));
        }
    }
    top
}
