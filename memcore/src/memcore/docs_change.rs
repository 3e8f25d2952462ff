//! How documents change, safely: every change is made under the documents lock
//! (`<private>/documents.lock`, shared by the processes of a machine) and written down first
//! in `<private>/documents.pending.json`. A change that stopped part-way (a crash, a full
//! disk, a failing embedder) is finished by the next change or the next open, which keep, of
//! each document named, the generation its record names (none without a record), remove every
//! other chunk of it, remove for good what the change listed, and compact the indexes when
//! the change was a purge.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::ControlFlow;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::Memcore;
use crate::docs::{
    CHUNKS_COLLECTION, ChunkOptions, DOCUMENT_KEY, DocumentRecord, IngestOutcome, IngestedDocument,
    Roots, Source, chunk, chunk_memory, chunk_ref, document_id, generation, place_of, read_source,
    record_memory, record_ref, title_of,
};
use crate::store::lock::StoreLock;
use crate::{Error, MemoryRef, NewMemory, PutMode, Result, Status};

/// The lock serialising document changes.
const LOCK_FILE: &str = "documents.lock";
/// The change under way, if any.
const PENDING_FILE: &str = "documents.pending.json";
/// Bytes of document text planned and written at a time: bounds the memory an ingest of
/// many files holds.
const GROUP_BYTES: usize = 16 * 1024 * 1024;
/// Chunks written per call of the write protocol.
const CHUNK_BATCH: usize = 1024;

/// A change of documents under way, written down before anything of it is written.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Pending {
    /// Documents whose chunks are being replaced (or purged): at the end, only the chunks
    /// their records name are left.
    #[serde(default)]
    pub documents: Vec<String>,
    /// Memories to remove for good: old chunks (unless their record still names them, as
    /// after a failed write of the new ones), everything of a purged document.
    #[serde(default)]
    pub remove: Vec<MemoryRef>,
    /// A purge: everything in `remove` goes whatever a record names, and the indexes are
    /// compacted at the end, so that no index file keeps the text of what was removed.
    #[serde(default)]
    pub compact: bool,
}

/// What an ingest found one file to need.
enum Plan {
    /// Nothing to write.
    Unchanged(DocumentRecord),
    /// New chunks and a record to write, and the old chunks to remove.
    Change { record: DocumentRecord, chunks: Vec<NewMemory>, old: Option<Box<DocumentRecord>> },
}

impl Memcore {
    /// Runs `change` under the documents lock, after finishing a change an earlier process
    /// left under way.
    pub(super) fn with_documents_lock<T>(&self, change: impl FnOnce() -> Result<T>) -> Result<T> {
        let lock = StoreLock::new(&self.private_path(LOCK_FILE), self.lock_timeout());
        let _held = lock.acquire()?;
        self.finish_pending()?;
        change()
    }

    /// Finishes document changes an earlier process left under way (at open); a change
    /// another process is making now is left to it, and one that cannot be finished now (the
    /// disk is full) stays written down for the next time.
    pub(super) fn finish_document_changes(&self) {
        if !self.private_path(PENDING_FILE).exists() {
            return;
        }
        let lock = StoreLock::new(&self.private_path(LOCK_FILE), self.lock_timeout());
        if let Ok(Some(_held)) = lock.try_acquire() {
            let _ = self.finish_pending();
        }
    }

    /// Finishes the change written down, if any (under the lock).
    fn finish_pending(&self) -> Result<()> {
        let path = self.private_path(PENDING_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(Error::io(format!("reading {}", path.display()), e)),
        };
        // A record cut short was never acted on: nothing of its change was written.
        if let Ok(pending) = serde_json::from_slice::<Pending>(&bytes) {
            self.finish(&pending, true)?;
        }
        crate::store::fsutil::remove_file_if_present(&path, "pending document change")
    }

