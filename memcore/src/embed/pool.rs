//! Mean pooling over the attention mask and L2 normalisation, as sentence-transformers does.

/// Pools one sequence's token vectors into a unit-length sentence vector.
///
/// `hidden` is `[tokens, dim]` in row-major order and `mask` has one entry per token (1 for a
/// real token, 0 for padding). The mean uses only masked-in tokens (count clamped at 1e-9,
/// as in sentence-transformers) and the result is divided by its L2 norm (clamped at 1e-12,
/// as in `torch.nn.functional.normalize`), so an all-padding input gives zeros, not NaN.
pub(crate) fn mean_pool_normalise(hidden: &[f32], mask: &[i64], dim: usize) -> Vec<f32> {
    debug_assert_eq!(hidden.len(), mask.len() * dim);
    let mut sum = vec![0f32; dim];
    let mut count = 0f32;
    for (token, &m) in hidden.chunks_exact(dim).zip(mask) {
        if m != 0 {
            count += 1.0;
            for (s, &x) in sum.iter_mut().zip(token) {
                *s += x;
            }
        }
    }
    let count = count.max(1e-9);
    for s in &mut sum {
        *s /= count;
    }
    let norm = sum.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    for s in &mut sum {
        *s /= norm;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignores_padding_and_normalises() {
        // Two real tokens, one padded token that must not count.
        let hidden = [1.0, 0.0, 3.0, 4.0, 100.0, 100.0];
        let v = mean_pool_normalise(&hidden, &[1, 1, 0], 2);
        // mean = (2, 2) -> normalised (1/sqrt2, 1/sqrt2)
        let expected = std::f32::consts::FRAC_1_SQRT_2;
        assert!((v[0] - expected).abs() < 1e-6 && (v[1] - expected).abs() < 1e-6, "{v:?}");
    }

    #[test]
    fn all_padding_gives_zeros_not_nan() {
        let v = mean_pool_normalise(&[1.0, 2.0], &[0], 2);
        assert_eq!(v, [0.0, 0.0]);
    }
}
