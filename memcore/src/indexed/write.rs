//! The write protocol: one function, [`IndexedStore::write`], that every write goes through.

use std::sync::Arc;

use super::IndexedStore;
use super::conversation::KnownTurns;
use crate::concurrent::alongside;
use crate::index::{Applied, GivenVector, IndexDoc, JournalEntry, Staged};
use crate::store::{MemoryStore, PutMode, TrashEntry};
use crate::{Category, Error, Memory, MemoryRef, MemoryUpdate, Result, Timestamp};

/// What a store write changed, as the indexes must follow it.
#[derive(Debug, Default)]
pub(crate) struct Change<'a> {
    /// Memories now stored (created or replaced).
    pub(crate) stored: &'a [Memory],
    /// Memories now gone.
    pub(crate) removed: Vec<MemoryRef>,
}

/// The result of a store write, which says what the indexes must do after it.
pub(crate) trait Written {
    /// The change to index.
    fn change(&self) -> Change<'_>;
}

impl Written for Vec<Memory> {
    fn change(&self) -> Change<'_> {
        Change { stored: self, removed: Vec::new() }
    }
}

impl Written for Memory {
    fn change(&self) -> Change<'_> {
        Change { stored: std::slice::from_ref(self), removed: Vec::new() }
    }
}

impl Written for TrashEntry {
    fn change(&self) -> Change<'_> {
        Change { stored: &[], removed: vec![self.reference.clone()] }
    }
}

impl Written for Vec<TrashEntry> {
    fn change(&self) -> Change<'_> {
        Change { stored: &[], removed: self.iter().map(|entry| entry.reference.clone()).collect() }
    }
}

/// The memories a write stores, which the indexes prepare while the store writes them, and
/// the vectors their writer gave ([`crate::NewMemory::vector`]: none, or one entry per
/// memory).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Stage<'a> {
    /// The memories, validated.
    pub(crate) memories: &'a [Memory],
    /// Their given vectors, in the same order, or empty.
    pub(crate) vectors: &'a [GivenVector],
}

/// The memory a write of one memory (`what`) stored.
pub(crate) fn the_one(mut stored: Vec<Memory>, what: &str) -> Result<Memory> {
    stored
        .pop()
        .ok_or_else(|| Error::index(format!("{what} stored nothing"), None, "report this as a bug"))
}

impl IndexedStore {
    /// Stores validated memories (attached to the commit `rev` when given) and indexes them,
    /// with the vectors given for them (none, or one entry per memory; checked).
    ///
    /// An upsert of more than a slice of memories (`WRITE_SLICE`, 4,096; without a commit) is
    /// written, embedded and indexed a slice at a time, each slice a write of its own: what a
    /// write holds besides the memories (their documents, embedding texts and vectors, the
    /// copy the store writes) then stays bounded whatever the batch's size. Each slice's
    /// memories leave the batch as they are written. Any error after the first slice (an
    /// I/O failure, a lock held past the timeout, an index failure) leaves the slices before
    /// it stored and indexed. A create-only batch, one at a commit and any batch of a store
    /// whose batches are all-or-nothing (PostgreSQL) stay one write.
    pub(crate) fn put_many(
        &self,
        memories: Vec<Memory>,
        vectors: &[GivenVector],
        mode: PutMode,
        rev: Option<&str>,
    ) -> Result<Vec<Memory>> {
        let one_write = mode != PutMode::Upsert || rev.is_some() || self.store.atomic_batches();
        if one_write || memories.len() <= self.write_slice {
            return self.put_slice(memories, vectors, mode, rev);
        }
        let mut stored = Vec::with_capacity(memories.len());
        let mut rest = memories.into_iter();
        let mut given = vectors.chunks(self.write_slice);
        loop {
            let slice: Vec<Memory> = rest.by_ref().take(self.write_slice).collect();
            if slice.is_empty() {
                return Ok(stored);
            }
            let vectors = given.next().unwrap_or_default();
            stored.extend(self.put_slice(slice, vectors, mode, rev)?);
        }
    }

