//! Full-text search over [`IndexDoc`]s: a tantivy index ranked by BM25, with English analysis
//! (ASCII folding, lower case, stop words, Porter stemming) and every [`DocFilter`] condition
//! pushed into the tantivy query.
//!
//! Several processes may share one index directory. No `IndexWriter` is kept between calls:
//! each [`TextIndex::apply`] opens one (taking tantivy's writer lock, waiting a few seconds if
//! another process holds it), commits once, waits for merges and lets go. The reader reloads
//! only when told to: right after this handle's own commits (read-after-write) and on
//! [`TextIndex::refresh`] (other processes' commits).
//!
//! The index stores only the key and the content hash of each memory; the store holds the rest.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::ops::Bound;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use parking_lot::{Mutex, MutexGuard};
use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::directory::error::LockError;
use tantivy::indexer::IndexWriterOptions;
use tantivy::query::{
    AllQuery, BooleanQuery, ConstScoreQuery, Occur, Query, QueryParser, RangeQuery, TermQuery,
    TermSetQuery,
};
use tantivy::schema::{
    DateOptions, DateTimePrecision, Field, IndexRecordOption, STORED, STRING, Schema,
    TextFieldIndexing, TextOptions, Value,
};
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer,
    StopWordFilter, TextAnalyzer, TokenizerManager,
};
use tantivy::{
    DateTime, DocAddress, Index, IndexReader, IndexWriter, ReloadPolicy, Searcher, TantivyDocument,
    TantivyError, Term,
};

use super::unsynced_dir::UnsyncedDirectory;
use super::{DocFilter, IndexDoc};
use crate::{Error, Result, Status, Timestamp};

/// The name under which the English analyzer is registered with tantivy.
const ENGLISH: &str = "memcore_en";

/// How much a title match weighs against a content match.
const TITLE_BOOST: f32 = 2.0;

/// How much a match in the context counts relative to the content.
const CONTEXT_BOOST: f32 = 0.5;

/// How long [`TextIndex::apply`] waits for another process's writer before giving up.
const LOCK_WAIT: Duration = Duration::from_secs(30);

/// The deepest parenthesis nesting passed to the query parser; deeper groups are flattened.
/// The parser recurses once per level (and once per `NOT` in a run of them): a few hundred
/// levels overflow a 2 MB thread stack, which aborts the process.
const MAX_NESTING: usize = 8;

/// The longest query text passed to the query parser, in bytes; the rest is ignored.
const MAX_QUERY_BYTES: usize = 8 * 1024;

/// A file in the index directory, locked while an index is created or wiped, so that two
/// processes opening a new index at once do not both write an empty one.
const INIT_LOCK: &str = ".memcore-init.lock";

/// tantivy's own lock files: never deleted when wiping (another process may hold them).
const TANTIVY_LOCKS: [&str; 2] = [".tantivy-writer.lock", ".tantivy-meta.lock"];

/// What every index error tells the user to do.
const REBUILD: &str =
    "the store is intact: rebuild the full-text index from it with `reindex` (or `repair`)";

/// The fields of the schema.
#[derive(Debug, Clone, Copy)]
struct Fields {
    /// `collection/id`: raw, indexed, stored; the unique key.
    key: Field,
    /// The id: raw, indexed (exact-id search).
    id: Field,
    /// The collection: raw, indexed.
    collection: Field,
    /// The title: English text.
    title: Field,
    /// The content: English text.
    content: Field,
    /// The context: English analyzer, half weight.
    context: Field,
    /// The tags: raw, multi-valued (filters).
    tags: Field,
    /// The tags again, as English text (search).
    tags_text: Field,
    /// The type: raw.
    kind: Field,
    /// The status: raw.
    status: Field,
    /// Creation time: date, indexed and fast, whole seconds.
    created: Field,
    /// Last change: date, indexed and fast, whole seconds.
    updated: Field,
    /// The content hash: stored only.
    hash: Field,
}

/// The schema of the index and its fields.
fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let english = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(ENGLISH)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let date =
        DateOptions::default().set_indexed().set_fast().set_precision(DateTimePrecision::Seconds);
    let fields = Fields {
        key: builder.add_text_field("key", STRING | STORED),
        id: builder.add_text_field("id", STRING),
        collection: builder.add_text_field("collection", STRING),
        title: builder.add_text_field("title", english.clone()),
        content: builder.add_text_field("content", english.clone()),
        context: builder.add_text_field("context", english.clone()),
        tags: builder.add_text_field("tags", STRING),
        tags_text: builder.add_text_field("tags_text", english),
        kind: builder.add_text_field("type", STRING),
        status: builder.add_text_field("status", STRING),
        created: builder.add_date_field("created", date.clone()),
        updated: builder.add_date_field("updated", date),
        hash: builder.add_text_field("hash", STORED),
    };
    (builder.build(), fields)
}

/// tantivy's default tokenizers plus the English analyzer. Tokenizers are not saved in the
/// index: every `Index` opened must be given them.
fn tokenizers() -> TokenizerManager {
    let manager = TokenizerManager::default();
    let mut english = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(AsciiFoldingFilter)
        .filter(LowerCaser)
        .dynamic();
    if let Some(stop_words) = StopWordFilter::new(Language::English) {
        english = english.filter_dynamic(stop_words);
    }
    manager.register(ENGLISH, english.filter_dynamic(Stemmer::new(Language::English)).build());
    manager
}

/// The BM25 full-text index of one store. `Send + Sync`; every method takes `&self`.
pub(crate) struct TextIndex {
    /// The index directory.
    dir: PathBuf,
    /// The index as opened (used for reading; writers use a freshly opened one).
    index: Index,
    /// The reader, reloaded by hand ([`ReloadPolicy::Manual`]).
    reader: IndexReader,
    /// The schema's fields.
    fields: Fields,
    /// Parses user text over title (boosted), content, tags and id.
    parser: QueryParser,
    /// Serializes this handle's writers, so threads queue instead of polling the file lock.
    writing: Mutex<()>,
}

