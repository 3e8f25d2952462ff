//! [`Indexes`]: the derived indexes of one store and how they follow it.
//!
//! Layout, under `<store>/.memcore/index/`: `text/` (tantivy), `vectors/` (embeddings),
//! `journal/` (pending work) and `lock`. Every change goes: lock, journal the keys, write the
//! store, update the indexes, clear the journal. A crash anywhere in between leaves journal
//! markers that the next open or search replays from the store. `reindex` rebuilds
//! everything, `verify` compares store and indexes by key and content hash, `repair` fixes
//! what `verify` finds.
//!
//! Semantic search needs an embedder; it is set up lazily on first use, and when it cannot be
//! (no model files, no runtime), everything else keeps working and searches say why in a
//! warning (seed 002's graceful degradation).

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use parking_lot::Mutex;
use serde::Serialize;

use super::journal::{Entry, Journal};
use super::text::TextBatch;
use super::{DocFilter, IndexDoc, TextIndex, VectorIndex, content_hash, doc_key};
use crate::store::MemoryStore;
use crate::store::lock::{LockGuard, StoreLock};
use crate::{Collection, Embedder, Error, Memory, MemoryId, ModelFiles, OnnxEmbedder, Result};

/// Texts embedded per model call while indexing: several of the embedder's 32-text chunks,
/// so an embedder with a session per core runs them at once.
const EMBED_BATCH: usize = 256;
/// Memories written to the text index per commit while rebuilding.
const REINDEX_BATCH: usize = 1_000;

/// Where the embedder comes from.
#[derive(Debug, Clone)]
pub(crate) enum EmbedderChoice {
    /// The ONNX model found by [`ModelFiles::locate`] (config dir, env, default cache).
    Auto {
        /// The model directory from the config, if any.
        model_dir: Option<PathBuf>,
    },
    /// A caller-supplied embedder.
    Given(Arc<dyn Embedder>),
    /// No semantic search.
    Off,
}

/// The embedder and the vectors it produced.
#[derive(Debug)]
pub(crate) struct Semantic {
    /// Turns text into vectors.
    pub(crate) embedder: Arc<dyn Embedder>,
    /// Nearest-neighbour search over them.
    pub(crate) vectors: VectorIndex,
}

/// Index work for memories about to be stored, prepared while the store writes them (see
/// [`Indexes::stage`]): nothing shows until [`Indexes::publish`], and dropping it discards
/// everything.
pub(crate) struct Staged<'a> {
    /// The memories as given to the store.
    memories: &'a [Memory],
    /// Their index documents.
    docs: Vec<IndexDoc>,
    /// Their full-text entries, added to an uncommitted writer.
    text: Result<TextBatch<'a>>,
    /// Their vectors, in order; `None` without semantic search.
    vectors: Option<Result<Vec<Vec<f32>>>>,
}

/// The derived indexes of one store.
#[derive(Debug)]
pub(crate) struct Indexes {
    dir: PathBuf,
    lock: StoreLock,
    journal: Journal,
    text: TextIndex,
    choice: EmbedderChoice,
    semantic: OnceLock<std::result::Result<Semantic, String>>,
    vectors_checked: Mutex<bool>,
}

/// How one index differs from the store.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct IndexDiff {
    /// In the store, not in the index.
    pub missing: Vec<String>,
    /// In the index, not in the store.
    pub orphaned: Vec<String>,
    /// In both, but the index holds another version.
    pub mismatched: Vec<String>,
}

impl IndexDiff {
    /// Whether the index matches the store.
    pub fn is_clean(&self) -> bool {
        self.missing.is_empty() && self.orphaned.is_empty() && self.mismatched.is_empty()
    }

    fn between(store: &HashMap<String, String>, index: Vec<(String, String)>) -> Self {
        let index: HashMap<String, String> = index.into_iter().collect();
        let mut diff = Self::default();
        for (key, hash) in store {
            match index.get(key) {
                None => diff.missing.push(key.clone()),
                Some(indexed) if indexed != hash => diff.mismatched.push(key.clone()),
                Some(_) => {}
            }
        }
        diff.orphaned = index.keys().filter(|key| !store.contains_key(*key)).cloned().collect();
        diff.missing.sort();
        diff.orphaned.sort();
        diff.mismatched.sort();
        diff
    }
}

