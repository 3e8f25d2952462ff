//! Documents on the handle: ingest, list, search, purge, rebuild and feedback (seed 003's
//! document knowledge workflow), over the pure part in [`crate::docs`]; every change goes
//! through the protocol of `docs_change.rs`.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::PathBuf;

use super::Memcore;
use super::docs_change::Pending;
use crate::docs::{
    CHUNKS_COLLECTION, ChunkOptions, DEFAULT_MAX_DOCUMENT_BYTES, DOCUMENT_KEY,
    DOCUMENTS_COLLECTION, DocsFeedbackRequest, DocsIngestRequest, DocsListRequest,
    DocsPurgeRequest, DocsRebuildRequest, DocsSearchRequest, DocumentHit, DocumentHits,
    DocumentListing, DocumentPurged, DocumentRecord, FEEDBACK_COLLECTION, FEEDBACK_KIND,
    FeedbackRecord, IngestReport, Roots, canonical_root, clean_tags, place_of, record_of,
    record_ref,
};
use crate::{Collection, Error, Filter, Memory, MemoryRef, NewMemory, Query, Result};

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
        let roots = self.documents_roots(request.root.as_deref())?;
        let options =
            ChunkOptions::default().with(request.chunk_size, request.overlap).checked()?;
        let max_bytes = request.max_bytes.unwrap_or(DEFAULT_MAX_DOCUMENT_BYTES);
        let paths: Vec<PathBuf> = request.paths.iter().map(PathBuf::from).collect();
        let tags = clean_tags(&request.tags);
        let documents = self.with_documents_lock(|| {
            self.ingest_locked(&roots, &paths, max_bytes, &|_| (options, tags.clone()))
        })?;
        Ok(IngestReport { documents })
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
        let roots = self.documents_roots(None)?;
        let documents = self.with_documents_lock(|| {
            // Read under the lock: a document purged meanwhile is not brought back.
            let records = if request.documents.is_empty() {
                self.docs_list(&DocsListRequest::default())?.documents
            } else {
                request.documents.iter().map(|id| self.document(id)).collect::<Result<_>>()?
            };
            let by_source: HashMap<&str, &DocumentRecord> =
                records.iter().map(|record| (record.source.as_str(), record)).collect();
            let paths: Vec<PathBuf> = records.iter().map(|r| PathBuf::from(&r.source)).collect();
            // A document ingested with a larger limit than the default is read whole again.
            let largest = records.iter().map(|r| r.bytes).max().unwrap_or(0);
            let max_bytes = largest.max(DEFAULT_MAX_DOCUMENT_BYTES);
            self.ingest_locked(&roots, &paths, max_bytes, &|source| {
                let record = by_source.get(source.relative.as_str());
                let own = record.map_or_else(ChunkOptions::default, |r| ChunkOptions {
                    size: r.chunk_size,
                    overlap: r.overlap,
                });
                let options = own.with(request.chunk_size, request.overlap);
                (options, record.map(|r| r.tags.clone()).unwrap_or_default())
            })
        })?;
        Ok(IngestReport { documents })
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
            let generations: HashMap<String, String> = records
                .into_iter()
                .filter_map(|(id, record)| Some((id, record?.generation)))
                .collect();
            self.apply_feedback_prior(&mut hits, &generations)?;
        }
        // The `document` filter is this engine's own metadata key, not a mistake to warn of.
        let mut warnings = results.warnings;
        warnings.retain(|warning| !warning.starts_with("filter key `document`"));
        Ok(DocumentHits { hits, mode: results.mode, warnings })
    }

    /// Removes a document for good: its record, every chunk of it, its ratings, their
    /// trash copies and kept versions, and their entries in every index (the full-text
    /// segments holding them are rewritten, the vector log compacted), so no file of the
    /// store keeps its text. What must go is written down first, so a purge that stopped
    /// part-way is finished by the next document change or the next open. Git history of a
    /// store in a work tree is not rewritten, and git-notes and PostgreSQL stores keep their
    /// own copies (see ARCHITECTURE.md).
    ///
    /// # Errors
    ///
    /// [`Error::NotFound`] when nothing of the document is there.
    pub fn docs_purge(&self, request: &DocsPurgeRequest) -> Result<DocumentPurged> {
        let id = request.document.as_str();
        let record_ref = record_ref(id)?;
        self.with_documents_lock(|| {
            let everything = self.everything_of(id)?;
            let found = self.indexed.store().get_many(&everything)?;
            let live: Vec<&MemoryRef> = everything
                .iter()
                .zip(&found)
                .filter(|(_, found)| found.is_ok())
                .map(|(reference, _)| reference)
                .collect();
            if live.is_empty() {
                return Err(Error::not_found(
                    format!("document {id}"),
                    "list the documents there are with `docs_list` (`memcore docs list`)",
                ));
            }
            let count = |collection: &str| {
                live.iter()
                    .filter(|r| r.collection().is_some_and(|c| c.as_str() == collection))
                    .count()
            };
            let (chunks, feedback) = (count(CHUNKS_COLLECTION), count(FEEDBACK_COLLECTION));
            // The record goes first: a purge finished later removes every chunk left.
            let pending =
                Pending { documents: vec![id.to_owned()], remove: everything, compact: true };
            let (first, rest) = self.change_documents(&pending, || {
                self.remove_for_good(std::slice::from_ref(&record_ref))
            })?;
            let copies = first + rest;
            Ok(DocumentPurged { document: id.to_owned(), chunks, feedback, copies })
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
        // Under the lock, so that a purge running meanwhile cannot miss the new rating.
        self.with_documents_lock(|| self.add_feedback(request))
    }

    /// [`Memcore::docs_feedback`], under the documents lock.
    fn add_feedback(&self, request: &DocsFeedbackRequest) -> Result<FeedbackRecord> {
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
        let mut memory = NewMemory::new(content)
            .collection(FEEDBACK_COLLECTION)
            .title(format!("Feedback on {}", record.title))
            .kind(FEEDBACK_KIND);
        memory.created_by.clone_from(&request.by);
        memory.metadata.insert(DOCUMENT_KEY.into(), record.id.clone().into());
        memory.metadata.insert("rating".into(), request.rating.into());
        if let Some(chunk) = request.chunk {
            // A chunk's rating holds for its generation: after a change, position 2 may be
            // other text.
            memory.metadata.insert("chunk".into(), chunk.into());
            memory.metadata.insert("generation".into(), record.generation.clone().into());
        }
        let base = format!("{}.{}", record.id, now.format("%Y%m%dt%H%M%S%.9f"));
        let stored = self.put_new(memory, &base)?;
        Ok(FeedbackRecord {
            reference: stored.reference(),
            document: record.id,
            chunk: request.chunk,
            rating: request.rating,
            note: request.note.clone(),
            by: request.by.clone(),
            at: stored.created_at,
        })
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

    /// Visits the memories of `collection` that read (none when it does not exist).
    pub(super) fn scan_collection(
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
    pub(super) fn document_record(&self, id: &str) -> Result<Option<DocumentRecord>> {
        self.existing(&record_ref(id)?)?.map(|memory| record_of(&memory)).transpose()
    }

    /// Multiplies each hit's score by its rating prior and sorts them again: the mean rating
    /// of the chunk (given to its document's current generation), else of the document,
    /// moves the score by up to [`FEEDBACK_WEIGHT`].
    fn apply_feedback_prior(
        &self,
        hits: &mut [DocumentHit],
        generations: &HashMap<String, String>,
    ) -> Result<()> {
        let mut ratings: HashMap<(String, Option<usize>), (f64, usize)> = HashMap::new();
        self.scan_collection(FEEDBACK_COLLECTION, &mut |memory| {
            let document = memory.metadata.get(DOCUMENT_KEY).and_then(|v| v.as_str());
            let rating = memory.metadata.get("rating").and_then(serde_json::Value::as_f64);
            if let (Some(document), Some(rating)) = (document, rating) {
                let chunk = memory.metadata.get("chunk").and_then(serde_json::Value::as_u64);
                let chunk = chunk.and_then(|c| usize::try_from(c).ok());
                let given_to = memory.metadata.get("generation").and_then(|v| v.as_str());
                if chunk.is_some() && given_to != generations.get(document).map(String::as_str) {
                    return ControlFlow::Continue(());
                }
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

    /// Where documents are read from: the project root (the directory of the project's
    /// config file, else the directory holding the store), or `root` inside it. A caller
    /// cannot widen it: over MCP, a client naming `/` must not read the machine.
    fn documents_roots(&self, root: Option<&str>) -> Result<Roots> {
        let project = self.project_dir().to_path_buf();
        let project = canonical_root(&project)?;
        let Some(root) = root else { return Ok(Roots::project(project)) };
        let root = canonical_root(&project.join(root))?;
        if !root.starts_with(&project) {
            return Err(Error::validation(
                format!(
                    "the documents' root {} is outside the project {}",
                    root.display(),
                    project.display()
                ),
                "give a root inside the project (or none), or open the store of the project that holds the files",
            ));
        }
        Ok(Roots { project, within: root })
    }
}