    /// Writes `pending` down, runs `change`, then finishes `pending`; returns what `change`
    /// returned and how many kept copies (trash, old versions) went. When `change` fails,
    /// finishes what it can at once (the rest is finished by the next change or open) and
    /// returns the change's error.
    pub(super) fn change_documents<T>(
        &self,
        pending: &Pending,
        change: impl FnOnce() -> Result<T>,
    ) -> Result<(T, usize)> {
        let path = self.private_path(PENDING_FILE);
        self.write_pending(pending)?;
        match change() {
            Ok(value) => {
                let copies = self.finish(pending, false)?;
                crate::store::fsutil::remove_file_if_present(&path, "pending document change")?;
                Ok((value, copies))
            }
            Err(e) => {
                if self.finish(pending, true).is_ok() {
                    let _ = crate::store::fsutil::remove_file_if_present(&path, "pending change");
                }
                Err(e)
            }
        }
    }

    /// Writes `pending` down, durably.
    fn write_pending(&self, pending: &Pending) -> Result<()> {
        let bytes = serde_json::to_vec(pending).map_err(|e| {
            Error::validation(format!("a pending change could not be written: {e}"), "report this")
        })?;
        crate::store::fsutil::write_atomic(&self.private_path(PENDING_FILE), &bytes)
    }

    /// Does what `pending` leaves to do (every step is idempotent); returns how many kept
    /// copies went. Of the documents it names, only the chunks their records name now stay:
    /// the listed removals their record names are kept (unless it is a purge), and with
    /// `sweep` every other chunk of them found in the store goes too (after a failure or a
    /// crash, which may have left a part of a generation).
    fn finish(&self, pending: &Pending, sweep: bool) -> Result<usize> {
        let mut keep: HashMap<String, Option<String>> = HashMap::new();
        let mut named: BTreeSet<MemoryRef> = BTreeSet::new();
        for id in &pending.documents {
            // A purge keeps nothing; a record that does not read (edited by hand) names none.
            let record = match pending.compact {
                true => None,
                false => self.document_record(id).ok().flatten(),
            };
            named.extend(record.iter().flat_map(|r| r.chunks.iter().cloned()));
            keep.insert(id.clone(), record.map(|r| r.generation));
        }
        let mut remove: BTreeSet<MemoryRef> = pending.remove.iter().cloned().collect();
        if !pending.compact {
            remove.retain(|reference| !named.contains(reference));
        }
        if sweep && !keep.is_empty() {
            self.scan_collection(CHUNKS_COLLECTION, &mut |memory| {
                if let Some(place) = place_of(memory)
                    && let Some(kept) = keep.get(&place.document)
                    && kept.as_ref() != Some(&place.generation)
                {
                    remove.insert(memory.reference());
                }
                ControlFlow::Continue(())
            })?;
        }
        let remove: Vec<MemoryRef> = remove.into_iter().collect();
        if remove.len() > pending.remove.len() {
            // What the sweep found is written down before it goes, so that its trash copies
            // are found again if this stops between the delete and the expunge.
            let found = Pending { remove: remove.clone(), ..pending.clone() };
            self.write_pending(&found)?;
        }
        let copies = self.remove_for_good(&remove)?;
        if pending.compact {
            self.indexed.compact_removed()?;
        }
        Ok(copies)
    }

    /// Deletes those of `refs` that are live through the write protocol (one batch), then
    /// removes the copies the store keeps of all of them (trash, old versions) where it can;
    /// returns how many copies went.
    pub(super) fn remove_for_good(&self, refs: &[MemoryRef]) -> Result<usize> {
        if refs.is_empty() {
            return Ok(0);
        }
        let live: Vec<MemoryRef> = self
            .indexed
            .store()
            .get_many(refs)?
            .into_iter()
            .zip(refs)
            // A file that no longer parses is there too, and goes with the rest.
            .filter(|(found, _)| matches!(found, Ok(_) | Err(Error::Corrupted { .. })))
            .map(|(_, reference)| reference.clone())
            .collect();
        self.indexed.delete_many(&live, self.now())?;
        match self.indexed.store().expunge_many(refs) {
            Ok(copies) => Ok(copies),
            // Git notes and PostgreSQL keep no copies memcore can remove (see ARCHITECTURE.md).
            Err(Error::Unsupported { .. }) => Ok(0),
            Err(e) => Err(e),
        }
    }