/// What [`crate::Memcore::verify`] found.
#[derive(Debug, Serialize)]
#[non_exhaustive]
pub struct VerifyReport {
    /// Memories in the store.
    pub store_count: usize,
    /// The full-text index against the store.
    pub text: IndexDiff,
    /// The vector index against the store, when semantic search is available.
    pub vectors: Option<IndexDiff>,
    /// Why the vector index was not checked, if it was not.
    pub vectors_unavailable: Option<String>,
    /// The embedding model the vectors were made with, when the vector index was checked.
    pub vector_model: Option<String>,
    /// Store files that could not be read (each names its file); they are not indexed.
    #[serde(serialize_with = "errors_as_strings")]
    pub unreadable: Vec<Error>,
}

impl VerifyReport {
    /// Whether every checked index matches the store.
    pub fn is_consistent(&self) -> bool {
        self.text.is_clean() && self.vectors.as_ref().is_none_or(IndexDiff::is_clean)
    }
}

fn errors_as_strings<S: serde::Serializer>(errors: &[Error], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(errors.iter().map(ToString::to_string))
}

/// What [`crate::Memcore::repair`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct RepairReport {
    /// Memories (re)indexed.
    pub reindexed: usize,
    /// Index entries without a memory, removed.
    pub removed: usize,
}

/// What [`crate::Memcore::sync`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SyncReport {
    /// Memories whose index entries were brought level with the store (changed or removed).
    pub synced: usize,
    /// Whether the whole store was compared (first sync, or the store cannot say what
    /// changed) instead of only what changed since the last sync.
    pub full: bool,
}

/// The file, in the index directory, holding the store's change cursor at the last sync.
const SYNC_CURSOR_FILE: &str = "sync-cursor";

/// Progress of a [`crate::Memcore::reindex`]: memories done out of the total.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Progress {
    /// Memories indexed so far.
    pub done: usize,
    /// Memories to index.
    pub total: usize,
}

/// Splits `collection/id`.
fn split_key(key: &str) -> Result<(Collection, MemoryId)> {
    let (collection, id) = key
        .split_once('/')
        .ok_or_else(|| Error::index(format!("malformed index key {key:?}"), None, "run reindex"))?;
    Ok((Collection::new(collection)?, MemoryId::new(id)?))
}

impl Indexes {
    /// Opens (creating) the indexes in `dir` and replays pending journal work from `store`.
    /// A damaged text index is rebuilt from the store.
    pub(crate) fn open(
        dir: &Path,
        store: &dyn MemoryStore,
        choice: EmbedderChoice,
        lock_timeout: Duration,
    ) -> Result<Self> {
        crate::store::fsutil::create_private_dir_all(dir)?;
        let lock = StoreLock::new(&dir.join("lock"), lock_timeout);
        let journal = Journal::open(&dir.join("journal"))?;
        // A missing text index (first open, or deleted) is built from the store, like a
        // damaged one.
        let missing = !dir.join("text").exists();
        let (text, rebuild) = match TextIndex::open(&dir.join("text")) {
            Ok(text) => (text, missing),
            Err(_) => (TextIndex::create_fresh(&dir.join("text"))?, true),
        };
        let indexes = Self {
            dir: dir.to_path_buf(),
            lock,
            journal,
            text,
            choice,
            semantic: OnceLock::new(),
            vectors_checked: Mutex::new(false),
        };
        if rebuild {
            indexes.reindex(store, &mut |_| {})?;
        } else {
            indexes.replay(store)?;
        }
        Ok(indexes)
    }

