//! Keeping the indexes level with the store outside the write path: replaying interrupted
//! work, rebuilding, verifying and repairing every index, syncing with changes made behind
//! memcore's back, and bringing a lagging index level with the reference index.

use std::collections::{BTreeMap, HashMap};
use std::ops::ControlFlow;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::IndexedStore;
use super::conversation::KnownTurns;
use crate::index::{
    Applied, DerivedIndex, IndexCheck, IndexDiff, IndexRebuild, IndexRepair, Progress,
    ReindexReport, RepairReport, SyncReport, VerifyReport, content_hash,
};
use crate::store::fsutil::write_atomic;
use crate::{Error, Memory, MemoryRef, Result};

/// The file, in the index directory, holding the store's change cursor at the last sync.
const SYNC_CURSOR_FILE: &str = "sync-cursor";

/// Index work an operation did on the way, besides what was asked (a read that found work a
/// crashed writer left, an index that had fallen behind): reads say so instead of writing
/// behind the caller's back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Maintenance {
    /// Index work an interrupted writer left in the journal was finished from the store.
    Replayed {
        /// Memories re-indexed (or dropped from the indexes).
        memories: usize,
    },
    /// An index that had fallen behind (written while it was unavailable, or by another
    /// process without it) was brought level with the store.
    CaughtUp {
        /// The index's name.
        index: String,
        /// Entries made.
        indexed: usize,
        /// Entries without a memory, removed.
        removed: usize,
    },
    /// The full-text index was missing (a new store, or deleted) or damaged, and was
    /// rebuilt from the store.
    Rebuilt {
        /// Memories indexed.
        memories: usize,
        /// Whether it was there but unreadable: something damaged it.
        damaged: bool,
    },
    /// Index work a failed writer left could not be done (the disk is full, say): it stays
    /// journaled and is retried by the next write, search or open; until then searches may
    /// miss those changes. Reads of the store are unaffected.
    Deferred {
        /// Why the work could not be done.
        reason: String,
    },
    /// Changes made behind memcore's back (git notes fetched from another clone) were brought
    /// into the indexes, as [`crate::Memcore::sync`] does.
    Synced {
        /// Memories whose index entries changed.
        memories: usize,
        /// Whether the whole store was compared instead of only what changed.
        full: bool,
    },
}

impl Maintenance {
    /// Whether this work repaired damage (an index that was there but unreadable, rebuilt),
    /// which a user should hear about even when not asking for details: the disk or a tool
    /// damaged something.
    pub fn is_repair(&self) -> bool {
        matches!(self, Self::Rebuilt { damaged: true, .. })
    }

    /// Whether a user should hear about this work even when not asking for details: a
    /// repair of damage, or work that could not be done.
    pub fn needs_attention(&self) -> bool {
        self.is_repair() || matches!(self, Self::Deferred { .. })
    }
}

impl std::fmt::Display for Maintenance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Deferred { reason } => write!(
                f,
                "some recent changes are not indexed yet and searches may miss them (retried \
                 by the next write, search or open): {reason}"
            ),
            Self::Replayed { memories } => write!(
                f,
                "finished the index work an interrupted writer left ({memories} memories)"
            ),
            Self::CaughtUp { index, indexed, removed } => write!(
                f,
                "brought the {index} index level with the store ({indexed} indexed, {removed} \
                 removed)"
            ),
            Self::Rebuilt { memories, damaged: true } => write!(
                f,
                "the full-text index was damaged and was rebuilt from the store ({memories} \
                 memories): check the disk, and whether a tool changed files in .memcore/"
            ),
            Self::Rebuilt { memories, damaged: false } => {
                write!(f, "built the full-text index from the store ({memories} memories)")
            }
            Self::Synced { memories, full } => write!(
                f,
                "indexed changes made outside memcore ({memories} memories{})",
                if *full { ", whole store compared" } else { "" }
            ),
        }
    }
}

impl IndexedStore {
    /// Replays journal records left by an interrupted writer. While a writer holds the lock
    /// the records are its own (a dead writer's lock is released by the system), so nothing
    /// is replayed and the caller does not wait: a search never waits for another process's
    /// batch to finish.
    pub(crate) fn replay(&self) -> Result<Option<Maintenance>> {
        if self.journal.pending()?.is_empty() {
            return Ok(None);
        }
        let Some(_guard) = self.lock.try_acquire()? else { return Ok(None) };
        self.replay_locked()
    }

