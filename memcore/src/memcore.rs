//! [`Memcore`], the one entry point: a store plus the engines over it.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use std::time::Duration;

use crate::config::{self, Backend, Config, Location, Scope};
use crate::git::{GitNotesStore, Hydrated, HydrationLevel};
use crate::index::{
    EmbedderChoice, Indexes, JournalEntry, Progress, RepairReport, SyncReport, VerifyReport,
    doc_key,
};
use crate::search::engine::{self, SearchContext};
use crate::search::query_cache::QueryCache;
use crate::store::{FileStore, MemoryStore, PRIVATE_DIR, PutMode, TrashEntry, Version};
use crate::{
    Collection, Embedder, Error, Filter, Memory, MemoryId, MemorySummary, MemoryUpdate, NewMemory,
    Query, Result, SearchResults, Timestamp,
};

/// A source of the current time; injectable so tests are exact.
pub type Clock = Arc<dyn Fn() -> Timestamp + Send + Sync>;

/// An open memory store with its engines. `Send + Sync`: share it across threads with an
/// `Arc`, every method takes `&self`.
///
/// Memories are addressed by id, or by `collection/id` when the id is not unique across
/// collections.
///
/// ```
/// use memcore::{ListOptions, Memcore, MemoryUpdate, NewMemory};
///
/// let dir = tempfile::tempdir()?;
/// let memcore = Memcore::open(dir.path())?;
///
/// let stored = memcore.put(
///     NewMemory::new("# GPU Patterns\n\nPrefer Metal on Apple silicon.")
///         .collection("knowledge")
///         .tags(["gpu"]),
/// )?;
/// assert_eq!(stored.id.as_str(), "gpu-patterns");
///
/// memcore.update("knowledge/gpu-patterns", MemoryUpdate::new().tags(["perf"]).merge_tags(true))?;
/// let memory = memcore.get("gpu-patterns")?;
/// assert_eq!((memory.version, memory.tags.clone()), (2, vec!["gpu".into(), "perf".into()]));
///
/// let listing = memcore.list(&ListOptions::new().filter("tags=perf")?)?;
/// assert_eq!(listing.memories.len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Memcore {
    store: Box<dyn MemoryStore>,
    indexes: Indexes,
    query_cache: QueryCache,
    location: Location,
    clock: Clock,
}

impl std::fmt::Debug for Memcore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memcore")
            .field("store", &self.store)
            .field("location", &self.location)
            .finish()
    }
}

/// Builds a [`Memcore`]: from an explicit path, or from a [`Scope`] resolved from a directory.
#[derive(Default)]
#[must_use]
pub struct MemcoreBuilder {
    path: Option<PathBuf>,
    scope: Scope,
    start_dir: Option<PathBuf>,
    config: Option<Config>,
    backend: Option<Backend>,
    skip_sync: bool,
    clock: Option<Clock>,
    embedder: Option<Arc<dyn Embedder>>,
}

impl MemcoreBuilder {
    /// Opens the store at this directory, ignoring scope detection.
    pub fn path(mut self, path: impl Into<PathBuf>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// Which store to open when no path is given (default [`Scope::Auto`]).
    pub fn scope(mut self, scope: Scope) -> Self {
        self.scope = scope;
        self
    }

    /// Where scope detection starts walking up (default: the working directory).
    pub fn start_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.start_dir = Some(dir.into());
        self
    }

    /// Settings to use instead of those found on disk.
    pub fn config(mut self, config: Config) -> Self {
        self.config = Some(config);
        self
    }

    /// The clock used for `created_at`, `updated_at` and deletion times (default: UTC now).
    pub fn clock(mut self, clock: impl Fn() -> Timestamp + Send + Sync + 'static) -> Self {
        self.clock = Some(Arc::new(clock));
        self
    }