    /// Checks every file, then ingests them (under the documents lock) in groups of about
    /// [`GROUP_BYTES`] of text, each with the chunk options and tags `settings` gives for it.
    /// Each file is read once to check it and once to ingest it, so that the text of many
    /// files is never held at once.
    pub(super) fn ingest_locked(
        &self,
        roots: &Roots,
        paths: &[PathBuf],
        max_bytes: u64,
        settings: &dyn Fn(&Source) -> (ChunkOptions, Vec<String>),
    ) -> Result<Vec<IngestedDocument>> {
        let mut ids = BTreeMap::new();
        for path in paths {
            let source = read_source(roots, path, max_bytes)?;
            check_source(&source, settings, &mut ids)?;
            if let Some(old) = self.document_record(&document_id(&source.relative))? {
                check_same_source(&old, &source)?;
            }
        }
        let mut seen = BTreeSet::new();
        let mut documents = Vec::new();
        let mut group = Vec::new();
        let mut group_bytes = 0;
        for path in paths {
            let source = read_source(roots, path, max_bytes)?;
            if !seen.insert(source.relative.clone()) {
                continue;
            }
            // The file may have changed since it was checked: the checks that need no store
            // read again (the plan checks the record it reads anyway).
            check_source(&source, settings, &mut BTreeMap::new())?;
            group_bytes += source.text.len();
            let (options, tags) = settings(&source);
            group.push(self.plan(source, options, tags)?);
            if group_bytes >= GROUP_BYTES {
                documents.extend(self.write_group(std::mem::take(&mut group))?);
                group_bytes = 0;
            }
        }
        documents.extend(self.write_group(group)?);
        Ok(documents)
    }

    /// What ingesting `source` needs: nothing when its record names the same generation and
    /// every chunk of it is there and active, else its chunks and record.
    fn plan(&self, source: Source, options: ChunkOptions, tags: Vec<String>) -> Result<Plan> {
        let id = document_id(&source.relative);
        let generation = generation(&source.sha256, source.format, options, &tags);
        let old = self.document_record(&id)?;
        if let Some(old) = &old {
            check_same_source(old, &source)?;
        }
        if let Some(old) = &old
            && old.generation == generation
            && self.chunks_intact(old)?
        {
            return Ok(Plan::Unchanged(old.clone()));
        }
        let chunks = chunk(&source.text, source.format, options)?;
        let refs = (0..chunks.len())
            .map(|position| chunk_ref(&id, &generation, position))
            .collect::<Result<Vec<_>>>()?;
        let record = DocumentRecord {
            id,
            title: title_of(&source),
            source: source.relative.clone(),
            sha256: source.sha256.clone(),
            bytes: source.text.len() as u64,
            format: source.format,
            chunk_size: options.size,
            overlap: options.overlap,
            tags,
            generation,
            chunks: refs,
            ingested_at: self.now(),
        };
        let chunks = chunks
            .into_iter()
            .enumerate()
            .map(|(position, chunk)| chunk_memory(&record, chunk, position))
            .collect();
        Ok(Plan::Change { record, chunks, old: old.map(Box::new) })
    }

    /// Whether every chunk `record` names is there and active.
    fn chunks_intact(&self, record: &DocumentRecord) -> Result<bool> {
        let found = self.indexed.store().get_many(&record.chunks)?;
        Ok(found.iter().all(|m| m.as_ref().is_ok_and(|m| m.status == Status::Active)))
    }

