//! Documents on the handle: ingest, list, search, purge, rebuild and feedback (seed 003's
//! document knowledge workflow), over the pure part in [`crate::docs`].
//!
//! Every change of a document is made under the store's documents lock and announced first
//! in a pending file (`<private>/documents/<id>.json`): a change that died part-way is
//! finished by the next change of that document or the next open, which keep the generation
//! the document's record names and remove every other chunk of it.

use std::collections::{BTreeMap, HashMap};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use super::Memcore;
use crate::config::PROJECT_CONFIG_NAMES;
use crate::docs::{
    CHUNKS_COLLECTION, ChunkOptions, DEFAULT_MAX_DOCUMENT_BYTES, DOCUMENT_KEY,
    DOCUMENTS_COLLECTION, DocsFeedbackRequest, DocsIngestRequest, DocsListRequest,
    DocsPurgeRequest, DocsRebuildRequest, DocsSearchRequest, DocumentHit, DocumentHits,
    DocumentListing, DocumentPurged, DocumentRecord, FEEDBACK_COLLECTION, FEEDBACK_KIND,
    FeedbackRecord, IngestOutcome, IngestReport, IngestedDocument, Source, canonical_root, chunk,
    chunk_memory, chunk_ref, document_id, generation, place_of, read_source, record_memory,
    record_of, record_ref, title_of,
};
use crate::store::lock::StoreLock;
use crate::{Collection, Error, Filter, Memory, MemoryRef, NewMemory, PutMode, Query, Result};

/// Chunks written per batch of the write protocol.
const CHUNK_BATCH: usize = 256;
/// The directory of pending document changes, in the store's private directory.
const PENDING_DIR: &str = "documents";
/// The lock serialising document changes across processes.
const LOCK_FILE: &str = "documents.lock";
/// How far the feedback prior moves a score, either way.
const FEEDBACK_WEIGHT: f64 = 0.1;

impl Memcore {
    /// Ingests documents: reads each file (markdown or UTF-8 text, inside the project root,
    /// not through a symbolic link, at most `max_bytes`), splits it along its structure
    /// ([`crate::docs::ChunkOptions`]) and stores each chunk as a memory of the `docs`
    /// collection that knows its document, heading path and position, indexed like any
    /// memory; then the document's record (`documents/<id>`).
    ///
    /// Every file is checked before anything is written, so one bad file fails the ingest
    /// with nothing written. An unchanged document (same bytes, chunking and tags) writes
    /// nothing; a changed one gets a new generation of chunks, and its old chunks are removed
    /// (with their trash copies and kept versions) once its record names the new ones.
    ///
    /// ```
    /// use memcore::Memcore;
    /// use memcore::docs::{DocsIngestRequest, DocsSearchRequest, IngestOutcome};
    ///
    /// let project = tempfile::tempdir()?;
    /// std::fs::write(
    ///     project.path().join("runbook.md"),
    ///     "# Runbook\n\n## Restart\n\nRestart the consumers one at a time.\n",
    /// )?;
    /// let memcore = Memcore::open(project.path().join(".memcore"))?;
    ///
    /// let report = memcore.docs_ingest(&DocsIngestRequest::new(["runbook.md"]))?;
    /// assert_eq!(report.documents[0].outcome, IngestOutcome::Added);
    /// let again = memcore.docs_ingest(&DocsIngestRequest::new(["runbook.md"]))?;
    /// assert_eq!(again.documents[0].outcome, IngestOutcome::Unchanged);
    ///
    /// let hits = memcore.docs_search(&DocsSearchRequest::new("restart consumers"))?;
    /// assert_eq!(hits.hits[0].document, "runbook.md");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Validation`] for no paths, a file outside the root, through a link, too
    /// large, binary, not UTF-8 or without text, two paths of one document, or chunk options
    /// out of range; [`Error::NotFound`] for a missing file; [`Error::Conflict`] when the
    /// document id is another file's (`A.md` and `a.md`).
    pub fn docs_ingest(&self, request: &DocsIngestRequest) -> Result<IngestReport> {
        if request.paths.is_empty() {
            return Err(Error::validation(
                "an ingest needs at least one file",
                "give `paths`, the markdown or text files to ingest",
            ));
        }
        let root = self.documents_root(request.root.as_deref())?;
        let options =
            ChunkOptions::default().with(request.chunk_size, request.overlap).checked()?;
        let max_bytes = request.max_bytes.unwrap_or(DEFAULT_MAX_DOCUMENT_BYTES);
        let paths: Vec<PathBuf> = request.paths.iter().map(PathBuf::from).collect();
        let tags = sorted_tags(&request.tags);
        self.ingest_files(&root, &paths, max_bytes, |_| (options, tags.clone()))
    }

