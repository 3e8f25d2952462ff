//! Writing memories: put (one, many, create-only), update, delete and restore. Each is one
//! call of the write protocol ([`crate::indexed`]), which keeps every index level.

use super::Memcore;
use crate::index::GivenVector;
use crate::indexed::the_one;
use crate::store::{PutMode, TrashEntry};
use crate::{IntoMemoryRef, Memory, MemoryUpdate, NewMemory, Result};

impl Memcore {
    /// Stores a memory, replacing one with the same id in the same collection.
    pub fn put(&self, memory: NewMemory) -> Result<Memory> {
        self.put_with(memory, PutMode::Upsert)
    }

    /// Stores a memory; with [`PutMode::CreateOnly`] an existing one is a conflict.
    pub fn put_with(&self, memory: NewMemory, mode: PutMode) -> Result<Memory> {
        the_one(self.put_many_with(vec![memory], mode)?, "put")
    }

    /// Stores several memories, writing, embedding and indexing them in batches (much faster
    /// than one `put` each). Every memory is validated, and with [`PutMode::CreateOnly`]
    /// checked for conflicts, before anything is written.
    pub fn put_many(&self, memories: Vec<NewMemory>) -> Result<Vec<Memory>> {
        self.put_many_with(memories, PutMode::Upsert)
    }

    /// [`Memcore::put_many`]; with [`PutMode::CreateOnly`] a memory that exists already (or
    /// twice in the batch) is a conflict and nothing of the batch is written.
    pub fn put_many_with(&self, memories: Vec<NewMemory>, mode: PutMode) -> Result<Vec<Memory>> {
        let (memories, vectors) = self.validate_with_vectors(memories)?;
        self.indexed.put_many(memories, &vectors, mode, None)
    }

    /// Stores `memory` as a new memory with the id `base`, or `base-2`, `base-3`, ... when
    /// that is taken: never replacing one (a rating, a memory of an agent's own).
    pub(super) fn put_new(&self, memory: NewMemory, base: &str) -> Result<Memory> {
        for attempt in 1..=100 {
            let id = if attempt == 1 { base.to_owned() } else { format!("{base}-{attempt}") };
            match self.put_with(memory.clone().id(id), PutMode::CreateOnly) {
                Err(crate::Error::Conflict { .. }) => continue,
                other => return other,
            }
        }
        Err(crate::Error::conflict(
            format!("no free id near {base} for a new memory"),
            "give the memory an id or title of its own",
        ))
    }

    /// New memories as the store takes them: validated, with defaults and timestamps.
    pub(super) fn validate(&self, memories: Vec<NewMemory>) -> Result<Vec<Memory>> {
        let now = self.now();
        memories.into_iter().map(|memory| self.complete(memory, now)).collect()
    }

    /// [`Memcore::validate`], and the vectors given with the memories, checked against the
    /// embedder (empty when none was given).
    pub(super) fn validate_with_vectors(
        &self,
        mut memories: Vec<NewMemory>,
    ) -> Result<(Vec<Memory>, Vec<GivenVector>)> {
        let vectors: Vec<_> = memories.iter_mut().map(|memory| memory.vector.take()).collect();
        let memories = self.validate(memories)?;
        Ok((memories, self.indexed.indexes().vectors.given_vectors(vectors)?))
    }

    /// A new memory as the store takes it, written at `now`.
    pub(super) fn complete(&self, memory: NewMemory, now: crate::Timestamp) -> Result<Memory> {
        let config = self.config();
        memory.into_memory(&config.default_collection, &config.limits, now)
    }

    /// Changes the memory `reference` names; see [`MemoryUpdate`].
    ///
    /// A change of status goes through the decay engine, as [`Memcore::transition`] does:
    /// archiving compresses the content (with `lifecycle.compress_archived`), restoring brings
    /// the original back.
    pub fn update(&self, reference: impl IntoMemoryRef, change: MemoryUpdate) -> Result<Memory> {
        let reference = reference.into_memory_ref()?;
        if change.status.is_some() {
            return self.change_status(&reference, &change, self.now());
        }
        self.indexed.update(&reference, &change, self.now())
    }

    /// Moves the memory `reference` names to the trash.
    pub fn delete(&self, reference: impl IntoMemoryRef) -> Result<TrashEntry> {
        self.indexed.delete(&reference.into_memory_ref()?, self.now())
    }

    /// Brings the most recently deleted memory `reference` names back from the trash.
    pub fn restore(&self, reference: impl IntoMemoryRef) -> Result<Memory> {
        self.indexed.restore(&reference.into_memory_ref()?)
    }
}
