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
    ///
    /// A batch of more than 4,096 memories is written 4,096 at a time, each slice durable and
    /// searchable when the next begins, so that the memory a batch needs does not grow with
    /// it. An error after the first slice (an I/O failure, the store lock held past the
    /// timeout, an index failure) leaves the slices before it stored; putting the batch
    /// again is safe (it stores those memories again, as new versions). A create-only batch,
    /// and every batch of a PostgreSQL store (one transaction), stay one write.
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

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::{
        CallbackEmbedder, Error, Memcore, NewMemory, PutMode, Query, SESSION_KEY, SearchMode,
        TURN_KEY,
    };

    /// A store in `dir` embedding with a toy model (letter counts) that upserts batches
    /// `slice` memories at a time.
    fn open(dir: &std::path::Path, slice: usize) -> Memcore {
        let letters = CallbackEmbedder::new(
            "letter-counts-v1",
            26,
            Arc::new(|texts: &[&str]| Ok(texts.iter().map(|text| letter_counts(text)).collect())),
        )
        .unwrap();
        let mut memcore = Memcore::builder().path(dir).embedder(Arc::new(letters)).open().unwrap();
        memcore.indexed.set_write_slice(slice);
        memcore
    }

    /// How often each letter occurs in `text` (and one more `z`, so no vector is zero).
    fn letter_counts(text: &str) -> Vec<f32> {
        let mut counts = vec![0.0_f32; 26];
        counts[25] = 1.0;
        for b in text.bytes().filter(u8::is_ascii_alphabetic) {
            counts[usize::from(b.to_ascii_lowercase() - b'a')] += 1.0;
        }
        counts
    }

    /// A conversation of seven turns; turns 2 and 5 bring vectors of their own (a single
    /// letter, which no text here is near).
    fn turns() -> Vec<NewMemory> {
        let lines = [
            "Did you ever make it to the glacier?",
            "Yes, last week, it was stunning.",
            "Which bakery sells the rye sourdough?",
            "The one on Elm Street.",
            "Where did you find the old violin?",
            "It was in the attic all along.",
            "Thanks for the tip.",
        ];
        lines
            .iter()
            .enumerate()
            .map(|(i, line)| {
                let memory = NewMemory::new(*line)
                    .id(format!("t{i}"))
                    .created_by(if i % 2 == 0 { "Ana" } else { "Ben" })
                    .meta(SESSION_KEY, "s1")
                    .meta(TURN_KEY, i as u64);
                match i {
                    2 => memory.vector(one_hot(16)),
                    5 => memory.vector(one_hot(9)),
                    _ => memory,
                }
            })
            .collect()
    }

    /// A vector pointing along letter `letter` alone.
    fn one_hot(letter: usize) -> Vec<f32> {
        let mut vector = vec![0.0_f32; 26];
        vector[letter] = 1.0;
        vector
    }

    /// What a search finds: ids and scores, best first.
    fn found(memcore: &Memcore, query: Query) -> Vec<(String, String)> {
        let results = memcore.search(&query.limit(10)).unwrap();
        assert!(results.warnings.is_empty(), "{:?}", results.warnings);
        results
            .hits
            .iter()
            .map(|hit| (hit.memory.id.to_string(), format!("{:.5}", hit.score)))
            .collect()
    }

    #[test]
    fn a_batch_written_in_slices_is_stored_and_found_as_one_write_would_be() {
        let (whole_dir, sliced_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let whole = open(whole_dir.path(), 100);
        let sliced = open(sliced_dir.path(), 3);
        let stored_whole = whole.put_many(turns()).unwrap();
        let stored_sliced = sliced.put_many(turns()).unwrap();
        let ids = |stored: &[crate::Memory]| -> Vec<String> {
            stored.iter().map(|memory| memory.id.to_string()).collect()
        };
        assert_eq!(ids(&stored_sliced), ["t0", "t1", "t2", "t3", "t4", "t5", "t6"]);
        assert_eq!(ids(&stored_sliced), ids(&stored_whole));

        // Turn 3 (second slice) is searched with turn 2 before it (first slice), as in one
        // write: "sourdough" finds both.
        for text in ["sourdough bakery", "violin attic", "glacier", "tip"] {
            for mode in [SearchMode::Text, SearchMode::Hybrid] {
                let query = || Query::new(text).mode(mode);
                assert_eq!(found(&sliced, query()), found(&whole, query()), "{text} {mode:?}");
            }
        }
        let sourdough = found(&sliced, Query::new("sourdough").mode(SearchMode::Text));
        let hits: Vec<_> = sourdough.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(hits, ["t3", "t2"], "the answer, then the turn that only asks");
        // The given vectors went with their memories, in whichever slice they fell.
        for (letter, id) in [(16, "t2"), (9, "t5")] {
            let query = Query::new("x").mode(SearchMode::Semantic).vector(one_hot(letter));
            assert_eq!(found(&sliced, query)[0].0, id);
        }
    }

    #[test]
    fn a_create_only_batch_stays_one_write_so_a_conflict_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let memcore = open(dir.path(), 2);
        memcore.put(NewMemory::new("Already here.").id("t5")).unwrap();
        let error = memcore.put_many_with(turns(), PutMode::CreateOnly).unwrap_err();
        assert!(matches!(error, Error::Conflict { .. }), "{error:?}");
        assert_eq!(memcore.get("t0").unwrap_err().category(), crate::Category::NotFound);
        assert_eq!(memcore.stats().unwrap().memories, 1);
    }
}