    /// Splits documents again from their files (every document when `documents` is empty):
    /// after an edit of the files, or with a new chunk size or overlap. Each keeps its tags;
    /// one whose file and chunking are unchanged writes nothing.
    ///
    /// # Errors
    ///
    /// As [`Memcore::docs_ingest`]; [`Error::NotFound`] for an unknown document or a file
    /// that is gone (purge the document then).
    pub fn docs_rebuild(&self, request: &DocsRebuildRequest) -> Result<IngestReport> {
        let root = self.documents_root(request.root.as_deref())?;
        let records = if request.documents.is_empty() {
            self.docs_list(&DocsListRequest::default())?.documents
        } else {
            let mut records = Vec::new();
            for id in &request.documents {
                records.push(self.document(id)?);
            }
            records
        };
        let by_source: HashMap<String, &DocumentRecord> =
            records.iter().map(|record| (record.source.clone(), record)).collect();
        let paths: Vec<PathBuf> =
            records.iter().map(|record| PathBuf::from(&record.source)).collect();
        self.ingest_files(&root, &paths, DEFAULT_MAX_DOCUMENT_BYTES, |source| {
            let record = by_source.get(&source.relative);
            let own = record.map_or_else(ChunkOptions::default, |r| ChunkOptions {
                size: r.chunk_size,
                overlap: r.overlap,
            });
            let options = own.with(request.chunk_size, request.overlap);
            (options, record.map(|r| r.tags.clone()).unwrap_or_default())
        })
    }

