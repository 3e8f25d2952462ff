//! Exact nearest-neighbour search: SIMD dot products chosen for the CPU at run time, a
//! bounded top-k, and a scan over contiguous rows in memory split across a few threads when
//! large (rows kept in the log are read in order on the calling thread).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::io;
use std::ops::Range;

use simsimd::SpatialSimilarity;

use super::quantized::{QuantizedRows, QueryCodes};
use super::rows::Rows;

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

    /// The kept rows, in no particular order.
    fn into_rows(self) -> Vec<u32> {
        self.heap.into_iter().map(|hit| hit.row).collect()
    }

    /// The kept hits, best first.
    pub(super) fn into_sorted(self) -> Vec<(u32, f32)> {
        // `into_sorted_vec` is ascending by `Ord`, i.e. best first with the reversed order.
        self.heap.into_sorted_vec().into_iter().map(|h| (h.row, h.score)).collect()
    }
}

/// Scans `range` of `rows`, keeping rows for which `keep` holds, and returns the `k` most
/// similar to `query`, best first.
///
/// Large ranges of rows in memory are split over a few scoped threads (each with its own
/// top-k, merged after); rows kept on disk are read in order.
///
/// # Errors
///
/// A failed read of rows kept on disk.
pub(super) fn scan(
    rows: &Rows,
    query: &[f32],
    range: Range<usize>,
    k: usize,
    keep: &(dyn Fn(usize) -> bool + Sync),
) -> io::Result<Vec<(u32, f32)>> {
    scan_on(rows, query, within(range, rows), k, keep, Threads::Several)
}

/// Whether a scan of rows in memory may split over threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Threads {
    /// Large ranges are split (see [`top_k`]).
    Several,
    /// The calling thread only (for measurements).
    #[cfg(test)]
    One,
}

/// [`scan`] of `range` (within `rows`) on `threads`.
fn scan_on(
    rows: &Rows,
    query: &[f32],
    range: Range<usize>,
    k: usize,
    keep: &(dyn Fn(usize) -> bool + Sync),
    threads: Threads,
) -> io::Result<Vec<(u32, f32)>> {
    let Some(memory) = rows.in_memory() else {
        let wanted: Vec<u32> = range.filter(|&r| keep(r)).map(|r| r as u32).collect();
        return Ok(score(rows, query, &wanted, k)?.into_sorted());
    };
    let score = |r| dot(query, memory.get(r));
    Ok(match threads {
        Threads::Several => top_k(range, k, keep, &score),
        #[cfg(test)]
        Threads::One => top_k_here(range, k, keep, &score),
    }
    .into_sorted())
}

/// The `k` rows of `wanted` most similar to `query`, scored exactly; `wanted` in ascending
/// order reads rows kept on disk fastest.
///
/// # Errors
///
/// A failed read of rows kept on disk.
pub(super) fn score(rows: &Rows, query: &[f32], wanted: &[u32], k: usize) -> io::Result<TopK> {
    let mut top = TopK::new(k);
    rows.visit(wanted, &mut |row, vector| top.push(row, dot(query, vector)))?;
    Ok(top)
}

/// [`scan`] through the sign bits of the rows: the [`shortlist`] rows nearest by Hamming
/// distance are scored exactly on `rows`, and the `k` best of those returned, best first,
/// with exact scores. Reads a thirty-second of the bytes [`scan`] reads; a row whose signs
/// rank it below the short list while its exact score would make the top `k` is missed.
///
/// # Errors
///
/// A failed read of rows kept on disk.
pub(super) fn scan_quantized(
    rows: &Rows,
    quantized: &QuantizedRows,
    query: &[f32],
    range: Range<usize>,
    k: usize,
    keep: &(dyn Fn(usize) -> bool + Sync),
) -> io::Result<Vec<(u32, f32)>> {
    let range = within(range.start..range.end.min(quantized.len()), rows);
    let codes = QueryCodes::new(query);
    let wanted = shortlist(k, range.len());
    let mut short: Vec<u32> =
        top_k(range, wanted, keep, &|r| quantized.score(&codes, r)).into_rows();
    // In row order, the reads of the float rows go one way through memory (or the file).
    short.sort_unstable();
    Ok(score(rows, query, &short, k)?.into_sorted())
}

/// How many rows [`scan_quantized`] scores exactly for a top `k` among `rows`: 2% of them,
/// at least twenty times `k` and 1,024. At 97k MiniLM passages 2% kept every true neighbour
/// of the bench questions (recall@10 1.000); small stores of clustered rows (many
/// near-duplicates) need a larger share, which the floor gives them. Each row more costs a
/// random read of its floats: 5% took 6.0 ms a search at 97k where 2% took 3.3.
pub(super) fn shortlist(k: usize, rows: usize) -> usize {
    (rows / 50).max(k.saturating_mul(20)).max(1024)
}

/// `range` cut to the rows that `rows` holds.
fn within(range: Range<usize>, rows: &Rows) -> Range<usize> {
    range.start..range.end.min(rows.len())
}

/// The `k` best rows of `range` by `score` among those `keep` lets through, split over a few
/// scoped threads when the range is large.
fn top_k<S>(range: Range<usize>, k: usize, keep: &(dyn Fn(usize) -> bool + Sync), score: &S) -> TopK
where
    S: Fn(usize) -> f32 + Sync,
{
    let threads = if range.len() >= PARALLEL_MIN_ROWS {
        std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS)
    } else {
        1
    };
    if threads <= 1 {
        return top_k_here(range, k, keep, score);
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
                s.spawn(move || top_k_here(part, k, keep, score))
            })
            .collect();
        top.merge(top_k_here(parts[0].clone(), k, keep, score));
        for handle in spawned {
            match handle.join() {
                Ok(part) => top.merge(part),
                // A scan does not panic; if one ever did, re-raise it on the caller.
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    top
}

/// [`scan`] on the calling thread only (for measurements).
#[cfg(test)]
pub(super) fn scan_one(
    rows: &Rows,
    query: &[f32],
    range: Range<usize>,
    k: usize,
    keep: &(dyn Fn(usize) -> bool + Sync),
) -> io::Result<Vec<(u32, f32)>> {
    scan_on(rows, query, within(range, rows), k, keep, Threads::One)
}

/// [`top_k`] on the calling thread.
fn top_k_here<S>(
    range: Range<usize>,
    k: usize,
    keep: &(dyn Fn(usize) -> bool + Sync),
    score: &S,
) -> TopK
where
    S: Fn(usize) -> f32,
{
    let mut top = TopK::new(k);
    for r in range {
        if keep(r) {
            top.push(r as u32, score(r));
        }
    }
    top
}
