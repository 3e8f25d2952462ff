//! Conversation turns weighed as turns. A candidate that is a turn ([`crate::SESSION_KEY`],
//! [`crate::TURN_KEY`]):
//!
//! - gains a share ([`SHARES`]) of the `base` of the turns one and two before and after it
//!   that are candidates too. An answer and the question it answers are often found
//!   together; either alone may rank low (plain LoCoMo turns, hybrid R@10 0.656 -> 0.704;
//!   BENCHMARKS.md);
//! - keeps of its own score only the share of its words that do not ask
//!   ([`crate::text::question_share`]). A turn that asks ("how often do you all work out
//!   together?") repeats the words of a later search without holding the answer: 26% of the
//!   LoCoMo turns end with a question, 13% of the turns that answer its questions do; turns
//!   asking with most of their words are 0.16-0.37 times as likely to answer. It still lends
//!   its whole score to its neighbours, the answer among them (hybrid R@5 0.628 -> 0.663).
//!
//! Full-text and hybrid searches weigh turns; a semantic search ranks by similarity alone
//! (its scores are too close to one another for a share of a neighbour's not to swamp them:
//! R@5 0.400 -> 0.369).

use std::collections::HashMap;

use super::ScoreParts;
use crate::index::{TextIndex, neighbour_terms};
use crate::{MemoryRef, Result};

/// The share of a neighbouring turn's score a turn gains, by distance in turns. Chosen by
/// leave-one-conversation-out over the LoCoMo development half (a grid of 0.2-0.5 and
/// 0.1-0.35): every fold picks 0.4 / 0.25 or 0.5 / 0.25 (held-out hybrid R@5 / R@10 0.720 /
/// 0.803, against 0.715 / 0.796 at the 0.3 / 0.15 chosen before turns that ask were weighed
/// down and named authors preferred).
const SHARES: [(i64, f64); 2] = [(1, 0.4), (2, 0.25)];

/// Weighs each turn among `candidates`: adds its share of its neighbours' scores (recorded
/// in [`ScoreParts::neighbours`]) to what it keeps of its own (less the share of its words
/// that ask, [`ScoreParts::question_share`]). Costs one look-up of the candidates' places,
/// and nothing when the index holds no turns. Turns are weighed before the `key=value`
/// filters checked on the stored memories run (a turn they drop may still lift its
/// neighbour); the engine weighs nothing in an agent's or the shared view, so a turn a view
/// hides never shows through.
pub(super) fn weigh_turns(
    text: &TextIndex,
    candidates: &mut [(MemoryRef, ScoreParts)],
) -> Result<()> {
    if candidates.is_empty() {
        return Ok(());
    }
    let keys: Vec<MemoryRef> = candidates.iter().map(|(key, _)| key.clone()).collect();
    let turns = text.turns_of(&keys)?;
    if turns.is_empty() {
        return Ok(());
    }
    // Two memories at one place (two ids given the same session and turn): the stronger
    // lends.
    let mut base_at: HashMap<&str, f64> = HashMap::new();
    for (key, parts) in candidates.iter() {
        if let Some(turn) = turns.get(key) {
            let base = base_at.entry(turn.place.as_str()).or_insert(parts.base);
            *base = base.max(parts.base);
        }
    }
    let lent: Vec<f64> = candidates
        .iter()
        .map(|(key, _)| {
            let Some(turn) = turns.get(key) else { return 0.0 };
            SHARES
                .iter()
                .map(|&(distance, share)| {
                    let terms = neighbour_terms(&turn.place, distance);
                    share * terms.iter().filter_map(|n| base_at.get(n.as_str())).sum::<f64>()
                })
                .sum()
        })
        .collect();
    for ((key, parts), lent) in candidates.iter_mut().zip(lent) {
        let Some(turn) = turns.get(key) else { continue };
        if turn.question_share > 0.0 {
            parts.base *= 1.0 - turn.question_share;
            parts.question_share = Some(turn.question_share);
        }
        if lent > 0.0 {
            parts.base += lent;
            parts.neighbours = Some(lent);
        }
    }
    Ok(())
}
