//! Version scoring and selection, exactly as seed 004 section 4.3 gives them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::records::{CompressionRecord, SessionRecord};

/// What a version should be like (seed 004's `VersionSelectionCriteria`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
#[non_exhaustive]
pub struct SelectionCriteria {
    /// The component's token budget.
    pub max_tokens: Option<usize>,
    /// The compression ratio preferred.
    pub preferred_ratio: Option<f64>,
    /// Whether keepit markers must be preserved.
    pub preserve_keepits: bool,
}

impl SelectionCriteria {
    /// Criteria with a token budget (or none) and nothing else.
    pub fn budget(max_tokens: Option<usize>) -> Self {
        Self { max_tokens, ..Self::default() }
    }

    /// Prefers versions near `ratio`.
    pub fn preferred_ratio(mut self, ratio: f64) -> Self {
        self.preferred_ratio = Some(ratio);
        self
    }

    /// Prefers versions that preserved their keepit markers.
    pub fn preserve_keepits(mut self, preserve: bool) -> Self {
        self.preserve_keepits = preserve;
        self
    }
}

/// A version's score: 1, times the budget fit (0.1 over budget, else `0.5 + 0.5 *
/// utilisation`), times the ratio preference (`max(0.5, 1 - |ratio - preferred| / 50)`),
/// times the keepit preservation (`0.5 + 0.5 * preserved / (preserved + summarised)`; a
/// version of a session without markers preserved everything).
///
/// ```
/// use memcore::session::{score_version, SelectionCriteria};
/// # let version: memcore::session::CompressionRecord = serde_json::from_value(serde_json::json!({
/// #   "version_id": "v001", "file": "v001_uniform-moderate_3k", "created_at": "2026-01-15T10:00:00Z",
/// #   "settings": {}, "output_tokens": 3000, "output_messages": 10, "compression_ratio": 10.0,
/// #   "keepit_stats": {"preserved": 1, "summarized": 1, "weights": {}}, "tokenizer": "estimate"}))?;
/// let criteria = SelectionCriteria::budget(Some(4000));
/// // utilisation 0.75: 0.5 + 0.375
/// assert!((score_version(&version, &criteria) - 0.875).abs() < 1e-12);
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn score_version(version: &CompressionRecord, criteria: &SelectionCriteria) -> f64 {
    let mut score = 1.0;
    // As in the seed, a budget of 0 is no budget.
    if let Some(max) = criteria.max_tokens.filter(|&max| max > 0) {
        if version.output_tokens > max {
            score *= 0.1;
        } else {
            let utilization = version.output_tokens as f64 / max as f64;
            score *= 0.5 + utilization * 0.5;
        }
    }
    if let Some(preferred) = criteria.preferred_ratio {
        let difference = (version.compression_ratio - preferred).abs();
        score *= (1.0 - difference / 50.0).max(0.5);
    }
    if criteria.preserve_keepits {
        score *= 0.5 + version.keepit_stats.preservation_rate() * 0.5;
    }
    score
}

/// The version to use, by seed 004's `selectBestVersion`.
#[derive(Debug, Clone, PartialEq)]
pub enum Selection<'a> {
    /// The original fits the budget.
    Original,
    /// The best version, with its score.
    Version(&'a CompressionRecord, f64),
    /// No version exists, or the best scores under 0.5: compress anew.
    NeedNewCompression,
}

/// The least score a version needs to be used.
pub const MIN_SELECTION_SCORE: f64 = 0.5;