impl std::fmt::Debug for TextIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextIndex").field("dir", &self.dir).finish_non_exhaustive()
    }
}

impl TextIndex {
    /// Opens the index in `dir`, creating the directory (0700) and an empty index if there is
    /// none. A damaged index (unreadable `meta.json`, another schema, broken segment files) is
    /// an [`Error::Index`] whose recovery says to rebuild it with `reindex`.
    pub(crate) fn open(dir: &Path) -> Result<Self> {
        crate::store::fsutil::create_private_dir_all(dir)?;
        let _init = InitLock::acquire(dir)?;
        guarded(dir, || Self::open_locked(dir))
    }

    /// Wipes whatever is in `dir` (a damaged index too) and opens a new, empty index there.
    /// For `reindex` and `repair`; only the files directly inside `dir` are removed, and it
    /// waits (a few seconds at most) for a writer in another process to finish first.
    pub(crate) fn create_fresh(dir: &Path) -> Result<Self> {
        crate::store::fsutil::create_private_dir_all(dir)?;
        let _init = InitLock::acquire(dir)?;
        let _writer = WriterFileLock::acquire(dir)?;
        let listing = |e| Error::io(format!("listing {}", dir.display()), e);
        for entry in fs::read_dir(dir).map_err(listing)? {
            let entry = entry.map_err(listing)?;
            let name = entry.file_name();
            let keep = name == INIT_LOCK || TANTIVY_LOCKS.iter().any(|lock| name == *lock);
            let is_file = entry.file_type().is_ok_and(|t| t.is_file() || t.is_symlink());
            if !keep && is_file {
                fs::remove_file(entry.path())
                    .map_err(|e| Error::io(format!("removing {}", entry.path().display()), e))?;
            }
        }
        crate::store::fsutil::sync_dir(dir)?;
        guarded(dir, || Self::open_locked(dir))
    }

    /// Opens or creates the index; the caller holds [`InitLock`], so two processes never
    /// both create one.
    fn open_locked(dir: &Path) -> Result<Self> {
        let (schema, fields) = schema();
        let directory = UnsyncedDirectory::open(dir).map_err(|e| damaged(dir, e))?;
        let index = Index::builder()
            .schema(schema)
            .tokenizers(tokenizers())
            .open_or_create(directory)
            .map_err(|e| damaged(dir, e))?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(|e| damaged(dir, e))?;
        let mut parser = QueryParser::for_index(
            &index,
            vec![fields.title, fields.content, fields.context, fields.tags_text, fields.id],
        );
        parser.set_field_boost(fields.title, TITLE_BOOST);
        parser.set_field_boost(fields.context, CONTEXT_BOOST);
        Ok(Self { dir: dir.to_path_buf(), index, reader, fields, parser, writing: Mutex::new(()) })
    }

    /// Removes every document, in one commit (other processes see the index empty after their
    /// next [`TextIndex::refresh`]).
    pub(crate) fn clear(&self) -> Result<()> {
        let batch = self.batch()?;
        guarded(&self.dir, || {
            batch
                .writer
                .delete_all_documents()
                .map_err(|e| failed("clearing the full-text index", e))
        })?;
        batch.commit()
    }

    /// Applies changes in one writer session and one commit: see [`TextBatch::apply`]. A
    /// search right after sees the changes. Nothing is written when both lists are empty.
    pub(crate) fn apply(&self, upserts: &[IndexDoc], deletes: &[&str]) -> Result<()> {
        if upserts.is_empty() && deletes.is_empty() {
            return Ok(());
        }
        let mut batch = self.batch()?;
        batch.apply(upserts, deletes)?;
        batch.commit()
    }

