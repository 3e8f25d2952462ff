//! [`FileStore`]: one markdown file with YAML frontmatter per memory.
//!
//! ```text
//! <root>/
//!   <collection>/<id>.md                       the memories
//!   <collection>/.versions/<id>/vN_<time>.md   built-in history (outside git)
//!   .trash/<collection>/<id>@<time>.md         deleted memories
//!   .memcore/lock                              the writers' advisory lock
//! ```
//!
//! Writes are atomic and durable (temp file, fsync, rename, fsync dir) and serialised by an
//! advisory lock, so several processes can share one store. Reads take no lock and are
//! served from a `stat`-validated cache. Directories are created 0700, files 0600.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::cache::{Stamp, StoreCache};
use super::fsutil::{self, create_private_dir_all, decode_utf8, move_durably, write_atomic};
use super::lock::StoreLock;
use super::{
    MemoryStore, PutMode, StoreHistory, TrashEntry, Version, Visitor, already_exists, history,
    not_found, succeed, trash, version_entry,
};
use crate::config::{Config, Versioning};
use crate::format::frontmatter::{parse_memory, to_markdown};
use crate::git::history::{GitHistory, WORKTREE_REV};
use crate::{
    Collection, Error, Limits, Memory, MemoryId, MemoryRef, MemoryUpdate, Result, Timestamp,
};

/// The store's private folder (lock, and the derived indexes of later layers).
pub const PRIVATE_DIR: &str = ".memcore";
const LOCK_FILE: &str = "lock";
const MEMORY_EXT: &str = ".md";
/// Batches of up to this many files sync each file and directory they wrote; larger ones
/// sync the whole file system once per step.
const SYNC_EACH_MAX: usize = 16;

/// The directories of `path` from its parent up to `root`, inclusive.
fn dirs_up_to<'p>(path: &'p Path, root: &'p Path) -> impl Iterator<Item = &'p Path> {
    path.ancestors().skip(1).take_while(move |dir| dir.starts_with(root))
}

/// An old version to keep in built-in history, as a batch writes it.
#[derive(Debug)]
struct KeptFile {
    /// Where it goes.
    path: PathBuf,
    /// The old file's text.
    text: String,
    /// The collection folder, for pruning.
    collection_dir: PathBuf,
    /// The memory's id, for pruning.
    id: MemoryId,
    /// How many versions to keep.
    max_versions: usize,
}

/// The text of the file at `path`.
fn read_text(path: &Path) -> Result<String> {
    fs::read(path)
        .map_err(|e| Error::io(format!("reading {}", path.display()), e))
        .and_then(|bytes| decode_utf8(path, bytes))
}

/// Where history is kept, decided when the store is opened.
#[derive(Debug)]
enum HistoryMode {
    Builtin { max_versions: usize },
    Git(GitHistory),
    Off,
}

/// What a directory listing keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entries {
    /// Sub-directories with valid collection names.
    Collections,
    /// `*.md` files not starting with `.`.
    MemoryFiles,
}

/// The default backend: a directory of markdown files. See the module docs for the layout.
///
/// ```
/// use memcore::{Collection, Config, FileStore, Limits, MemoryStore, NewMemory, PutMode};
///
/// let dir = tempfile::tempdir()?;
/// let store = FileStore::open(dir.path(), &Config::default())?;
/// let memory = NewMemory::new("# Hello\n\nworld")
///     .into_memory(&Collection::default(), &Limits::default(), memcore::now())?;
/// store.put(memory, PutMode::Upsert)?;
/// assert_eq!(store.get(&"hello".parse()?)?.content, "# Hello\n\nworld");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct FileStore {
    root: PathBuf,
    private_dir: PathBuf,
    limits: Limits,
    history: HistoryMode,
    lock: StoreLock,
    cache: StoreCache,
}

