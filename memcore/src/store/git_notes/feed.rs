//! The change feed of the notes: a cursor of every namespace's notes-ref tip, and the
//! memories of the notes that changed between two cursors.

use std::collections::HashMap;

use git2::{Oid, Repository};

use super::GitNotesStore;
use super::format::memory_count;
use crate::git::errors::git_error;
use crate::store::ChangeFeed;
use crate::{Collection, Error, MemoryId, MemoryRef, Result};

impl ChangeFeed for GitNotesStore {
    /// `namespace=tip` for each namespace with notes, comma-separated.
    fn cursor(&self) -> Result<String> {
        let repo = self.repo.lock();
        let mut parts = Vec::new();
        for namespace in &self.namespaces {
            if let Some(tip) = Self::ref_tip(&repo, namespace)? {
                parts.push(format!("{namespace}={tip}"));
            }
        }
        Ok(parts.join(","))
    }

    fn changed_since(&self, cursor: &str) -> Result<Vec<MemoryRef>> {
        let mut old = HashMap::new();
        for part in cursor.split(',').filter(|p| !p.is_empty()) {
            let parsed =
                part.split_once('=').and_then(|(ns, tip)| Some((ns, Oid::from_str(tip).ok()?)));
            let Some((namespace, tip)) = parsed else {
                return Err(Error::validation(
                    format!("invalid sync cursor part {part:?}"),
                    "pass a value returned by the change feed's cursor, or run a full reindex",
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
}

impl GitNotesStore {
    /// The index keys of every memory in the notes that changed in `namespace` between the
    /// notes commits `old` and `new`.
    pub(super) fn changed_keys(
        repo: &Repository,
        namespace: &Collection,
        old: Option<Oid>,
        new: Option<Oid>,
    ) -> Result<Vec<MemoryRef>> {
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
                .map(|blob| memory_count(&String::from_utf8_lossy(blob.content())))
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
                let id = MemoryId::git_locator(namespace, &sha, index);
                keys.push(MemoryRef::new(namespace.clone(), id));
            }
        }
        Ok(keys)
    }
}
