//! A person the search names: their memories rank above everyone else's. "What does
//! Melanie do to destress?" asks about what Melanie said: on the LoCoMo development half, 96%
//! of the turns answering a question that names one speaker are by that speaker, yet a
//! fifth of the first ten hits were by the other one (replies to her, neighbours lent a
//! share). When the search names an author of the store (a capitalised word the author
//! field holds, `crate::index::TextIndex::authors_named`), every candidate by someone else,
//! or by nobody, counts [`OTHERS_FACTOR`] of its score (plain LoCoMo hybrid R@5 / R@10
//! 0.694 / 0.786 -> 0.715 / 0.796, higher in each of the five conversations).
//!
//! A factor rather than a filter: a memory by someone else that matches much better still
//! ranks first. The questions LoCoMo asks to mislead, about what the other person did, lose
//! at 0.7 (R@10 0.916 -> 0.878) and lose much more at 0.5 (0.802), which is why the factor is
//! not smaller.

use super::ScoreParts;
use crate::index::TextIndex;
use crate::{MemoryRef, Result};

/// What the score of a memory not by a person the search names counts.
pub(super) const OTHERS_FACTOR: f64 = 0.7;

/// Multiplies the score of each of `candidates` not by an author that `text` names by
/// [`OTHERS_FACTOR`] (recorded in [`ScoreParts::author_factor`]). Nothing when `text`
/// names no author of the store. Costs a look-up of the names in the author field's terms
/// and one query over the candidates' keys.
pub(super) fn prefer_named_authors(
    index: &TextIndex,
    text: &str,
    candidates: &mut [(MemoryRef, ScoreParts)],
) -> Result<()> {
    let named = index.authors_named(text)?;
    if named.is_empty() || candidates.is_empty() {
        return Ok(());
    }
    let keys: Vec<MemoryRef> = candidates.iter().map(|(key, _)| key.clone()).collect();
    let by_named = index.keys_by(&keys, &named)?;
    for (key, parts) in candidates.iter_mut() {
        if !by_named.contains(key) {
            parts.base *= OTHERS_FACTOR;
            parts.author_factor = Some(OTHERS_FACTOR);
        }
    }
    Ok(())
}