    /// Takes the index lock; writers hold it from journaling to clearing the journal.
    pub(crate) fn lock(&self) -> Result<LockGuard<'_>> {
        self.lock.acquire()
    }

    /// The embedder and vectors, set up on first use; `Err` says why semantic search is off.
    /// What the vector index's graph is doing, when semantic search has started (no model is
    /// loaded to answer this).
    pub(crate) fn graph_status(&self) -> Option<super::GraphStatus> {
        match self.semantic.get() {
            Some(Ok(semantic)) => Some(semantic.vectors.graph_status()),
            _ => None,
        }
    }

    pub(crate) fn semantic(
        &self,
        store: &dyn MemoryStore,
    ) -> std::result::Result<&Semantic, String> {
        let semantic =
            self.semantic.get_or_init(|| self.init_semantic()).as_ref().map_err(Clone::clone)?;
        let mut checked = self.vectors_checked.lock();
        if !*checked {
            *checked = true;
            if let Err(e) = self.fill_missing_vectors(store, semantic) {
                return Err(format!("the vector index could not catch up: {}", e.report()));
            }
        }
        Ok(semantic)
    }

    fn init_semantic(&self) -> std::result::Result<Semantic, String> {
        let embedder: Arc<dyn Embedder> = match &self.choice {
            EmbedderChoice::Off => return Err("semantic search is turned off in the config".into()),
            EmbedderChoice::Given(embedder) => Arc::clone(embedder),
            EmbedderChoice::Auto { model_dir } => {
                let files = ModelFiles::locate(model_dir.as_deref()).map_err(|e| e.report())?;
                Arc::new(OnnxEmbedder::new(&files).map_err(|e| e.report())?)
            }
        };
        let dir = self.dir.join("vectors");
        let open = || VectorIndex::open(&dir, embedder.dimension(), embedder.model_id());
        let vectors = match open() {
            Ok(vectors) => vectors,
            // Another model (or a damaged file): start over; the catch-up re-embeds everything.
            // (No lock here: callers may hold it; a model change is an administrator's act.)
            // An I/O failure (permissions, no descriptors left) keeps the vectors: semantic
            // search is off for this handle with the error as the warning.
            Err(Error::Index { .. }) => {
                remove_dir(&dir).map_err(|e| e.report())?;
                open().map_err(|e| e.report())?
            }
            Err(e) => return Err(e.report()),
        };
        Ok(Semantic { embedder, vectors })
    }

    /// Brings the vector index level with the text index: embeds memories it lacks or holds
    /// in another version (written while the model was unavailable, or by a process without
    /// it, or before a model change) and drops entries the text index no longer has.
    fn fill_missing_vectors(&self, store: &dyn MemoryStore, semantic: &Semantic) -> Result<()> {
        let text: HashMap<String, String> = self.text.all_keys()?.into_iter().collect();
        let diff = IndexDiff::between(&text, semantic.vectors.all_keys());
        if diff.is_clean() {
            return Ok(());
        }
        let _guard = self.lock.acquire()?;
        let stale: Vec<String> = diff.missing.into_iter().chain(diff.mismatched).collect();
        let memories = load(store, &stale)?;
        let docs: Vec<IndexDoc> = memories.iter().flatten().map(IndexDoc::of).collect();
        let orphaned: Vec<&str> = diff.orphaned.iter().map(String::as_str).collect();
        if !orphaned.is_empty() {
            semantic.vectors.remove(&orphaned)?;
        }
        embed_into(semantic, &docs)
    }

    /// Replays journal records left by an interrupted writer. While a writer holds the lock
    /// the records are its own (a dead writer's lock is released by the system), so nothing
    /// is replayed and the caller does not wait: a search never waits for another process's
    /// batch to finish.
    pub(crate) fn replay(&self, store: &dyn MemoryStore) -> Result<()> {
        if self.journal.pending()?.is_empty() {
            return Ok(());
        }
        let Some(_guard) = self.lock.try_acquire()? else { return Ok(()) };
        self.replay_locked(store)
    }

    /// [`Indexes::replay`] for a caller that holds the lock.
    pub(crate) fn replay_locked(&self, store: &dyn MemoryStore) -> Result<()> {
        let pending = self.journal.pending()?;
        self.sync_keys(store, &pending.keys)?;
        self.journal.clear(pending)
    }

    /// Records durably that the index entries of `keys` are about to change (caller holds
    /// the lock); [`Indexes::finish`] or [`Indexes::abandon`] ends the record.
    pub(crate) fn begin(&self, keys: &[String]) -> Result<Entry> {
        self.journal.begin(keys)
    }

    /// Brings the indexes level with a store write (`stored` memories, `deleted` keys) and
    /// clears its journal record. An index failure keeps the record, so the next open or
    /// search retries.
    pub(crate) fn finish(&self, entry: Entry, stored: &[Memory], deleted: &[String]) -> Result<()> {
        let _warnings = self.index(stored, deleted)?;
        self.journal.end(entry)
    }

    /// Ends the record of a write that failed before it changed the store.
    pub(crate) fn abandon(&self, entry: Entry) -> Result<()> {
        self.journal.end(entry)
    }

    /// Makes the index entries of `keys` match the store (caller holds the lock).
    pub(crate) fn sync_keys(
        &self,
        store: &dyn MemoryStore,
        keys: &[String],
    ) -> Result<Vec<String>> {
        let memories = load(store, keys)?;
        let mut upserts = Vec::new();
        let mut deletes = Vec::new();
        for (key, memory) in keys.iter().zip(memories) {
            match memory {
                Some(memory) => upserts.push(memory),
                None => deletes.push(key.clone()),
            }
        }
        self.index(&upserts, &deletes)
    }

    /// Prepares the index entries of `memories` (caller holds the lock) while the store
    /// writes them on another thread: documents, full-text entries, and (the bulk of the work
    /// with a model) their embeddings.
    pub(crate) fn stage<'a>(&'a self, memories: &'a [Memory]) -> Staged<'a> {
        let docs: Vec<IndexDoc> = memories.iter().map(IndexDoc::of).collect();
        let text = self.text.batch().and_then(|mut batch| {
            batch.apply(&docs, &[])?;
            Ok(batch)
        });
        let vectors = match self.semantic.get_or_init(|| self.init_semantic()) {
            Ok(semantic) => Some(embed(semantic, &docs)),
            Err(_) => None,
        };
        Staged { memories, docs, text, vectors }
    }

    /// Publishes `staged` for what the store durably holds now (`stored`, in the order the
    /// memories were staged) and clears the journal record. Entries of memories the store
    /// changed (a replacement keeps its creation time; a store may assign ids) are rebuilt
    /// first. An index failure keeps the record, so the next open or search retries.
    pub(crate) fn publish(
        &self,
        entry: Entry,
        staged: Staged<'_>,
        stored: &[Memory],
    ) -> Result<()> {
        let Staged { memories, mut docs, text, vectors } = staged;
        if stored.len() != memories.len() {
            drop(text);
            return self.finish(entry, stored, &[]);
        }
        let mut text = text?;
        let changed: Vec<usize> = (0..stored.len()).filter(|&i| stored[i] != memories[i]).collect();
        let mut replaced_keys = Vec::new();
        let mut rebuilt = Vec::with_capacity(changed.len());
        // A changed memory keeps its vector when its embedded text is the same.
        let mut reembed = false;
        for &i in &changed {
            let doc = IndexDoc::of(&stored[i]);
            if doc.meta.key != docs[i].meta.key {
                replaced_keys.push(docs[i].meta.key.clone());
            }
            reembed |= doc.embedding_text() != docs[i].embedding_text();
            rebuilt.push(doc.clone());
            docs[i] = doc;
        }
        let replaced: Vec<&str> = replaced_keys.iter().map(String::as_str).collect();
        text.apply(&rebuilt, &replaced)?;
        text.commit()?;
        if let (Some(Ok(vectors)), Some(Ok(semantic))) = (vectors, self.semantic.get()) {
            let written = if reembed { embed(semantic, &docs) } else { Ok(vectors) };
            if let Ok(vectors) = written {
                let items: Vec<_> = docs.iter().map(|d| d.meta.clone()).zip(vectors).collect();
                semantic.vectors.upsert(&items)?;
            }
            // Not embedded (the model failed): text search has them, and the vector index
            // catches up on the next handle's first semantic search.
        }
        self.journal.end(entry)
    }

    /// Writes `memories` into every index and removes `deleted` keys (caller holds the lock).
    /// Returns warnings: an embedding failure leaves the text index updated and says so.
    pub(crate) fn index(&self, memories: &[Memory], deleted: &[String]) -> Result<Vec<String>> {
        let docs: Vec<IndexDoc> = memories.iter().map(IndexDoc::of).collect();
        let removed: Vec<&str> = deleted.iter().map(String::as_str).collect();
        self.text.apply(&docs, &removed)?;
        let mut warnings = Vec::new();
        // Every writer embeds what it writes, so other processes' vectors stay current.
        if let Ok(semantic) = self.semantic.get_or_init(|| self.init_semantic()) {
            if !removed.is_empty() {
                semantic.vectors.remove(&removed)?;
            }
            if let Err(e) = embed_into(semantic, &docs) {
                warnings.push(format!("stored and text-indexed, but not embedded: {}", e.report()));
            }
        }
        Ok(warnings)
    }

    /// Rebuilds every index from the store, reporting progress.
    pub(crate) fn reindex(
        &self,
        store: &dyn MemoryStore,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<usize> {
        let _guard = self.lock.acquire()?;
        let (memories, _unreadable) = scan_all(store)?;
        let total = memories.len();
        self.text.clear()?;
        let semantic = match self.semantic.get_or_init(|| self.init_semantic()) {
            Ok(semantic) => {
                semantic.vectors.clear()?;
                Some(semantic)
            }
            Err(_) => None,
        };
        progress(Progress { done: 0, total });
        let mut done = 0;
        for chunk in memories.chunks(REINDEX_BATCH) {
            let docs: Vec<IndexDoc> = chunk.iter().map(|m| IndexDoc::of(m)).collect();
            self.text.apply(&docs, &[])?;
            if let Some(semantic) = semantic {
                for batch in docs.chunks(EMBED_BATCH) {
                    embed_into(semantic, batch)?;
                    done += batch.len();
                    progress(Progress { done, total });
                }
            } else {
                done += docs.len();
                progress(Progress { done, total });
            }
        }
        *self.vectors_checked.lock() = true;
        self.journal.clear(self.journal.pending()?)?;
        Ok(total)
    }

    /// Compares the store with every index by key and content hash.
    pub(crate) fn verify(&self, store: &dyn MemoryStore) -> Result<VerifyReport> {
        self.text.refresh()?;
        let (memories, unreadable) = scan_all(store)?;
        let hashes: HashMap<String, String> =
            memories.iter().map(|m| (doc_key(m), content_hash(m))).collect();
        let text = IndexDiff::between(&hashes, self.text.all_keys()?);
        let (vectors, vectors_unavailable, vector_model) = match self.semantic(store) {
            Ok(semantic) => {
                semantic.vectors.refresh()?;
                let diff = IndexDiff::between(&hashes, semantic.vectors.all_keys());
                (Some(diff), None, Some(semantic.vectors.model_id().to_owned()))
            }
            Err(why) => (None, Some(why), None),
        };
        Ok(VerifyReport {
            store_count: memories.len(),
            text,
            vectors,
            vectors_unavailable,
            vector_model,
            unreadable,
        })
    }

    /// Fixes whatever [`Indexes::verify`] finds.
    pub(crate) fn repair(&self, store: &dyn MemoryStore) -> Result<RepairReport> {
        let report = self.verify(store)?;
        let mut stale: Vec<String> = Vec::new();
        let mut orphaned: Vec<String> = Vec::new();
        for diff in std::iter::once(&report.text).chain(report.vectors.as_ref()) {
            stale.extend(diff.missing.iter().chain(&diff.mismatched).cloned());
            orphaned.extend(diff.orphaned.iter().cloned());
        }
        stale.sort();
        stale.dedup();
        orphaned.sort();
        orphaned.dedup();
        if stale.is_empty() && orphaned.is_empty() {
            return Ok(RepairReport::default());
        }
        let _guard = self.lock.acquire()?;
        if self.semantic.get().is_none() {
            let _ = self.semantic.get_or_init(|| self.init_semantic());
        }
        let all: Vec<String> = stale.iter().chain(&orphaned).cloned().collect();
        self.sync_keys(store, &all)?;
        Ok(RepairReport { reindexed: stale.len(), removed: orphaned.len() })
    }

    /// Brings the indexes level with changes made to the store behind memcore's back (notes
    /// fetched from another clone, edits by other tools): only what changed since the last
    /// sync when the store can tell, else a full [`Indexes::repair`].
    pub(crate) fn sync(&self, store: &dyn MemoryStore) -> Result<SyncReport> {
        let Some(cursor) = store.change_cursor()? else {
            let repaired = self.repair(store)?;
            return Ok(SyncReport { synced: repaired.reindexed + repaired.removed, full: true });
        };
        let cursor_file = self.dir.join(SYNC_CURSOR_FILE);
        let saved = std::fs::read_to_string(&cursor_file).ok();
        let changed = match saved.as_deref() {
            Some(saved) if saved == cursor => return Ok(SyncReport::default()),
            Some(saved) => store.changed_since(saved).ok(),
            None => None,
        };
        let report = match changed {
            Some(keys) => {
                let _guard = self.lock.acquire()?;
                let stale = self.stale(store, &keys)?;
                self.sync_keys(store, &stale)?;
                SyncReport { synced: stale.len(), full: false }
            }
            None => {
                let repaired = self.repair(store)?;
                SyncReport { synced: repaired.reindexed + repaired.removed, full: true }
            }
        };
        crate::store::fsutil::write_atomic(&cursor_file, cursor.as_bytes())?;
        Ok(report)
    }

    /// Those of `keys` whose index entry differs from the store: missing, stale, or left
    /// behind by a memory that is gone (memcore's own writes are indexed already).
    fn stale(&self, store: &dyn MemoryStore, keys: &[String]) -> Result<Vec<String>> {
        let indexed = self.text.hashes_of(keys)?;
        let memories = load(store, keys)?;
        let differs = |(key, memory): &(&String, Option<Memory>)| match (memory, indexed.get(*key))
        {
            (Some(memory), Some(hash)) => content_hash(memory) != *hash,
            (None, None) => false,
            _ => true,
        };
        Ok(keys.iter().zip(memories).filter(differs).map(|(key, _)| key.clone()).collect())
    }

    /// Makes other processes' committed changes visible and replays interrupted work. A
    /// replay that cannot finish (say, a memory file that cannot be read) does not stop
    /// searches: it comes back as a warning, and the work stays journaled for the next try.
    pub(crate) fn refresh(&self, store: &dyn MemoryStore) -> Result<Vec<String>> {
        let mut warnings = Vec::new();
        if let Err(e) = self.replay(store) {
            warnings.push(format!(
                "some recent changes are not indexed yet, so results may miss them: {}",
                e.report()
            ));
        }
        self.text.refresh()?;
        if let Some(Ok(semantic)) = self.semantic.get() {
            semantic.vectors.refresh()?;
        }
        Ok(warnings)
    }

    /// Text hits for `text` under `filter`.
    pub(crate) fn search_text(
        &self,
        text: &str,
        filter: &DocFilter,
        limit: usize,
    ) -> Result<Vec<(String, f32)>> {
        self.text.search(text, filter, limit)
    }
}

