//! Conversation turns are indexed with the turn before them: a memory whose metadata places
//! it in a conversation ([`crate::SESSION_KEY`], [`crate::TURN_KEY`]) gets the previous
//! turn's text as searchable context, as if the caller had set it (short replies such as
//! "yes, last week!" mean little on their own).
//!
//! - The previous turn is looked for among the memories being written, then through the
//!   full-text index's turn terms and the store, before the store write starts (so the
//!   staging thread never waits on a store the write holds).
//! - A turn takes the text of a previous turn of the same owner ([`Memory::owner`]) only:
//!   another agent's private words never make it findable.
//! - After a write or a replay, the turn after each turn written, moved or removed is indexed
//!   again, so that it follows what the turn before it now says (a turn stored before the
//!   one it follows gets it when that one arrives; a purged turn's words leave the next
//!   turn's context).
//!
//! The context is derived like the rest of the index: `reindex` rebuilds it from the store.

use std::borrow::Borrow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::IndexedStore;
use crate::index::{IndexDoc, shifted_turn_term, turn_term, turn_text};
use crate::{Memory, MemoryRef, Result};

/// The turn term of `memory` (collection, session, turn), if it is a conversation turn.
fn term_of(memory: &Memory) -> Option<String> {
    let place = memory.turn_place()?;
    Some(turn_term(memory.collection.as_str(), &place.session, place.turn))
}

/// The term of the turn before `memory`, if it is a conversation turn past the first.
fn previous_term_of(memory: &Memory) -> Option<String> {
    let place = memory.turn_place()?;
    Some(turn_term(memory.collection.as_str(), &place.session, place.turn.checked_sub(1)?))
}

/// The conversation turns among memories at hand, by turn term (the last memory of a term
/// wins, as the last of a batch does in the store).
pub(super) struct KnownTurns<'a> {
    by_term: HashMap<String, &'a Memory>,
}

impl<'a> KnownTurns<'a> {
    /// The turns among `memories`.
    pub(super) fn of<M: Borrow<Memory>>(memories: &'a [M]) -> Self {
        let by_term =
            memories.iter().map(Borrow::borrow).filter_map(|m| Some((term_of(m)?, m))).collect();
        Self { by_term }
    }
}

/// The previous turns of some memories, found: by the previous turn's term, its owner and
/// how it reads as context ([`turn_text`]).
pub(super) struct PreviousTurns(HashMap<String, (Option<String>, String)>);

impl PreviousTurns {
    /// The index documents of `memories`, each turn with the turn before it when that turn
    /// was found and has the same owner. Reads nothing: safe beside a store write.
    pub(super) fn docs<M: Borrow<Memory>>(&self, memories: &[M]) -> Vec<IndexDoc> {
        let memories = memories.iter().map(Borrow::borrow);
        memories
            .map(|memory| {
                let mut doc = IndexDoc::of(memory);
                doc.previous_turn = previous_term_of(memory)
                    .and_then(|term| self.0.get(&term))
                    .filter(|(owner, _)| owner.as_deref() == memory.owner())
                    .map(|(_, text)| text.clone());
                doc
            })
            .collect()
    }
}

impl IndexedStore {
    /// The index documents of `memories`, each turn with the turn before it.
    pub(super) fn docs_of<M: Borrow<Memory>>(&self, memories: &[M]) -> Vec<IndexDoc> {
        self.previous_turns(memories, &KnownTurns::of(memories)).docs(memories)
    }

    /// The turns before the turns among `memories`: from `known` when there, else from the
    /// store (found through the full-text index, refreshed first so that another process's
    /// recent turns are seen). A previous turn that cannot be found or read is left out.
    pub(super) fn previous_turns<M: Borrow<Memory>>(
        &self,
        memories: &[M],
        known: &KnownTurns<'_>,
    ) -> PreviousTurns {
        let mut found = HashMap::new();
        let mut refreshed = false;
        for memory in memories.iter().map(Borrow::borrow) {
            let Some(term) = previous_term_of(memory) else { continue };
            if found.contains_key(&term) {
                continue;
            }
            let as_context = |m: &Memory| (m.owner().map(str::to_owned), turn_text(m));
            let previous = match known.by_term.get(&term) {
                Some(previous) => Some(as_context(previous)),
                None => {
                    if !refreshed {
                        // Best effort: a stale reader only misses the newest turns.
                        let _stale = self.indexes.text.refresh();
                        refreshed = true;
                    }
                    self.stored_turn(&term).map(|previous| as_context(&previous))
                }
            };
            if let Some(previous) = previous {
                found.insert(term, previous);
            }
        }
        PreviousTurns(found)
    }

    /// The stored memory whose turn term is `term`, if the full-text index knows one that
    /// the store still holds at that place.
    fn stored_turn(&self, term: &str) -> Option<Arc<Memory>> {
        let keys = self.indexes.text.keys_with_turn(term).ok()?;
        keys.iter()
            .filter_map(|key| self.store.get(key).ok())
            .find(|memory| term_of(memory).as_deref() == Some(term))
    }

    /// Runs `index` (which brings the indexes level with `stored` and `removed`), then
    /// indexes again (full text only: the vectors do not embed the previous turn) the turns
    /// right after the turns of `stored` and after the places `stored` and `removed` held
    /// before, when they are not among `stored` themselves. The followers' context is
    /// derived: a failure to refresh it is left for `reindex`.
    pub(super) fn with_followers<T>(
        &self,
        stored: &[Memory],
        removed: &[MemoryRef],
        index: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        let keys: Vec<MemoryRef> =
            stored.iter().map(Memory::reference).chain(removed.iter().cloned()).collect();
        // The places the index holds for them now, before `index` changes it.
        let before: Vec<String> = match keys.is_empty() {
            true => Vec::new(),
            false => self
                .indexes
                .text
                .turns_of(&keys)
                .map(|turns| turns.into_values().map(|turn| turn.place).collect())
                .unwrap_or_default(),
        };
        let value = index()?;
        self.reindex_followers(stored, &before);
        Ok(value)
    }

    /// See [`IndexedStore::with_followers`].
    fn reindex_followers(&self, stored: &[Memory], before: &[String]) {
        let written_places: HashSet<String> = stored.iter().filter_map(term_of).collect();
        if written_places.is_empty() && before.is_empty() {
            return;
        }
        let written: HashSet<MemoryRef> = stored.iter().map(Memory::reference).collect();
        let mut taken: HashSet<MemoryRef> = HashSet::new();
        let mut followers: Vec<Arc<Memory>> = Vec::new();
        for place in written_places.iter().chain(before) {
            // A batch of consecutive turns looks up only the turn after its last.
            let Some(next) = shifted_turn_term(place, 1).filter(|n| !written_places.contains(n))
            else {
                continue;
            };
            if let Some(follower) = self.stored_turn(&next)
                && !written.contains(&follower.reference())
                && taken.insert(follower.reference())
            {
                followers.push(follower);
            }
        }
        if followers.is_empty() {
            return;
        }
        let known = KnownTurns::of(stored);
        let docs = self.previous_turns(&followers, &known).docs(&followers);
        let _derived = self.indexes.text.apply(&docs, &[]);
    }
}
