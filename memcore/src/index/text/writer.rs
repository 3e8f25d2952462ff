//! Writing the full-text index from several processes: one writer session at a time
//! ([`TextBatch`]), opened on a fresh `Index` with backoff while another process holds
//! tantivy's writer lock, and the file locks that keep creating and wiping an index safe.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use parking_lot::MutexGuard;
use tantivy::directory::error::LockError;
use tantivy::indexer::{IndexWriterOptions, LogMergePolicy};
use tantivy::{Index, IndexWriter, Searcher, TantivyError, Term};

use super::TextIndex;
use super::errors::{damaged, failed, guarded};
use super::schema::{to_document, tokenizers};
use crate::index::IndexDoc;
use crate::index::unsynced_dir::UnsyncedDirectory;
use crate::{Error, MemoryRef, Result};

/// How long [`TextIndex::apply`] waits for another process's writer before giving up.
pub(super) const LOCK_WAIT: Duration = Duration::from_secs(30);

/// A file in the index directory, locked while an index is created or wiped, so that two
/// processes opening a new index at once do not both write an empty one.
pub(super) const INIT_LOCK: &str = ".memcore-init.lock";

/// tantivy's own lock files: never deleted when wiping (another process may hold them).
pub(super) const TANTIVY_LOCKS: [&str; 2] = [".tantivy-writer.lock", ".tantivy-meta.lock"];

impl TextIndex {
    /// Opens a writer on a fresh `Index`, retrying with backoff while another process holds
    /// the writer lock, for [`LOCK_WAIT`] at most.
    pub(super) fn writer(&self) -> Result<IndexWriter> {
        let options = IndexWriterOptions::builder()
            .num_worker_threads(1)
            .num_merge_threads(1)
            // The memory budget is left at its default, tantivy's minimum (15 MB per thread,
            // not exported); the arena grows as needed, so small batches use far less.
            .build();
        let deadline = Instant::now() + LOCK_WAIT;
        let mut pause = Duration::from_millis(5);
        loop {
            let directory =
                UnsyncedDirectory::open(&self.dir).map_err(|e| damaged(&self.dir, e))?;
            let mut index = Index::open(directory).map_err(|e| damaged(&self.dir, e))?;
            if index.schema() != self.index.schema() {
                return Err(damaged(
                    &self.dir,
                    TantivyError::SchemaError("the index on disk has another schema".into()),
                ));
            }
            index.set_tokenizers(tokenizers());
            match index.writer_with_options(options.clone()) {
                Ok(writer) => {
                    writer.set_merge_policy(Box::new(merge_policy()));
                    return Ok(writer);
                }
                Err(TantivyError::LockFailure(LockError::LockBusy, _))
                    if Instant::now() < deadline =>
                {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(Duration::from_millis(200));
                }
                Err(e @ TantivyError::LockFailure(LockError::LockBusy, _)) => {
                    return Err(Error::index(
                        format!(
                            "the full-text index in {} is being written by another process; \
                             gave up after {} s",
                            self.dir.display(),
                            LOCK_WAIT.as_secs()
                        ),
                        Some(Box::new(e)),
                        "retry in a moment (the error says whether the store took the \
                         change); `repair` brings the index level with the store",
                    ));
                }
                Err(e) => return Err(failed("opening a full-text index writer", e)),
            }
        }
    }
}

/// Segments smaller than this many documents are merged as if they had this many.
///
/// tantivy's default (10,000) puts every smaller segment in one level, so in a store where
/// memories arrive one at a time each merge of the smallest level rewrote everything that
/// level had gathered, up to 10,000 documents, every seventh or eighth put: the slow tenth of
/// single puts on a 100k store (p90 24-25 ms, p99 26-28 ms). With 100 the small levels are
/// merged with their peers only (p90 18-20 ms, p99 19-23 ms; BENCHMARKS.md, issue 22).
const MIN_LAYER_DOCS: u32 = 100;

/// tantivy's log merge policy with the smallest level at [`MIN_LAYER_DOCS`].
fn merge_policy() -> LogMergePolicy {
    let mut policy = LogMergePolicy::default();
    policy.set_min_layer_size(MIN_LAYER_DOCS);
    policy
}

/// One writer session on a [`TextIndex`]: a freshly opened index (so files written by other
/// processes are known to its garbage collection) and one writer (one indexing thread, the
/// smallest memory budget). [`TextBatch::commit`] publishes its changes in one commit;
/// dropping it discards them.
pub(crate) struct TextBatch<'a> {
    pub(super) index: &'a TextIndex,
    pub(super) _writing: MutexGuard<'a, ()>,
    pub(super) writer: IndexWriter,
    /// The committed documents when the batch began, if the reader could be brought level
    /// with them: an upsert of a key they lack (and this batch has not added) needs no
    /// delete. Without one every upsert deletes.
    pub(super) committed: Option<Searcher>,
    /// Keys this batch has added.
    pub(super) added: HashSet<String>,
}

