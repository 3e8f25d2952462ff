//! The history of memories: versions, a version's content, diffs between versions, and
//! writing an old version back. The same API over git history and built-in history.

use std::sync::Arc;

use super::Memcore;
use crate::store::{PutMode, StoreHistory, Version};
use crate::{Error, IntoMemoryRef, Memory, MemoryRef, Result};

impl Memcore {
    /// The revision that names a memory as it is now, for [`Memcore::get_version`] and
    /// [`Memcore::diff`].
    pub const CURRENT: &'static str = "current";

    /// The store's history, or the error that says this store keeps none and how to get it.
    fn history(&self, operation: &str) -> Result<&dyn StoreHistory> {
        let store = self.indexed.store();
        store.history().ok_or_else(|| {
            Error::unsupported(
                operation,
                store.backend(),
                "set `versioning: auto` in the store's config.yaml (git inside a work tree, \
                 else built-in), or use the git-notes backend",
            )
        })
    }

    /// The history of the memory `reference` names, oldest first, current last.
    pub fn versions(&self, reference: impl IntoMemoryRef) -> Result<Vec<Version>> {
        self.history("versions")?.versions(&reference.into_memory_ref()?)
    }

    /// The memory `reference` names as it was at `rev` (see [`Version::rev`]): a version
    /// number for built-in history; any revision (`HEAD~2`, a commit id, a tag) for git
    /// history; [`Memcore::CURRENT`] for the memory as it is now.
    pub fn get_version(&self, reference: impl IntoMemoryRef, rev: &str) -> Result<Memory> {
        let reference = reference.into_memory_ref()?;
        self.version_of(&reference, rev)
    }

    /// [`Memcore::get_version`] for a parsed reference.
    fn version_of(&self, reference: &MemoryRef, rev: &str) -> Result<Memory> {
        if rev == Self::CURRENT {
            return self.indexed.store().get(reference).map(Arc::unwrap_or_clone);
        }
        self.history("get_version")?.get_version(reference, rev)
    }

    /// A unified diff of the memory file `reference` names between the revisions `from` and
    /// `to` (as for [`Memcore::get_version`]); empty when they do not differ. Works the same
    /// for git and built-in history.
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
    pub fn diff(&self, reference: impl IntoMemoryRef, from: &str, to: &str) -> Result<String> {
        let reference = reference.into_memory_ref()?;
        let old = self.version_of(&reference, from)?;
        let new = self.version_of(&reference, to)?;
        crate::git::unified_diff(&old, &new, from, to)
    }

    /// Writes the memory `reference` names back as it was at `rev`: a new version whose
    /// fields and content are those of `rev` (nothing is lost: the current one stays in
    /// history; a git-versioned store with `git_autocommit` commits it).
    pub fn restore_version(&self, reference: impl IntoMemoryRef, rev: &str) -> Result<Memory> {
        let mut old = self.get_version(reference, rev)?;
        old.updated_at = self.now();
        self.indexed.put(old, PutMode::Upsert, None)
    }
}
