//! Neighbouring conversation turns lend each other part of their score: a candidate that is
//! a turn ([`crate::SESSION_KEY`], [`crate::TURN_KEY`]) gains a share ([`SHARES`]) of the
//! `base` of the turns one and two before and after it that are candidates too. An answer
//! and the question it answers are often found together; either alone may rank low (plain
//! LoCoMo turns, hybrid R@10 0.656 -> 0.704; BENCHMARKS.md). Full-text and hybrid searches
//! lend scores; a semantic search ranks by similarity alone (its scores are too close to
//! one another for a share of a neighbour's not to swamp them: R@5 0.400 -> 0.369).

use std::collections::HashMap;

use super::ScoreParts;
use crate::index::{TextIndex, neighbour_terms};
use crate::{MemoryRef, Result};

/// The share of a neighbouring turn's score a turn gains, by distance in turns.
const SHARES: [(i64, f64); 2] = [(1, 0.3), (2, 0.15)];

/// Adds to each turn among `candidates` its share of its neighbours' scores (recorded in
/// [`ScoreParts::neighbours`]). Costs one look-up of the candidates' places, and nothing when
/// the index holds no turns. Scores are lent before the `key=value` filters checked on the
/// stored memories run (a turn they drop may still lift its neighbour); the engine lends
/// nothing in an agent's or the shared view, so a turn a view hides never shows through.
pub(super) fn lend_scores(
    text: &TextIndex,
    candidates: &mut [(MemoryRef, ScoreParts)],
) -> Result<()> {
    if candidates.len() < 2 {
        return Ok(());
    }
    let keys: Vec<MemoryRef> = candidates.iter().map(|(key, _)| key.clone()).collect();
    let places = text.turn_terms_of(&keys)?;
    if places.is_empty() {
        return Ok(());
    }
    // Two memories at one place (two ids given the same session and turn): the stronger
    // lends.
    let mut base_at: HashMap<&str, f64> = HashMap::new();
    for (key, parts) in candidates.iter() {
        if let Some(place) = places.get(key) {
            let base = base_at.entry(place.as_str()).or_insert(parts.base);
            *base = base.max(parts.base);
        }
    }
    let lent: Vec<f64> = candidates
        .iter()
        .map(|(key, _)| {
            let Some(place) = places.get(key) else { return 0.0 };
            SHARES
                .iter()
                .map(|&(distance, share)| {
                    let terms = neighbour_terms(place, distance);
                    share * terms.iter().filter_map(|n| base_at.get(n.as_str())).sum::<f64>()
                })
                .sum()
        })
        .collect();
    for ((_, parts), lent) in candidates.iter_mut().zip(lent) {
        if lent > 0.0 {
            parts.base += lent;
            parts.neighbours = Some(lent);
        }
    }
    Ok(())
}