/// Embeds `docs` in batches and stores the vectors.
fn embed_into(semantic: &Semantic, docs: &[IndexDoc]) -> Result<()> {
    for batch in docs.chunks(EMBED_BATCH) {
        let items: Vec<_> =
            batch.iter().map(|d| d.meta.clone()).zip(embed(semantic, batch)?).collect();
        semantic.vectors.upsert(&items)?;
    }
    Ok(())
}

/// The vectors of `docs`, in order.
fn embed(semantic: &Semantic, docs: &[IndexDoc]) -> Result<Vec<Vec<f32>>> {
    let texts: Vec<String> = docs.iter().map(IndexDoc::embedding_text).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    semantic.embedder.embed(&refs)
}

/// The current memories for `keys` (`None` where the memory is gone or unreadable).
fn load(store: &dyn MemoryStore, keys: &[String]) -> Result<Vec<Option<Memory>>> {
    keys.iter()
        .map(|key| {
            let (collection, id) = split_key(key)?;
            match store.get(Some(&collection), &id) {
                Ok(memory) => Ok(Some(Arc::unwrap_or_clone(memory))),
                Err(Error::NotFound { .. } | Error::Corrupted { .. }) => Ok(None),
                Err(e) => Err(e),
            }
        })
        .collect()
}

/// Every readable memory of the store, and the errors of the unreadable ones.
fn scan_all(store: &dyn MemoryStore) -> Result<(Vec<Arc<Memory>>, Vec<Error>)> {
    let mut memories = Vec::new();
    let mut unreadable = Vec::new();
    store.scan(None, &mut |item| {
        match item {
            Ok(memory) => memories.push(memory),
            Err(e) => unreadable.push(e),
        }
        ControlFlow::Continue(())
    })?;
    Ok((memories, unreadable))
}

fn remove_dir(dir: &Path) -> Result<()> {
    match std::fs::remove_dir_all(dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(format!("removing damaged index {}", dir.display()), e)),
    }
}
