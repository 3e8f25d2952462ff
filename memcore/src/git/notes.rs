//! [`GitNotesStore`]: memories as git notes under `refs/notes/mem/<namespace>` (seed 002).
//!
//! Each memory is a block of a note attached to a commit; its id is
//! `namespace:commit:index` (a short commit id is accepted on lookup). The memory's own id
//! (given, or derived from its title as for the file store) is kept in the block as `id:` and
//! is unique among the live memories of a namespace: putting a memory with the id of an
//! existing one replaces that one in place ([`PutMode::Upsert`]) or is a conflict
//! ([`PutMode::CreateOnly`]), and lookups accept it too.
//!
//! Notes have no native append: a write reads the note, changes or appends a block and writes
//! it back, under the store's lock (an `flock` in `.git/memcore/`, shared by every process),
//! retrying when another git process holds the notes ref. Deleting marks the block with
//! `deleted_at` instead of removing it, so the indexes of the other memories of the note never
//! shift and [`MemoryStore::restore`] brings it back.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use git2::build::TreeUpdateBuilder;
use git2::{ErrorCode, FileMode, Oid, Repository, Signature};
use parking_lot::Mutex;

use super::errors::{git_error, no_commits};
use super::hydrate::{self, Hydrated, HydrationLevel};
use super::note_format::{Entry, Note, block_count, check_writable};
use super::repo::open_repository;
use super::revspec::check_revision;
use crate::config::Config;
use crate::store::fsutil::create_private_dir_all;
use crate::store::lock::StoreLock;
use crate::store::{MemoryStore, PutMode, TrashEntry, Visitor};
use crate::{Collection, Error, Limits, Memory, MemoryId, MemoryUpdate, Result, Timestamp};

/// Seed 002's namespaces, the default set of [`crate::GitNotesConfig::namespaces`].
pub const DEFAULT_NAMESPACES: [&str; 10] = [
    "blockers",
    "decisions",
    "elicitation",
    "inception",
    "learnings",
    "patterns",
    "progress",
    "research",
    "retrospective",
    "reviews",
];

/// The prefix of the notes refs: a namespace's notes live under `refs/notes/mem/<namespace>`.
pub const NOTES_REF_PREFIX: &str = "refs/notes/mem/";

/// memcore's folder inside the git directory (lock, derived indexes); never part of the work
/// tree, so never committed.
const PRIVATE_DIR: &str = "memcore";
const LOCK_FILE: &str = "notes.lock";
/// How often a note write is retried while another git process holds the notes ref.
const REF_RETRIES: u32 = 20;
/// The shortest commit id accepted in a memory id.
const MIN_SHA_LEN: usize = 4;

/// The git-notes backend. See the module docs for the model.
///
/// ```
/// use memcore::{Config, GitNotesStore, Limits, MemoryStore, NewMemory, PutMode};
/// # let dir = tempfile::tempdir()?;
/// # let repo = git2::Repository::init(dir.path())?;
/// # let sig = git2::Signature::now("t", "t@example.com")?;
/// # let tree = repo.find_tree(repo.index()?.write_tree()?)?;
/// # repo.commit(Some("HEAD"), &sig, &sig, "initial", &tree, &[])?;
/// let store = GitNotesStore::open(dir.path(), &Config::default())?;
/// let memory = NewMemory::new("PostgreSQL: ACID, mature tooling.")
///     .summary("Use PostgreSQL for persistence")
///     .into_memory(&"decisions".parse()?, &Limits::default(), memcore::now())?;
/// let stored = store.put(memory, PutMode::Upsert)?;
/// assert!(stored.id.as_str().starts_with("decisions:"));
/// assert_eq!(store.get(None, &stored.id)?.content, "PostgreSQL: ACID, mature tooling.");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct GitNotesStore {
    git_dir: PathBuf,
    repo: Mutex<Repository>,
    namespaces: Vec<Collection>,
    target: String,
    limits: Limits,
    lock: StoreLock,
    cache: Mutex<HashMap<Collection, Arc<NamespaceNotes>>>,
}

impl fmt::Debug for GitNotesStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GitNotesStore")
            .field("git_dir", &self.git_dir)
            .field("namespaces", &self.namespaces)
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

/// The parsed notes of one namespace at one tip of its ref.
#[derive(Debug, Default)]
struct NamespaceNotes {
    tip: Option<Oid>,
    notes: BTreeMap<Oid, Arc<CachedNote>>,
}

/// A note as read: its blob (to tell when it changed) and its parsed blocks.
#[derive(Debug)]
struct CachedNote {
    blob: Oid,
    note: Note,
}

/// A memory found in the notes: where it is and what it holds.
#[derive(Debug, Clone)]
struct Found {
    namespace: Collection,
    commit: Oid,
    index: usize,
    entry: Entry,
}

