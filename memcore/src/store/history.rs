//! Built-in version history of the file store, for stores outside a git work tree
//! (seed 000's global mode): before a memory is replaced, its file is kept as
//! `<collection>/.versions/<id>/v<N>_<time>.md`, at most `max_versions` per memory.

use std::fs;
use std::path::{Path, PathBuf};

use super::fsutil::write_atomic;
use crate::{Error, Memory, MemoryId, Result};

/// The folder, inside each collection folder, that holds old versions.
pub(crate) const VERSIONS_DIR: &str = ".versions";

/// One kept version: its number and file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KeptVersion {
    /// The memory's `version` field when it was kept.
    pub(crate) version: u64,
    /// The file holding it.
    pub(crate) path: PathBuf,
}

/// The history folder of `id` in the collection folder `collection_dir`.
fn history_dir(collection_dir: &Path, id: &MemoryId) -> PathBuf {
    collection_dir.join(VERSIONS_DIR).join(id.as_str())
}

/// Where `old` is kept: `<collection_dir>/.versions/<id>/v<N>_<time>.md`.
pub(crate) fn slot(collection_dir: &Path, old: &Memory) -> PathBuf {
    let time = old.updated_at.format("%Y-%m-%dT%H-%M-%SZ");
    history_dir(collection_dir, &old.id).join(format!("v{}_{time}.md", old.version))
}

/// Keeps `old` (whose file text is `old_text`) and prunes the oldest beyond `max_versions`.
pub(crate) fn keep(
    collection_dir: &Path,
    old: &Memory,
    old_text: &str,
    max_versions: usize,
) -> Result<()> {
    if max_versions == 0 {
        return Ok(());
    }
    write_atomic(&slot(collection_dir, old), old_text.as_bytes())?;
    prune(collection_dir, &old.id, max_versions)
}

/// Removes the oldest kept versions of `id` beyond `max_versions`.
pub(crate) fn prune(collection_dir: &Path, id: &MemoryId, max_versions: usize) -> Result<()> {
    let kept = list(collection_dir, id)?;
    for stale in kept.iter().take(kept.len().saturating_sub(max_versions)) {
        fs::remove_file(&stale.path)
            .map_err(|e| Error::io(format!("pruning old version {}", stale.path.display()), e))?;
    }
    Ok(())
}

/// Removes every kept version of `id` and its history folder; returns how many went.
pub(crate) fn forget(collection_dir: &Path, id: &MemoryId) -> Result<usize> {
    let kept = list(collection_dir, id)?;
    for version in &kept {
        super::fsutil::remove_file_if_present(&version.path, "old version")?;
    }
    super::fsutil::remove_dir_if_present(&history_dir(collection_dir, id), "history folder")?;
    Ok(kept.len())
}

/// The kept versions of `id`, oldest first.
pub(crate) fn list(collection_dir: &Path, id: &MemoryId) -> Result<Vec<KeptVersion>> {
    let dir = history_dir(collection_dir, id);
    let entries = match fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(format!("reading history {}", dir.display()), e)),
    };
    let mut kept: Vec<(u64, String, PathBuf)> = entries
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let name = path.file_name()?.to_str()?.to_owned();
            let version = name.strip_prefix('v')?.split('_').next()?.parse().ok()?;
            name.ends_with(".md").then_some((version, name, path))
        })
        .collect();
    kept.sort();
    Ok(kept.into_iter().map(|(version, _, path)| KeptVersion { version, path }).collect())
}