    /// [`IndexedStore::put_many`] as one write.
    fn put_slice(
        &self,
        memories: Vec<Memory>,
        vectors: &[GivenVector],
        mode: PutMode,
        rev: Option<&str>,
    ) -> Result<Vec<Memory>> {
        let keys: Vec<MemoryRef> = memories.iter().map(Memory::reference).collect();
        let at = match rev {
            Some(rev) => Some((self.capability_commits()?, rev)),
            None => None,
        };
        let stage = Stage { memories: &memories, vectors };
        self.write(&keys, stage, |store| match at {
            Some((commits, rev)) => commits.put_many_at(memories.clone(), rev, mode),
            None => store.put_many(memories.clone(), mode),
        })
    }

    /// Stores one validated memory; see [`IndexedStore::put_many`].
    pub(crate) fn put(&self, memory: Memory, mode: PutMode, rev: Option<&str>) -> Result<Memory> {
        the_one(self.put_many(vec![memory], &[], mode, rev)?, "put")
    }

    /// Applies `change` to the memory `reference` names, as of `now`.
    pub(crate) fn update(
        &self,
        reference: &MemoryRef,
        change: &MemoryUpdate,
        now: Timestamp,
    ) -> Result<Memory> {
        self.write(&self.keys_of(reference), Stage::default(), |store| {
            store.update(reference, change, now)
        })
    }

    /// Applies several changes in one store write (see [`MemoryStore::update_many`]: gone or
    /// moved-on memories are skipped) and indexes what was stored.
    pub(crate) fn update_many(
        &self,
        changes: &[(MemoryRef, MemoryUpdate)],
        now: Timestamp,
    ) -> Result<Vec<Memory>> {
        let keys: Vec<MemoryRef> = changes.iter().map(|(reference, _)| reference.clone()).collect();
        self.write(&keys, Stage::default(), |store| store.update_many(changes, now))
    }

    /// Moves the memory `reference` names to the trash.
    pub(crate) fn delete(&self, reference: &MemoryRef, now: Timestamp) -> Result<TrashEntry> {
        self.write(&self.keys_of(reference), Stage::default(), |store| store.delete(reference, now))
    }

    /// Moves the memories `references` name (each with its collection) to the trash, under
    /// one journal record and one index commit; stops at the first that fails (the indexes
    /// follow what the store then holds).
    pub(crate) fn delete_many(
        &self,
        references: &[MemoryRef],
        now: Timestamp,
    ) -> Result<Vec<TrashEntry>> {
        if references.is_empty() {
            return Ok(Vec::new());
        }
        self.write(references, Stage::default(), |store| {
            references.iter().map(|reference| store.delete(reference, now)).collect()
        })
    }

    /// The key to journal for a change of the live memory `reference` names: for a bare id,
    /// the memory's full key as the store finds it now (a replay could not resolve a deleted
    /// memory's bare id in a store whose ids are not what its index holds, git notes), else
    /// the reference as given.
    fn keys_of(&self, reference: &MemoryRef) -> Vec<MemoryRef> {
        if !reference.is_qualified()
            && let Ok(memory) = self.store.get(reference)
        {
            return vec![memory.reference()];
        }
        vec![reference.clone()]
    }

    /// Brings the most recently deleted memory `reference` names back from the trash.
    pub(crate) fn restore(&self, reference: &MemoryRef) -> Result<Memory> {
        self.write(std::slice::from_ref(reference), Stage::default(), |store| {
            store.restore(reference).map(Arc::unwrap_or_clone)
        })
    }

    /// The store's commit attachment, or the unsupported error (found before anything is
    /// written).
    fn capability_commits(&self) -> Result<&dyn crate::store::CommitAttachment> {
        self.store.commits().ok_or_else(|| {
            Error::unsupported(
                "storing a memory at a commit",
                self.store.backend(),
                "use the git-notes backend, or store the memory without a commit",
            )
        })
    }

