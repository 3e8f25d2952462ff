//! Pure ranking functions: reciprocal rank fusion and recency decay.

use crate::Timestamp;

/// Seconds in a day.
const SECONDS_PER_DAY: f64 = 86_400.0;

/// The reciprocal-rank-fusion contribution of a 1-based `rank`: `weight / (k + rank)`.
///
/// ```text
/// rrf(d) = Σ_lists weight_list / (k + rank_list(d))       (Cormack et al., k = 60)
/// ```
pub(crate) fn rrf(rank: usize, k: f64, weight: f64) -> f64 {
    weight / (k + rank as f64)
}

/// Seed 002's temporal decay: `0.5 ^ (age_days / half_life_days)`, 1.0 for now or the
/// future, towards 0.0 with age.
pub(crate) fn temporal_decay(at: Timestamp, now: Timestamp, half_life_days: f64) -> f64 {
    let age_days = (now - at).num_seconds().max(0) as f64 / SECONDS_PER_DAY;
    0.5_f64.powf(age_days / half_life_days)
}

/// The recency factor multiplied into a score: `(1 - weight) + weight * decay`, so that a
/// weight of 0 disables the boost and 1 makes the score proportional to freshness.
pub(crate) fn recency_factor(decay: f64, weight: f64) -> f64 {
    (1.0 - weight) + weight * decay
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    #[test]
    fn decay_matches_seed_table() {
        let now = crate::now();
        let expected =
            [(0, 1.0), (7, 0.85), (15, 0.71), (30, 0.5), (60, 0.25), (90, 0.125), (180, 0.016)];
        for (days, value) in expected {
            let decay = temporal_decay(now - Duration::days(days), now, 30.0);
            assert!((decay - value).abs() < 0.01, "{days} days: {decay}");
        }
        assert_eq!(temporal_decay(now + Duration::days(3), now, 30.0), 1.0);
    }

    #[test]
    fn rrf_prefers_agreement() {
        let k = 60.0;
        let both = rrf(2, k, 1.0) + rrf(2, k, 1.0);
        let one_top = rrf(1, k, 1.0);
        assert!(both > one_top);
        assert_eq!(recency_factor(0.25, 0.0), 1.0);
        assert_eq!(recency_factor(0.25, 1.0), 0.25);
    }
}
