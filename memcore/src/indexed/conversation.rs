//! Conversation turns are indexed with the turn before them: a memory whose metadata places
//! it in a conversation ([`crate::SESSION_KEY`], [`crate::TURN_KEY`]) gets the previous
//! turn's text as searchable context, as if the caller had set it (short replies such as
//! "yes, last week!" mean little on their own). The previous turn is looked for among the
//! memories being indexed, then through the full-text index's turn terms and the store. A
//! turn stored before the one it follows is found once it is indexed again (`repair`,
//! `reindex`): the context is derived, like the rest of the index.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::sync::Arc;

use super::IndexedStore;
use crate::Memory;
use crate::index::{IndexDoc, turn_term, turn_text};

/// The turn term of `memory` (collection, session, turn), if it is a conversation turn.
fn term_of(memory: &Memory) -> Option<String> {
    let place = memory.turn_place()?;
    Some(turn_term(memory.collection.as_str(), &place.session, place.turn))
}

/// The conversation turns among memories at hand, by turn term.
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

impl IndexedStore {
    /// The index documents of `memories`, each turn with the turn before it.
    pub(super) fn docs_of<M: Borrow<Memory>>(&self, memories: &[M]) -> Vec<IndexDoc> {
        self.docs_with(memories, &KnownTurns::of(memories))
    }

    /// The index documents of `memories`, each turn with the turn before it: from `known`
    /// when it is there, else from the store (found through the full-text index). A
    /// previous turn that cannot be read leaves the turn without it.
    pub(super) fn docs_with<M: Borrow<Memory>>(
        &self,
        memories: &[M],
        known: &KnownTurns<'_>,
    ) -> Vec<IndexDoc> {
        let memories = memories.iter().map(Borrow::borrow);
        let mut docs: Vec<IndexDoc> = memories.clone().map(IndexDoc::of).collect();
        for (doc, memory) in docs.iter_mut().zip(memories) {
            let Some(place) = memory.turn_place() else { continue };
            let Some(before) = place.turn.checked_sub(1) else { continue };
            let term = turn_term(memory.collection.as_str(), &place.session, before);
            doc.previous_turn = match known.by_term.get(&term) {
                Some(previous) => Some(turn_text(previous)),
                None => self.stored_turn(&term).map(|previous| turn_text(&previous)),
            };
        }
        docs
    }

    /// The stored memory whose turn term is `term`, if the full-text index knows one.
    fn stored_turn(&self, term: &str) -> Option<Arc<Memory>> {
        let keys = self.indexes.text.keys_with_turn(term).ok()?;
        keys.iter().find_map(|key| self.store.get(key).ok())
    }
}