    /// Runs one store write under the protocol and brings every index level with it.
    ///
    /// - Takes the index lock and journals `keys` (a bare id stands for whichever collection
    ///   the store finds it in; a replay resolves it).
    /// - With memories to `stage`, the store writes on a second thread while this one
    ///   prepares every index's entries for them (taking the vectors given with them); they
    ///   are published once the write is durable (rebuilt first for memories the store
    ///   changed).
    /// - Otherwise the change the write reports ([`Written`]) is applied to every index.
    /// - A write the store refused clears its record and leaves the indexes untouched; a
    ///   storage failure (which may follow a partial write) re-indexes the journaled keys
    ///   from what the store now holds.
    /// - An index failure keeps the record, so the next open or search finishes the work.
    pub(crate) fn write<T: Written + Send>(
        &self,
        keys: &[MemoryRef],
        stage: Stage<'_>,
        write: impl Fn(&dyn MemoryStore) -> Result<T> + Sync,
    ) -> Result<T> {
        let _guard = self.lock.acquire()?;
        let entry = self.journal.begin(keys)?;
        let store = self.store.as_ref();
        let Stage { memories: stage, vectors } = stage;
        let (staged, written) = if stage.is_empty() {
            (None, write(store))
        } else {
            // Read before the write: the store may be held while it writes.
            let previous = self.previous_turns(stage, &KnownTurns::of(stage));
            let (written, staged) = alongside(
                || write(store),
                || {
                    let mut docs = previous.docs(stage);
                    for (doc, vector) in docs.iter_mut().zip(vectors) {
                        doc.given_vector.clone_from(vector);
                    }
                    let entries: Vec<Box<dyn Staged + '_>> =
                        self.indexes.all().iter().map(|index| index.stage(&docs)).collect();
                    (docs, entries)
                },
                || Error::storage("the store write panicked", None, "report this as a bug"),
            );
            (Some(staged), written)
        };
        let value = match written {
            Ok(value) => value,
            Err(e) => {
                drop(staged);
                return Err(self.recover(entry, e)?);
            }
        };
        let change = value.change();
        self.with_followers(change.stored, &change.removed, || match staged {
            Some((docs, entries)) if change.stored.len() == stage.len() => {
                self.publish(docs, entries, stage, change.stored)
            }
            staged => {
                drop(staged);
                self.apply(change.stored, &change.removed)
            }
        })?;
        self.journal.end(entry)?;
        Ok(value)
    }

    /// Publishes staged entries for what the store durably holds now (`stored`, in the order
    /// of `stage`); entries of memories the store changed are rebuilt first.
    fn publish(
        &self,
        mut docs: Vec<IndexDoc>,
        entries: Vec<Box<dyn Staged + '_>>,
        stage: &[Memory],
        stored: &[Memory],
    ) -> Result<()> {
        let changed: Vec<usize> = (0..stored.len()).filter(|&i| stored[i] != stage[i]).collect();
        let mut replaced = Vec::new();
        let known = KnownTurns::of(stored);
        for &i in &changed {
            let memory = std::slice::from_ref(&stored[i]);
            let Some(mut doc) = self.previous_turns(memory, &known).docs(memory).pop() else {
                continue;
            };
            if doc.meta.key != docs[i].meta.key {
                replaced.push(docs[i].meta.key.clone());
            }
            doc.given_vector = docs[i].given_vector.take();
            docs[i] = doc;
        }
        for staged in entries {
            // A lagging index catches up from the store when it is next used.
            let _lagging: Applied = staged.publish(&docs, &changed, &replaced)?;
        }
        Ok(())
    }

    /// Writes `stored` into every index and removes `removed` (the caller holds the lock).
    pub(crate) fn apply(&self, stored: &[Memory], removed: &[MemoryRef]) -> Result<()> {
        let docs = self.docs_of(stored);
        for index in self.indexes.all() {
            // A lagging index catches up from the store when it is next used.
            let _lagging: Applied = index.apply(&docs, removed)?;
        }
        Ok(())
    }

    /// After a store write failed with `e`: an error that says the input was refused before
    /// anything was written (invalid, nothing to change, an ability the store lacks) just
    /// clears the journal record, so a refused write touches no index file; any other (a
    /// storage failure after part of a batch, a git autocommit that failed, a conflict found
    /// part-way, a store of someone else's) may follow a partial write, so the journaled keys
    /// are indexed from what the store now holds. Returns `e`.
    fn recover(&self, entry: JournalEntry, e: Error) -> Result<Error> {
        let refused = matches!(
            e.category(),
            Category::Validation | Category::NotFound | Category::Unsupported
        );
        if refused {
            self.journal.end(entry)?;
        } else {
            self.replay_locked()?;
        }
        Ok(e)
    }
}