    /// Uses this backend whatever the config says. With [`Backend::GitNotes`] the path (or
    /// scope) is any directory inside the repository; its notes are the store and the
    /// indexes live in `.git/memcore/`.
    ///
    /// ```
    /// use memcore::{Backend, Memcore, NewMemory};
    /// # let dir = tempfile::tempdir()?;
    /// # let repo = git2::Repository::init(dir.path())?;
    /// # let sig = git2::Signature::now("t", "t@example.com")?;
    /// # let tree = repo.find_tree(repo.index()?.write_tree()?)?;
    /// # repo.commit(Some("HEAD"), &sig, &sig, "initial", &tree, &[])?;
    /// let memcore = Memcore::builder().path(dir.path()).backend(Backend::GitNotes).open()?;
    /// let stored = memcore.put(NewMemory::new("Use PostgreSQL.").collection("decisions"))?;
    /// assert!(stored.id.as_str().starts_with("decisions:"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn backend(mut self, backend: Backend) -> Self {
        self.backend = Some(backend);
        self
    }

    /// Whether opening syncs the indexes with changes made behind memcore's back (default
    /// true; only backends that can tell what changed, git notes, do anything). Turn it off
    /// to call [`Memcore::sync`] yourself and see its report.
    pub fn sync_on_open(mut self, sync: bool) -> Self {
        self.skip_sync = !sync;
        self
    }

    /// The embedder for semantic search, instead of the default ONNX model.
    pub fn embedder(mut self, embedder: Arc<dyn Embedder>) -> Self {
        self.embedder = Some(embedder);
        self
    }

    /// Resolves the location and opens the store (creating its directory if needed) and its
    /// indexes (replaying work a crash interrupted; rebuilding a damaged index).
    pub fn open(self) -> Result<Memcore> {
        let mut location = match self.path {
            Some(root) => Location::at(root)?,
            None => {
                let start = match self.start_dir {
                    Some(dir) => dir,
                    None => std::env::current_dir().map_err(|e| {
                        Error::io("reading the working directory for scope detection", e)
                    })?,
                };
                config::locate(self.scope, &start)?
            }
        };
        if let Some(config) = self.config {
            location.config = config;
        }
        if let Some(backend) = self.backend {
            location.config.backend = backend;
        }
        let (store, index_dir): (Box<dyn MemoryStore>, PathBuf) = match location.config.backend {
            Backend::File => {
                let store = FileStore::open(&location.root, &location.config)?;
                (Box::new(store), location.root.join(PRIVATE_DIR).join("index"))
            }
            Backend::GitNotes => {
                let store = GitNotesStore::open(&location.root, &location.config)?;
                let index_dir = store.private_dir().join("index");
                (Box::new(store), index_dir)
            }
        };
        let embedding = &location.config.embedding;
        let choice = match self.embedder {
            Some(embedder) => EmbedderChoice::Given(embedder),
            None if embedding.enabled => {
                EmbedderChoice::Auto { model_dir: embedding.model_dir.clone() }
            }
            None => EmbedderChoice::Off,
        };
        let lock_timeout = Duration::from_millis(location.config.lock_timeout_ms);
        let indexes = Indexes::open(&index_dir, store.as_ref(), choice, lock_timeout)?;
        let memcore = Memcore {
            store,
            indexes,
            query_cache: QueryCache::default(),
            location,
            clock: self.clock.unwrap_or_else(|| Arc::new(crate::now)),
        };
        // A store that can say what changed (git notes fetched from another clone) is synced
        // on open; for the others this is free.
        if !self.skip_sync && memcore.store.change_cursor()?.is_some() {
            memcore.sync()?;
        }
        Ok(memcore)
    }
}

/// What [`Memcore::list`] returns: the memories that loaded, and the files that did not.
#[derive(Debug)]
#[non_exhaustive]
pub struct Listing {
    /// Matching memories, sorted by collection then id.
    pub memories: Vec<MemorySummary>,
    /// One error per memory file that could not be read (each names its file); the listing
    /// is complete apart from these.
    pub skipped: Vec<Error>,
}

/// Which memories [`Memcore::list`] returns.
#[derive(Debug, Clone, Default, PartialEq)]
#[must_use]
#[non_exhaustive]
pub struct ListOptions {
    /// Only this collection.
    pub collection: Option<String>,
    /// All of these filters must match.
    pub filters: Vec<Filter>,
    /// Skip this many matches.
    pub offset: usize,
    /// Return at most this many.
    pub limit: Option<usize>,
}

impl ListOptions {
    /// All memories of all collections.
    pub fn new() -> Self {
        Self::default()
    }

    /// Only memories of `collection`.
    pub fn collection(mut self, collection: impl Into<String>) -> Self {
        self.collection = Some(collection.into());
        self
    }

    /// Adds a `key=value[,value...]` filter.
    pub fn filter(mut self, expr: &str) -> Result<Self> {
        self.filters.push(expr.parse()?);
        Ok(self)
    }

    /// Skips the first `offset` matches.
    pub fn offset(mut self, offset: usize) -> Self {
        self.offset = offset;
        self
    }

    /// Returns at most `limit` matches.
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }
}

/// Splits `collection/id` or `id` into its validated parts.
fn parse_ref(reference: &str) -> Result<(Option<Collection>, MemoryId)> {
    match reference.split_once('/') {
        Some((collection, id)) => Ok((Some(Collection::new(collection)?), MemoryId::new(id)?)),
        None => Ok((None, MemoryId::new(reference)?)),
    }
}