    /// Rewrites the indexes so that no file keeps what deletions removed (purge): the
    /// full-text segments holding deleted documents, and the dead rows of the vector log,
    /// under the index lock. The vector log is left as it is when this handle cannot use it
    /// (no embedder, or a log of another model or unreadable: `reindex` starts it over), so
    /// that a purge is not held up by what only a rebuild can fix; a process with the model
    /// compacts it later.
    pub(crate) fn compact_removed(&self) -> Result<()> {
        let _guard = self.lock.acquire()?;
        self.indexes.text.compact_deleted()?;
        if let Ok(semantic) = self.indexes.vectors.semantic()
            && let Err(e) = semantic.vectors.compact_removed()
            && !matches!(e, Error::Index { .. } | Error::Corrupted { .. })
        {
            return Err(e);
        }
        Ok(())
    }

    /// [`IndexedStore::replay`] for a caller that holds the lock.
    pub(crate) fn replay_locked(&self) -> Result<Option<Maintenance>> {
        let pending = self.journal.pending()?;
        if pending.is_empty() {
            return Ok(None);
        }
        let memories = pending.keys.len();
        self.sync_keys(&pending.keys)?;
        self.journal.clear(pending)?;
        Ok(Some(Maintenance::Replayed { memories }))
    }

    /// Makes the index entries of `keys` match the store in every index (caller holds the
    /// lock): re-indexes the memories that exist, drops the others. A bare id stands for
    /// every memory with that id, in the store or in the indexes.
    pub(crate) fn sync_keys(&self, keys: &[MemoryRef]) -> Result<()> {
        let (stored, removed) = self.load(&self.qualify(keys)?)?;
        self.with_followers(&stored, &removed, || self.apply(&stored, &removed))
    }

    /// `keys` with every bare id replaced by the keys it may stand for: the memories with that
    /// id the store holds, and the entries with that id the full-text index holds.
    fn qualify(&self, keys: &[MemoryRef]) -> Result<Vec<MemoryRef>> {
        let mut qualified = Vec::with_capacity(keys.len());
        for key in keys {
            if key.is_qualified() {
                qualified.push(key.clone());
                continue;
            }
            qualified.extend(self.indexes.text.keys_with_id(key.id())?);
            match self.store.get(key) {
                Ok(memory) => qualified.push(memory.reference()),
                Err(Error::NotFound { .. } | Error::Corrupted { .. }) => {}
                // Held by several collections: each of them.
                Err(Error::Conflict { .. }) => {
                    for collection in self.store.collections()? {
                        let candidate = MemoryRef::new(collection, key.id().clone());
                        if self.store.get(&candidate).is_ok() {
                            qualified.push(candidate);
                        }
                    }
                }
                Err(e) => return Err(e),
            }
        }
        qualified.sort();
        qualified.dedup();
        Ok(qualified)
    }

    /// The memories `keys` name as the store holds them, and the keys with no (readable)
    /// memory.
    fn load(&self, keys: &[MemoryRef]) -> Result<(Vec<Memory>, Vec<MemoryRef>)> {
        let mut stored = Vec::new();
        let mut gone = Vec::new();
        for (key, memory) in keys.iter().zip(self.store.get_many(keys)?) {
            match memory {
                Ok(memory) => stored.push(Arc::unwrap_or_clone(memory)),
                Err(Error::NotFound { .. } | Error::Corrupted { .. }) => gone.push(key.clone()),
                Err(e) => return Err(e),
            }
        }
        Ok((stored, gone))
    }

    /// Makes other processes' committed changes visible and replays interrupted work, for a
    /// search. A replay that cannot finish (say, a memory file that cannot be read) does not
    /// stop the search: it comes back as a warning, and the work stays journaled for the next
    /// try. Returns the warnings and the work done.
    pub(crate) fn refresh(&self) -> Result<(Vec<String>, Option<Maintenance>)> {
        let mut warnings = Vec::new();
        let replayed = self.replay().unwrap_or_else(|e| {
            warnings.push(format!(
                "some recent changes are not indexed yet, so results may miss them: {}",
                e.report()
            ));
            None
        });
        for index in self.indexes.all() {
            index.refresh()?;
        }
        Ok((warnings, replayed))
    }

