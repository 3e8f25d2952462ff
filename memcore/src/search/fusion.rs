//! Reciprocal rank fusion. (The recency factor is the decay engine's, [`crate::decay`].)

/// The reciprocal-rank-fusion contribution of a 1-based `rank`: `weight / (k + rank)`.
///
/// ```text
/// rrf(d) = Σ_lists weight_list / (k + rank_list(d))       (Cormack et al., k = 60)
/// ```
pub(crate) fn rrf(rank: usize, k: f64, weight: f64) -> f64 {
    weight / (k + rank as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rrf_prefers_agreement() {
        let k = 60.0;
        let both = rrf(2, k, 1.0) + rrf(2, k, 1.0);
        let one_top = rrf(1, k, 1.0);
        assert!(both > one_top);
    }
}
