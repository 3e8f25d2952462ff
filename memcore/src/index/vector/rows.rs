//! The rows' float vectors, in fixed-size chunks that the graph thread shares instead of
//! copying.
//!
//! Why chunks: a graph starting over 100k rows needs all of them. With one contiguous `Vec`,
//! the index had to copy 150 MB for the graph thread while holding its write lock, and every
//! search meanwhile waited (the first searches after a large ingest took 70-80 ms instead of
//! 8). A snapshot of [`Rows`] is a list of reference-counted chunks: taking one costs a few
//! pointer copies. A chunk is never changed while shared: appending to a shared last chunk
//! copies that chunk (at most [`CHUNK_ROWS`] rows) first. Fixed-size chunks also never
//! reallocate, where a growing `Vec` copied everything it held at each doubling.

use std::sync::Arc;

use super::log;

/// Rows per chunk (a power of two: finding a row is a shift and a mask).
pub(super) const CHUNK_ROWS: usize = 1024;

/// Row-major float vectors of one dimension, in chunks of [`CHUNK_ROWS`].
///
/// `Clone` is the cheap snapshot: it shares every chunk.
#[derive(Debug, Default, Clone)]
pub(super) struct Rows {
    /// Floats per row; set by the first row pushed.
    dim: usize,
    /// Full chunks, then the one being filled.
    chunks: Vec<Arc<Vec<f32>>>,
    /// Rows held.
    len: usize,
}

impl Rows {
    /// Number of rows.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The vector of `row`.
    ///
    /// # Panics
    ///
    /// When `row` is not below [`Rows::len`], as slice indexing does.
    #[inline]
    pub(super) fn get(&self, row: usize) -> &[f32] {
        assert!(row < self.len, "row {row} of {}", self.len);
        let start = (row % CHUNK_ROWS) * self.dim;
        &self.chunks[row / CHUNK_ROWS][start..start + self.dim]
    }

    /// Appends a row from its encoding in the log (little-endian `f32`s) and returns it.
    pub(super) fn push_encoded(&mut self, encoded: &[u8]) -> &[f32] {
        if self.len == 0 {
            self.dim = encoded.len() / 4;
        }
        debug_assert_eq!(encoded.len(), self.dim * 4, "rows of one dimension");
        let capacity = CHUNK_ROWS * self.dim;
        match self.chunks.last_mut() {
            Some(last) if !self.len.is_multiple_of(CHUNK_ROWS) => {
                // Copies the chunk if a snapshot shares it; the copy gets the full capacity.
                let chunk = Arc::make_mut(last);
                chunk.reserve_exact(capacity - chunk.len());
                log::decode_vector(encoded, chunk);
            }
            _ => {
                let mut chunk = Vec::with_capacity(capacity);
                log::decode_vector(encoded, &mut chunk);
                self.chunks.push(Arc::new(chunk));
            }
        }
        self.len += 1;
        self.get(self.len - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(vector: &[f32]) -> Vec<u8> {
        vector.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn row(i: usize) -> Vec<f32> {
        vec![i as f32, -(i as f32), 0.5]
    }

    #[test]
    fn rows_are_read_back_across_chunks() {
        let mut rows = Rows::default();
        for i in 0..CHUNK_ROWS * 2 + 3 {
            assert_eq!(rows.push_encoded(&encode(&row(i))), row(i).as_slice());
        }
        assert_eq!(rows.len(), CHUNK_ROWS * 2 + 3);
        assert_eq!(rows.chunks.len(), 3);
        for i in [0, CHUNK_ROWS - 1, CHUNK_ROWS, CHUNK_ROWS * 2 + 2] {
            assert_eq!(rows.get(i), row(i).as_slice());
        }
    }

    #[test]
    fn a_snapshot_does_not_see_later_rows_and_shares_full_chunks() {
        let mut rows = Rows::default();
        for i in 0..CHUNK_ROWS + 1 {
            rows.push_encoded(&encode(&row(i)));
        }
        let snapshot = rows.clone();
        rows.push_encoded(&encode(&row(7_000)));
        assert_eq!(snapshot.len(), CHUNK_ROWS + 1);
        assert_eq!(rows.get(CHUNK_ROWS + 1), row(7_000).as_slice());
        assert_eq!(snapshot.get(CHUNK_ROWS), row(CHUNK_ROWS).as_slice());
        // The full chunk is shared; the one appended to was copied.
        assert!(Arc::ptr_eq(&rows.chunks[0], &snapshot.chunks[0]));
        assert!(!Arc::ptr_eq(&rows.chunks[1], &snapshot.chunks[1]));
        assert_eq!(snapshot.chunks[1].len(), 3);
        assert_eq!(rows.chunks[1].capacity(), CHUNK_ROWS * 3);
    }

    #[test]
    #[should_panic(expected = "row 1 of 1")]
    fn a_row_past_the_end_panics_like_indexing() {
        let mut rows = Rows::default();
        rows.push_encoded(&encode(&row(0)));
        let _ = rows.get(1);
    }
}