    /// Rebuilds every index from the store, reporting progress. Each index takes the
    /// memories in batches of its own size; progress follows the index with the smallest.
    pub(crate) fn reindex(&self, progress: &mut dyn FnMut(Progress)) -> Result<ReindexReport> {
        let _guard = self.lock.acquire()?;
        let (memories, unreadable) = self.scan_all()?;
        let total = memories.len();
        let known = KnownTurns::of(&memories);
        let mut indexes: Vec<(&dyn DerivedIndex, IndexRebuild)> = Vec::new();
        for index in self.indexes.all() {
            let mut rebuild = IndexRebuild::default();
            match index.ready() {
                Ok(()) => index.clear()?,
                Err(why) => rebuild.unavailable = Some(why.0),
            }
            indexes.push((index, rebuild));
        }
        let ready =
            |(_, rebuild): &&mut (&dyn DerivedIndex, IndexRebuild)| rebuild.unavailable.is_none();
        let batch = |index: &dyn DerivedIndex| index.rebuild_batch().max(1);
        let outer = indexes.iter_mut().filter(ready).map(|(index, _)| batch(*index)).max();
        let paced = indexes.iter_mut().filter(ready).map(|(index, _)| batch(*index)).min();
        progress(Progress { done: 0, total });
        let mut done = 0;
        for chunk in memories.chunks(outer.unwrap_or(total).max(1)) {
            let docs = self.previous_turns(chunk, &known).docs(chunk);
            for (index, rebuild) in indexes.iter_mut().filter(|i| ready(i)) {
                let size = batch(*index);
                for part in docs.chunks(size) {
                    required(index.apply(part, &[])?, *index)?;
                    rebuild.indexed += part.len();
                    if Some(size) == paced {
                        done += part.len();
                        progress(Progress { done, total });
                    }
                }
            }
            if paced.is_none() {
                done += docs.len();
                progress(Progress { done, total });
            }
        }
        self.journal.clear(self.journal.pending()?)?;
        if indexes.iter().any(|(index, rebuild)| {
            index.name() == self.indexes.vectors.name() && rebuild.unavailable.is_none()
        }) {
            self.indexes.vectors.mark_level()?;
        } else {
            // Rebuilt without them: the vectors may lack what the full text now holds.
            self.indexes.vectors.mark_lagging()?;
        }
        let indexes =
            indexes.into_iter().map(|(index, rebuild)| (index.name().to_owned(), rebuild));
        Ok(ReindexReport { memories: total, indexes: indexes.collect(), unreadable })
    }

    /// Compares the store with every index by key and content hash.
    pub(crate) fn verify(&self) -> Result<VerifyReport> {
        let (memories, unreadable) = self.scan_all()?;
        let expected: HashMap<MemoryRef, String> =
            memories.iter().map(|m| (m.reference(), content_hash(m))).collect();
        let mut checks = BTreeMap::new();
        for index in self.indexes.all() {
            let check = match index.ready() {
                Ok(()) => {
                    index.refresh()?;
                    IndexCheck {
                        diff: IndexDiff::between(&expected, &index.hashes()?),
                        unavailable: None,
                        built_with: index.built_with(),
                    }
                }
                Err(why) => IndexCheck { unavailable: Some(why.0), ..IndexCheck::default() },
            };
            checks.insert(index.name().to_owned(), check);
        }
        let warnings = self.store.name_mismatches()?;
        Ok(VerifyReport::new(memories.len(), checks, unreadable, warnings))
    }

    /// Fixes whatever [`IndexedStore::verify`] finds, index by index.
    pub(crate) fn repair(&self) -> Result<RepairReport> {
        let mut repair =
            RepairReport { leftovers: self.store.remove_leftovers()?, ..RepairReport::default() };
        let report = self.verify()?;
        if report.is_consistent() {
            return Ok(repair);
        }
        let _guard = self.lock.acquire()?;
        let (mut all_stale, mut all_orphaned) = (Vec::new(), Vec::new());
        for index in self.indexes.all() {
            let Some(check) = report.indexes.get(index.name()) else { continue };
            if check.diff.is_clean() {
                continue;
            }
            let (stale, orphaned) = check.diff.stale_and_orphaned();
            self.resync(index, &stale, &orphaned)?;
            let counts = IndexRepair { reindexed: stale.len(), removed: orphaned.len() };
            repair.indexes.insert(index.name().to_owned(), counts);
            all_stale.extend(stale);
            all_orphaned.extend(orphaned);
        }
        for keys in [&mut all_stale, &mut all_orphaned] {
            keys.sort();
            keys.dedup();
        }
        repair.reindexed = all_stale.len();
        repair.removed = all_orphaned.len();
        let vectors_skipped = report
            .indexes
            .get(self.indexes.vectors.name())
            .is_some_and(|check| check.unavailable.is_some());
        if vectors_skipped && !repair.indexes.is_empty() {
            // Repaired without them: the vectors may lack what the full text now holds.
            self.indexes.vectors.mark_lagging()?;
        }
        Ok(repair)
    }

    /// Makes `index`'s entries of the `stale` keys match the store and drops its `orphaned`
    /// entries (caller holds the lock). Returns how many entries were made and removed.
    fn resync(
        &self,
        index: &dyn DerivedIndex,
        stale: &[MemoryRef],
        orphaned: &[MemoryRef],
    ) -> Result<(usize, usize)> {
        let (stored, gone) = self.load(stale)?;
        let removed: Vec<MemoryRef> = orphaned.iter().chain(&gone).cloned().collect();
        let docs = self.docs_of(&stored);
        required(index.apply(&docs, &removed)?, index)?;
        Ok((docs.len(), removed.len()))
    }

