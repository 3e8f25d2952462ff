//! Novelty (seed 002, section 1.3): how much of a capture is not in the store already.
//!
//! Similarity is the **cosine** of the two embeddings, floored at 0 (the seed's
//! `1 / (1 + distance)` assumes an L2 distance it does not state; for unit vectors such as
//! all-MiniLM-L6-v2's, `cosine = 1 - distance² / 2`, so a cosine of 0.7 is the seed's 0.56).
//! Without the model it is the share of the capture's words (three letters or more,
//! lower-cased) that the stored memory holds too, and [`NoveltyMethod::Text`] says so.
//! Novelty is `1 - highest similarity`; a capture is a duplicate when the highest similarity
//! reaches `similarity_threshold` or novelty falls below `novelty_threshold`.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::CaptureConfig;
use super::signals::round3;
use crate::MemoryRef;

/// How similarity to stored memories was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum NoveltyMethod {
    /// Cosine similarity of embeddings.
    Semantic,
    /// Word overlap, because the embedding model is unavailable.
    Text,
    /// Not checked (asked not to).
    Off,
}

/// A stored memory like the capture, and how like.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct SimilarMemory {
    /// The memory.
    #[serde(rename = "ref")]
    pub reference: MemoryRef,
    /// Its similarity to the capture, 0.0 to 1.0.
    pub similarity: f64,
}

/// The novelty of one capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct Novelty {
    /// `1 - highest_similarity`, 0.0 (a copy) to 1.0 (nothing like it stored).
    pub score: f64,
    /// Whether the capture is new enough to keep.
    pub is_novel: bool,
    /// The similarity of the most similar stored memory (0.0 when none).
    pub highest_similarity: f64,
    /// The stored memories compared, most similar first.
    pub similar: Vec<SimilarMemory>,
    /// How similarity was measured.
    pub method: NoveltyMethod,
}

impl Novelty {
    /// Novelty not checked: fully novel.
    pub(crate) fn unchecked() -> Self {
        Self {
            score: 1.0,
            is_novel: true,
            highest_similarity: 0.0,
            similar: Vec::new(),
            method: NoveltyMethod::Off,
        }
    }

    /// The novelty of a capture whose `similar` memories were measured by `method`.
    pub(crate) fn of(
        mut similar: Vec<SimilarMemory>,
        method: NoveltyMethod,
        config: &CaptureConfig,
    ) -> Self {
        for memory in &mut similar {
            memory.similarity = round3(memory.similarity.clamp(0.0, 1.0));
        }
        similar.sort_by(|a, b| b.similarity.total_cmp(&a.similarity));
        let highest = similar.first().map_or(0.0, |m| m.similarity);
        let score = round3(1.0 - highest);
        let is_novel = score >= config.novelty_threshold && highest < config.similarity_threshold;
        Self { score, is_novel, highest_similarity: highest, similar, method }
    }
}

/// The words of `text` that count for overlap: three characters or more, lower-cased.
pub(crate) fn words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| word.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect()
}

/// The share of `capture`'s words that `stored` holds too (0.0 when `capture` has none).
pub(crate) fn overlap(capture: &HashSet<String>, stored: &HashSet<String>) -> f64 {
    if capture.is_empty() {
        return 0.0;
    }
    let shared = capture.iter().filter(|word| stored.contains(*word)).count();
    shared as f64 / capture.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn similar(values: &[f64]) -> Vec<SimilarMemory> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| SimilarMemory {
                reference: format!("notes/m{i}").parse().unwrap(),
                similarity: *v,
            })
            .collect()
    }

    #[test]
    fn novelty_is_one_minus_the_highest_similarity() {
        let config = CaptureConfig::default();
        let novelty = Novelty::of(similar(&[0.2, 0.65, -0.1]), NoveltyMethod::Semantic, &config);
        assert_eq!((novelty.score, novelty.highest_similarity), (0.35, 0.65));
        assert!(novelty.is_novel);
        assert_eq!(novelty.similar[2].similarity, 0.0);
        let duplicate = Novelty::of(similar(&[0.7]), NoveltyMethod::Semantic, &config);
        assert!(!duplicate.is_novel);
        let empty = Novelty::of(Vec::new(), NoveltyMethod::Text, &config);
        assert_eq!((empty.score, empty.is_novel), (1.0, true));
    }

    #[test]
    fn overlap_is_the_share_of_the_capture_stored() {
        let capture = words("Use the WAL mode of SQLite");
        assert_eq!(overlap(&capture, &words("sqlite runs in WAL mode; use it")), 0.8);
        assert_eq!(overlap(&words("a b"), &words("anything")), 0.0);
    }
}