    /// Writes a group of planned documents: every new chunk, then every record, then the old
    /// chunks go; written down first, so that a failure part-way is finished later.
    fn write_group(&self, group: Vec<Plan>) -> Result<Vec<IngestedDocument>> {
        let mut pending = Pending::default();
        for plan in &group {
            if let Plan::Change { record, old, .. } = plan {
                pending.documents.push(record.id.clone());
                if let Some(old) = old.as_ref().filter(|old| old.generation != record.generation) {
                    pending.remove.extend(old.chunks.iter().cloned());
                }
            }
        }
        let mut chunks = Vec::new();
        let mut records = Vec::new();
        let mut documents = Vec::new();
        for plan in group {
            match plan {
                Plan::Unchanged(record) => documents
                    .push(IngestedDocument { outcome: IngestOutcome::Unchanged, document: record }),
                Plan::Change { record, chunks: new, old } => {
                    chunks.extend(new);
                    records.push(record_memory(&record));
                    let outcome =
                        if old.is_some() { IngestOutcome::Replaced } else { IngestOutcome::Added };
                    documents.push(IngestedDocument { outcome, document: record });
                }
            }
        }
        if records.is_empty() {
            return Ok(documents);
        }
        self.change_documents(&pending, || {
            let mut chunks = chunks.into_iter().peekable();
            while chunks.peek().is_some() {
                let batch: Vec<NewMemory> = chunks.by_ref().take(CHUNK_BATCH).collect();
                self.put_many_with(batch, PutMode::Upsert)?;
            }
            self.put_many_with(records, PutMode::Upsert)
        })?;
        Ok(documents)
    }

    /// Everything of document `id` there is: its record, its chunks of any generation, its
    /// ratings.
    pub(super) fn everything_of(&self, id: &str) -> Result<Vec<MemoryRef>> {
        let mut found = vec![record_ref(id)?];
        // The chunks its record names, deleted by hand or not (their copies go too).
        if let Ok(Some(record)) = self.document_record(id) {
            found.extend(record.chunks);
        }
        for collection in [CHUNKS_COLLECTION, crate::docs::FEEDBACK_COLLECTION] {
            self.scan_collection(collection, &mut |memory| {
                if memory.metadata.get(DOCUMENT_KEY).and_then(|v| v.as_str()) == Some(id) {
                    found.push(memory.reference());
                }
                ControlFlow::Continue(())
            })?;
        }
        let mut seen = BTreeSet::new();
        found.retain(|reference| seen.insert(reference.clone()));
        Ok(found)
    }

    fn private_path(&self, name: &str) -> PathBuf {
        self.indexed.store().private_dir().join(name)
    }
}

/// A conflict when the document `old` is another file's than `source` (`A.md` and `a.md`
/// have one id): never a silent replacement.
fn check_same_source(old: &DocumentRecord, source: &Source) -> Result<()> {
    if old.source == source.relative {
        return Ok(());
    }
    Err(Error::conflict(
        format!("document id {} is {}'s already", old.id, old.source),
        format!("rename {}, or purge {} first", source.relative, old.id),
    ))
}

/// Refuses a file that would not ingest: options out of range, no text, an id another
/// path of the request has.
fn check_source(
    source: &Source,
    settings: &dyn Fn(&Source) -> (ChunkOptions, Vec<String>),
    ids: &mut BTreeMap<String, String>,
) -> Result<()> {
    settings(source).0.checked()?;
    if source.text.trim().is_empty() {
        return Err(Error::validation(
            format!("document {} has no text", source.relative),
            "ingest files with text in them",
        ));
    }
    let id = document_id(&source.relative);
    if let Some(other) = ids.insert(id.clone(), source.relative.clone())
        && other != source.relative
    {
        return Err(Error::validation(
            format!("{other} and {} would be the same document", source.relative),
            "rename one of them (document ids ignore case and punctuation)",
        ));
    }
    Ok(())
}
