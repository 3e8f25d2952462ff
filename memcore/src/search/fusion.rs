//! Weighted reciprocal rank fusion. (The recency factor is the decay engine's, [`crate::decay`].)

/// The rank constant `k`. Cormack et al. use 60, which flattens the lists so that a memory
/// ranked well by the weaker list (here the vectors) beats the full-text index's top hits;
/// a small `k` trusts the top of each list. Measured on the LoCoMo development half
/// (BENCHMARKS.md): plain turns R@5 0.362 at k = 60 (below full text alone, 0.462), 0.454 at
/// k = 5 with [`VECTOR_WEIGHT`]; rewritten turns 0.616 -> 0.656.
pub(crate) const RRF_K: f64 = 5.0;
/// The full-text list's weight.
pub(crate) const TEXT_WEIGHT: f64 = 1.0;
/// The vector list's weight: MiniLM ranks worse than BM25 on its own (plain LoCoMo turns R@5
/// 0.21 against 0.46), so it counts for less. Leave-one-conversation-out on the development
/// half picks 0.5-1.0 at k = 5; 0.7 sits in the middle.
pub(crate) const VECTOR_WEIGHT: f64 = 0.7;

/// The reciprocal-rank-fusion contribution of a 1-based `rank`: `weight / (k + rank)`.
///
/// ```text
/// rrf(d) = Σ_lists weight_list / (k + rank_list(d))
/// ```
fn rrf(rank: usize, weight: f64) -> f64 {
    weight / (RRF_K + rank as f64)
}

/// The fused score of a memory at 1-based `text_rank` in the full-text list and
/// `vector_rank` in the vector list (`None`: not in that list).
pub(crate) fn hybrid_score(text_rank: Option<usize>, vector_rank: Option<usize>) -> f64 {
    text_rank.map_or(0.0, |r| rrf(r, TEXT_WEIGHT))
        + vector_rank.map_or(0.0, |r| rrf(r, VECTOR_WEIGHT))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreement_beats_one_list_alone() {
        assert!(hybrid_score(Some(2), Some(2)) > hybrid_score(Some(1), None));
        assert!(hybrid_score(Some(3), Some(3)) > hybrid_score(None, Some(1)));
    }

    #[test]
    fn full_text_counts_more_than_vectors() {
        assert!(hybrid_score(Some(1), Some(2)) > hybrid_score(Some(2), Some(1)));
        assert!(hybrid_score(Some(1), None) > hybrid_score(None, Some(1)));
        let expected = 1.0 / (RRF_K + 1.0) + 0.7 / (RRF_K + 3.0);
        assert!((hybrid_score(Some(1), Some(3)) - expected).abs() < 1e-12);
    }
}