    /// Opens a writer session whose changes stay invisible until [`TextBatch::commit`] (and
    /// are discarded if the batch is dropped), so a caller can index while it writes the
    /// store and publish once the store write is durable. Other writers of this handle wait
    /// for the batch to end.
    pub(crate) fn batch(&self) -> Result<TextBatch<'_>> {
        let writing = self.writing.lock();
        let writer = guarded(&self.dir, || self.writer())?;
        Ok(TextBatch { index: self, _writing: writing, writer })
    }

    /// Reloads the reader if the index changed on disk (another process committed); cheap
    /// when nothing changed: one read of `meta.json`.
    pub(crate) fn refresh(&self) -> Result<()> {
        guarded(&self.dir, || self.refresh_unguarded())
    }

    /// [`TextIndex::refresh`] without the panic guard.
    fn refresh_unguarded(&self) -> Result<()> {
        let metas = self.index.load_metas().map_err(|e| damaged(&self.dir, e))?;
        let searcher = self.reader.searcher();
        let loaded: HashSet<_> = searcher
            .segment_readers()
            .iter()
            .map(|segment| (segment.segment_id(), segment.delete_opstamp()))
            .collect();
        let on_disk: HashSet<_> =
            metas.segments.iter().map(|segment| (segment.id(), segment.delete_opstamp())).collect();
        if loaded != on_disk {
            self.reader.reload().map_err(|e| damaged(&self.dir, e))?;
        }
        Ok(())
    }

    /// The keys of the best `limit` documents for `text` among those `filter` lets through,
    /// with their BM25 scores, best first (ties by key).
    ///
    /// `text` is parsed leniently: quotes make phrases, `field:word` targets a field, and
    /// anything malformed (unbalanced quotes or parentheses, stray operators, emoji) is
    /// searched as well as it can be instead of failing. Blank text is an
    /// [`Error::Validation`].
    pub(crate) fn search(
        &self,
        text: &str,
        filter: &DocFilter,
        limit: usize,
    ) -> Result<Vec<(String, f32)>> {
        if text.trim().is_empty() {
            return Err(Error::validation(
                "the search text is empty",
                "give some words to search for, or list memories with filters instead",
            ));
        }
        if limit == 0 {
            return Ok(Vec::new());
        }
        guarded(&self.dir, || self.search_unguarded(text, filter, limit))
    }

    /// [`TextIndex::search`] for non-blank text and a positive limit, without the panic guard.
    fn search_unguarded(
        &self,
        text: &str,
        filter: &DocFilter,
        limit: usize,
    ) -> Result<Vec<(String, f32)>> {
        let (text_query, _ignored) = self.parser.parse_query_lenient(&tame(text));
        let searcher = self.reader.searcher();
        // A bare text query is scored with block-max WAND (top-k pruning); any required
        // filter clause forces scoring every match, so drop clauses that exclude nothing.
        let filter = self.effective_filter(&searcher, filter);
        let query: Box<dyn Query> = match self.filter_query(&filter) {
            Some(filter) => Box::new(BooleanQuery::new(vec![
                (Occur::Must, text_query),
                (Occur::Must, Box::new(ConstScoreQuery::new(filter, 0.0))),
            ])),
            None => text_query,
        };
        let top = searcher
            .search(&query, &TopDocs::with_limit(limit).order_by_score())
            .map_err(|e| failed("searching the full-text index", e))?;
        let mut hits = top
            .into_iter()
            .map(|(score, address)| Ok((self.stored(&searcher, address)?.0, score)))
            .collect::<Result<Vec<_>>>()?;
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Ok(hits)
    }

    /// The keys of all documents `filter` lets through (all keys for an empty filter), sorted;
    /// used to restrict vector search.
    #[cfg(test)]
    pub(crate) fn filter_keys(&self, filter: &DocFilter) -> Result<Vec<String>> {
        let query = self.filter_query(filter).unwrap_or_else(|| Box::new(AllQuery));
        let mut keys =
            self.collect(query.as_ref())?.into_iter().map(|(key, _)| key).collect::<Vec<_>>();
        keys.sort_unstable();
        Ok(keys)
    }

    /// The content hashes of those of `keys` the index holds.
    pub(crate) fn hashes_of(&self, keys: &[String]) -> Result<HashMap<String, String>> {
        let terms = keys.iter().map(|key| Term::from_field_text(self.fields.key, key));
        let query = TermSetQuery::new(terms.collect::<Vec<_>>());
        Ok(self.collect(&query)?.into_iter().collect())
    }

    /// Every `(key, content hash)` in the index, sorted by key; used by `verify`.
    pub(crate) fn all_keys(&self) -> Result<Vec<(String, String)>> {
        let mut pairs = self.collect(&AllQuery)?;
        pairs.sort_unstable();
        Ok(pairs)
    }

    /// The number of live documents (as of the last reload).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        usize::try_from(self.reader.searcher().num_docs()).unwrap_or(usize::MAX)
    }

    /// Opens a writer on a fresh `Index`, retrying with backoff while another process holds
    /// the writer lock, for [`LOCK_WAIT`] at most.
    fn writer(&self) -> Result<IndexWriter> {
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
                Ok(writer) => return Ok(writer),
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
                        "retry in a moment; the store already holds the change, and `repair` \
                         brings the index up to date",
                    ));
                }
                Err(e) => return Err(failed("opening a full-text index writer", e)),
            }
        }
    }

    /// `filter` without its status condition when no indexed document has a status outside it
    /// (the usual case: searches exclude archived and tombstoned memories, and most stores
    /// have none), decided from the term dictionary in microseconds.
    fn effective_filter<'f>(
        &self,
        searcher: &tantivy::Searcher,
        filter: &'f DocFilter,
    ) -> std::borrow::Cow<'f, DocFilter> {
        if filter.statuses.is_empty() {
            return std::borrow::Cow::Borrowed(filter);
        }
        let excluded_present =
            Status::ALL.iter().filter(|s| !filter.statuses.contains(s)).any(|s| {
                let term = Term::from_field_text(self.fields.status, s.as_str());
                searcher.doc_freq(&term).map_or(true, |n| n > 0)
            });
        if excluded_present {
            return std::borrow::Cow::Borrowed(filter);
        }
        let mut relaxed = filter.clone();
        relaxed.statuses.clear();
        std::borrow::Cow::Owned(relaxed)
    }

    /// The filter as one query (all conditions required, constant score), or `None` when the
    /// filter has no condition.
    fn filter_query(&self, filter: &DocFilter) -> Option<Box<dyn Query>> {
        let f = &self.fields;
        let mut clauses: Vec<Box<dyn Query>> = Vec::new();
        let mut any_of = |field: Field, values: &mut dyn Iterator<Item = &str>| {
            let terms: Vec<Term> = values.map(|v| Term::from_field_text(field, v)).collect();
            if !terms.is_empty() {
                clauses.push(Box::new(TermSetQuery::new(terms)));
            }
        };
        any_of(f.collection, &mut filter.collections.iter().map(String::as_str));
        any_of(f.tags, &mut filter.tags_any.iter().map(String::as_str));
        any_of(f.kind, &mut filter.kinds.iter().map(String::as_str));
        any_of(f.status, &mut filter.statuses.iter().map(|s| s.as_str()));
        for tag in &filter.tags_all {
            clauses.push(Box::new(TermQuery::new(
                Term::from_field_text(f.tags, tag),
                IndexRecordOption::Basic,
            )));
        }
        for (field, from, to) in [
            (f.created, filter.created_from, filter.created_to),
            (f.updated, filter.updated_from, filter.updated_to),
        ] {
            if from.is_some() || to.is_some() {
                // Indexed times are whole seconds, so `t >= from` is `t >= ceil(from)` and
                // `t < to` is `t < ceil(to)`.
                let bound = |t: Option<Timestamp>, make: fn(Term) -> Bound<Term>| {
                    t.map_or(Bound::Unbounded, |t| {
                        make(Term::from_field_date(field, tantivy_date(t, true)))
                    })
                };
                clauses.push(Box::new(RangeQuery::new(
                    bound(from, Bound::Included),
                    bound(to, Bound::Excluded),
                )));
            }
        }
        match clauses.len() {
            0 => None,
            1 => clauses.pop(),
            _ => Some(Box::new(BooleanQuery::intersection(clauses))),
        }
    }

    /// The stored `(key, hash)` of every document matching `query`.
    fn collect(&self, query: &dyn Query) -> Result<Vec<(String, String)>> {
        guarded(&self.dir, || self.collect_unguarded(query))
    }

    /// [`TextIndex::collect`] without the panic guard.
    fn collect_unguarded(&self, query: &dyn Query) -> Result<Vec<(String, String)>> {
        let searcher = self.reader.searcher();
        let mut addresses: Vec<DocAddress> = searcher
            .search(query, &DocSetCollector)
            .map_err(|e| failed("searching the full-text index", e))?
            .into_iter()
            .collect();
        // Document order reads the compressed store block by block.
        addresses.sort_unstable();
        addresses.into_iter().map(|address| self.stored(&searcher, address)).collect()
    }

    /// The stored key and hash of one document.
    fn stored(&self, searcher: &Searcher, address: DocAddress) -> Result<(String, String)> {
        let doc: TantivyDocument = searcher.doc(address).map_err(|e| damaged(&self.dir, e))?;
        let text =
            |field: Field| doc.get_first(field).and_then(|value| value.as_str()).map(str::to_owned);
        match (text(self.fields.key), text(self.fields.hash)) {
            (Some(key), Some(hash)) => Ok((key, hash)),
            _ => Err(Error::index(
                format!(
                    "the full-text index in {} has a document without key or hash",
                    self.dir.display()
                ),
                None,
                REBUILD,
            )),
        }
    }
}