impl FileStore {
    /// Opens the store at `root`, creating the directory (0700) if needed.
    ///
    /// Fails with [`Error::Validation`] when `root` exists but is not a directory.
    pub fn open(root: impl AsRef<Path>, config: &Config) -> Result<Self> {
        let root = root.as_ref().to_path_buf();
        if root.exists() && !root.is_dir() {
            return Err(Error::validation(
                format!("store path {} is not a directory", root.display()),
                "point memcore at a directory (it is created if missing), not at a file",
            ));
        }
        create_private_dir_all(&root)?;
        let history = match config.versioning {
            Versioning::Off => HistoryMode::Off,
            Versioning::Auto if !crate::git::inside_work_tree(&root) => {
                HistoryMode::Builtin { max_versions: config.max_versions }
            }
            Versioning::Auto | Versioning::Git => {
                let git = GitHistory::open(&root, config.git_autocommit)?;
                // The lock, indexes and trash are this machine's: keep them out of commits.
                for private in [PRIVATE_DIR, trash::TRASH_DIR] {
                    create_private_dir_all(&root.join(private))?;
                    let ignore = root.join(private).join(".gitignore");
                    if !ignore.exists() {
                        write_atomic(&ignore, b"*\n")?;
                    }
                }
                HistoryMode::Git(git)
            }
            Versioning::Builtin => HistoryMode::Builtin { max_versions: config.max_versions },
        };
        let private_dir = root.join(PRIVATE_DIR);
        create_private_dir_all(&private_dir)?;
        let lock_timeout = Duration::from_millis(config.lock_timeout_ms);
        let lock = StoreLock::new(&private_dir.join(LOCK_FILE), lock_timeout);
        let cache = StoreCache::default();
        Ok(Self { root, private_dir, limits: config.limits, history, lock, cache })
    }

    fn collection_dir(&self, collection: &Collection) -> PathBuf {
        self.root.join(collection.as_str())
    }

    fn memory_path(&self, collection: &Collection, id: &MemoryId) -> PathBuf {
        self.collection_dir(collection).join(format!("{id}{MEMORY_EXT}"))
    }