/// The parts of a memory id `namespace:sha:index`.
struct Locator<'a> {
    namespace: &'a str,
    sha: &'a str,
    index: usize,
}

fn parse_locator(id: &str) -> Option<Locator<'_>> {
    let mut parts = id.split(':');
    let (namespace, sha, index) = (parts.next()?, parts.next()?, parts.next()?);
    let hex = sha.bytes().all(|b| b.is_ascii_hexdigit());
    if parts.next().is_some() || !hex || !(MIN_SHA_LEN..=40).contains(&sha.len()) {
        return None;
    }
    Some(Locator { namespace, sha, index: index.parse().ok()? })
}

fn notes_ref(namespace: &Collection) -> String {
    format!("{NOTES_REF_PREFIX}{namespace}")
}

fn not_found(collection: Option<&Collection>, id: &MemoryId, deleted: bool) -> Error {
    let place = collection.map(|c| format!(" in namespace '{c}'")).unwrap_or_default();
    let what = if deleted { "deleted memory" } else { "memory" };
    Error::not_found(
        format!("{what} '{id}'{place}"),
        "list the memories to find its id (`namespace:commit:index` or its own id)",
    )
}

/// A one-line summary for a memory that has none (seed 002 requires one): the first line of
/// text of its content, without markdown markers, cut to `max_chars`.
fn derive_summary(memory: &Memory, max_chars: usize) -> String {
    let line = memory
        .content
        .lines()
        .map(|line| line.trim_start_matches(['#', '>', '-', '*', ' ', '\t']).trim())
        .find(|line| !line.is_empty())
        .unwrap_or(&memory.title);
    if line.chars().count() <= max_chars {
        return line.to_owned();
    }
    let mut cut: String = line.chars().take(max_chars.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

fn commit_time(commit: &git2::Commit<'_>) -> Timestamp {
    Timestamp::from_timestamp(commit.time().seconds(), 0).unwrap_or_default()
}

impl GitNotesStore {
    /// Opens the notes of the repository holding `dir` (searched upwards, as git does), with
    /// the namespaces, target commit, limits and lock timeout of `config`.
    ///
    /// Fails with [`Error::Validation`] when `dir` is not inside a repository or the target
    /// revision is malformed. A repository without commits opens; writing then fails with a
    /// hint to make the first commit.
    pub fn open(dir: impl AsRef<Path>, config: &Config) -> Result<Self> {
        let repo = open_repository(dir.as_ref())?;
        let settings = &config.git_notes;
        check_revision(&settings.commit)?;
        if settings.namespaces.is_empty() {
            return Err(Error::validation(
                "the git-notes backend has no namespaces configured",
                "list at least one under `git_notes.namespaces`, or remove the key for the \
                 default ten",
            ));
        }
        // Worktrees of one repository share its notes refs: lock and index in the common
        // git directory, so that agents in two worktrees exclude each other.
        let git_dir = repo.commondir().to_path_buf();
        let private = git_dir.join(PRIVATE_DIR);
        create_private_dir_all(&private)?;
        let timeout = Duration::from_millis(config.lock_timeout_ms);
        let mut namespaces = settings.namespaces.clone();
        namespaces.sort();
        namespaces.dedup();
        Ok(Self {
            git_dir,
            repo: Mutex::new(repo),
            namespaces,
            target: settings.commit.clone(),
            limits: config.limits,
            lock: StoreLock::new(&private.join(LOCK_FILE), timeout),
            cache: Mutex::default(),
        })
    }

    /// The repository's common git directory (`.git` of the main work tree, shared by its
    /// linked worktrees).
    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    /// memcore's folder inside the git directory, for the lock and the derived indexes.
    pub fn private_dir(&self) -> PathBuf {
        self.git_dir.join(PRIVATE_DIR)
    }

    /// The namespaces memories may use, sorted.
    pub fn namespaces(&self) -> &[Collection] {
        &self.namespaces
    }

    /// Stores `memory` attached to the commit `rev` (any revision: `HEAD~1`, a commit id, a
    /// tag) instead of the configured target; otherwise as [`MemoryStore::put`].
    pub fn put_at(&self, memory: Memory, rev: &str, mode: PutMode) -> Result<Memory> {
        check_revision(rev)?;
        self.put_one(memory, mode, Some(rev))
    }

    /// Stores one memory as a batch of one.
    fn put_one(&self, memory: Memory, mode: PutMode, rev: Option<&str>) -> Result<Memory> {
        let mut stored = self.put_batch(vec![memory], mode, rev)?;
        stored.pop().ok_or_else(|| Error::storage("the note write stored nothing", None, "retry"))
    }

    /// Stores a batch attached to the commit `rev`, as [`MemoryStore::put_many`]: one note
    /// write per namespace for the new memories.
    pub fn put_many_at(
        &self,
        memories: Vec<Memory>,
        rev: &str,
        mode: PutMode,
    ) -> Result<Vec<Memory>> {
        check_revision(rev)?;
        self.put_batch(memories, mode, Some(rev))
    }

    fn check(&self, memory: &Memory) -> Result<()> {
        if !self.namespaces.contains(&memory.collection) {
            let names: Vec<&str> = self.namespaces.iter().map(Collection::as_str).collect();
            return Err(Error::validation(
                format!("invalid namespace '{}' for the git-notes store", memory.collection),
                format!("use one of: {}", names.join(", ")),
            ));
        }
        if let Some(summary) = &memory.summary {
            self.limits.check_summary(summary)?;
        }
        self.limits.check_content(&memory.content)?;
        check_writable(memory)
    }

    /// The commit new memories attach to.
    fn target_commit(&self, repo: &Repository, rev: Option<&str>) -> Result<Oid> {
        let rev = rev.unwrap_or(&self.target);
        let object = repo.revparse_single(rev).map_err(|e| match e.code() {
            ErrorCode::UnbornBranch => no_commits(),
            ErrorCode::NotFound
                if rev == "HEAD"
                    && repo.head().is_err_and(|h| h.code() == ErrorCode::UnbornBranch) =>
            {
                no_commits()
            }
            _ => git_error(&format!("resolving revision {rev:?}"), e),
        })?;
        let commit = object
            .peel_to_commit()
            .map_err(|e| git_error(&format!("revision {rev:?} is not a commit"), e))?;
        Ok(commit.id())
    }

    /// The tip of the notes ref of `namespace`, if it exists.
    fn ref_tip(repo: &Repository, namespace: &Collection) -> Result<Option<Oid>> {
        let refname = notes_ref(namespace);
        match repo.refname_to_id(&refname) {
            Ok(oid) => Ok(Some(oid)),
            Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
            Err(e) => Err(git_error(&format!("reading {refname}"), e)),
        }
    }

    /// The index keys of every memory in the notes that changed in `namespace` between the
    /// notes commits `old` and `new`.
    fn changed_keys(
        repo: &Repository,
        namespace: &Collection,
        old: Option<Oid>,
        new: Option<Oid>,
    ) -> Result<Vec<String>> {
        let failed = |e| git_error("comparing notes", e);
        let tree = |tip: Option<Oid>| -> Result<Option<git2::Tree<'_>>> {
            match tip {
                Some(tip) => {
                    Ok(Some(repo.find_commit(tip).and_then(|c| c.tree()).map_err(failed)?))
                }
                None => Ok(None),
            }
        };
        let (old_tree, new_tree) = (tree(old)?, tree(new)?);
        let diff =
            repo.diff_tree_to_tree(old_tree.as_ref(), new_tree.as_ref(), None).map_err(failed)?;
        let blocks = |file: git2::DiffFile<'_>| -> usize {
            repo.find_blob(file.id())
                .map(|blob| block_count(&String::from_utf8_lossy(blob.content())))
                .unwrap_or(0)
        };
        let mut keys = Vec::new();
        for delta in diff.deltas() {
            let Some(path) = delta.new_file().path().or_else(|| delta.old_file().path()) else {
                continue;
            };
            // Notes trees may fan out (`ab/cdef...`): the path without slashes is the commit.
            let sha: String = path.to_string_lossy().chars().filter(|c| *c != '/').collect();
            if Oid::from_str(&sha).is_err() {
                continue;
            }
            let count = blocks(delta.old_file()).max(blocks(delta.new_file()));
            for index in 0..count {
                keys.push(format!("{namespace}/{}", MemoryId::git_locator(namespace, &sha, index)));
            }
        }
        Ok(keys)
    }

    /// The notes of `namespace` at the current tip of its ref, re-reading only notes whose
    /// blob changed since the last call.
    fn snapshot(&self, repo: &Repository, namespace: &Collection) -> Result<Arc<NamespaceNotes>> {
        let refname = notes_ref(namespace);
        let tip = Self::ref_tip(repo, namespace)?;
        let mut cache = self.cache.lock();
        let old = cache.get(namespace).cloned().unwrap_or_default();
        if old.tip == tip {
            return Ok(old);
        }
        let mut notes = BTreeMap::new();
        if tip.is_some() {
            let listing = repo.notes(Some(&refname)).map_err(|e| git_error("listing notes", e))?;
            for item in listing {
                let (blob, commit) = item.map_err(|e| git_error("listing notes", e))?;
                let note = match old.notes.get(&commit).filter(|cached| cached.blob == blob) {
                    Some(cached) => Arc::clone(cached),
                    None => Arc::new(read_note(repo, namespace, commit, blob)?),
                };
                notes.insert(commit, note);
            }
        }
        let fresh = Arc::new(NamespaceNotes { tip, notes });
        cache.insert(namespace.clone(), Arc::clone(&fresh));
        Ok(fresh)
    }

    /// The note of `commit` in `namespace`, with the changes of `overlay`.
    fn note(
        &self,
        repo: &Repository,
        overlay: &Overlay,
        namespace: &Collection,
        commit: Oid,
    ) -> Result<Note> {
        if let Some(note) = overlay.changed.get(&(namespace.clone(), commit)) {
            return Ok(note.clone());
        }
        let snapshot = self.snapshot(repo, namespace)?;
        Ok(snapshot.notes.get(&commit).map(|cached| cached.note.clone()).unwrap_or_default())
    }

    /// The parsed memories of `namespace` that `keep` accepts, with the changes of `overlay`.
    fn matching(
        &self,
        repo: &Repository,
        overlay: &Overlay,
        namespace: &Collection,
        keep: &dyn Fn(&Entry) -> bool,
    ) -> Result<Vec<Found>> {
        let snapshot = self.snapshot(repo, namespace)?;
        let mut found = Vec::new();
        let mut visit = |commit: Oid, note: &Note| {
            for (index, entry) in note.entries.iter().enumerate() {
                if let Ok(entry) = entry
                    && keep(entry)
                {
                    let entry = entry.clone();
                    found.push(Found { namespace: namespace.clone(), commit, index, entry });
                }
            }
        };
        for (commit, cached) in &snapshot.notes {
            if !overlay.changed.contains_key(&(namespace.clone(), *commit)) {
                visit(*commit, &cached.note);
            }
        }
        for ((ns, commit), note) in &overlay.changed {
            if ns == namespace {
                visit(*commit, note);
            }
        }
        Ok(found)
    }

    /// The live memory of `namespace` whose own id is `key`.
    fn live_with_key(
        &self,
        repo: &Repository,
        overlay: &Overlay,
        namespace: &Collection,
        key: &MemoryId,
    ) -> Result<Option<Found>> {
        let live = |entry: &Entry| entry.deleted_at.is_none() && entry.key == *key;
        Ok(self.matching(repo, overlay, namespace, &live)?.into_iter().next())
    }

    /// Finds the memory `id` (a `namespace:sha:index` id or a memory's own id), live or, with
    /// `deleted`, in the trash (the most recently deleted one for an own id).
    fn find(
        &self,
        repo: &Repository,
        overlay: &Overlay,
        collection: Option<&Collection>,
        id: &MemoryId,
        deleted: bool,
    ) -> Result<Found> {
        let missing = || not_found(collection, id, deleted);
        if let Some(locator) = parse_locator(id.as_str()) {
            let namespace = Collection::new(locator.namespace).map_err(|_| missing())?;
            if collection.is_some_and(|c| *c != namespace) || !self.namespaces.contains(&namespace)
            {
                return Err(missing());
            }
            let commit = self.resolve_sha(repo, overlay, &namespace, locator.sha)?;
            let pick = |note: &Note| match note.entries.get(locator.index) {
                Some(Ok(entry)) if entry.deleted_at.is_some() == deleted => Ok(entry.clone()),
                Some(Err(e)) => Err(corrupted(&namespace, commit, e)),
                _ => Err(missing()),
            };
            // One entry is cloned, never the whole note.
            let entry = match overlay.changed.get(&(namespace.clone(), commit)) {
                Some(note) => pick(note)?,
                None => match self.snapshot(repo, &namespace)?.notes.get(&commit) {
                    Some(cached) => pick(&cached.note)?,
                    None => return Err(missing()),
                },
            };
            return Ok(Found { namespace, commit, index: locator.index, entry });
        }
        let namespaces = match collection {
            Some(c) => vec![c.clone()],
            None => self.namespaces.clone(),
        };
        let mut matches = Vec::new();
        let wanted = |entry: &Entry| entry.key == *id && entry.deleted_at.is_some() == deleted;
        for namespace in namespaces.iter().filter(|ns| self.namespaces.contains(ns)) {
            matches.extend(self.matching(repo, overlay, namespace, &wanted)?);
        }
        if deleted {
            return matches.into_iter().max_by_key(|f| f.entry.deleted_at).ok_or_else(missing);
        }
        match matches.len() {
            0 => Err(missing()),
            1 => Ok(matches.remove(0)),
            _ => {
                let ids: Vec<String> =
                    matches.iter().map(|f| f.entry.memory.id.to_string()).collect();
                Err(Error::conflict(
                    format!("memory id '{id}' is ambiguous: {}", ids.join(", ")),
                    "use one of the `namespace:commit:index` ids, or name the namespace",
                ))
            }
        }
    }

    /// The commit whose note a (possibly short) commit id names, among the notes of
    /// `namespace`.
    fn resolve_sha(
        &self,
        repo: &Repository,
        overlay: &Overlay,
        namespace: &Collection,
        sha: &str,
    ) -> Result<Oid> {
        let snapshot = self.snapshot(repo, namespace)?;
        if let (40, Ok(full)) = (sha.len(), Oid::from_str(sha)) {
            // A full id needs no search: the note is there or not.
            return Ok(full);
        }
        let overlaid = overlay.changed.keys().filter(|(ns, _)| ns == namespace).map(|(_, c)| *c);
        let mut candidates: Vec<Oid> = snapshot
            .notes
            .keys()
            .copied()
            .chain(overlaid)
            .filter(|commit| commit.to_string().starts_with(sha))
            .collect();
        candidates.sort();
        candidates.dedup();
        match candidates.as_slice() {
            [one] => Ok(*one),
            [] => Err(Error::not_found(
                format!("a note in namespace '{namespace}' on a commit starting with {sha}"),
                "list the memories to find their ids",
            )),
            _ => Err(Error::conflict(
                format!("commit id {sha} is ambiguous in namespace '{namespace}'"),
                "give more characters of the commit id",
            )),
        }
    }

    /// Stores a batch under one lock: every memory is checked and placed first, then each
    /// changed note is written once.
    fn put_batch(
        &self,
        memories: Vec<Memory>,
        mode: PutMode,
        rev: Option<&str>,
    ) -> Result<Vec<Memory>> {
        for memory in &memories {
            self.check(memory)?;
        }
        self.with_retries(|repo| {
            let target = self.target_commit(repo, rev)?;
            let mut overlay = Overlay::default();
            let mut stored = Vec::with_capacity(memories.len());
            for memory in &memories {
                let memory = self.place(repo, &mut overlay, memory.clone(), mode, target)?;
                stored.push(memory);
            }
            Ok(self.write(repo, overlay)?.then_some(stored))
        })
    }

    /// Places one memory of a batch in `overlay`: over the live memory it replaces (same own
    /// id, or the `namespace:sha:index` id of a memory read back), else appended to the note
    /// of `target`. Returns the memory as it will be stored.
    fn place(
        &self,
        repo: &Repository,
        overlay: &mut Overlay,
        mut memory: Memory,
        mode: PutMode,
        target: Oid,
    ) -> Result<Memory> {
        let namespace = memory.collection.clone();
        let mut key = memory.id.clone();
        let existing = if parse_locator(key.as_str()).is_some() {
            let found =
                self.find(repo, overlay, Some(&namespace), &key, false).map_err(|e| match e {
                    Error::NotFound { .. } => Error::validation(
                        format!("'{key}' names no live memory of namespace '{namespace}'"),
                        "ids of the form namespace:commit:index are given by the git-notes \
                         store; leave the id unset (or give your own) to add a memory",
                    ),
                    other => other,
                })?;
            key = found.entry.key.clone();
            Some(found)
        } else {
            self.live_with_key(repo, overlay, &namespace, &key)?
        };
        if memory.summary.is_none() {
            memory.summary = Some(derive_summary(&memory, self.limits.max_summary_chars));
        }
        let (commit, index) = match existing {
            Some(_) if mode == PutMode::CreateOnly => {
                return Err(Error::conflict(
                    format!("memory '{key}' already exists in namespace '{namespace}'"),
                    "use update to change it, put without create_only to replace it, or \
                     choose another id",
                ));
            }
            Some(old) => {
                let old_memory = &old.entry.memory;
                memory.created_at = old_memory.created_at;
                memory.version = old_memory.version + 1;
                memory.updated_at = memory.updated_at.max(old_memory.updated_at);
                (old.commit, old.index)
            }
            None => (target, self.note_len(repo, overlay, &namespace, target)?),
        };
        memory.id = MemoryId::git_locator(&namespace, &commit.to_string(), index);
        let entry = Entry { key, memory: memory.clone(), deleted_at: None };
        self.stage(repo, overlay, &namespace, commit, index, entry)?;
        Ok(memory)
    }

    /// How many blocks the note of `commit` has, with the changes of `overlay`.
    fn note_len(
        &self,
        repo: &Repository,
        overlay: &Overlay,
        namespace: &Collection,
        commit: Oid,
    ) -> Result<usize> {
        if let Some(note) = overlay.changed.get(&(namespace.clone(), commit)) {
            return Ok(note.entries.len());
        }
        let snapshot = self.snapshot(repo, namespace)?;
        Ok(snapshot.notes.get(&commit).map_or(0, |cached| cached.note.entries.len()))
    }

    /// Sets block `index` of the note of `commit` to `entry` in `overlay` (copying the note
    /// from the snapshot on its first change).
    fn stage(
        &self,
        repo: &Repository,
        overlay: &mut Overlay,
        namespace: &Collection,
        commit: Oid,
        index: usize,
        entry: Entry,
    ) -> Result<()> {
        let slot = (namespace.clone(), commit);
        if !overlay.changed.contains_key(&slot) {
            let note = self.note(repo, overlay, namespace, commit)?;
            overlay.changed.insert(slot.clone(), note);
        }
        if let Some(note) = overlay.changed.get_mut(&slot) {
            note.set(index, entry);
        }
        Ok(())
    }

    /// Runs a write under the store's lock; `op` returns `None` when another git process
    /// moved a notes ref between its read and its write (nothing was written), and runs
    /// again from a fresh read.
    fn with_retries<T>(&self, mut op: impl FnMut(&Repository) -> Result<Option<T>>) -> Result<T> {
        let _guard = self.lock.acquire()?;
        let repo = self.repo.lock();
        for _ in 0..REF_RETRIES {
            if let Some(done) = op(&repo)? {
                return Ok(done);
            }
            self.cache.lock().clear();
        }
        Err(Error::conflict(
            "another git process kept changing the notes refs while memcore wrote",
            "retry once the other git process (a fetch of refs/notes, `git notes`) has finished",
        ))
    }

    /// Changes the memory found by `find` (live, or deleted with `deleted`) with `change` and
    /// writes its note, retrying from a fresh read on a race with another git process.
    fn rewrite<T>(
        &self,
        collection: Option<&Collection>,
        id: &MemoryId,
        deleted: bool,
        change: impl Fn(&Repository, &Found) -> Result<(Entry, T)>,
    ) -> Result<T> {
        self.with_retries(|repo| {
            let mut overlay = Overlay::default();
            let found = self.find(repo, &overlay, collection, id, deleted)?;
            let (entry, result) = change(repo, &found)?;
            self.stage(repo, &mut overlay, &found.namespace, found.commit, found.index, entry)?;
            Ok(self.write(repo, overlay)?.then_some(result))
        })
    }

    /// Writes every note `overlay` changed, each as one commit on its namespace's notes ref
    /// made on the tip the changes were read from (compare-and-swap), and brings the cache
    /// level. `Ok(false)`: another git process moved a ref before anything was written.
    fn write(&self, repo: &Repository, overlay: Overlay) -> Result<bool> {
        let signature = repo
            .signature()
            .or_else(|_| Signature::now("memcore", "memcore@localhost"))
            .map_err(|e| git_error("making a signature for the notes commit", e))?;
        for (written, ((namespace, commit), note)) in overlay.changed.into_iter().enumerate() {
            let refname = notes_ref(&namespace);
            let before = self.cache.lock().get(&namespace).cloned().unwrap_or_default();
            let text = note.text();
            let (blob, tip) =
                match write_note(repo, &signature, &refname, before.tip, commit, &text)? {
                    Some(done) => done,
                    None if written == 0 => return Ok(false),
                    None => {
                        return Err(Error::conflict(
                            format!(
                                "another git process changed {refname} while memcore wrote; \
                                 {written} note(s) of this batch were stored"
                            ),
                            "list the memories to see which were stored, then put the rest again",
                        ));
                    }
                };
            // Cache what was written, re-parsed, so this process sees exactly what others do.
            let sha = commit.to_string();
            let reparsed = Note::parse(
                &text,
                &namespace,
                &|index| MemoryId::git_locator(&namespace, &sha, index),
                &|| crate::now(),
            );
            let mut notes = before.notes.clone();
            notes.insert(commit, Arc::new(CachedNote { blob, note: reparsed }));
            self.cache.lock().insert(namespace, Arc::new(NamespaceNotes { tip: Some(tip), notes }));
        }
        Ok(true)
    }
}