impl TextBatch<'_> {
    /// Rewrites the segments holding deleted documents without them (committing the merge),
    /// so that after [`TextIndex::collect_garbage`] no file keeps a deleted memory's words.
    pub(crate) fn merge_deleted(&mut self) -> Result<()> {
        let writer = &mut self.writer;
        guarded(&self.index.dir, || {
            let with_deletes: Vec<_> = writer
                .index()
                .searchable_segment_metas()
                .map_err(|e| failed("compacting the full-text index", e))?
                .into_iter()
                .filter(|meta| meta.num_deleted_docs() > 0)
                .map(|meta| meta.id())
                .collect();
            if !with_deletes.is_empty() {
                writer
                    .merge(&with_deletes)
                    .wait()
                    .map_err(|e| failed("compacting the full-text index", e))?;
            }
            Ok(())
        })
    }

    /// Adds changes: each upsert replaces the document with the same key (or adds it), each
    /// delete removes the document with that key (absent keys are ignored). Deletes go first,
    /// so a key in both lists ends up upserted; of two upserts with one key the last wins,
    /// also across calls.
    ///
    /// An upsert of a key the index does not hold adds without deleting: a delete makes the
    /// commit open every segment to look for the key (about 1.5 ms of a single put at 100k
    /// memories, more as segments accumulate).
    pub(crate) fn apply(&mut self, upserts: &[IndexDoc], deletes: &[MemoryRef]) -> Result<()> {
        let Self { index, writer, committed, added, .. } = self;
        let fields = &index.fields;
        guarded(&index.dir, || {
            for key in deletes {
                writer.delete_term(Term::from_field_text(fields.key, &key.to_string()));
            }
            for doc in upserts {
                let key = doc.meta.key.to_string();
                let term = Term::from_field_text(fields.key, &key);
                let held = committed.as_ref().is_none_or(|committed| {
                    // (A failed lookup counts as held: the delete is always safe.)
                    committed.doc_freq(&term).is_ok_and(|n| n > 0)
                });
                if held || added.contains(&key) {
                    writer.delete_term(term);
                }
                writer
                    .add_document(to_document(doc, fields))
                    .map_err(|e| failed("updating the full-text index", e))?;
                added.insert(key);
            }
            Ok(())
        })
    }

    /// Commits, waits for merges and reloads the reader: a search right after sees the
    /// changes. If the commit fails, nothing is committed.
    pub(crate) fn commit(mut self) -> Result<()> {
        let index = self.index;
        guarded(&index.dir, || {
            self.writer.commit().map_err(|e| failed("committing the full-text index", e))?;
            self.writer
                .wait_merging_threads()
                .map_err(|e| failed("merging full-text index segments", e))?;
            // tantivy creates its segment files world-readable; they hold memory text.
            crate::store::fsutil::restrict_files(&index.dir)?;
            index.reader.reload().map_err(|e| failed("reloading the full-text index", e))
        })
    }
}

/// Opens (creating) a lock file in `dir` for writing.
fn lock_file(dir: &Path, name: &str) -> Result<File> {
    let path = dir.join(name);
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(&path)
        .map_err(|e| Error::io(format!("opening lock file {}", path.display()), e))
}

/// An exclusive lock on [`INIT_LOCK`], held while an index is created or wiped; released on
/// drop (closing the file).
pub(super) struct InitLock {
    /// The locked file.
    _file: File,
}

impl InitLock {
    /// Waits for and takes the lock.
    pub(super) fn acquire(dir: &Path) -> Result<Self> {
        let file = lock_file(dir, INIT_LOCK)?;
        file.lock()
            .map_err(|e| Error::io(format!("locking {}", dir.join(INIT_LOCK).display()), e))?;
        Ok(Self { _file: file })
    }
}

/// tantivy's writer lock, taken directly on its lock file (both use `flock`), so that wiping
/// the directory waits for a writer in another process. Released on drop.
pub(super) struct WriterFileLock {
    /// The locked file.
    _file: File,
}

impl WriterFileLock {
    /// Takes the lock, waiting [`LOCK_WAIT`] at most.
    pub(super) fn acquire(dir: &Path) -> Result<Self> {
        let file = lock_file(dir, TANTIVY_LOCKS[0])?;
        let deadline = Instant::now() + LOCK_WAIT;
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(Self { _file: file }),
                Err(std::fs::TryLockError::WouldBlock) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(Error::conflict(
                        format!(
                            "the full-text index in {} is being written by another process",
                            dir.display()
                        ),
                        "retry when the other memcore process has finished writing",
                    ));
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(Error::io(format!("locking the index in {}", dir.display()), e));
                }
            }
        }
    }
}
