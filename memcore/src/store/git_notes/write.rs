//! Writing the notes: a batch is checked and placed in an [`Overlay`] under the store's lock,
//! then each changed note is written once, as a commit on its namespace's notes ref moved by
//! compare-and-swap; a race with another git process retries the whole write from a fresh
//! read.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use git2::build::TreeUpdateBuilder;
use git2::{ErrorCode, FileMode, Oid, Repository, Signature};

use super::format::{Entry, Note};
use super::read::{CachedNote, Found, NamespaceNotes, Overlay, parse_locator};
use super::{GitNotesStore, REF_RETRIES, derive_summary, notes_ref};
use crate::git::errors::git_error;
use crate::store::{PutMode, succeed};
use crate::{Collection, Error, Memory, MemoryId, MemoryRef, Result};

impl GitNotesStore {
    /// Stores one memory as a batch of one.
    pub(super) fn put_one(
        &self,
        memory: Memory,
        mode: PutMode,
        rev: Option<&str>,
    ) -> Result<Memory> {
        let mut stored = self.put_batch(vec![memory], mode, rev)?;
        stored.pop().ok_or_else(|| Error::storage("the note write stored nothing", None, "retry"))
    }

    /// Stores a batch under one lock: every memory is checked and placed first, then each
    /// changed note is written once.
    pub(super) fn put_batch(
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
    pub(super) fn place(
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
                succeed(&mut memory, &old.entry.memory);
                (old.commit, old.index)
            }
            None => (target, self.next_index(repo, overlay, &namespace, target)?),
        };
        memory.id = MemoryId::git_locator(&namespace, &commit.to_string(), index);
        let entry = Entry { key, memory: memory.clone(), deleted_at: None };
        self.stage(repo, overlay, &namespace, commit, index, entry)?;
        Ok(memory)
    }

    /// The index a memory appended to the note of `commit` gets, with the changes of
    /// `overlay` (which then holds the note, ready for the append: see
    /// [`Note::prepare_append`]).
    pub(super) fn next_index(
        &self,
        repo: &Repository,
        overlay: &mut Overlay,
        namespace: &Collection,
        commit: Oid,
    ) -> Result<usize> {
        Ok(self.staged(repo, overlay, namespace, commit)?.prepare_append())
    }

    /// The note of `commit` in `overlay`, copied from the snapshot on its first change.
    fn staged<'o>(
        &self,
        repo: &Repository,
        overlay: &'o mut Overlay,
        namespace: &Collection,
        commit: Oid,
    ) -> Result<&'o mut Note> {
        let slot = (namespace.clone(), commit);
        if !overlay.changed.contains_key(&slot) {
            let note = self.note(repo, overlay, namespace, commit)?;
            overlay.changed.insert(slot.clone(), note);
        }
        Ok(overlay.changed.entry(slot).or_default())
    }

    /// Sets block `index` of the note of `commit` to `entry` in `overlay` (copying the note
    /// from the snapshot on its first change).
    pub(super) fn stage(
        &self,
        repo: &Repository,
        overlay: &mut Overlay,
        namespace: &Collection,
        commit: Oid,
        index: usize,
        entry: Entry,
    ) -> Result<()> {
        self.staged(repo, overlay, namespace, commit)?.set(index, entry);
        Ok(())
    }

    /// Runs a write under the store's lock; `op` returns `None` when another git process
    /// moved a notes ref between its read and its write (nothing was written), and runs
    /// again from a fresh read.
    pub(super) fn with_retries<T>(
        &self,
        mut op: impl FnMut(&Repository) -> Result<Option<T>>,
    ) -> Result<T> {
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
    pub(super) fn rewrite<T>(
        &self,
        reference: &MemoryRef,
        deleted: bool,
        change: impl Fn(&Repository, &Found) -> Result<(Entry, T)>,
    ) -> Result<T> {
        let (collection, id) = (reference.collection(), reference.id());
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
    pub(super) fn write(&self, repo: &Repository, overlay: Overlay) -> Result<bool> {
        let signature = notes_signature(repo)?;
        // Every note is checked to read back as written before any is written: a write
        // never leaves a memory behind an id that names something else.
        let mut prepared = Vec::with_capacity(overlay.changed.len());
        for ((namespace, commit), note) in overlay.changed {
            let text = note.text();
            let sha = commit.to_string();
            let reparsed = Note::parse(
                &text,
                &namespace,
                &|index| MemoryId::git_locator(&namespace, &sha, index),
                &|| crate::now(),
            );
            if !note.reads_back_as(&reparsed) {
                return Err(Error::storage(
                    format!(
                        "the note of {commit} in {} would not read back as written",
                        notes_ref(&namespace)
                    ),
                    None,
                    format!(
                        "nothing was written; look at the note (git notes \
                         --ref=mem/{namespace} show {commit}) and report it"
                    ),
                ));
            }
            prepared.push((namespace, commit, text, reparsed));
        }
        for (written, (namespace, commit, text, reparsed)) in prepared.into_iter().enumerate() {
            let refname = notes_ref(&namespace);
            let before = self.cache.lock().get(&namespace).cloned().unwrap_or_default();
            let (blob, tip) =
                match write_note(repo, &signature, &refname, before.tip, commit, &text)? {
                    Some(done) => done,
                    None if written == 0 => return Ok(false),
                    None => {
                        // A storage error: part of the batch is written, so memcore indexes it.
                        return Err(Error::storage(
                            format!(
                                "another git process changed {refname} while memcore wrote; \
                                 {written} note(s) of this batch were stored"
                            ),
                            None,
                            "list the memories to see which were stored, then put the rest again",
                        ));
                    }
                };
            // Cache what was written, re-parsed, so this process sees exactly what others do.
            let mut notes = before.notes.clone();
            notes.insert(commit, Arc::new(CachedNote { blob, note: reparsed }));
            self.cache.lock().insert(namespace, Arc::new(NamespaceNotes { tip: Some(tip), notes }));
        }
        Ok(true)
    }
}

/// Who a notes commit is by: the repository's configured user, else memcore.
pub(super) fn notes_signature(repo: &Repository) -> Result<Signature<'static>> {
    repo.signature()
        .or_else(|_| Signature::now("memcore", "memcore@localhost"))
        .map_err(|e| git_error("making a signature for the notes commit", e))
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
pub(super) fn note_path(tree: &git2::Tree<'_>, sha: &str) -> Option<String> {
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