/// Notes changed by an operation and not yet written, keyed by namespace and commit.
#[derive(Debug, Default)]
struct Overlay {
    changed: BTreeMap<(Collection, Oid), Note>,
}

/// Reads and parses the note blob `blob` attached to `commit`.
fn read_note(
    repo: &Repository,
    namespace: &Collection,
    commit: Oid,
    blob: Oid,
) -> Result<CachedNote> {
    let content = repo.find_blob(blob).map_err(|e| git_error("reading a note", e))?;
    let text = String::from_utf8_lossy(content.content());
    let sha = commit.to_string();
    let default_time = || repo.find_commit(commit).map(|c| commit_time(&c)).unwrap_or_default();
    let note = Note::parse(
        &text,
        namespace,
        &|index| MemoryId::git_locator(namespace, &sha, index),
        &default_time,
    );
    Ok(CachedNote { blob, note })
}

/// Writes `text` as the note of `commit` in a new notes commit on `tip` and moves `refname`
/// from `tip` to it (compare-and-swap), retrying while another git process holds the ref's
/// lock. Returns the note's blob and the new tip, or `None` when the ref no longer points at
/// `tip` (another git process moved it).
fn write_note(
    repo: &Repository,
    signature: &Signature<'_>,
    refname: &str,
    tip: Option<Oid>,
    commit: Oid,
    text: &str,
) -> Result<Option<(Oid, Oid)>> {
    let failed = |e| git_error(&format!("writing the note of {commit} under {refname}"), e);
    let blob = repo.blob(text.as_bytes()).map_err(failed)?;
    let parent = tip.map(|tip| repo.find_commit(tip)).transpose().map_err(failed)?;
    let base = match &parent {
        Some(parent) => parent.tree().map_err(failed)?,
        None => {
            let empty = repo.treebuilder(None).and_then(|b| b.write()).map_err(failed)?;
            repo.find_tree(empty).map_err(failed)?
        }
    };
    let sha = commit.to_string();
    let path = note_path(&base, &sha).unwrap_or(sha);
    let mut update = TreeUpdateBuilder::new();
    update.upsert(path, blob, FileMode::Blob);
    let tree =
        update.create_updated(repo, &base).and_then(|t| repo.find_tree(t)).map_err(failed)?;
    let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
    let message = "Notes added by memcore";
    let new = repo.commit(None, signature, signature, message, &tree, &parents).map_err(failed)?;
    let mut attempt = 0;
    loop {
        let moved = match tip {
            Some(tip) => repo.reference_matching(refname, new, true, tip, message),
            None => repo.reference(refname, new, false, message),
        };
        match moved {
            Ok(_) => return Ok(Some((blob, new))),
            Err(e) if e.code() == ErrorCode::Locked && attempt < REF_RETRIES => {
                attempt += 1;
                std::thread::sleep(Duration::from_millis(5 * u64::from(attempt)));
            }
            Err(e) if matches!(e.code(), ErrorCode::Modified | ErrorCode::Exists) => {
                return Ok(None);
            }
            Err(e) => return Err(failed(e)),
        }
    }
}