    /// The documents, sorted by id (only those with every tag in `request.tags`).
    pub fn docs_list(&self, request: &DocsListRequest) -> Result<DocumentListing> {
        let mut documents = Vec::new();
        let mut failed = None;
        self.scan_collection(DOCUMENTS_COLLECTION, &mut |memory| {
            if memory.kind.as_deref() != Some(crate::docs::DOCUMENT_KIND) {
                return ControlFlow::Continue(());
            }
            match record_of(memory) {
                Ok(record) if request.tags.iter().all(|t| record.tags.contains(t)) => {
                    documents.push(record);
                }
                Ok(_) => {}
                Err(e) => {
                    failed = Some(e);
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        })?;
        match failed {
            Some(e) => Err(e),
            None => Ok(DocumentListing { documents }),
        }
    }

    /// Searches the documents' chunks (hybrid by default, as [`Memcore::search`] ranks);
    /// each hit carries its document, heading path and position. Chunks an interrupted
    /// ingest left behind are never returned.
    pub fn docs_search(&self, request: &DocsSearchRequest) -> Result<DocumentHits> {
        let mut query = Query::new(request.text.clone()).mode(request.mode).limit(request.limit);
        query.collections = vec![CHUNKS_COLLECTION.to_owned()];
        query.tags_all.clone_from(&request.tags);
        if !request.documents.is_empty() {
            query.filters.push(Filter::new(DOCUMENT_KEY, request.documents.iter().cloned())?);
        }
        let results = self.search(&query)?;
        let refs: Vec<MemoryRef> =
            results.hits.iter().map(|hit| hit.memory.reference.clone()).collect();
        let memories = self.indexed.store().get_many(&refs)?;
        let mut records: HashMap<String, Option<DocumentRecord>> = HashMap::new();
        let mut hits = Vec::new();
        for (hit, memory) in results.hits.iter().zip(memories) {
            let Ok(memory) = memory else { continue };
            let Some(place) = place_of(&memory) else { continue };
            if !records.contains_key(&place.document) {
                let record = self.document_record(&place.document)?;
                records.insert(place.document.clone(), record);
            }
            let Some(Some(record)) = records.get(&place.document) else { continue };
            if record.generation != place.generation {
                continue;
            }
            hits.push(DocumentHit {
                document: record.id.clone(),
                title: record.title.clone(),
                source: record.source.clone(),
                heading_path: place.heading_path,
                position: place.position,
                chunks: record.chunks.len(),
                reference: hit.memory.reference.clone(),
                score: hit.score,
                text: memory.content.clone(),
            });
        }
        if request.feedback_prior {
            self.apply_feedback_prior(&mut hits)?;
        }
        Ok(DocumentHits { hits, mode: results.mode, warnings: results.warnings })
    }

    /// Removes a document for good: its record, every chunk of it, its feedback, their
    /// trash copies and kept versions, and their entries in every index (the full-text
    /// segments holding them are rewritten, the vector log compacted), so no file of the
    /// store keeps its text. A purge that died part-way is finished by running it again (or
    /// by the next open, for the chunks). Git history of a store in a work tree is not
    /// rewritten.
    ///
    /// # Errors
    ///
    /// [`Error::NotFound`] when nothing of the document is left.
    pub fn docs_purge(&self, request: &DocsPurgeRequest) -> Result<DocumentPurged> {
        let id = request.document.as_str();
        let record_ref = record_ref(id)?;
        let lock = self.documents_lock();
        let _held = lock.acquire()?;
        self.announce(id, None)?;
        let had_record = self.existing(&record_ref)?.is_some();
        let mut copies = 0;
        if had_record {
            copies += self.remove_for_good(std::slice::from_ref(&record_ref))?;
        }
        let chunks = self.document_memories(CHUNKS_COLLECTION, id, |_| true)?;
        let feedback = self.document_memories(FEEDBACK_COLLECTION, id, |_| true)?;
        if !had_record && chunks.is_empty() && feedback.is_empty() {
            self.settled(id)?;
            return Err(Error::not_found(
                format!("document {id}"),
                "list the documents there are with `docs_list` (`memcore docs list`)",
            ));
        }
        copies += self.remove_for_good(&chunks)?;
        copies += self.remove_for_good(&feedback)?;
        self.indexed.compact_removed()?;
        self.settled(id)?;
        Ok(DocumentPurged {
            document: id.to_owned(),
            chunks: chunks.len(),
            feedback: feedback.len(),
            copies,
        })
    }

    /// Records how useful a document (or one of its chunks) was, 1 to 5, as a new memory of
    /// the `doc-feedback` collection (ratings are never changed, only added).
    /// [`DocsSearchRequest::feedback_prior`] ranks by them.
    ///
    /// # Errors
    ///
    /// [`Error::NotFound`] for an unknown document; [`Error::Validation`] for a rating
    /// outside 1 to 5 or a chunk the document does not have.
    pub fn docs_feedback(&self, request: &DocsFeedbackRequest) -> Result<FeedbackRecord> {
        let record = self.document(&request.document)?;
        if !(1..=5).contains(&request.rating) {
            return Err(Error::validation(
                format!("rating {} is out of range", request.rating),
                "rate from 1 (not useful) to 5 (very useful)",
            ));
        }
        if let Some(chunk) = request.chunk.filter(|&c| c >= record.chunks.len()) {
            return Err(Error::validation(
                format!("document {} has no chunk {chunk}", record.id),
                format!("give a position from 0 to {}", record.chunks.len().saturating_sub(1)),
            ));
        }
        let now = self.now();
        let content = match &request.note {
            Some(note) if !note.trim().is_empty() => note.clone(),
            _ => format!("Rated {} of 5.", request.rating),
        };
        let base = format!("{}.{}", record.id, now.format("%Y%m%dt%H%M%S%.9f"));
        for attempt in 1..=100 {
            let id = if attempt == 1 { base.clone() } else { format!("{base}-{attempt}") };
            let mut memory = NewMemory::new(content.clone())
                .id(id)
                .collection(FEEDBACK_COLLECTION)
                .title(format!("Feedback on {}", record.title))
                .kind(FEEDBACK_KIND);
            memory.created_by.clone_from(&request.by);
            memory.metadata.insert(DOCUMENT_KEY.into(), record.id.clone().into());
            memory.metadata.insert("rating".into(), request.rating.into());
            if let Some(chunk) = request.chunk {
                memory.metadata.insert("chunk".into(), chunk.into());
            }
            match self.put_with(memory, PutMode::CreateOnly) {
                Ok(stored) => {
                    return Ok(FeedbackRecord {
                        reference: stored.reference(),
                        document: record.id,
                        chunk: request.chunk,
                        rating: request.rating,
                        note: request.note.clone(),
                        by: request.by.clone(),
                        at: stored.created_at,
                    });
                }
                Err(Error::Conflict { .. }) => continue,
                Err(e) => return Err(e),
            }
        }
        Err(Error::conflict(
            format!("feedback on {} could not be given a free id", record.id),
            "try again",
        ))
    }

    /// The record of document `id`, or a not-found error saying how to list them.
    pub fn document(&self, id: &str) -> Result<DocumentRecord> {
        self.document_record(id)?.ok_or_else(|| {
            Error::not_found(
                format!("document {id}"),
                "list the documents there are with `docs_list` (`memcore docs list`)",
            )
        })
    }

    /// Finishes document changes earlier processes left under way (at open); a change
    /// another process is making now is left to it.
    pub(super) fn finish_document_changes(&self) {
        let Ok(entries) = std::fs::read_dir(self.pending_dir()) else { return };
        let pending: Vec<String> = entries
            .flatten()
            .filter_map(|entry| {
                entry.file_name().to_str()?.strip_suffix(".json").map(str::to_owned)
            })
            .collect();
        if pending.is_empty() {
            return;
        }
        let lock = self.documents_lock();
        let Ok(Some(_held)) = lock.try_acquire() else { return };
        for id in pending {
            // What cannot be finished now (the disk is full) stays pending for the next time.
            let _ = self.settle(&id);
        }
    }

    /// Checks every file, then ingests them one at a time under the documents lock, each
    /// with the chunk options and tags `settings` gives for it.
    fn ingest_files(
        &self,
        root: &Path,
        paths: &[PathBuf],
        max_bytes: u64,
        settings: impl Fn(&Source) -> (ChunkOptions, Vec<String>),
    ) -> Result<IngestReport> {
        let mut ids = BTreeMap::new();
        for path in paths {
            let source = read_source(root, path, max_bytes)?;
            settings(&source).0.checked()?;
            if source.text.trim().is_empty() {
                return Err(Error::validation(
                    format!("document {} has no text", path.display()),
                    "ingest files with text in them",
                ));
            }
            if let Some(other) = ids.insert(document_id(&source.relative), source.relative.clone())
                && other != source.relative
            {
                return Err(Error::validation(
                    format!("{other} and {} would be the same document", source.relative),
                    "rename one of them (document ids ignore case and punctuation)",
                ));
            }
        }
        let lock = self.documents_lock();
        let _held = lock.acquire()?;
        let mut documents = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for path in paths {
            let source = read_source(root, path, max_bytes)?;
            if !seen.insert(source.relative.clone()) {
                continue;
            }
            let (options, tags) = settings(&source);
            documents.push(self.ingest_source(source, options.checked()?, tags)?);
        }
        Ok(IngestReport { documents })
    }

    /// Ingests one document (under the documents lock).
    fn ingest_source(
        &self,
        source: Source,
        options: ChunkOptions,
        tags: Vec<String>,
    ) -> Result<IngestedDocument> {
        let id = document_id(&source.relative);
        if self.pending_path(&id).exists() {
            self.settle(&id)?;
        }
        let generation = generation(&source.sha256, source.format, options, &tags);
        let old = self.document_record(&id)?;
        if let Some(old) = &old {
            if old.source != source.relative {
                return Err(Error::conflict(
                    format!("document id {id} is {}'s already", old.source),
                    format!("rename {}, or purge {id} first", source.relative),
                ));
            }
            if old.generation == generation {
                return Ok(IngestedDocument {
                    outcome: IngestOutcome::Unchanged,
                    document: old.clone(),
                });
            }
        }
        let chunks = chunk(&source.text, source.format, options)?;
        let refs = (0..chunks.len())
            .map(|position| chunk_ref(&id, &generation, position))
            .collect::<Result<Vec<_>>>()?;
        let record = DocumentRecord {
            id: id.clone(),
            title: title_of(&source),
            source: source.relative.clone(),
            sha256: source.sha256.clone(),
            bytes: source.text.len() as u64,
            format: source.format,
            chunk_size: options.size,
            overlap: options.overlap,
            tags,
            generation: generation.clone(),
            chunks: refs,
            ingested_at: self.now(),
        };
        drop(source);
        self.announce(&id, Some(&generation))?;
        let mut memories = chunks
            .into_iter()
            .enumerate()
            .map(|(position, chunk)| chunk_memory(&record, chunk, position))
            .peekable();
        while memories.peek().is_some() {
            let batch: Vec<NewMemory> = memories.by_ref().take(CHUNK_BATCH).collect();
            self.put_many_with(batch, PutMode::Upsert)?;
        }
        self.put_with(record_memory(&record), PutMode::Upsert)?;
        if let Some(old) = &old {
            let stale: Vec<MemoryRef> = self
                .indexed
                .store()
                .get_many(&old.chunks)?
                .into_iter()
                .zip(&old.chunks)
                .filter(|(found, _)| found.is_ok())
                .map(|(_, reference)| reference.clone())
                .collect();
            self.remove_for_good(&stale)?;
        }
        self.settled(&id)?;
        let outcome = if old.is_some() { IngestOutcome::Replaced } else { IngestOutcome::Added };
        Ok(IngestedDocument { outcome, document: record })
    }

    /// Finishes a change of document `id` that stopped part-way: keeps the generation its
    /// record names (none when it has no record) and removes every other chunk of it.
    fn settle(&self, id: &str) -> Result<()> {
        let keep = self.document_record(id)?.map(|record| record.generation);
        let stale = self.document_memories(CHUNKS_COLLECTION, id, |memory| {
            place_of(memory).map(|place| place.generation) != keep
        })?;
        self.remove_for_good(&stale)?;
        self.settled(id)
    }

    /// Writes down, before changing document `id`, that it is being changed.
    fn announce(&self, id: &str, generation: Option<&str>) -> Result<()> {
        std::fs::create_dir_all(self.pending_dir())
            .map_err(|e| Error::io("creating the pending documents directory", e))?;
        let intent = serde_json::json!({ "document": id, "generation": generation });
        crate::store::fsutil::write_atomic(&self.pending_path(id), intent.to_string().as_bytes())
    }

    /// Forgets that document `id` was being changed.
    fn settled(&self, id: &str) -> Result<()> {
        crate::store::fsutil::remove_file_if_present(&self.pending_path(id), "pending document")
    }

    /// Deletes `refs` through the write protocol (one batch) and removes the copies the store
    /// keeps of them (trash, versions) where it can; returns how many copies went.
    fn remove_for_good(&self, refs: &[MemoryRef]) -> Result<usize> {
        self.indexed.delete_many(refs, self.now())?;
        let mut copies = 0;
        for reference in refs {
            match self.indexed.store().expunge(reference) {
                Ok(n) => copies += n,
                Err(Error::Unsupported { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(copies)
    }

    /// The memories of `collection` belonging to document `id` that `keep` accepts.
    fn document_memories(
        &self,
        collection: &str,
        id: &str,
        keep: impl Fn(&Memory) -> bool,
    ) -> Result<Vec<MemoryRef>> {
        let mut found = Vec::new();
        self.scan_collection(collection, &mut |memory| {
            let belongs = memory.metadata.get(DOCUMENT_KEY).and_then(|v| v.as_str()) == Some(id);
            if belongs && keep(memory) {
                found.push(memory.reference());
            }
            ControlFlow::Continue(())
        })?;
        Ok(found)
    }

    /// Visits the memories of `collection` that read (none when it does not exist).
    fn scan_collection(
        &self,
        collection: &str,
        visit: &mut dyn FnMut(&Memory) -> ControlFlow<()>,
    ) -> Result<()> {
        let collection = Collection::new(collection)?;
        match self.indexed.store().scan(Some(&collection), &mut |item| match item {
            Ok(memory) => visit(&memory),
            Err(_) => ControlFlow::Continue(()),
        }) {
            Err(Error::NotFound { .. }) => Ok(()),
            other => other,
        }
    }

    /// The record of document `id`, if it has one.
    fn document_record(&self, id: &str) -> Result<Option<DocumentRecord>> {
        self.existing(&record_ref(id)?)?.map(|memory| record_of(&memory)).transpose()
    }

    /// Multiplies each hit's score by its rating prior and sorts them again: the mean rating
    /// of the chunk, else of the document, moves the score by up to [`FEEDBACK_WEIGHT`].
    fn apply_feedback_prior(&self, hits: &mut [DocumentHit]) -> Result<()> {
        let mut ratings: HashMap<(String, Option<usize>), (f64, usize)> = HashMap::new();
        self.scan_collection(FEEDBACK_COLLECTION, &mut |memory| {
            let document = memory.metadata.get(DOCUMENT_KEY).and_then(|v| v.as_str());
            let rating = memory.metadata.get("rating").and_then(serde_json::Value::as_f64);
            if let (Some(document), Some(rating)) = (document, rating) {
                let chunk = memory.metadata.get("chunk").and_then(serde_json::Value::as_u64);
                let chunk = chunk.and_then(|c| usize::try_from(c).ok());
                let entry = ratings.entry((document.to_owned(), chunk)).or_default();
                *entry = (entry.0 + rating, entry.1 + 1);
            }
            ControlFlow::Continue(())
        })?;
        let mean = |key: &(String, Option<usize>)| {
            ratings.get(key).map(|(sum, count)| sum / *count as f64)
        };
        for hit in hits.iter_mut() {
            let chunk = mean(&(hit.document.clone(), Some(hit.position)));
            if let Some(rating) = chunk.or_else(|| mean(&(hit.document.clone(), None))) {
                hit.score *= 1.0 + FEEDBACK_WEIGHT * (rating - 3.0) / 2.0;
            }
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
        Ok(())
    }

    /// The directory documents must be inside: `root` if given, else the directory of the
    /// project's config file, else the directory holding the store.
    fn documents_root(&self, root: Option<&str>) -> Result<PathBuf> {
        let location = self.location();
        let project_config = location.config_file.as_deref().filter(|file| {
            file.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| PROJECT_CONFIG_NAMES.contains(&name))
        });
        let root = match (root, project_config) {
            (Some(root), _) => PathBuf::from(root),
            (None, Some(file)) => file.parent().map(Path::to_path_buf).unwrap_or_default(),
            (None, None) => {
                let store = &location.root;
                store.parent().map_or_else(|| store.clone(), Path::to_path_buf)
            }
        };
        canonical_root(&root)
    }

    fn documents_lock(&self) -> StoreLock {
        let path = self.indexed.store().private_dir().join(LOCK_FILE);
        StoreLock::new(&path, self.lock_timeout())
    }

    fn pending_dir(&self) -> PathBuf {
        self.indexed.store().private_dir().join(PENDING_DIR)
    }

    fn pending_path(&self, id: &str) -> PathBuf {
        self.pending_dir().join(format!("{id}.json"))
    }
}

/// Tags sorted and without repeats, as a document keeps them.
fn sorted_tags(tags: &[String]) -> Vec<String> {
    let mut tags = tags.to_vec();
    tags.sort();
    tags.dedup();
    tags
}
