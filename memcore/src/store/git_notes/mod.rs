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

mod feed;
mod format;
mod merge;
mod read;
mod write;

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use git2::{ErrorCode, Oid, Repository};
use parking_lot::Mutex;

use self::format::{Entry, check_writable};
pub use self::merge::{
    MergeConflict, MergeOutcome, MovedMemory, NamespaceMerge, NotesMergeReport, RenamedMemory,
};
use self::read::{NamespaceNotes, Overlay};
use crate::config::Config;
use crate::git::errors::{git_error, no_commits};
use crate::git::hydrate::{self, Hydrated, HydrationLevel};
use crate::git::repo::open_repository;
use crate::git::revspec::check_revision;
use crate::store::fsutil::create_private_dir_all;
use crate::store::lock::StoreLock;
use crate::store::{
    ChangeFeed, CommitAttachment, Hydration, MemoryStore, NotesSync, PutMode, TrashEntry, Visitor,
};
use crate::{
    Collection, Error, Limits, Memory, MemoryId, MemoryRef, MemoryUpdate, Result, Timestamp,
};

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
/// assert_eq!(store.get(&stored.reference())?.content, "PostgreSQL: ACID, mature tooling.");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct GitNotesStore {
    root: PathBuf,
    git_dir: PathBuf,
    private_dir: PathBuf,
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
            root: dir.as_ref().to_path_buf(),
            git_dir,
            private_dir: private.clone(),
            namespaces,
            repo: Mutex::new(repo),
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

    /// The namespaces memories may use, sorted.
    pub fn namespaces(&self) -> &[Collection] {
        &self.namespaces
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
        Self::tip(repo, &notes_ref(namespace))
    }

    /// What `refname` points at, if it exists.
    fn tip(repo: &Repository, refname: &str) -> Result<Option<Oid>> {
        match repo.refname_to_id(refname) {
            Ok(oid) => Ok(Some(oid)),
            Err(e) if e.code() == ErrorCode::NotFound => Ok(None),
            Err(e) => Err(git_error(&format!("reading {refname}"), e)),
        }
    }
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

    fn root(&self) -> &Path {
        &self.root
    }

    /// `memcore/` inside the repository's common git directory (shared by its worktrees).
    fn private_dir(&self) -> &Path {
        &self.private_dir
    }

    fn put(&self, memory: Memory, mode: PutMode) -> Result<Memory> {
        self.put_one(memory, mode, None)
    }

    fn put_many(&self, memories: Vec<Memory>, mode: PutMode) -> Result<Vec<Memory>> {
        self.put_batch(memories, mode, None)
    }

    fn get(&self, reference: &MemoryRef) -> Result<Arc<Memory>> {
        let repo = self.repo.lock();
        let found =
            self.find(&repo, &Overlay::default(), reference.collection(), reference.id(), false)?;
        Ok(Arc::new(found.entry.memory))
    }

    fn update(
        &self,
        reference: &MemoryRef,
        change: &MemoryUpdate,
        now: Timestamp,
    ) -> Result<Memory> {
        self.rewrite(reference, false, |_, found| {
            let next = change.apply(&found.entry.memory, &self.limits, now)?;
            self.check(&next)?;
            let entry =
                Entry { key: found.entry.key.clone(), memory: next.clone(), deleted_at: None };
            Ok((entry, next))
        })
    }

    fn delete(&self, reference: &MemoryRef, now: Timestamp) -> Result<TrashEntry> {
        self.rewrite(reference, false, |_, found| {
            let entry = Entry { deleted_at: Some(now), ..found.entry.clone() };
            let trashed = TrashEntry::new(
                found.namespace.clone(),
                found.entry.memory.id.clone(),
                now,
                PathBuf::from(format!("{}@{}", notes_ref(&found.namespace), found.commit)),
            );
            Ok((entry, trashed))
        })
    }

    fn restore(&self, reference: &MemoryRef) -> Result<Arc<Memory>> {
        self.rewrite(reference, true, |repo, found| {
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
                let note = &cached.note;
                // Blocks that count as no memory are reported after the note's memories.
                for (n, e) in note.uncounted.iter().enumerate() {
                    let after = MemoryId::git_locator(
                        namespace,
                        &commit.to_string(),
                        n + note.entries.len(),
                    );
                    items.push((after, Err(corrupted(namespace, *commit, e))));
                }
                for (index, entry) in note.entries.iter().enumerate() {
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

    fn commits(&self) -> Option<&dyn CommitAttachment> {
        Some(self)
    }

    fn hydration(&self) -> Option<&dyn Hydration> {
        Some(self)
    }

    fn change_feed(&self) -> Option<&dyn ChangeFeed> {
        Some(self)
    }

    fn notes_sync(&self) -> Option<&dyn NotesSync> {
        Some(self)
    }
}

impl NotesSync for GitNotesStore {
    fn merge_notes(&self, remote: &str) -> Result<NotesMergeReport> {
        GitNotesStore::merge_notes(self, remote)
    }
}

impl CommitAttachment for GitNotesStore {
    fn put_many_at(&self, memories: Vec<Memory>, rev: &str, mode: PutMode) -> Result<Vec<Memory>> {
        check_revision(rev)?;
        self.put_batch(memories, mode, Some(rev))
    }
}

impl Hydration for GitNotesStore {
    fn hydrate(&self, reference: &MemoryRef, level: HydrationLevel) -> Result<Hydrated> {
        let repo = self.repo.lock();
        let overlay = Overlay::default();
        let found = self.find(&repo, &overlay, reference.collection(), reference.id(), false)?;
        let note = self.note(&repo, &overlay, &found.namespace, found.commit)?;
        hydrate::hydrate(&repo, found.entry.memory, found.commit, &note.text(), level)
    }
}