/// Where the note of `sha` sits in a notes tree: flat (`<sha>`) or fanned out
/// (`ab/cdef...`, as git does for many notes), if it is there.
fn note_path(tree: &git2::Tree<'_>, sha: &str) -> Option<String> {
    (0..=3).find_map(|levels| {
        let mut path = String::new();
        for level in 0..levels {
            path.push_str(&sha[2 * level..2 * level + 2]);
            path.push('/');
        }
        path.push_str(&sha[2 * levels..]);
        tree.get_path(Path::new(&path)).is_ok().then_some(path)
    })
}

fn corrupted(
    namespace: &Collection,
    commit: Oid,
    e: &crate::format::frontmatter::ParseError,
) -> Error {
    Error::corrupted(
        format!("{}{namespace}@{commit}", NOTES_REF_PREFIX),
        e.line,
        e.message.clone(),
        format!(
            "fix that memory's YAML in the note: git notes --ref=mem/{namespace} edit {commit}"
        ),
    )
}

impl MemoryStore for GitNotesStore {
    fn backend(&self) -> &'static str {
        "git-notes"
    }

    fn put(&self, memory: Memory, mode: PutMode) -> Result<Memory> {
        self.put_one(memory, mode, None)
    }

    fn put_many(&self, memories: Vec<Memory>, mode: PutMode) -> Result<Vec<Memory>> {
        self.put_batch(memories, mode, None)
    }

    fn put_many_at(&self, memories: Vec<Memory>, rev: &str, mode: PutMode) -> Result<Vec<Memory>> {
        GitNotesStore::put_many_at(self, memories, rev, mode)
    }

    fn get(&self, collection: Option<&Collection>, id: &MemoryId) -> Result<Arc<Memory>> {
        let repo = self.repo.lock();
        let found = self.find(&repo, &Overlay::default(), collection, id, false)?;
        Ok(Arc::new(found.entry.memory))
    }

    fn update(
        &self,
        collection: Option<&Collection>,
        id: &MemoryId,
        change: &MemoryUpdate,
        now: Timestamp,
    ) -> Result<Memory> {
        self.rewrite(collection, id, false, |_, found| {
            let next = change.apply(&found.entry.memory, &self.limits, now)?;
            self.check(&next)?;
            let entry =
                Entry { key: found.entry.key.clone(), memory: next.clone(), deleted_at: None };
            Ok((entry, next))
        })
    }

    fn delete(
        &self,
        collection: Option<&Collection>,
        id: &MemoryId,
        now: Timestamp,
    ) -> Result<TrashEntry> {
        self.rewrite(collection, id, false, |_, found| {
            let entry = Entry { deleted_at: Some(now), ..found.entry.clone() };
            let trashed = TrashEntry {
                collection: found.namespace.clone(),
                id: found.entry.memory.id.clone(),
                deleted_at: now,
                path: PathBuf::from(format!("{}@{}", notes_ref(&found.namespace), found.commit)),
            };
            Ok((entry, trashed))
        })
    }

    fn restore(&self, collection: Option<&Collection>, id: &MemoryId) -> Result<Arc<Memory>> {
        self.rewrite(collection, id, true, |repo, found| {
            let key = &found.entry.key;
            let overlay = Overlay::default();
            if let Some(live) = self.live_with_key(repo, &overlay, &found.namespace, key)? {
                return Err(Error::conflict(
                    format!(
                        "memory '{key}' in namespace '{}' was taken meanwhile by {}",
                        found.namespace, live.entry.memory.id
                    ),
                    "delete or change the live memory first, then restore",
                ));
            }
            let entry = Entry { deleted_at: None, ..found.entry.clone() };
            Ok((entry, Arc::new(found.entry.memory.clone())))
        })
    }

    fn hydrate(
        &self,
        collection: Option<&Collection>,
        id: &MemoryId,
        level: HydrationLevel,
    ) -> Result<Hydrated> {
        let repo = self.repo.lock();
        let found = self.find(&repo, &Overlay::default(), collection, id, false)?;
        let note = self.note(&repo, &Overlay::default(), &found.namespace, found.commit)?;
        hydrate::hydrate(&repo, found.entry.memory, found.commit, &note.text(), level)
    }

    /// `namespace=tip` for each namespace with notes, comma-separated.
    fn change_cursor(&self) -> Result<Option<String>> {
        let repo = self.repo.lock();
        let mut parts = Vec::new();
        for namespace in &self.namespaces {
            if let Some(tip) = Self::ref_tip(&repo, namespace)? {
                parts.push(format!("{namespace}={tip}"));
            }
        }
        Ok(Some(parts.join(",")))
    }

    fn changed_since(&self, cursor: &str) -> Result<Vec<String>> {
        let mut old = HashMap::new();
        for part in cursor.split(',').filter(|p| !p.is_empty()) {
            let parsed =
                part.split_once('=').and_then(|(ns, tip)| Some((ns, Oid::from_str(tip).ok()?)));
            let Some((namespace, tip)) = parsed else {
                return Err(Error::validation(
                    format!("invalid sync cursor part {part:?}"),
                    "pass a value returned by change_cursor, or run a full reindex",
                ));
            };
            old.insert(namespace, tip);
        }
        let repo = self.repo.lock();
        let mut keys = Vec::new();
        for namespace in &self.namespaces {
            let new = Self::ref_tip(&repo, namespace)?;
            let before = old.get(namespace.as_str()).copied();
            if new != before {
                keys.extend(Self::changed_keys(&repo, namespace, before, new)?);
            }
        }
        Ok(keys)
    }

    fn collections(&self) -> Result<Vec<Collection>> {
        let repo = self.repo.lock();
        let mut used = Vec::new();
        for namespace in &self.namespaces {
            if self.snapshot(&repo, namespace)?.tip.is_some() {
                used.push(namespace.clone());
            }
        }
        Ok(used)
    }

    fn scan(&self, collection: Option<&Collection>, visit: &mut Visitor<'_>) -> Result<()> {
        let namespaces: Vec<Collection> = match collection {
            Some(c) => self.namespaces.iter().filter(|ns| *ns == c).cloned().collect(),
            None => self.namespaces.clone(),
        };
        for namespace in &namespaces {
            let snapshot = {
                let repo = self.repo.lock();
                self.snapshot(&repo, namespace)?
            };
            let mut items: Vec<(MemoryId, Result<Arc<Memory>>)> = Vec::new();
            for (commit, cached) in &snapshot.notes {
                for (index, entry) in cached.note.entries.iter().enumerate() {
                    match entry {
                        Ok(entry) if entry.deleted_at.is_none() => items
                            .push((entry.memory.id.clone(), Ok(Arc::new(entry.memory.clone())))),
                        Ok(_) => {}
                        Err(e) => items.push((
                            MemoryId::git_locator(namespace, &commit.to_string(), index),
                            Err(corrupted(namespace, *commit, e)),
                        )),
                    }
                }
            }
            items.sort_by(|a, b| a.0.cmp(&b.0));
            for (_, item) in items {
                if visit(item).is_break() {
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}
