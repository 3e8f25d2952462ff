//! Reading the notes: a per-namespace snapshot keyed by the notes ref's tip (only notes whose
//! blob changed are parsed again), and finding a memory by its `namespace:commit:index` id or
//! by its own id, through an [`Overlay`] of changes not yet written.

use std::collections::BTreeMap;
use std::sync::Arc;

use git2::{Oid, Repository};

use super::format::{Entry, Note};
use super::{GitNotesStore, MIN_SHA_LEN, commit_time, corrupted, not_found, notes_ref};
use crate::git::errors::git_error;
use crate::{Collection, Error, MemoryId, Result};

/// The parsed notes of one namespace at one tip of its ref.
#[derive(Debug, Default)]
pub(super) struct NamespaceNotes {
    pub(super) tip: Option<Oid>,
    pub(super) notes: BTreeMap<Oid, Arc<CachedNote>>,
}

/// A note as read: its blob (to tell when it changed) and its parsed blocks.
#[derive(Debug)]
pub(super) struct CachedNote {
    pub(super) blob: Oid,
    pub(super) note: Note,
}

/// A memory found in the notes: where it is and what it holds.
#[derive(Debug, Clone)]
pub(super) struct Found {
    pub(super) namespace: Collection,
    pub(super) commit: Oid,
    pub(super) index: usize,
    pub(super) entry: Entry,
}

/// The parts of a memory id `namespace:sha:index`.
pub(super) struct Locator<'a> {
    namespace: &'a str,
    sha: &'a str,
    index: usize,
}

pub(super) fn parse_locator(id: &str) -> Option<Locator<'_>> {
    let mut parts = id.split(':');
    let (namespace, sha, index) = (parts.next()?, parts.next()?, parts.next()?);
    let hex = sha.bytes().all(|b| b.is_ascii_hexdigit());
    if parts.next().is_some() || !hex || !(MIN_SHA_LEN..=40).contains(&sha.len()) {
        return None;
    }
    Some(Locator { namespace, sha, index: index.parse().ok()? })
}

/// Notes changed by an operation and not yet written, keyed by namespace and commit.
#[derive(Debug, Default)]
pub(super) struct Overlay {
    pub(super) changed: BTreeMap<(Collection, Oid), Note>,
}

impl GitNotesStore {
    /// The notes of `namespace` at the current tip of its ref, re-reading only notes whose
    /// blob changed since the last call.
    pub(super) fn snapshot(
        &self,
        repo: &Repository,
        namespace: &Collection,
    ) -> Result<Arc<NamespaceNotes>> {
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
    pub(super) fn note(
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
    pub(super) fn matching(
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
    pub(super) fn live_with_key(
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
    pub(super) fn find(
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
    pub(super) fn resolve_sha(
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
}

/// Reads and parses the note blob `blob` attached to `commit`.
pub(super) fn read_note(
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
