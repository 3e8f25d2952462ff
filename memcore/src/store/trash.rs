//! The trash of the file store (seed 001): deleted memories are moved, not removed, to
//! `<root>/.trash/<collection>/<id>@<time>.md`, from where they can be restored.

use std::fs;
use std::path::{Path, PathBuf};

use crate::{Collection, Error, MemoryId, Result, Timestamp};

/// The trash folder, inside the store root.
pub(crate) const TRASH_DIR: &str = ".trash";

/// A file in the trash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Trashed {
    /// The collection it was deleted from.
    pub(crate) collection: Collection,
    /// When it was deleted, as written in its name (sorts chronologically).
    pub(crate) stamp: String,
    /// The file.
    pub(crate) path: PathBuf,
}

/// A free path in the trash for `id` deleted at `now`.
pub(crate) fn slot(root: &Path, collection: &Collection, id: &MemoryId, now: Timestamp) -> PathBuf {
    let dir = root.join(TRASH_DIR).join(collection.as_str());
    let stamp = now.format("%Y-%m-%dT%H-%M-%SZ");
    (0..)
        .map(|n| match n {
            0 => dir.join(format!("{id}@{stamp}.md")),
            n => dir.join(format!("{id}@{stamp}~{n:03}.md")),
        })
        .find(|candidate| !candidate.exists())
        .unwrap_or_else(|| dir.join(format!("{id}@{stamp}.md")))
}

/// Removes every trashed copy in `collection` of the memories `ids`, listing the folder once
/// and syncing it once; returns how many went.
pub(crate) fn remove_copies(
    root: &Path,
    collection: &Collection,
    ids: &std::collections::BTreeSet<&str>,
) -> Result<usize> {
    let dir = root.join(TRASH_DIR).join(collection.as_str());
    let entries = match fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(Error::io(format!("reading {}", dir.display()), e)),
    };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some((id, _)) = name.to_str().and_then(|n| n.split_once('@')) else { continue };
        if ids.contains(id) {
            super::fsutil::remove_file_if_present(&entry.path(), "trashed copy")?;
            removed += 1;
        }
    }
    if removed > 0 {
        super::fsutil::sync_dir(&dir)?;
    }
    Ok(removed)
}

/// The trashed copies of `id`, in `collection` or in any collection, newest last.
pub(crate) fn find(
    root: &Path,
    collection: Option<&Collection>,
    id: &MemoryId,
) -> Result<Vec<Trashed>> {
    let trash = root.join(TRASH_DIR);
    let collections: Vec<Collection> = match collection {
        Some(c) => vec![c.clone()],
        None => match fs::read_dir(&trash) {
            Ok(entries) => entries
                .filter_map(|e| Collection::new(e.ok()?.file_name().to_str()?).ok())
                .collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(Error::io(format!("reading {}", trash.display()), e)),
        },
    };
    let prefix = format!("{id}@");
    let mut found = Vec::new();
    for collection in collections {
        let dir = trash.join(collection.as_str());
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(stamp) = name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
                continue;
            };
            let stamp = stamp.trim_end_matches(".md").to_owned();
            found.push(Trashed { collection: collection.clone(), stamp, path: entry.path() });
        }
    }
    found.sort_by(|a, b| a.stamp.cmp(&b.stamp));
    Ok(found)
}