/// The memory a write of one memory (`what`) stored.
fn the_one(mut stored: Vec<Memory>, what: &str) -> Result<Memory> {
    stored
        .pop()
        .ok_or_else(|| Error::index(format!("{what} stored nothing"), None, "report this as a bug"))
}

impl Memcore {
    /// A builder for the less common ways to open a store.
    pub fn builder() -> MemcoreBuilder {
        MemcoreBuilder::default()
    }

    /// Opens (creating if needed) the file store at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::builder().path(path.as_ref()).open()
    }

    /// Where the store is and which settings it runs with.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The settings in force.
    pub fn config(&self) -> &Config {
        &self.location.config
    }

    /// The backing store, for operations the handle does not wrap.
    pub fn store(&self) -> &dyn MemoryStore {
        self.store.as_ref()
    }

    fn now(&self) -> Timestamp {
        (self.clock)()
    }

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
        self.write_memories(self.validate(memories)?, mode, None)
    }

    /// Stores a memory attached to the commit `rev` (any revision: `HEAD~1`, a commit id, a
    /// tag) instead of the one `git_notes.commit` names; otherwise as [`Memcore::put_with`].
    /// Only the git-notes backend attaches memories to commits; the others return
    /// [`Error::Unsupported`] and write nothing.
    ///
    /// ```
    /// use memcore::{Backend, Memcore, NewMemory, PutMode};
    /// # let dir = tempfile::tempdir()?;
    /// # let repo = git2::Repository::init(dir.path())?;
    /// # let sig = git2::Signature::now("t", "t@example.com")?;
    /// # let tree = repo.find_tree(repo.index()?.write_tree()?)?;
    /// # let first = repo.commit(Some("HEAD"), &sig, &sig, "first", &tree, &[])?;
    /// # let parent = repo.find_commit(first)?;
    /// # repo.commit(Some("HEAD"), &sig, &sig, "second", &tree, &[&parent])?;
    /// let memcore = Memcore::builder().path(dir.path()).backend(Backend::GitNotes).open()?;
    /// let memory = NewMemory::new("The parser landed here.").collection("progress");
    /// let stored = memcore.put_at(memory, "HEAD~1", PutMode::CreateOnly)?;
    /// assert_eq!(stored.id.as_str(), format!("progress:{first}:0"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn put_at(&self, memory: NewMemory, rev: &str, mode: PutMode) -> Result<Memory> {
        the_one(self.put_many_at(vec![memory], rev, mode)?, "put")
    }

    /// [`Memcore::put_many_with`], attaching the memories to the commit `rev` as
    /// [`Memcore::put_at`] does.
    pub fn put_many_at(
        &self,
        memories: Vec<NewMemory>,
        rev: &str,
        mode: PutMode,
    ) -> Result<Vec<Memory>> {
        self.write_memories(self.validate(memories)?, mode, Some(rev))
    }

    /// New memories as the store takes them: validated, with defaults and timestamps.
    fn validate(&self, memories: Vec<NewMemory>) -> Result<Vec<Memory>> {
        let config = self.config();
        let now = self.now();
        memories
            .into_iter()
            .map(|m| m.into_memory(&config.default_collection, &config.limits, now))
            .collect()
    }

    /// Stores validated memories (at the commit `rev` when given) and indexes them, journaled.
    fn write_memories(
        &self,
        memories: Vec<Memory>,
        mode: PutMode,
        rev: Option<&str>,
    ) -> Result<Vec<Memory>> {
        let keys: Vec<String> = memories.iter().map(doc_key).collect();
        let _guard = self.indexes.lock()?;
        let entry = self.indexes.begin(&keys)?;
        let write = || match rev {
            Some(rev) => self.store.put_many_at(memories.clone(), rev, mode),
            None => self.store.put_many(memories.clone(), mode),
        };
        // The store writes on a second thread while this one prepares the index entries
        // (full text, embeddings); they are published once the store write is durable.
        let (staged, written) = std::thread::scope(|scope| {
            let writing = std::thread::Builder::new().spawn_scoped(scope, write);
            let staged = self.indexes.stage(&memories);
            let written = match writing {
                Ok(handle) => handle.join().unwrap_or_else(|_| {
                    Err(Error::storage("the store write panicked", None, "report this as a bug"))
                }),
                // Without a thread (the system refused one), the store writes after.
                Err(_) => write(),
            };
            (staged, written)
        });
        match written {
            Ok(stored) => {
                self.indexes.publish(entry, staged, &stored)?;
                Ok(stored)
            }
            Err(e) => {
                drop(staged);
                Err(self.recover(entry, e)?)
            }
        }
    }

    /// After a store write failed with `e`: a storage failure may come after part of the
    /// write reached the disk (a batch cut short, a git autocommit that failed), so the
    /// journaled keys are indexed from what the store now holds; any other error was found
    /// before writing, and its journal record is simply cleared. Returns `e`.
    fn recover(&self, entry: JournalEntry, e: Error) -> Result<Error> {
        if e.category() == crate::Category::Storage {
            self.indexes.replay_locked(self.store.as_ref())?;
        } else {
            self.indexes.abandon(entry)?;
        }
        Ok(e)
    }

    /// The index key of the memory at `collection`/`id`, when it can be known beforehand.
    fn key_of(&self, collection: Option<&Collection>, id: &MemoryId) -> Option<String> {
        match collection {
            Some(c) => Some(format!("{c}/{id}")),
            None => self.store.get(None, id).ok().map(|m| doc_key(&m)),
        }
    }

    /// The memory at `reference` (`id` or `collection/id`).
    pub fn get(&self, reference: &str) -> Result<Memory> {
        let (collection, id) = parse_ref(reference)?;
        self.store.get(collection.as_ref(), &id).map(Arc::unwrap_or_clone)
    }

    /// Changes the memory at `reference`; see [`MemoryUpdate`].
    pub fn update(&self, reference: &str, change: MemoryUpdate) -> Result<Memory> {
        let (collection, id) = parse_ref(reference)?;
        let _guard = self.indexes.lock()?;
        let keys: Vec<String> = self.key_of(collection.as_ref(), &id).into_iter().collect();
        let entry = self.indexes.begin(&keys)?;
        let updated = self.store.update(collection.as_ref(), &id, &change, self.now());
        match updated {
            Ok(memory) => {
                self.indexes.finish(entry, std::slice::from_ref(&memory), &[])?;
                Ok(memory)
            }
            Err(e) => Err(self.recover(entry, e)?),
        }
    }

    /// Moves the memory at `reference` to the trash.
    pub fn delete(&self, reference: &str) -> Result<TrashEntry> {
        let (collection, id) = parse_ref(reference)?;
        let _guard = self.indexes.lock()?;
        let keys: Vec<String> = self.key_of(collection.as_ref(), &id).into_iter().collect();
        let entry = self.indexes.begin(&keys)?;
        match self.store.delete(collection.as_ref(), &id, self.now()) {
            Ok(trashed) => {
                let key = format!("{}/{}", trashed.collection, trashed.id);
                self.indexes.finish(entry, &[], &[key])?;
                Ok(trashed)
            }
            Err(e) => Err(self.recover(entry, e)?),
        }
    }

    /// Brings the most recently deleted memory at `reference` back from the trash.
    pub fn restore(&self, reference: &str) -> Result<Memory> {
        let (collection, id) = parse_ref(reference)?;
        let _guard = self.indexes.lock()?;
        // The collection of a trashed memory is known only once restored when not given;
        // then the journal entry follows the store write (repair covers a crash in between).
        let restored = Arc::unwrap_or_clone(self.store.restore(collection.as_ref(), &id)?);
        let keys = vec![doc_key(&restored)];
        let entry = self.indexes.begin(&keys)?;
        self.indexes.finish(entry, std::slice::from_ref(&restored), &[])?;
        Ok(restored)
    }

    /// Searches the memories; see [`Query`].
    ///
    /// Without the embedding model, semantic and hybrid searches fall back to full text and
    /// say so in [`SearchResults::warnings`].
    pub fn search(&self, query: &Query) -> Result<SearchResults> {
        let context = SearchContext {
            store: self.store.as_ref(),
            indexes: &self.indexes,
            cache: &self.query_cache,
            now: self.now(),
        };
        engine::search(&context, query)
    }

    /// Rebuilds every index from the store; `progress` is called as memories are indexed.
    /// Returns how many memories were indexed.
    pub fn reindex(&self, progress: &mut dyn FnMut(Progress)) -> Result<usize> {
        self.indexes.reindex(self.store.as_ref(), progress)
    }

    /// What the approximate-search graph of the vector index is doing: off (exact scan, below
    /// 20k vectors), starting (loading or building in the background; searches scan exactly
    /// meanwhile), ready, or failed. `None` until semantic search has been used by this
    /// handle, or without the model.
    pub fn vector_graph(&self) -> Option<crate::GraphStatus> {
        self.indexes.graph_status()
    }

    /// Compares the store with every index by key and content hash.
    pub fn verify(&self) -> Result<VerifyReport> {
        self.indexes.verify(self.store.as_ref())
    }

    /// Re-indexes what [`Memcore::verify`] finds missing or stale and drops orphaned entries.
    pub fn repair(&self) -> Result<RepairReport> {
        self.indexes.repair(self.store.as_ref())
    }

    /// The store's collections.
    pub fn collections(&self) -> Result<Vec<Collection>> {
        self.store.collections()
    }

    /// The memories matching `options`, sorted by collection then id.
    pub fn list(&self, options: &ListOptions) -> Result<Listing> {
        let collection = options.collection.as_deref().map(Collection::new).transpose()?;
        let mut listing = Listing { memories: Vec::new(), skipped: Vec::new() };
        let mut to_skip = options.offset;
        let limit = options.limit.unwrap_or(usize::MAX);
        if limit == 0 {
            return Ok(listing);
        }
        self.store.scan(collection.as_ref(), &mut |item| {
            match item {
                Ok(memory) if options.filters.iter().all(|f| f.matches(&memory)) => {
                    if to_skip > 0 {
                        to_skip -= 1;
                    } else {
                        listing.memories.push(memory.summary_view());
                    }
                }
                Ok(_) => {}
                Err(e) => listing.skipped.push(e),
            }
            if listing.memories.len() >= limit {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })?;
        Ok(listing)
    }

    /// The history of the memory at `reference`, oldest first, current last.
    pub fn versions(&self, reference: &str) -> Result<Vec<Version>> {
        let (collection, id) = parse_ref(reference)?;
        self.store.versions(collection.as_ref(), &id)
    }

    /// The memory at `reference` as it was at `rev` (see [`Version::rev`]): a version
    /// number for built-in history; any revision (`HEAD~2`, a commit id, a tag) for git
    /// history; [`Memcore::CURRENT`] for the memory as it is now.
    pub fn get_version(&self, reference: &str, rev: &str) -> Result<Memory> {
        let (collection, id) = parse_ref(reference)?;
        if rev == Self::CURRENT {
            return self.store.get(collection.as_ref(), &id).map(Arc::unwrap_or_clone);
        }
        self.store.get_version(collection.as_ref(), &id, rev)
    }

    /// The revision that names a memory as it is now, for [`Memcore::get_version`] and
    /// [`Memcore::diff`].
    pub const CURRENT: &'static str = "current";

    /// A unified diff of the memory file at `reference` between the revisions `from` and `to`
    /// (as for [`Memcore::get_version`]); empty when they do not differ. Works the same for
    /// git and built-in history.
    ///
    /// ```
    /// use memcore::{Memcore, MemoryUpdate, NewMemory};
    /// # let dir = tempfile::tempdir()?;
    /// let memcore = Memcore::open(dir.path())?;
    /// memcore.put(NewMemory::new("first text").id("note"))?;
    /// memcore.update("note", MemoryUpdate::new().content("second text"))?;
    /// let diff = memcore.diff("note", "1", Memcore::CURRENT)?;
    /// assert!(diff.contains("-first text") && diff.contains("+second text"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn diff(&self, reference: &str, from: &str, to: &str) -> Result<String> {
        let old = self.get_version(reference, from)?;
        let new = self.get_version(reference, to)?;
        crate::git::unified_diff(&old, &new, from, to)
    }

    /// Writes the memory at `reference` back as it was at `rev`: a new version whose fields
    /// and content are those of `rev` (nothing is lost: the current one stays in history; a
    /// git-versioned store with `git_autocommit` commits it).
    pub fn restore_version(&self, reference: &str, rev: &str) -> Result<Memory> {
        let mut old = self.get_version(reference, rev)?;
        old.updated_at = self.now();
        the_one(self.write_memories(vec![old], PutMode::Upsert, None)?, "restore")
    }

    /// The memory at `reference` with as much context as `level` asks for (seed 002's
    /// progressive hydration): with the git-notes backend the whole note and its commit, then
    /// the files that commit changed.
    pub fn hydrate(&self, reference: &str, level: HydrationLevel) -> Result<Hydrated> {
        let (collection, id) = parse_ref(reference)?;
        self.store.hydrate(collection.as_ref(), &id, level)
    }

    /// Brings the indexes level with changes made behind memcore's back, such as git notes
    /// fetched from another clone: only what changed since the last sync when the backend
    /// can tell (git notes), else a full [`Memcore::repair`]. Runs on open for git notes.
    pub fn sync(&self) -> Result<SyncReport> {
        self.indexes.sync(self.store.as_ref())
    }
}
