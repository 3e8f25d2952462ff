//! What only git-backed stores can do: attach memories to commits, and hydrate a memory with
//! its note, commit and changed files (seed 002).

use std::sync::Arc;

use super::Memcore;
use crate::git::{Hydrated, HydrationLevel};
use crate::store::PutMode;
use crate::{Error, IntoMemoryRef, Memory, NewMemory, NotesMergeReport, Result};

impl Memcore {
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
        crate::indexed::the_one(self.put_many_at(vec![memory], rev, mode)?, "put")
    }

    /// [`Memcore::put_many_with`], attaching the memories to the commit `rev` as
    /// [`Memcore::put_at`] does.
    pub fn put_many_at(
        &self,
        memories: Vec<NewMemory>,
        rev: &str,
        mode: PutMode,
    ) -> Result<Vec<Memory>> {
        let (memories, vectors) = self.validate_with_vectors(memories)?;
        self.indexed.put_many(memories, &vectors, mode, Some(rev))
    }

    /// The memory `reference` names with as much context as `level` asks for (seed 002's
    /// progressive hydration): with the git-notes backend the whole note and its commit, then
    /// the files that commit changed; every backend has the summary level.
    pub fn hydrate(
        &self,
        reference: impl IntoMemoryRef,
        level: HydrationLevel,
    ) -> Result<Hydrated> {
        let reference = reference.into_memory_ref()?;
        let store = self.indexed.store();
        match (store.hydration(), level) {
            (Some(hydration), _) => hydration.hydrate(&reference, level),
            (None, HydrationLevel::Summary) => {
                Ok(Hydrated::summary(Arc::unwrap_or_clone(store.get(&reference)?)))
            }
            (None, _) => Err(Error::unsupported(
                "hydrate beyond the summary level",
                store.backend(),
                "use the git-notes backend for commit and file context",
            )),
        }
    }

    /// Merges the git notes another clone wrote, fetched to `refs/notes/<remote>/mem/*` (for
    /// example by `git fetch origin '+refs/notes/mem/*:refs/notes/origin/mem/*'`), into this
    /// clone's notes so that every memory of both sides is kept exactly once, then indexes
    /// what came in. Ids of the other side's memories that changed are reported, as are own
    /// ids renamed because this side had taken them and conflicts (both sides changed one
    /// memory; the more recently updated version is kept). See
    /// [`crate::GitNotesStore::merge_notes`]. Only the git-notes backend has notes to merge;
    /// the others return [`Error::Unsupported`].
    ///
    /// `memcore notes sync` runs the whole round: fetch, this merge, push.
    pub fn merge_notes(&self, remote: &str) -> Result<NotesMergeReport> {
        let store = self.indexed.store();
        let notes = store.notes_sync().ok_or_else(|| {
            Error::unsupported(
                "merging the git notes of another clone",
                store.backend(),
                "open the repository's git-notes store (backend git-notes)",
            )
        })?;
        // Namespaces merged before a failure are indexed all the same.
        let merged = notes.merge_notes(remote);
        let synced = self.sync();
        let mut report = merged?;
        report.indexed = synced?.synced;
        Ok(report)
    }
}