    /// Reads and parses the memory file at `path`, or `None` if there is none.
    fn read(
        &self,
        path: &Path,
        collection: &Collection,
        id: &MemoryId,
    ) -> Result<Option<Arc<Memory>>> {
        let started = SystemTime::now();
        // Links are never followed: a store may come from an untrusted clone, and a memory
        // file (or collection) linking to ~/.ssh/id_rsa must not be read into an agent's
        // context.
        let meta = match fs::symlink_metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(format!("reading {}", path.display()), e)),
        };
        if !meta.file_type().is_file() {
            return Err(not_a_memory_file(path, &meta));
        }
        let stamp = Stamp::of(&meta);
        if let Some(memory) = self.cache.file(path, stamp) {
            return Ok(Some(memory));
        }
        // Checked on a cache miss only: the stamp holds the inode, so a collection replaced
        // by a link to another directory misses the cache and is caught here.
        if let Some(dir) = path.parent().filter(|dir| *dir != self.root)
            && let Ok(dir_meta) = fs::symlink_metadata(dir)
            && dir_meta.file_type().is_symlink()
        {
            return Err(not_a_memory_file(dir, &dir_meta));
        }
        let bytes = match fs::read(path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Error::io(format!("reading {}", path.display()), e)),
        };
        let text = decode_utf8(path, bytes)?;
        let file_time = meta.modified().map_or_else(|_| crate::now(), Timestamp::from);
        let memory =
            parse_memory(&text, collection, id, file_time).map_err(|e| e.into_error(path))?;
        let memory = Arc::new(memory);
        self.cache.put_file(path, stamp, &memory, started);
        Ok(Some(memory))
    }

    /// The sorted names of `dir`'s entries of one kind (empty if `dir` does not exist).
    fn entries(&self, dir: &Path, kind: Entries) -> Result<Arc<Vec<String>>> {
        let started = SystemTime::now();
        let meta = match fs::metadata(dir) {
            Ok(meta) => meta,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Arc::default()),
            Err(e) => return Err(Error::io(format!("reading {}", dir.display()), e)),
        };
        let stamp = Stamp::of(&meta);
        if let Some(names) = self.cache.dir(dir, stamp) {
            return Ok(names);
        }
        let read_failed = |e| Error::io(format!("listing {}", dir.display()), e);
        let mut names = Vec::new();
        for entry in fs::read_dir(dir).map_err(read_failed)? {
            let entry = entry.map_err(read_failed)?;
            let Ok(name) = entry.file_name().into_string() else {
                continue;
            };
            let keep = match kind {
                Entries::Collections => {
                    entry.file_type().is_ok_and(|t| t.is_dir()) && Collection::new(&*name).is_ok()
                }
                // Not only regular files: a directory or a link named like a memory file is
                // listed so that reading it reports it (`list`'s skipped, `verify`) instead of
                // it vanishing silently.
                Entries::MemoryFiles => name.ends_with(MEMORY_EXT) && !name.starts_with('.'),
            };
            if keep {
                names.push(name);
            }
        }
        names.sort_unstable();
        let names = Arc::new(names);
        self.cache.put_dir(dir, stamp, &names, started);
        Ok(names)
    }

    /// The collection and file of an existing memory.
    fn locate(
        &self,
        collection: Option<&Collection>,
        id: &MemoryId,
    ) -> Result<(Collection, PathBuf)> {
        let candidates = match collection {
            Some(c) => vec![c.clone()],
            None => self.collections()?,
        };
        let mut found: Vec<(Collection, PathBuf)> = candidates
            .into_iter()
            .map(|c| {
                let path = self.memory_path(&c, id);
                (c, path)
            })
            .filter(|(_, path)| path.is_file())
            .collect();
        match found.len() {
            1 => Ok(found.remove(0)),
            0 => Err(not_found(collection, id)),
            _ => {
                let names: Vec<&str> = found.iter().map(|(c, _)| c.as_str()).collect();
                Err(Error::conflict(
                    format!("memory '{id}' exists in several collections: {}", names.join(", ")),
                    "name the collection to say which one you mean",
                ))
            }
        }
    }

    /// Reads an existing memory, which must parse.
    fn load(
        &self,
        collection: Option<&Collection>,
        id: &MemoryId,
    ) -> Result<(Arc<Memory>, PathBuf)> {
        let (collection, path) = self.locate(collection, id)?;
        let memory =
            self.read(&path, &collection, id)?.ok_or_else(|| not_found(Some(&collection), id))?;
        Ok((memory, path))
    }

    /// Readies `memory` for writing: a conflict under [`PutMode::CreateOnly`]; for a
    /// replacement the old `created_at`, the next version and the old file kept in history;
    /// a damaged old file moved to the trash. `batch` holds memories of the same batch not yet
    /// written, which count as existing.
    fn prepare(
        &self,
        mut memory: Memory,
        mode: PutMode,
        batch: &HashMap<PathBuf, Memory>,
    ) -> Result<Memory> {
        let path = self.memory_path(&memory.collection, &memory.id);
        let pending = batch.get(&path);
        if pending.is_none() && !path.exists() {
            return Ok(memory);
        }
        if mode == PutMode::CreateOnly {
            return Err(already_exists(&memory));
        }
        let old = match pending {
            Some(pending) => Some(Arc::new(pending.clone())),
            None => match self.read(&path, &memory.collection, &memory.id) {
                Ok(old) => {
                    if let Some(old) = &old {
                        self.keep_history(old, &path)?;
                    }
                    old
                }
                // A directory or a link where the file belongs is not a memory: it is
                // neither overwritten nor moved, and the write fails naming it.
                Err(Error::Corrupted { .. })
                    if !fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) =>
                {
                    return Err(Error::Io {
                        message: format!(
                            "cannot write {}: a directory or link is where the memory file goes",
                            path.display()
                        ),
                        source: std::io::Error::from(ErrorKind::AlreadyExists),
                        recovery: "remove or rename it, then retry".into(),
                    });
                }
                // A file that no longer parses is moved to the trash, never overwritten.
                Err(Error::Corrupted { .. }) => {
                    let slot =
                        trash::slot(&self.root, &memory.collection, &memory.id, memory.updated_at);
                    move_durably(&path, &slot)?;
                    None
                }
                Err(e) => return Err(e),
            },
        };
        if let Some(old) = old {
            succeed(&mut memory, &old);
        }
        Ok(memory)
    }

    /// Keeps `old` in the built-in history before it is replaced.
    fn keep_history(&self, old: &Memory, path: &Path) -> Result<()> {
        let HistoryMode::Builtin { max_versions } = self.history else {
            return Ok(());
        };
        let old_text = read_text(path)?;
        history::keep(&self.collection_dir(&old.collection), old, &old_text, max_versions)
    }

    /// The history file to write before `old` (read from `path`) is replaced in a batch;
    /// `None` unless history is built-in.
    fn history_file(&self, old: &Memory, path: &Path) -> Result<Option<KeptFile>> {
        let HistoryMode::Builtin { max_versions } = self.history else {
            return Ok(None);
        };
        if max_versions == 0 {
            return Ok(None);
        }
        let collection_dir = self.collection_dir(&old.collection);
        Ok(Some(KeptFile {
            path: history::slot(&collection_dir, old),
            text: read_text(path)?,
            collection_dir,
            id: old.id.clone(),
            max_versions,
        }))
    }

    /// Writes `memory` to its file and drops the stale cache entry.
    fn write(&self, memory: &Memory) -> Result<()> {
        let path = self.memory_path(&memory.collection, &memory.id);
        write_atomic(&path, to_markdown(memory).as_bytes())?;
        self.cache.forget_file(&path);
        Ok(())
    }

    /// Writes every memory of `batch` to its path durably, after the history files `kept`
    /// (old versions of the memories replaced): every temp file is written and the file system
    /// synced, then the history files are renamed into place and synced, then the memories
    /// (so a crash never leaves a memory replaced without its old version kept). Prunes old
    /// history and commits the memories with `message` when git autocommit is on.
    fn write_batch(
        &self,
        kept: &[KeptFile],
        batch: &HashMap<PathBuf, Memory>,
        message: impl FnOnce() -> String,
    ) -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        let mut kept_temps = Vec::with_capacity(kept.len());
        for file in kept {
            kept_temps.push((&file.path, fsutil::write_temp(&file.path, file.text.as_bytes())?));
        }
        let mut temps = Vec::with_capacity(batch.len());
        for (path, memory) in batch {
            temps.push((path, fsutil::write_temp(path, to_markdown(memory).as_bytes())?));
        }
        // A few files are synced one by one, then their directories up to the root (a
        // collection directory may be new); more with one syncfs each time (its cost grows
        // with whatever else waits to be written on the file system).
        let each = kept.len() + batch.len() <= SYNC_EACH_MAX;
        let durable = |mut paths: Vec<&Path>| {
            if !each {
                return fsutil::sync_file_system(&self.root);
            }
            paths.sort_unstable();
            paths.dedup();
            fsutil::sync_paths(&paths)
        };
        durable(
            kept_temps.iter().map(|(_, t)| &**t).chain(temps.iter().map(|(_, t)| &**t)).collect(),
        )?;
        if !kept_temps.is_empty() {
            for (path, temp) in kept_temps {
                temp.persist(path)
                    .map_err(|e| Error::io(format!("writing {}", path.display()), e.error))?;
            }
            durable(kept.iter().flat_map(|file| dirs_up_to(&file.path, &self.root)).collect())?;
        }
        for (path, temp) in temps {
            temp.persist(path)
                .map_err(|e| Error::io(format!("writing {}", path.display()), e.error))?;
            self.cache.forget_file(path);
        }
        durable(batch.keys().flat_map(|path| dirs_up_to(path, &self.root)).collect())?;
        for file in kept {
            history::prune(&file.collection_dir, &file.id, file.max_versions)?;
        }
        let paths: Vec<&Path> = batch.keys().map(PathBuf::as_path).collect();
        self.commit(&paths, message)
    }

    fn history_unavailable(&self, operation: &str) -> Error {
        Error::unsupported(
            operation,
            "file (without history)",
            "set `versioning: auto` (git inside a work tree, else built-in) in the config",
        )
    }

    /// Commits the files a write changed, when the store is versioned by git with autocommit.
    fn commit(&self, paths: &[&Path], message: impl FnOnce() -> String) -> Result<()> {
        match &self.history {
            HistoryMode::Git(git) => git.commit(paths, &message()),
            _ => Ok(()),
        }
    }

    /// The git versions of the memory file at `path`, oldest first.
    fn git_versions(git: &GitHistory, path: &Path) -> Result<Vec<Version>> {
        let mut versions: Vec<Version> = git
            .versions(path)?
            .into_iter()
            .map(|v| Version {
                rev: v.commit.sha,
                version: None,
                timestamp: v.commit.time,
                author: Some(v.commit.author).filter(|a| !a.is_empty()),
                message: Some(v.commit.message),
                current: false,
            })
            .collect();
        if let Some(last) = versions.last_mut() {
            last.current = true;
        }
        Ok(versions)
    }
}