    /// Brings the indexes level with changes made to the store behind memcore's back (notes
    /// fetched from another clone, edits by other tools): only what changed since the last
    /// sync when the store has a change feed, else a full [`IndexedStore::repair`].
    pub(crate) fn sync(&self) -> Result<SyncReport> {
        let full = |repaired: RepairReport| SyncReport {
            synced: repaired.reindexed + repaired.removed,
            full: true,
        };
        let Some(feed) = self.store.change_feed() else {
            return Ok(full(self.repair()?));
        };
        let cursor = feed.cursor()?;
        let cursor_file = self.dir.join(SYNC_CURSOR_FILE);
        let saved = std::fs::read_to_string(&cursor_file).ok();
        let changed = match saved.as_deref() {
            Some(saved) if saved == cursor => {
                feed.synced_to(&cursor);
                return Ok(SyncReport::default());
            }
            Some(saved) => feed.changed_since(saved).ok(),
            None => None,
        };
        let report = match changed {
            Some(keys) => {
                let _guard = self.lock.acquire()?;
                let stale = self.stale(&keys)?;
                self.sync_keys(&stale)?;
                SyncReport { synced: stale.len(), full: false }
            }
            None => full(self.repair()?),
        };
        write_atomic(&cursor_file, cursor.as_bytes())?;
        feed.synced_to(&cursor);
        Ok(report)
    }

    /// Those of `keys` whose full-text entry differs from the store: missing, stale, or left
    /// behind by a memory that is gone (memcore's own writes are indexed already).
    fn stale(&self, keys: &[MemoryRef]) -> Result<Vec<MemoryRef>> {
        let indexed = self.indexes.text.hashes_of(keys)?;
        let mut stale = Vec::new();
        for (key, memory) in keys.iter().zip(self.store.get_many(keys)?) {
            let differs = match (memory, indexed.get(key)) {
                (Ok(memory), Some(hash)) => content_hash(&memory) != *hash,
                (Err(Error::NotFound { .. } | Error::Corrupted { .. }), None) => false,
                (Err(Error::NotFound { .. } | Error::Corrupted { .. }), Some(_)) => true,
                (Ok(_), None) => true,
                (Err(e), _) => return Err(e),
            };
            if differs {
                stale.push(key.clone());
            }
        }
        Ok(stale)
    }

    /// Brings `index` level with the reference index (full text): entries it lacks or holds
    /// in another version are made from the store, entries the reference no longer has are
    /// dropped. For an index that may lag (see [`crate::index::Applied::Lagging`]); the
    /// caller holds the lock, so the comparison is not overtaken by a writer.
    pub(crate) fn catch_up_locked(&self, index: &dyn DerivedIndex) -> Result<Option<Maintenance>> {
        // Both read afresh under the lock: a full-text reader older than the vectors would
        // make a memory written meanwhile look orphaned, and the catch-up remove its vector.
        self.indexes.reference().refresh()?;
        index.refresh()?;
        let reference = self.indexes.reference().hashes()?;
        let diff = IndexDiff::between(&reference, &index.hashes()?);
        if diff.is_clean() {
            return Ok(None);
        }
        let (stale, orphaned) = diff.stale_and_orphaned();
        let (indexed, removed) = self.resync(index, &stale, &orphaned)?;
        Ok(Some(Maintenance::CaughtUp { index: index.name().to_owned(), indexed, removed }))
    }

    /// Every readable memory of the store, and the errors of the unreadable ones.
    pub(crate) fn scan_all(&self) -> Result<(Vec<Arc<Memory>>, Vec<Error>)> {
        let mut memories = Vec::new();
        let mut unreadable = Vec::new();
        self.store.scan(None, &mut |item| {
            match item {
                Ok(memory) => memories.push(memory),
                Err(e) => unreadable.push(e),
            }
            ControlFlow::Continue(())
        })?;
        Ok((memories, unreadable))
    }
}

/// `applied`, or the error of an index that could not take entries it had to take (a
/// rebuild, a repair or a catch-up cannot leave it behind).
fn required(applied: Applied, index: &dyn DerivedIndex) -> Result<()> {
    match applied {
        Applied::Done => Ok(()),
        Applied::Lagging(why) => Err(Error::index(
            format!("the {} index could not take its entries: {why}", index.name()),
            None,
            "fix what the message names (usually the embedding model), then run `memcore repair`",
        )),
    }
}
