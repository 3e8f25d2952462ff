//! The index journal: records of memories whose index entries may lag the store.
//!
//! A writer records the keys it is about to change (durably) before touching the store, and
//! clears the record once every index has caught up. Records left by a crash are replayed on
//! the next open or search by re-reading those memories from the store, which is idempotent:
//! whatever the crash interrupted, the indexes end up matching the store.
//!
//! A key is a [`MemoryRef`]: `collection/id`, or a bare id when the writer could not know the
//! collection beforehand (restoring or deleting by id); replay resolves those.
//!
//! A record is one file in the journal directory, in one of two forms:
//! - a single key is the file's name (`collection@id+<writer>`, or `@id+<writer>` for a bare
//!   id; empty file): durable with one directory sync, so a single write pays nothing more
//!   than that;
//! - several keys are the lines of one batch file (`batch-<pid>-<time>-<n>`, ending with a
//!   [`COMPLETE`] line), synced before its directory: a batch of thousands creates and removes
//!   one file, not thousands (creating and unlinking a file per memory was the largest single
//!   cost of batched ingest, mostly in ext4's inode allocator).
//!
//! A batch file without its last line was cut short by a crash before it was synced, so
//! before the store was touched: it is dropped.
//!
//! Every record's name is unique to its writer (`<writer>` is the process id, the time and a
//! counter), so a writer never takes over, and then clears, a record a dead writer left for
//! the same key: that one stays until a replay.

use std::fs::{self, File};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::store::fsutil::{create_private_dir_all, sync_dir};
use crate::{Error, MemoryRef, Result};

/// Separates collection and id in a single-key record's name (`@` is in neither grammar).
const SEPARATOR: char = '@';
/// Separates the key from the writer's mark in a single-key record's name (`+` is in neither
/// grammar either).
const WRITER: char = '+';
/// Prefix of batch records.
const BATCH_PREFIX: &str = "batch-";
/// The last line of a complete batch record.
const COMPLETE: &str = "# complete";

/// Records made by this process so far, for unique names.
static RECORDS: AtomicU64 = AtomicU64::new(0);

/// The journal directory of one index set.
#[derive(Debug)]
pub(crate) struct Journal {
    dir: PathBuf,
}

/// One writer's record, from [`Journal::begin`] until [`Journal::end`].
#[derive(Debug)]
#[must_use = "end the entry once the indexes caught up"]
pub(crate) struct Entry {
    /// The record file; `None` when there were no keys to record.
    path: Option<PathBuf>,
}

/// Every record in the journal: the keys they name and the files to clear once replayed.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    /// The keys with pending index work, sorted, without duplicates.
    pub(crate) keys: Vec<MemoryRef>,
    files: Vec<PathBuf>,
}

impl Pending {
    /// Whether there is nothing to replay or clear.
    pub(crate) fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

impl Journal {
    /// The journal in `dir` (created 0700 if missing).
    pub(crate) fn open(dir: &Path) -> Result<Self> {
        create_private_dir_all(dir)?;
        Ok(Self { dir: dir.to_path_buf() })
    }

    /// Durably records that the index entries of `keys` are about to change.
    pub(crate) fn begin(&self, keys: &[MemoryRef]) -> Result<Entry> {
        let path = match keys {
            [] => return Ok(Entry { path: None }),
            [key] => {
                let path = self.dir.join(format!("{}{WRITER}{}", record_name(key), writer_mark()));
                File::create_new(&path).map_err(|e| self.write_failed(&path, e))?;
                path
            }
            _ => {
                let path = self.dir.join(format!("{BATCH_PREFIX}{}", writer_mark()));
                let mut text = String::new();
                for key in keys {
                    text.push_str(&key.to_string());
                    text.push('\n');
                }
                text.push_str(COMPLETE);
                text.push('\n');
                File::create_new(&path)
                    .and_then(|mut file| {
                        file.write_all(text.as_bytes())?;
                        file.sync_data()
                    })
                    .map_err(|e| self.write_failed(&path, e))?;
                path
            }
        };
        sync_dir(&self.dir)?;
        Ok(Entry { path: Some(path) })
    }

    /// Clears `entry`'s record (already gone, replayed by another process, is fine).
    pub(crate) fn end(&self, entry: Entry) -> Result<()> {
        entry.path.map_or(Ok(()), |path| remove(&path))
    }

    /// Every record in the journal. A batch record cut short (by a crash before the store
    /// was written) names no keys but is listed for clearing.
    pub(crate) fn pending(&self) -> Result<Pending> {
        let listing = |e| Error::io(format!("reading index journal {}", self.dir.display()), e);
        let mut pending = Pending::default();
        for entry in fs::read_dir(&self.dir).map_err(listing)? {
            let entry = entry.map_err(listing)?;
            let Ok(name) = entry.file_name().into_string() else { continue };
            if name.starts_with(BATCH_PREFIX) {
                pending.keys.extend(batch_keys(&entry.path())?);
            } else if let Some(key) = key_of_record(&name) {
                pending.keys.push(key);
            } else {
                // Not a record memcore wrote: leave it be.
                continue;
            }
            pending.files.push(entry.path());
        }
        pending.keys.sort();
        pending.keys.dedup();
        Ok(pending)
    }