/// Seed 004's `selectBestVersion`: no versions means a new compression; an original within
/// budget (or no budget) is used as is; else the best-scored version, unless it scores
/// under 0.5. Ties go to the older version.
pub fn select_best_version<'a>(
    session: &'a SessionRecord,
    criteria: &SelectionCriteria,
) -> Selection<'a> {
    if session.compressions.is_empty() {
        return Selection::NeedNewCompression;
    }
    if criteria.max_tokens.is_none_or(|max| max == 0 || session.original_tokens <= max) {
        return Selection::Original;
    }
    let best = session
        .compressions
        .iter()
        .map(|version| (version, score_version(version, criteria)))
        .fold(None::<(&CompressionRecord, f64)>, |best, (version, score)| match best {
            Some((_, top)) if top >= score => best,
            _ => Some((version, score)),
        });
    match best {
        Some((version, score)) if score >= MIN_SELECTION_SCORE => {
            Selection::Version(version, score)
        }
        _ => Selection::NeedNewCompression,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::records::KeepitStats;

    fn version(
        id: &str,
        tokens: usize,
        ratio: f64,
        preserved: usize,
        summarized: usize,
    ) -> CompressionRecord {
        serde_json::from_value(serde_json::json!({
            "version_id": id, "file": format!("{id}_uniform-moderate_1k"),
            "created_at": "2026-01-15T10:00:00Z", "settings": {},
            "output_tokens": tokens, "output_messages": 3, "compression_ratio": ratio,
            "keepit_stats": KeepitStats { preserved, summarized, ..KeepitStats::default() },
            "tokenizer": "estimate"
        }))
        .expect("a version")
    }

    fn session(original_tokens: usize, versions: Vec<CompressionRecord>) -> SessionRecord {
        let mut record: SessionRecord = serde_json::from_value(serde_json::json!({
            "session_id": "abc123", "original_file": "originals/abc123.jsonl", "source_file": "x",
            "original_sha256": "0", "format": "generic", "tokenizer": "estimate", "original_tokens": original_tokens,
            "original_messages": 450, "skipped_lines": [], "skipped_count": 0,
            "registered_at": "2026-01-15T10:00:00Z", "metadata": {}, "keepit_markers": [],
            "keepit_warnings": [], "compressions": []
        }))
        .expect("a session");
        record.compressions = versions;
        record
    }

    #[test]
    fn the_seeds_scoring_formula() {
        // The seed's v001 (10,234 tokens, 9.8:1, 5 of 7 preserved) under a 12,000 budget.
        let v001 = version("v001", 10_234, 9.8, 5, 2);
        let criteria = SelectionCriteria {
            max_tokens: Some(12_000),
            preferred_ratio: Some(10.0),
            preserve_keepits: true,
        };
        let expected =
            (0.5 + 10_234.0 / 12_000.0 * 0.5) * (1.0 - 0.2 / 50.0) * (0.5 + 5.0 / 7.0 * 0.5);
        assert!((score_version(&v001, &criteria) - expected).abs() < 1e-12);
        // Over budget: a tenth.
        let over = SelectionCriteria { max_tokens: Some(5_000), ..SelectionCriteria::default() };
        assert!((score_version(&v001, &over) - 0.1).abs() < 1e-12);
        // A far ratio is floored at a half.
        let far =
            SelectionCriteria { preferred_ratio: Some(100.0), ..SelectionCriteria::default() };
        assert!((score_version(&v001, &far) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn selection_follows_the_seeds_order_of_rules() {
        let criteria = |max| SelectionCriteria {
            max_tokens: Some(max),
            preserve_keepits: true,
            ..Default::default()
        };
        assert_eq!(
            select_best_version(&session(100_000, vec![]), &criteria(200_000)),
            Selection::NeedNewCompression
        );
        let versions = vec![version("v001", 10_234, 9.8, 5, 2), version("v002", 3_012, 33.2, 2, 5)];
        let both = session(100_000, versions);
        assert_eq!(select_best_version(&both, &criteria(200_000)), Selection::Original);
        assert_eq!(select_best_version(&both, &SelectionCriteria::default()), Selection::Original);
        match select_best_version(&both, &criteria(12_000)) {
            Selection::Version(v, _) => assert_eq!(v.version_id, "v001"),
            other => panic!("expected v001, got {other:?}"),
        }
        match select_best_version(&both, &criteria(4_000)) {
            Selection::Version(v, _) => assert_eq!(v.version_id, "v002"),
            other => panic!("expected v002, got {other:?}"),
        }
        // Both over a 2,000 budget: 0.1 each, under 0.5.
        assert_eq!(select_best_version(&both, &criteria(2_000)), Selection::NeedNewCompression);
    }
}