impl MemoryStore for FileStore {
    fn backend(&self) -> &'static str {
        "file"
    }

    fn root(&self) -> &Path {
        &self.root
    }

    /// `<root>/.memcore`.
    fn private_dir(&self) -> &Path {
        &self.private_dir
    }

    fn put(&self, memory: Memory, mode: PutMode) -> Result<Memory> {
        let _guard = self.lock.acquire()?;
        let memory = self.prepare(memory, mode, &HashMap::new())?;
        self.write(&memory)?;
        let path = self.memory_path(&memory.collection, &memory.id);
        self.commit(&[&path], || format!("memcore: put {}/{}", memory.collection, memory.id))?;
        Ok(memory)
    }

    /// Writes the whole batch with two file-system syncs instead of two per memory: every
    /// temp file is written, synced once, then renamed into place and synced again.
    fn put_many(&self, memories: Vec<Memory>, mode: PutMode) -> Result<Vec<Memory>> {
        let _guard = self.lock.acquire()?;
        let mut batch: HashMap<PathBuf, Memory> = HashMap::new();
        let mut prepared = Vec::with_capacity(memories.len());
        for memory in memories {
            let memory = self.prepare(memory, mode, &batch)?;
            batch.insert(self.memory_path(&memory.collection, &memory.id), memory.clone());
            prepared.push(memory);
        }
        self.write_batch(&[], &batch, || format!("memcore: put {} memories", prepared.len()))?;
        Ok(prepared)
    }

    /// Loads, changes and writes the whole batch under one lock with two file-system syncs;
    /// every change is applied (and validated) before anything is written.
    fn update_many(
        &self,
        changes: &[(MemoryRef, MemoryUpdate)],
        now: Timestamp,
    ) -> Result<Vec<Memory>> {
        let _guard = self.lock.acquire()?;
        let mut batch: HashMap<PathBuf, Memory> = HashMap::new();
        let mut olds = Vec::with_capacity(changes.len());
        let mut stored = Vec::with_capacity(changes.len());
        for (reference, change) in changes {
            let (old, path) = match self.load(reference.collection(), reference.id()) {
                Ok(found) => found,
                Err(Error::NotFound { .. }) => continue,
                Err(e) => return Err(e),
            };
            if batch.contains_key(&path) {
                return Err(Error::validation(
                    format!("memory {reference} is changed twice in one batch"),
                    "merge the two changes into one",
                ));
            }
            let next = match change.apply(&old, &self.limits, now) {
                Ok(next) => next,
                Err(Error::Conflict { .. }) => continue,
                Err(e) => return Err(e),
            };
            batch.insert(path.clone(), next.clone());
            olds.push((old, path));
            stored.push(next);
        }
        let kept = olds
            .iter()
            .filter_map(|(old, path)| self.history_file(old, path).transpose())
            .collect::<Result<Vec<_>>>()?;
        self.write_batch(&kept, &batch, || format!("memcore: update {} memories", stored.len()))?;
        Ok(stored)
    }

    /// Every writer of this store holds its lock while its temp files exist, so under the
    /// lock any temp file is a leftover of a writer that died. Walks the collections, their
    /// history and the trash (never following symbolic links), not the private directory or a
    /// `.git` directory.
    fn remove_leftovers(&self) -> Result<usize> {
        let _guard = self.lock.acquire()?;
        let mut removed = 0;
        let mut dirs = vec![self.root.clone()];
        while let Some(dir) = dirs.pop() {
            let entries = match fs::read_dir(&dir) {
                Ok(entries) => entries,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(Error::io(format!("reading {}", dir.display()), e)),
            };
            for entry in entries {
                let entry =
                    entry.map_err(|e| Error::io(format!("reading {}", dir.display()), e))?;
                let path = entry.path();
                let kind = entry
                    .file_type()
                    .map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
                if kind.is_dir() {
                    if path != self.private_dir && entry.file_name() != ".git" {
                        dirs.push(path);
                    }
                } else if kind.is_file()
                    && entry.file_name().to_string_lossy().starts_with(fsutil::TEMP_PREFIX)
                {
                    fs::remove_file(&path)
                        .map_err(|e| Error::io(format!("removing {}", path.display()), e))?;
                    removed += 1;
                }
            }
        }
        Ok(removed)
    }

    fn get(&self, reference: &MemoryRef) -> Result<Arc<Memory>> {
        let (collection, id) = (reference.collection(), reference.id());
        if let Some(c) = collection {
            let path = self.memory_path(c, id);
            return self.read(&path, c, id)?.ok_or_else(|| not_found(collection, id));
        }
        self.load(None, id).map(|(memory, _)| memory)
    }

    fn update(
        &self,
        reference: &MemoryRef,
        change: &MemoryUpdate,
        now: Timestamp,
    ) -> Result<Memory> {
        let _guard = self.lock.acquire()?;
        let (old, path) = self.load(reference.collection(), reference.id())?;
        let next = change.apply(&old, &self.limits, now)?;
        self.keep_history(&old, &path)?;
        self.write(&next)?;
        self.commit(&[&path], || format!("memcore: update {}/{}", next.collection, next.id))?;
        Ok(next)
    }

    fn delete(&self, reference: &MemoryRef, now: Timestamp) -> Result<TrashEntry> {
        let id = reference.id();
        let _guard = self.lock.acquire()?;
        let (collection, path) = self.locate(reference.collection(), id)?;
        let slot = trash::slot(&self.root, &collection, id, now);
        move_durably(&path, &slot)?;
        self.cache.forget_file(&path);
        self.commit(&[&path], || format!("memcore: delete {collection}/{id}"))?;
        Ok(TrashEntry::new(collection, id.clone(), now, slot))
    }

    /// Removes the trashed copies and built-in versions of a memory, under the lock.
    fn expunge(&self, reference: &MemoryRef) -> Result<usize> {
        let (Some(collection), id) = (reference.collection(), reference.id()) else {
            return Err(Error::validation(
                format!("expunging {reference} needs its collection"),
                "name the memory as collection/id",
            ));
        };
        let _guard = self.lock.acquire()?;
        let trashed = trash::find(&self.root, Some(collection), id)?;
        for copy in &trashed {
            fsutil::remove_file_if_present(&copy.path, "trashed copy")?;
        }
        if let Some(dir) = trashed.first().and_then(|copy| copy.path.parent()) {
            fsutil::sync_dir(dir)?;
        }
        Ok(trashed.len() + history::forget(&self.collection_dir(collection), id)?)
    }

    /// Lists each collection's trash once, removes the copies of `references` in it and
    /// syncs the folder once, then forgets their built-in versions; under the lock.
    fn expunge_many(&self, references: &[MemoryRef]) -> Result<usize> {
        let mut ids: BTreeMap<&Collection, BTreeSet<&str>> = BTreeMap::new();
        for reference in references {
            let Some(collection) = reference.collection() else {
                return Err(Error::validation(
                    format!("expunging {reference} needs its collection"),
                    "name the memory as collection/id",
                ));
            };
            ids.entry(collection).or_default().insert(reference.id().as_str());
        }
        let _guard = self.lock.acquire()?;
        let mut removed = 0;
        for (collection, ids) in ids {
            removed += trash::remove_copies(&self.root, collection, &ids)?;
            let dir = self.collection_dir(collection);
            for id in ids {
                removed += history::forget(&dir, &MemoryId::new(id)?)?;
            }
        }
        Ok(removed)
    }

    fn restore(&self, reference: &MemoryRef) -> Result<Arc<Memory>> {
        let id = reference.id();
        let _guard = self.lock.acquire()?;
        let newest =
            trash::find(&self.root, reference.collection(), id)?.pop().ok_or_else(|| {
                Error::not_found(
                    format!("deleted memory '{id}' in the trash"),
                    "only memories removed with delete can be restored; check the id",
                )
            })?;
        let path = self.memory_path(&newest.collection, id);
        if path.exists() {
            return Err(Error::conflict(
                format!("memory '{id}' exists again in collection '{}'", newest.collection),
                "delete or rename the live memory first, then restore",
            ));
        }
        move_durably(&newest.path, &path)?;
        self.cache.forget_file(&path);
        self.commit(&[&path], || format!("memcore: restore {}/{id}", newest.collection))?;
        self.read(&path, &newest.collection, id)?
            .ok_or_else(|| not_found(Some(&newest.collection), id))
    }

    fn collections(&self) -> Result<Vec<Collection>> {
        let names = self.entries(&self.root, Entries::Collections)?;
        names.iter().map(|name| Collection::new(name.as_str())).collect()
    }

    fn name_mismatches(&self) -> Result<Vec<String>> {
        let mut found = Vec::new();
        for collection in self.collections()? {
            let dir = self.collection_dir(&collection);
            for name in self.entries(&dir, Entries::MemoryFiles)?.iter() {
                let stem = &name[..name.len() - MEMORY_EXT.len()];
                let path = dir.join(name);
                // Unreadable files are verify's `unreadable` already.
                let Ok(text) = fs::read_to_string(&path) else { continue };
                for (key, place) in [("id", stem), ("collection", collection.as_str())] {
                    if let Some(named) = frontmatter_value(&text, key)
                        && named != place
                    {
                        found.push(format!(
                            "{}: its frontmatter says {key} `{named}`, its place says `{place}` \
                             (the place wins; fix the frontmatter or move the file)",
                            path.display()
                        ));
                    }
                }
            }
        }
        Ok(found)
    }

    fn scan(&self, collection: Option<&Collection>, visit: &mut Visitor<'_>) -> Result<()> {
        let collections = match collection {
            Some(c) => vec![c.clone()],
            None => self.collections()?,
        };
        for collection in collections {
            let dir = self.collection_dir(&collection);
            for name in self.entries(&dir, Entries::MemoryFiles)?.iter() {
                let path = dir.join(name);
                let stem = &name[..name.len() - MEMORY_EXT.len()];
                let item = match MemoryId::new(stem) {
                    Ok(id) => match self.read(&path, &collection, &id) {
                        Ok(Some(memory)) => Ok(memory),
                        Ok(None) => continue,
                        Err(e) => Err(e),
                    },
                    Err(e) => Err(Error::corrupted(
                        &path,
                        None,
                        format!("the file name is not a valid memory id: {e}"),
                        "rename the file to a valid id, such as `my-notes.md`",
                    )),
                };
                if visit(item).is_break() {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// Built-in or git history; none with `versioning: off` (the [`StoreHistory`] methods,
    /// called directly, then fail with [`Error::Unsupported`] saying how to turn it on).
    fn history(&self) -> Option<&dyn StoreHistory> {
        match self.history {
            HistoryMode::Off => None,
            HistoryMode::Builtin { .. } | HistoryMode::Git(_) => Some(self),
        }
    }
}

impl StoreHistory for FileStore {
    fn versions(&self, reference: &MemoryRef) -> Result<Vec<Version>> {
        let (collection, id) = (reference.collection(), reference.id());
        match &self.history {
            HistoryMode::Off => return Err(self.history_unavailable("versions")),
            HistoryMode::Git(git) => {
                let (_, path) = self.load(collection, id)?;
                return Self::git_versions(git, &path);
            }
            HistoryMode::Builtin { .. } => {}
        }
        let (current, _) = self.load(collection, id)?;
        let dir = self.collection_dir(&current.collection);
        let mut versions = Vec::new();
        for kept in history::list(&dir, id)? {
            let memory = read_kept(&kept.path, &current.collection, id)?;
            versions.push(version_entry(&memory, false));
        }
        versions.push(version_entry(&current, true));
        Ok(versions)
    }

    fn get_version(&self, reference: &MemoryRef, rev: &str) -> Result<Memory> {
        let (collection, id) = (reference.collection(), reference.id());
        let (current, path) = match &self.history {
            HistoryMode::Off => return Err(self.history_unavailable("get_version")),
            _ => self.load(collection, id)?,
        };
        if let HistoryMode::Git(git) = &self.history {
            if rev == WORKTREE_REV {
                return Ok((*current).clone());
            }
            let text = git.read_at(&path, rev)?;
            return parse_memory(&text, &current.collection, id, current.updated_at)
                .map_err(|e| e.into_error(&path));
        }
        let number: u64 = rev.trim_start_matches('v').parse().map_err(|_| {
            Error::validation(
                format!("invalid version {rev:?} for built-in history"),
                "give a version number such as `2` (see versions)",
            )
        })?;
        if current.version == number {
            return Ok((*current).clone());
        }
        let dir = self.collection_dir(&current.collection);
        let kept = history::list(&dir, id)?.into_iter().rev().find(|k| k.version == number);
        match kept {
            Some(kept) => read_kept(&kept.path, &current.collection, id),
            None => Err(Error::not_found(
                format!("version {number} of memory '{id}'"),
                "list the kept versions with versions (old ones beyond max_versions are pruned)",
            )),
        }
    }
}

fn read_kept(path: &Path, collection: &Collection, id: &MemoryId) -> Result<Memory> {
    let bytes = fs::read(path).map_err(|e| Error::io(format!("reading {}", path.display()), e))?;
    let text = decode_utf8(path, bytes)?;
    parse_memory(&text, collection, id, crate::now()).map_err(|e| e.into_error(path))
}

/// The error for a path where a memory file should be that is not a regular file.
fn not_a_memory_file(path: &Path, meta: &fs::Metadata) -> Error {
    let (what, recovery) = if meta.file_type().is_symlink() {
        (
            "is a symbolic link, which memcore does not follow (a store may come from an \
             untrusted clone)",
            "replace the link with the file (or directory) it points to, or remove it",
        )
    } else if meta.is_dir() {
        ("is a directory, not a memory file", "rename or remove the directory")
    } else {
        ("is not a regular file", "remove it; memory files are plain markdown files")
    };
    Error::corrupted(path, None, what, recovery)
}

/// The value of the top-level `key:` line of `text`'s frontmatter, unquoted; `None` without
/// frontmatter or such a line. A cheap line scan (no YAML parse): what memcore writes, and
/// what people type, puts these keys on lines of their own.
fn frontmatter_value<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines();
    if lines.next()?.trim_end() != "---" {
        return None;
    }
    lines
        .take_while(|line| line.trim_end() != "---")
        .find_map(|line| line.strip_prefix(key)?.strip_prefix(':'))
        .map(|value| value.trim().trim_matches(|c| c == '"' || c == '\''))
        .filter(|value| !value.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn directories_and_files_are_private() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("store");
        let store = FileStore::open(&root, &Config::default()).unwrap();
        let memory = crate::NewMemory::new("x")
            .into_memory(&Collection::default(), &Limits::default(), crate::now())
            .unwrap();
        let stored = store.put(memory, PutMode::Upsert).unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&root), 0o700);
        assert_eq!(mode(&root.join("memory")), 0o700);
        assert_eq!(mode(&store.memory_path(&stored.collection, &stored.id)), 0o600);
        let leftovers: Vec<_> = fs::read_dir(root.join("memory"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with(crate::store::fsutil::TEMP_PREFIX)
            })
            .collect();
        assert!(leftovers.is_empty());
    }
}