    /// Clears the records of `pending`, once replayed.
    pub(crate) fn clear(&self, pending: Pending) -> Result<()> {
        pending.files.iter().try_for_each(|path| remove(path))
    }

    fn write_failed(&self, path: &Path, e: std::io::Error) -> Error {
        Error::io(format!("writing index journal {}", path.display()), e)
    }
}

/// A mark unique to this record among live processes (the process id) and against a dead
/// process's leftover record under a reused pid (the time), for record names.
fn writer_mark() -> String {
    let n = RECORDS.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{}-{nanos}-{n}", std::process::id())
}

/// The file name of a single-key record, before the writer's mark: `collection@id`, or `@id`
/// for a bare id.
fn record_name(key: &MemoryRef) -> String {
    match key.collection() {
        Some(collection) => format!("{collection}{SEPARATOR}{}", key.id()),
        None => format!("{SEPARATOR}{}", key.id()),
    }
}

/// The key a single-key record's file name names, if it is one.
fn key_of_record(name: &str) -> Option<MemoryRef> {
    // Records of earlier versions have no writer's mark.
    let name = name.rsplit_once(WRITER).map_or(name, |(key, _)| key);
    let (collection, id) = name.split_once(SEPARATOR)?;
    let text = if collection.is_empty() { id.to_owned() } else { format!("{collection}/{id}") };
    text.parse().ok()
}

/// The keys of a batch record; none when it was cut short (or vanished: replayed meanwhile).
fn batch_keys(path: &Path) -> Result<Vec<MemoryRef>> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::io(format!("reading index journal {}", path.display()), e)),
    };
    let mut lines: Vec<&str> = text.lines().collect();
    if lines.pop() != Some(COMPLETE) {
        return Ok(Vec::new());
    }
    // A line that is no key cannot have been written by memcore: it is skipped.
    Ok(lines.into_iter().filter_map(|line| line.parse().ok()).collect())
}

/// Removes a record file; one already gone is fine.
fn remove(path: &Path) -> Result<()> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io(format!("clearing index journal {}", path.display()), e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(texts: &[&str]) -> Vec<MemoryRef> {
        texts.iter().map(|t| t.parse().unwrap()).collect()
    }

    fn journal() -> (tempfile::TempDir, Journal) {
        let dir = tempfile::tempdir().unwrap();
        let journal = Journal::open(&dir.path().join("journal")).unwrap();
        (dir, journal)
    }

    #[test]
    fn single_and_batch_records_round_trip() {
        let (_dir, journal) = journal();
        let single = journal.begin(&keys(&["memory/a.b"])).unwrap();
        let bare = journal.begin(&keys(&["lonely"])).unwrap();
        let batch = journal.begin(&keys(&["notes/x:y:0", "memory/a.b"])).unwrap();
        let none = journal.begin(&[]).unwrap();
        assert_eq!(journal.pending().unwrap().keys, keys(&["lonely", "memory/a.b", "notes/x:y:0"]));
        journal.end(bare).unwrap();
        journal.end(single).unwrap();
        journal.end(none).unwrap();
        assert_eq!(journal.pending().unwrap().keys, keys(&["memory/a.b", "notes/x:y:0"]));
        journal.end(batch).unwrap();
        assert!(journal.pending().unwrap().is_empty());
    }

    #[test]
    fn a_writer_never_takes_over_a_dead_writers_record() {
        let (dir, journal) = journal();
        // A dead writer's record for the key, from an earlier version (no writer's mark).
        fs::write(dir.path().join("journal/memory@x"), b"").unwrap();
        let mine = journal.begin(&keys(&["memory/x"])).unwrap();
        journal.end(mine).unwrap();
        let pending = journal.pending().unwrap();
        assert_eq!(pending.keys, keys(&["memory/x"]), "the dead writer's record stays");
        journal.clear(pending).unwrap();
        assert!(journal.pending().unwrap().is_empty());
    }

    #[test]
    fn clear_removes_what_was_replayed() {
        let (_dir, journal) = journal();
        let _left = journal.begin(&keys(&["a/1", "a/2"])).unwrap();
        let pending = journal.pending().unwrap();
        journal.clear(pending).unwrap();
        assert!(journal.pending().unwrap().is_empty());
    }

    #[test]
    fn a_batch_cut_short_names_no_keys_and_is_cleared() {
        let (dir, journal) = journal();
        fs::write(dir.path().join("journal/batch-1-0"), "a/1\na/2\n").unwrap();
        let pending = journal.pending().unwrap();
        assert!(pending.keys.is_empty() && !pending.is_empty());
        journal.clear(pending).unwrap();
        assert_eq!(fs::read_dir(dir.path().join("journal")).unwrap().count(), 0);
    }
}