/// One writer session on a [`TextIndex`]: a freshly opened index (so files written by other
/// processes are known to its garbage collection) and one writer (one indexing thread, the
/// smallest memory budget). [`TextBatch::commit`] publishes its changes in one commit;
/// dropping it discards them.
pub(crate) struct TextBatch<'a> {
    index: &'a TextIndex,
    _writing: MutexGuard<'a, ()>,
    writer: IndexWriter,
}

impl TextBatch<'_> {
    /// Adds changes: each upsert replaces the document with the same key (or adds it), each
    /// delete removes the document with that key (absent keys are ignored). Deletes go first,
    /// so a key in both lists ends up upserted; of two upserts with one key the last wins,
    /// also across calls.
    pub(crate) fn apply(&mut self, upserts: &[IndexDoc], deletes: &[&str]) -> Result<()> {
        let (writer, fields) = (&self.writer, &self.index.fields);
        guarded(&self.index.dir, || {
            for key in deletes {
                writer.delete_term(Term::from_field_text(fields.key, key));
            }
            for doc in upserts {
                writer.delete_term(Term::from_field_text(fields.key, &doc.meta.key));
                writer
                    .add_document(to_document(doc, fields))
                    .map_err(|e| failed("updating the full-text index", e))?;
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
            index.reader.reload().map_err(|e| failed("reloading the full-text index", e))
        })
    }
}

/// The tantivy document of `doc`.
fn to_document(doc: &IndexDoc, f: &Fields) -> TantivyDocument {
    let meta = &doc.meta;
    let mut out = TantivyDocument::default();
    out.add_text(f.key, &meta.key);
    out.add_text(f.id, &doc.id);
    out.add_text(f.collection, &meta.collection);
    out.add_text(f.title, &doc.title);
    out.add_text(f.content, &doc.content);
    if let Some(context) = &doc.context {
        out.add_text(f.context, context);
    }
    for tag in &meta.tags {
        out.add_text(f.tags, tag);
        out.add_text(f.tags_text, tag);
    }
    if let Some(kind) = &meta.kind {
        out.add_text(f.kind, kind);
    }
    out.add_text(f.status, meta.status.as_str());
    out.add_date(f.created, tantivy_date(meta.created_at, false));
    out.add_date(f.updated, tantivy_date(meta.updated_at, false));
    out.add_text(f.hash, &meta.hash);
    out
}

/// `t` in whole seconds (rounded up when `ceil`, else down), clamped to the years 1678-2262
/// that tantivy's nanosecond dates can hold (its constructor overflows beyond them).
fn tantivy_date(t: Timestamp, ceil: bool) -> DateTime {
    const LIMIT: i64 = i64::MAX / 1_000_000_000;
    let mut secs = t.timestamp();
    if ceil && t.timestamp_subsec_nanos() > 0 {
        secs = secs.saturating_add(1);
    }
    DateTime::from_timestamp_secs(secs.clamp(-LIMIT, LIMIT))
}

/// User text made safe for the query parser, whose recursion is otherwise unbounded: at most
/// [`MAX_QUERY_BYTES`], parentheses nested deeper than [`MAX_NESTING`] replaced by spaces,
/// and a run of `NOT` keywords cut to its first.
fn tame(text: &str) -> String {
    let flat = flatten_groups(text);
    let mut out = String::with_capacity(flat.len());
    let mut after_not = false;
    for piece in flat.split_inclusive(char::is_whitespace) {
        let word = piece.trim_end_matches(char::is_whitespace);
        if word == "NOT" && after_not {
            out.push(' ');
            continue;
        }
        if !word.is_empty() {
            after_not = word == "NOT";
        }
        out.push_str(piece);
    }
    out
}

