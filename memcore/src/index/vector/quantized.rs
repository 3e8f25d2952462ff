//! An int8 copy of the rows, for scans that read a quarter of the bytes.
//!
//! Each row is scaled by its own largest component to the range -127..=127 and rounded (the
//! scale kept beside it), so a dot product of codes times the row's scale ranks rows as the
//! float dot product does to within about 1%: enough to pick a short list of candidates,
//! which the caller then scores exactly on the float rows. The exact scan of 100k MiniLM rows
//! reads 154 MB and is bound by memory bandwidth; the codes are 38 MB.

use simsimd::SpatialSimilarity;

/// The largest code: codes are symmetric, so -128 is never used.
const MAX_CODE: f32 = 127.0;

/// The rows as int8 codes with a scale per row, in the same order as the float rows.
#[derive(Debug, Default)]
pub(super) struct QuantizedRows {
    /// Row-major codes, `dim` per row.
    codes: Vec<i8>,
    /// Per row: the float value of code 1.
    scales: Vec<f32>,
}

/// A query's codes (its own scale does not change the order of rows, so it is dropped).
#[derive(Debug)]
pub(super) struct QueryCodes(Vec<i8>);

impl QuantizedRows {
    /// Appends the codes of `vector` as the next row.
    pub(super) fn push(&mut self, vector: &[f32]) {
        let scale = encode(vector, &mut self.codes);
        self.scales.push(scale);
    }

    /// Number of rows.
    pub(super) fn len(&self) -> usize {
        self.scales.len()
    }

    /// The approximate dot product of `row` with the query, up to the query's scale.
    #[inline]
    pub(super) fn score(&self, query: &QueryCodes, row: usize, dim: usize) -> f32 {
        let codes = &self.codes[row * dim..(row + 1) * dim];
        let dot = <i8 as SpatialSimilarity>::dot(&query.0, codes).unwrap_or(0.0) as f32;
        dot * self.scales[row]
    }
}

impl QueryCodes {
    /// The codes of `query`.
    pub(super) fn new(query: &[f32]) -> Self {
        let mut codes = Vec::with_capacity(query.len());
        encode(query, &mut codes);
        Self(codes)
    }
}

/// Appends the codes of `vector` to `out` and returns its scale (0 for a zero vector, whose
/// codes are all 0).
fn encode(vector: &[f32], out: &mut Vec<i8>) -> f32 {
    let largest = largest_magnitude(vector);
    if !(largest > 0.0 && largest.is_finite()) {
        out.extend(std::iter::repeat_n(0, vector.len()));
        return 0.0;
    }
    let inverse = MAX_CODE / largest;
    out.extend(vector.iter().map(|&x| {
        let scaled = x * inverse;
        // Round half away from zero; `as` saturates, and |scaled| <= 127 anyway.
        (scaled + 0.5f32.copysign(scaled)) as i8
    }));
    largest / MAX_CODE
}

/// The largest |component| of `vector`, in eight independent lanes so that it vectorises.
fn largest_magnitude(vector: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let chunks = vector.chunks_exact(8);
    let tail = chunks.remainder();
    for chunk in chunks {
        for (lane, &x) in lanes.iter_mut().zip(chunk) {
            *lane = lane.max(x.abs());
        }
    }
    tail.iter().chain(&lanes).fold(0f32, |largest, &x| largest.max(x.abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_rank_like_floats() {
        let dim = 16;
        let rows: Vec<Vec<f32>> = (0..50)
            .map(|r| (0..dim).map(|i| (((r * 31 + i * 17) % 23) as f32 - 11.0) / 11.0).collect())
            .collect();
        let mut quantized = QuantizedRows::default();
        for row in &rows {
            quantized.push(row);
        }
        assert_eq!(quantized.len(), 50);
        let query: Vec<f32> = (0..dim).map(|i| (i as f32 - 7.5) / 8.0).collect();
        let codes = QueryCodes::new(&query);
        let query_scale = largest_magnitude(&query) / MAX_CODE;
        for (r, row) in rows.iter().enumerate() {
            let exact: f32 = row.iter().zip(&query).map(|(a, b)| a * b).sum();
            let approx = quantized.score(&codes, r, dim) * query_scale;
            assert!((exact - approx).abs() < 0.05, "row {r}: {exact} vs {approx}");
        }
    }

    #[test]
    fn zero_and_non_finite_components_get_zero_codes() {
        let mut quantized = QuantizedRows::default();
        quantized.push(&[0.0; 4]);
        quantized.push(&[f32::NAN, 1.0, 0.0, -0.5]);
        quantized.push(&[f32::INFINITY, 1.0, 0.0, 0.0]);
        assert_eq!(&quantized.codes[4..8], &[0, 127, 0, -64]);
        let codes = QueryCodes::new(&[1.0, 1.0, 1.0, 1.0]);
        assert_eq!(codes.0, vec![127; 4]);
        assert_eq!(quantized.score(&codes, 0, 4), 0.0);
        assert_eq!(quantized.score(&codes, 2, 4), 0.0);
        assert!(quantized.score(&codes, 1, 4).is_finite());
    }
}
