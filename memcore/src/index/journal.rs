//! The index journal: a marker per memory whose index entries may lag the store.
//!
//! A writer records the keys it is about to change (durably) before touching the store, and
//! clears them once every index has caught up. Markers left by a crash are replayed on the
//! next open or search by re-reading those memories from the store, which is idempotent:
//! whatever the crash interrupted, the indexes end up matching the store.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::store::fsutil::{create_private_dir_all, sync_dir};
use crate::{Error, Result};

/// Separates collection and id in a marker's file name (`@` is in neither grammar).
const SEPARATOR: char = '@';

/// The journal directory of one index set.
#[derive(Debug)]
pub(crate) struct Journal {
    dir: PathBuf,
}

impl Journal {
    /// The journal in `dir` (created 0700 if missing).
    pub(crate) fn open(dir: &Path) -> Result<Self> {
        create_private_dir_all(dir)?;
        Ok(Self { dir: dir.to_path_buf() })
    }

    fn marker(&self, key: &str) -> PathBuf {
        self.dir.join(key.replacen('/', &SEPARATOR.to_string(), 1))
    }

    /// Durably records that the index entries of `keys` (`collection/id`) are about to change.
    pub(crate) fn begin(&self, keys: &[String]) -> Result<()> {
        for key in keys {
            let path = self.marker(key);
            fs::write(&path, b"")
                .map_err(|e| Error::io(format!("writing index journal {}", path.display()), e))?;
        }
        sync_dir(&self.dir)
    }

    /// Clears the markers of `keys`; a marker already gone (replayed by another process) is fine.
    pub(crate) fn end(&self, keys: &[String]) -> Result<()> {
        for key in keys {
            let path = self.marker(key);
            match fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(Error::io(format!("clearing index journal {}", path.display()), e));
                }
            }
        }
        Ok(())
    }

    /// The keys with pending index work, sorted.
    pub(crate) fn pending(&self) -> Result<Vec<String>> {
        let entries = fs::read_dir(&self.dir)
            .map_err(|e| Error::io(format!("reading index journal {}", self.dir.display()), e))?;
        let mut keys: Vec<String> = entries
            .filter_map(|entry| {
                let name = entry.ok()?.file_name().into_string().ok()?;
                name.contains(SEPARATOR).then(|| name.replacen(SEPARATOR, "/", 1))
            })
            .collect();
        keys.sort();
        Ok(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::open(&dir.path().join("journal")).unwrap();
        let keys = vec!["memory/a.b".to_owned(), "notes/x:y:0".to_owned()];
        journal.begin(&keys).unwrap();
        assert_eq!(journal.pending().unwrap(), keys);
        journal.end(&keys[..1]).unwrap();
        journal.end(&keys[..1]).unwrap();
        assert_eq!(journal.pending().unwrap(), keys[1..]);
    }
}