/// `text` cut to [`MAX_QUERY_BYTES`] with parentheses nested deeper than [`MAX_NESTING`]
/// replaced by spaces.
fn flatten_groups(text: &str) -> String {
    let mut end = text.len().min(MAX_QUERY_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::with_capacity(end);
    let (mut depth, mut flattened) = (0usize, 0usize);
    for c in text[..end].chars() {
        match c {
            '(' if depth >= MAX_NESTING => {
                flattened += 1;
                out.push(' ');
            }
            '(' => {
                depth += 1;
                out.push(c);
            }
            ')' if flattened > 0 => {
                flattened -= 1;
                out.push(' ');
            }
            ')' => {
                depth = depth.saturating_sub(1);
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// Runs `f`, turning a panic into an [`Error::Index`]: tantivy trusts its files and panics on
/// some kinds of damage (a garbage segment file overflows an offset computation) instead of
/// returning an error. Nothing is shared across the unwind but the reader, whose searcher is
/// swapped atomically, so the handle stays usable.
fn guarded<T>(dir: &Path, f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|panic| {
        let detail = panic
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        Err(Error::index(
            format!("the full-text index in {} is damaged (tantivy: {detail})", dir.display()),
            None,
            REBUILD,
        ))
    })
}

/// An [`Error::Index`] for an index that cannot be read: rebuild it.
fn damaged(dir: &Path, e: TantivyError) -> Error {
    let what = match &e {
        TantivyError::SchemaError(_) => "was made with another schema (another memcore version)",
        TantivyError::IncompatibleIndex(_) => "was made by an incompatible tantivy version",
        _ => "is damaged or unreadable",
    };
    Error::index(
        format!("the full-text index in {} {what}: {e}", dir.display()),
        Some(Box::new(e)),
        REBUILD,
    )
}

/// An [`Error::Index`] for an operation that failed.
fn failed(doing: &str, e: TantivyError) -> Error {
    Error::index(
        format!("{doing} failed: {e}"),
        Some(Box::new(e)),
        format!("retry; if it keeps failing, {REBUILD}"),
    )
}

/// Opens (creating) a lock file in `dir` for writing.
fn lock_file(dir: &Path, name: &str) -> Result<File> {
    let path = dir.join(name);
    OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| Error::io(format!("opening lock file {}", path.display()), e))
}

/// An exclusive lock on [`INIT_LOCK`], held while an index is created or wiped; released on
/// drop (closing the file).
struct InitLock {
    /// The locked file.
    _file: File,
}

impl InitLock {
    /// Waits for and takes the lock.
    fn acquire(dir: &Path) -> Result<Self> {
        let file = lock_file(dir, INIT_LOCK)?;
        file.lock()
            .map_err(|e| Error::io(format!("locking {}", dir.join(INIT_LOCK).display()), e))?;
        Ok(Self { _file: file })
    }
}

/// tantivy's writer lock, taken directly on its lock file (both use `flock`), so that wiping
/// the directory waits for a writer in another process. Released on drop.
struct WriterFileLock {
    /// The locked file.
    _file: File,
}

impl WriterFileLock {
    /// Takes the lock, waiting [`LOCK_WAIT`] at most.
    fn acquire(dir: &Path) -> Result<Self> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Collection, Limits, NewMemory};
    use chrono::TimeZone;

    /// An index document for a memory with this title, content, tags and type.
    fn doc(title: &str, content: &str, tags: &[&str], kind: Option<&str>) -> IndexDoc {
        let mut new = NewMemory::new(content).title(title).tags(tags.iter().copied());
        if let Some(kind) = kind {
            new = new.kind(kind);
        }
        let memory = new
            .into_memory(&Collection::default(), &Limits::default(), crate::now())
            .expect("valid memory");
        IndexDoc::of(&memory)
    }

    /// The keys of a search.
    fn keys(index: &TextIndex, text: &str, filter: &DocFilter) -> Vec<String> {
        index.search(text, filter, 50).expect("search").into_iter().map(|(k, _)| k).collect()
    }

    /// A new index in a temporary directory (keep the directory alive).
    fn open() -> (tempfile::TempDir, TextIndex) {
        let dir = tempfile::tempdir().expect("tempdir");
        let index = TextIndex::open(&dir.path().join("text")).expect("open");
        (dir, index)
    }

    /// The handle can be shared across threads.
    #[test]
    fn is_send_and_sync() {
        /// Compiles only for `Send + Sync` types.
        fn check<T: Send + Sync>() {}
        check::<TextIndex>();
    }

    /// Writes are visible at once; upserts replace; deletes remove; clear empties.
    #[test]
    fn read_after_write_upsert_and_delete() {
        let (_dir, index) = open();
        assert_eq!(index.len(), 0);
        let a = doc("GPU notes", "Prefer Metal on Apple silicon.", &[], None);
        let b = doc("Rust tips", "Borrow checker patterns.", &[], None);
        index.apply(&[a.clone(), b.clone()], &[]).expect("apply");
        assert_eq!(index.len(), 2);
        assert_eq!(keys(&index, "metal", &DocFilter::default()), vec![a.meta.key.clone()]);

        // Upsert replaces: same key, new text, no duplicate.
        let mut a2 = a.clone();
        a2.content = "Prefer Vulkan on Linux.".into();
        a2.meta.hash = "changed".into();
        index.apply(std::slice::from_ref(&a2), &[]).expect("apply");
        assert_eq!(index.len(), 2);
        assert!(keys(&index, "metal", &DocFilter::default()).is_empty());
        assert_eq!(keys(&index, "vulkan", &DocFilter::default()), vec![a.meta.key.clone()]);
        let all = index.all_keys().expect("all keys");
        assert_eq!(all.len(), 2);
        assert!(all.contains(&(a.meta.key.clone(), "changed".to_string())));
        assert!(all.contains(&(b.meta.key.clone(), b.meta.hash.clone())));

        // The same key twice in one batch: the last wins.
        let mut a3 = a.clone();
        a3.meta.hash = "third".into();
        index.apply(&[a2, a3], &[]).expect("apply");
        assert_eq!(index.len(), 2);
        assert!(index.all_keys().expect("keys").contains(&(a.meta.key.clone(), "third".into())));

        // Delete, including an absent key.
        index.apply(&[], &[&a.meta.key, "general/absent"]).expect("apply");
        assert_eq!(index.len(), 1);
        assert_eq!(index.all_keys().expect("keys"), [(b.meta.key.clone(), b.meta.hash.clone())]);
        assert!(keys(&index, "metal vulkan", &DocFilter::default()).is_empty());

        // An empty apply writes nothing and is fine.
        index.apply(&[], &[]).expect("empty apply");

        index.clear().expect("clear");
        assert_eq!(index.len(), 0);
        assert!(index.all_keys().expect("keys").is_empty());
    }

    /// Documents survive reopening; the directory is private.
    #[test]
    fn reopen_keeps_documents() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("text");
        let a = doc("GPU notes", "Prefer Metal.", &["gpu"], None);
        TextIndex::open(&path).expect("open").apply(std::slice::from_ref(&a), &[]).expect("apply");
        let index = TextIndex::open(&path).expect("reopen");
        assert_eq!(keys(&index, "metal", &DocFilter::default()), vec![a.meta.key]);
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&path).expect("metadata").permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }

    /// English analysis: stems, folded accents, tags and ids are searchable.
    #[test]
    fn stemming_stop_words_and_tags_are_searchable() {
        let (_dir, index) = open();
        let a = doc("Daily habit", "She runs every morning.", &["fitness"], None);
        let b = doc("Café review", "The espresso was bitter.", &["coffee-shops"], None);
        index.apply(&[a.clone(), b.clone()], &[]).expect("apply");
        assert_eq!(keys(&index, "running", &DocFilter::default()), vec![a.meta.key.clone()]);
        assert_eq!(keys(&index, "run", &DocFilter::default()), vec![a.meta.key.clone()]);
        assert_eq!(keys(&index, "cafe", &DocFilter::default()), vec![b.meta.key.clone()]);
        assert_eq!(keys(&index, "fitness", &DocFilter::default()), vec![a.meta.key.clone()]);
        assert_eq!(keys(&index, "coffee", &DocFilter::default()), vec![b.meta.key.clone()]);
        // By exact id.
        assert_eq!(keys(&index, &b.id, &DocFilter::default()), vec![b.meta.key.clone()]);
        // Stop words alone match nothing (and do not fail).
        assert!(keys(&index, "the", &DocFilter::default()).is_empty());
    }

    /// The title boost ranks a title match first.
    #[test]
    fn title_hit_ranks_above_content_hit() {
        let (_dir, index) = open();
        let title =
            doc("Tokio scheduling", "Notes on async runtimes and work stealing.", &[], None);
        let content = doc("Async notes", "Notes on tokio runtimes and work stealing.", &[], None);
        index.apply(&[content.clone(), title.clone()], &[]).expect("apply");
        let hits = index.search("tokio", &DocFilter::default(), 10).expect("search");
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].0, title.meta.key);
        assert!(hits[0].1 > hits[1].1, "{hits:?}");
    }

    /// Every filter condition, in search and `filter_keys`, agrees with `DocFilter::matches`.
    #[test]
    fn every_filter_kind() {
        let (_dir, index) = open();
        let t = |secs| chrono::Utc.timestamp_opt(secs, 0).single().expect("time");
        let default = Collection::default().to_string();
        let mut a = doc("alpha", "shared words here", &["x", "y"], Some("note"));
        let mut b = doc("beta", "shared words here", &["y"], Some("task"));
        let mut c = doc("gamma", "shared words here", &["z"], None);
        a.meta.collection = "work".into();
        a.meta.key = "work/alpha".into();
        b.meta.status = Status::Archived;
        (a.meta.created_at, a.meta.updated_at) = (t(1_000), t(5_000));
        (b.meta.created_at, b.meta.updated_at) = (t(2_000), t(6_000));
        (c.meta.created_at, c.meta.updated_at) = (t(3_000), t(7_000));
        // A time past tantivy's year-2262 limit must not overflow.
        c.meta.updated_at = chrono::Utc.with_ymd_and_hms(3000, 1, 1, 0, 0, 0).single().expect("t");
        index.apply(&[a.clone(), b.clone(), c.clone()], &[]).expect("apply");
        let (ka, kb, kc) = (a.meta.key.clone(), b.meta.key.clone(), c.meta.key.clone());

        let cases: Vec<(DocFilter, Vec<&String>)> = vec![
            (DocFilter::default(), vec![&ka, &kb, &kc]),
            (DocFilter { collections: vec!["work".into()], ..Default::default() }, vec![&ka]),
            (
                DocFilter {
                    collections: vec!["work".into(), default.clone()],
                    ..Default::default()
                },
                vec![&ka, &kb, &kc],
            ),
            (
                DocFilter { tags_any: vec!["x".into(), "z".into()], ..Default::default() },
                vec![&ka, &kc],
            ),
            (DocFilter { tags_all: vec!["x".into(), "y".into()], ..Default::default() }, vec![&ka]),
            (DocFilter { tags_all: vec!["y".into()], ..Default::default() }, vec![&ka, &kb]),
            (
                DocFilter { kinds: vec!["task".into(), "other".into()], ..Default::default() },
                vec![&kb],
            ),
            (DocFilter { statuses: vec![Status::Active], ..Default::default() }, vec![&ka, &kc]),
            (DocFilter { statuses: vec![Status::Archived], ..Default::default() }, vec![&kb]),
            (DocFilter { created_from: Some(t(2_000)), ..Default::default() }, vec![&kb, &kc]),
            (DocFilter { created_to: Some(t(2_000)), ..Default::default() }, vec![&ka]),
            (
                DocFilter {
                    created_from: Some(t(1_500)),
                    created_to: Some(t(3_000)),
                    ..Default::default()
                },
                vec![&kb],
            ),
            (
                DocFilter {
                    created_from: Some(t(1_000) + chrono::Duration::milliseconds(1)),
                    ..Default::default()
                },
                vec![&kb, &kc],
            ),
            (DocFilter { updated_from: Some(t(6_000)), ..Default::default() }, vec![&kb, &kc]),
            (DocFilter { updated_to: Some(t(6_000)), ..Default::default() }, vec![&ka]),
            (
                DocFilter {
                    tags_any: vec!["y".into()],
                    statuses: vec![Status::Active],
                    ..Default::default()
                },
                vec![&ka],
            ),
        ];
        let metas = [&a.meta, &b.meta, &c.meta];
        for (filter, expected) in cases {
            let mut expected: Vec<String> = expected.into_iter().cloned().collect();
            expected.sort();
            // The index agrees with `DocFilter::matches`.
            let mut by_matches: Vec<String> =
                metas.iter().filter(|m| filter.matches(m)).map(|m| m.key.clone()).collect();
            by_matches.sort();
            assert_eq!(by_matches, expected, "matches() for {filter:?}");
            assert_eq!(index.filter_keys(&filter).expect("filter keys"), expected, "{filter:?}");
            let mut found = keys(&index, "shared", &filter);
            found.sort();
            assert_eq!(found, expected, "search with {filter:?}");
        }
    }

    /// Filter clauses add nothing to BM25 scores.
    #[test]
    fn filters_do_not_change_scores() {
        let (_dir, index) = open();
        let a = doc("alpha", "tokio tokio runtime", &["x"], None);
        let b = doc("beta", "tokio runtime and more words", &["x"], None);
        index.apply(&[a, b], &[]).expect("apply");
        let plain = index.search("tokio", &DocFilter::default(), 10).expect("search");
        let filtered = index
            .search("tokio", &DocFilter { tags_any: vec!["x".into()], ..Default::default() }, 10)
            .expect("search");
        assert_eq!(plain, filtered);
    }

    /// Malformed and pathological query text neither fails nor overflows the stack.
    #[test]
    fn hostile_queries_do_not_fail() {
        let (_dir, index) = open();
        let a = doc("Quoted things", "AND OR NOT title: weird (stuff) here \"quoted\"", &[], None);
        index.apply(&[a], &[]).expect("apply");
        let deep = format!("{}x{}", "(".repeat(100_000), ")".repeat(3));
        let long = "word ".repeat(50_000);
        let hostile = [
            "\"unbalanced quote",
            "title:",
            ":",
            "::::",
            "AND",
            "OR OR AND NOT",
            "a AND",
            "NOT",
            "-",
            "+",
            "((((",
            "))))",
            "(a OR b",
            "🦀 rust 🚀",
            "🦀",
            "title:\"x",
            "nofield:value",
            "created:[2020 TO",
            "created:>2020",
            "updated:[a TO b]",
            "*",
            "a*",
            "~2",
            "word~",
            "\\",
            "[",
            "{}",
            "^2",
            "title:^",
            "IN [",
            "a:b:c:d",
            "'",
            "%s%n",
            "\u{0}",
            &deep,
            &long,
            &"NOT ".repeat(5_000),
            &"NOT (".repeat(5_000),
            &"(NOT ".repeat(5_000),
            &"a:".repeat(5_000),
            &"-(".repeat(5_000),
            &"+-".repeat(5_000),
            &"\"a\" ".repeat(5_000),
            &"a AND ".repeat(5_000),
            &"title:(".repeat(5_000),
        ];
        for text in hostile {
            let shown: String = text.chars().take(40).collect();
            index
                .search(text, &DocFilter::default(), 10)
                .unwrap_or_else(|e| panic!("query {shown:?} failed: {e}"));
        }
        assert_eq!(keys(&index, "\"quoted", &DocFilter::default()).len(), 1);
        let err = index.search("  \t\n", &DocFilter::default(), 10).expect_err("blank");
        assert_eq!(err.category(), crate::Category::Validation);
        assert!(index.search("quoted", &DocFilter::default(), 0).expect("limit 0").is_empty());
    }

    /// `tame` caps nesting, `NOT` runs and length.
    #[test]
    fn deep_nesting_is_flattened() {
        assert_eq!(tame("((a))"), "((a))");
        let deep = format!("{}a{}", "(".repeat(10), ")".repeat(10));
        let tamed = tame(&deep);
        assert_eq!(tamed.matches('(').count(), MAX_NESTING);
        assert_eq!(tamed.matches(')').count(), MAX_NESTING);
        assert_eq!(tame(&"é".repeat(MAX_QUERY_BYTES)).len(), MAX_QUERY_BYTES);
        assert_eq!(tame("a NOT NOT\tNOT  b NOT c"), "a NOT    b NOT c");
        assert_eq!(tame("NOTE NOT NOTHING"), "NOTE NOT NOTHING");
    }

    /// Garbage in `meta.json` is an index error; `create_fresh` recovers.
    #[test]
    fn damaged_index_is_an_index_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("text");
        let a = doc("GPU notes", "Prefer Metal.", &[], None);
        TextIndex::open(&path).expect("open").apply(std::slice::from_ref(&a), &[]).expect("apply");

        fs::write(path.join("meta.json"), b"\x00garbage{{{").expect("write");
        let err = TextIndex::open(&path).expect_err("damaged meta.json");
        assert_eq!(err.category(), crate::Category::Index);
        assert!(err.recovery().contains("reindex"), "{}", err.recovery());

        let index = TextIndex::create_fresh(&path).expect("create fresh");
        assert_eq!(index.len(), 0);
        index.apply(&[a], &[]).expect("apply after rebuild");
        assert_eq!(index.len(), 1);
    }

    /// Garbage segment files (a tantivy panic) are an index error.
    #[test]
    fn damaged_segment_files_are_an_index_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("text");
        let a = doc("GPU notes", "Prefer Metal.", &[], None);
        TextIndex::open(&path).expect("open").apply(&[a], &[]).expect("apply");
        for entry in fs::read_dir(&path).expect("read dir") {
            let entry = entry.expect("entry");
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.starts_with('.') && name != "meta.json" {
                fs::write(entry.path(), b"garbage").expect("write");
            }
        }
        let err = TextIndex::open(&path).expect_err("damaged segments");
        assert_eq!(err.category(), crate::Category::Index);
        assert!(err.recovery().contains("reindex"));
    }

    /// An index with another schema is an index error.
    #[test]
    fn other_schema_is_an_index_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut builder = Schema::builder();
        builder.add_text_field("something_else", STRING);
        Index::create_in_dir(dir.path(), builder.build()).expect("create");
        let err = TextIndex::open(dir.path()).expect_err("schema mismatch");
        assert_eq!(err.category(), crate::Category::Index);
        assert!(err.to_string().contains("another schema"), "{err}");
    }

    /// Two handles on one directory, as two processes would: both write, both see.
    #[test]
    fn two_handles_share_one_directory() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("text");
        let one = TextIndex::open(&path).expect("open one");
        let two = TextIndex::open(&path).expect("open two");
        let a = doc("From one", "written by the first process", &[], None);
        let b = doc("From two", "written by the second process", &[], None);
        one.apply(std::slice::from_ref(&a), &[]).expect("apply one");
        two.apply(std::slice::from_ref(&b), &[]).expect("apply two");
        assert_eq!(two.len(), 2, "a writer starts from the latest commit");
        assert_eq!(one.len(), 1, "not refreshed yet");
        one.refresh().expect("refresh");
        two.refresh().expect("refresh");
        assert_eq!(one.len(), 2);
        let mut found = keys(&one, "written", &DocFilter::default());
        found.sort();
        let mut expected = vec![a.meta.key.clone(), b.meta.key.clone()];
        expected.sort();
        assert_eq!(found, expected);

        // A writer held elsewhere makes apply wait, then succeed once it is released.
        let held = {
            let directory = tantivy::directory::MmapDirectory::open(&path).expect("dir");
            let index = Index::open(directory).expect("index");
            index.writer_with_num_threads::<TantivyDocument>(1, 15_000_000).expect("writer")
        };
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            drop(held);
        });
        let started = Instant::now();
        one.apply(&[], &[&a.meta.key]).expect("apply after waiting");
        assert!(started.elapsed() >= Duration::from_millis(250));
        release.join().expect("join");
        two.refresh().expect("refresh");
        assert_eq!(two.len(), 1);

        // Many commits from both handles: merges keep working, nothing is lost.
        for i in 0..12 {
            let mut d = doc(&format!("note {i}"), "merge test", &[], None);
            d.meta.key = format!("general/note-{i}");
            if i % 2 == 0 { &one } else { &two }.apply(&[d], &[]).expect("apply");
        }
        one.refresh().expect("refresh");
        two.refresh().expect("refresh");
        assert_eq!(one.len(), 13);
        assert_eq!(two.all_keys().expect("keys"), one.all_keys().expect("keys"));
    }

    /// With `MEMCORE_TEXT_CHILD=<dir>:<name>`, writes ten documents to the index in `<dir>`,
    /// one commit each (the other half of `processes_share_one_directory`); otherwise nothing.
    #[test]
    fn child_process_writer() {
        let Ok(spec) = std::env::var("MEMCORE_TEXT_CHILD") else { return };
        let (dir, name) = spec.rsplit_once(':').expect("dir:name");
        let index = TextIndex::open(Path::new(dir)).expect("open in child");
        for i in 0..10 {
            let mut d = doc(&format!("{name} {i}"), "written by a child process", &[], None);
            d.meta.key = format!("general/{name}-{i}");
            index.apply(&[d], &[]).expect("apply in child");
        }
    }

    /// Real processes writing one index at once: every document of every process is there.
    #[test]
    fn processes_share_one_directory() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("text");
        let index = TextIndex::open(&path).expect("open");
        let exe = std::env::current_exe().expect("test binary");
        let children: Vec<_> = ["first", "second"]
            .into_iter()
            .map(|name| {
                std::process::Command::new(&exe)
                    .args(["index::text::tests::child_process_writer", "--exact", "--quiet"])
                    .env("MEMCORE_TEXT_CHILD", format!("{}:{name}", path.display()))
                    .stdout(std::process::Stdio::null())
                    .spawn()
                    .expect("spawn child")
            })
            .collect();
        for i in 0..10 {
            let mut d = doc(&format!("parent {i}"), "written by the parent process", &[], None);
            d.meta.key = format!("general/parent-{i}");
            index.apply(&[d], &[]).expect("apply in parent");
        }
        for mut child in children {
            assert!(child.wait().expect("wait").success(), "a child failed");
        }
        index.refresh().expect("refresh");
        assert_eq!(index.len(), 30);
        assert_eq!(index.filter_keys(&DocFilter::default()).expect("keys").len(), 30);
        assert_eq!(keys(&index, "child", &DocFilter::default()).len(), 20);
        let reopened = TextIndex::open(&path).expect("reopen");
        assert_eq!(reopened.all_keys().expect("keys"), index.all_keys().expect("keys"));
    }

    /// Costs of the write path; run with `--ignored --nocapture`.
    #[test]
    #[ignore = "timing"]
    fn measure_costs() {
        let (_dir, index) = open();
        let docs: Vec<IndexDoc> = (0..10_000)
            .map(|i| {
                let mut d = doc(
                    &format!("Note {i}"),
                    &format!("Memory number {i} about gpu rust tokio metal and {}", i % 97),
                    &["bench", if i % 2 == 0 { "even" } else { "odd" }],
                    Some("note"),
                );
                d.meta.key = format!("general/note-{i}");
                d
            })
            .collect();
        let time = |label: &str, f: &mut dyn FnMut()| {
            let start = Instant::now();
            f();
            println!("{label}: {:?}", start.elapsed());
        };
        for i in 0..5 {
            time(&format!("writer open + 1 add + commit #{i}"), &mut || {
                index.apply(&docs[i..=i], &[]).expect("apply");
            });
        }
        time("1000 adds + commit", &mut || index.apply(&docs[..1000], &[]).expect("apply"));
        time("9000 adds + commit", &mut || index.apply(&docs[1000..], &[]).expect("apply"));
        for i in 0..3 {
            time(&format!("1 upsert into 10k #{i}"), &mut || {
                index.apply(&docs[i..=i], &[]).expect("apply");
            });
        }
        time("refresh, unchanged", &mut || index.refresh().expect("refresh"));
        time("search 'gpu tokio' top 10", &mut || {
            index.search("gpu tokio", &DocFilter::default(), 10).expect("search");
        });
        let even = DocFilter { tags_any: vec!["even".into()], ..Default::default() };
        time("search 'gpu tokio' tag filter top 10", &mut || {
            index.search("gpu tokio", &even, 10).expect("search");
        });
        time("filter_keys (5k of 10k)", &mut || {
            assert_eq!(index.filter_keys(&even).expect("keys").len(), 5_000);
        });
        time("all_keys (10k)", &mut || {
            assert_eq!(index.all_keys().expect("keys").len(), 10_000);
        });
        time("reopen", &mut || drop(TextIndex::open(&index.dir).expect("open")));
    }
}
