//! A read cache for the file store, validated by `stat` so that edits by other processes and
//! by hand are always seen.
//!
//! An entry is trusted while its file's identity (inode, size, mtime, ctime) is unchanged.
//! Timestamps are coarse, so a file changed twice within one clock tick could keep its
//! identity; like git's index ("racy git"), the cache therefore refuses entries whose file
//! changed less than [`RACY_WINDOW`] before they were read, and such files are simply read
//! again next time.

use std::collections::HashMap;
use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use parking_lot::RwLock;

use crate::Memory;

/// Changes this recent are not trusted to show in a file's timestamps.
const RACY_WINDOW: Duration = Duration::from_millis(100);

/// The identity of a file's content as far as `stat` can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    ino: u64,
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
}

impl Stamp {
    /// The stamp of a file or directory from its metadata.
    pub(crate) fn of(meta: &Metadata) -> Self {
        let ns = |secs: i64, nanos: i64| i128::from(secs) * 1_000_000_000 + i128::from(nanos);
        Self {
            ino: meta.ino(),
            size: meta.size(),
            mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// Whether the stamp is old enough, at `read_started`, to be trusted later.
    fn is_settled(&self, read_started: SystemTime) -> bool {
        let started_ns =
            read_started.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i128);
        let window = RACY_WINDOW.as_nanos() as i128;
        self.mtime_ns.max(self.ctime_ns) + window < started_ns
    }
}

/// Cached values of type `T`, keyed by path, each valid while its file's stamp holds.
type Stamped<T> = RwLock<HashMap<PathBuf, (Stamp, Arc<T>)>>;

/// Parsed memories and directory listings, keyed by path.
#[derive(Debug, Default)]
pub(crate) struct StoreCache {
    files: Stamped<Memory>,
    dirs: Stamped<Vec<String>>,
}

impl StoreCache {
    /// The cached memory for `path` if its stamp is still `stamp`.
    pub(crate) fn file(&self, path: &Path, stamp: Stamp) -> Option<Arc<Memory>> {
        let files = self.files.read();
        let (cached, memory) = files.get(path)?;
        (*cached == stamp).then(|| Arc::clone(memory))
    }

    /// Remembers `memory` as the content of `path`, if `stamp` was settled when the read
    /// started; otherwise forgets any older entry.
    pub(crate) fn put_file(
        &self,
        path: &Path,
        stamp: Stamp,
        memory: &Arc<Memory>,
        read_started: SystemTime,
    ) {
        let mut files = self.files.write();
        if stamp.is_settled(read_started) {
            files.insert(path.to_path_buf(), (stamp, Arc::clone(memory)));
        } else {
            files.remove(path);
        }
    }

    /// Forgets `path` (after this process wrote or removed it).
    pub(crate) fn forget_file(&self, path: &Path) {
        self.files.write().remove(path);
    }

    /// The cached sorted entry names of `dir` if its stamp is still `stamp`.
    pub(crate) fn dir(&self, dir: &Path, stamp: Stamp) -> Option<Arc<Vec<String>>> {
        let dirs = self.dirs.read();
        let (cached, names) = dirs.get(dir)?;
        (*cached == stamp).then(|| Arc::clone(names))
    }

    /// Remembers the entry names of `dir`, under the same rule as [`StoreCache::put_file`].
    pub(crate) fn put_dir(
        &self,
        dir: &Path,
        stamp: Stamp,
        names: &Arc<Vec<String>>,
        read_started: SystemTime,
    ) {
        let mut dirs = self.dirs.write();
        if stamp.is_settled(read_started) {
            dirs.insert(dir.to_path_buf(), (stamp, Arc::clone(names)));
        } else {
            dirs.remove(dir);
        }
    }
}
