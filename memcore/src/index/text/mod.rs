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

pub(crate) mod errors;
mod names;
mod query;
mod schema;
mod statistics;
mod stop_words;
mod writer;

#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};

use parking_lot::Mutex;
use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::query::{
    AllQuery, BooleanQuery, ConstScoreQuery, Occur, Query, QueryParser, TermQuery, TermSetQuery,
};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::tokenizer::TokenizerManager;
use tantivy::{DocAddress, Index, IndexReader, ReloadPolicy, Searcher, TantivyDocument, Term};
use tantivy::{DocSet, TERMINATED};

pub(crate) use self::errors::guarded;
use self::errors::{REBUILD, damaged, failed};
pub(crate) use self::query::tame;
pub(crate) use self::schema::{ENGLISH, tokenizers};
use self::schema::{Fields, query_tokenizers, schema};
use self::schema::{QUESTION_SHARE_FIELD, TURN_FIELD};
use self::statistics::CollectionStatistics;
pub(crate) use self::writer::TextBatch;
use self::writer::{INIT_LOCK, InitLock, TANTIVY_LOCKS, WriterFileLock};
use super::unsynced_dir::UnsyncedDirectory;
use super::{Applied, DerivedIndex, DocFilter, IndexDoc, Staged, Unavailable};
use crate::{Error, MemoryRef, Result};

/// How much a title match weighs against a content match.
const TITLE_BOOST: f32 = 2.0;

/// How much a match in the context counts relative to the content.
const CONTEXT_BOOST: f32 = 0.5;

/// How much a match on the author (`created_by`) counts relative to the content: as if the
/// name were written in the memory. (A store with one author gives the name no weight at all:
/// BM25's idf of a term in every document is about zero.) On plain LoCoMo turns text R@5 goes
/// 0.462 -> 0.474 at 1.0; higher boosts score more there (0.487 at 2.0), where every question
/// names a speaker, but would let a name outweigh what a memory says.
const AUTHOR_BOOST: f32 = 1.0;

/// A conversation turn as the full-text index holds it ([`TextIndex::turns_of`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IndexedTurn {
    /// Its place ([`IndexDoc::turn_term`]): collection, session and turn number.
    pub(crate) place: String,
    /// The share of its words in questions ([`crate::text::question_share`]).
    pub(crate) question_share: f64,
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
    /// Parses user text over title (boosted), content, tags and id, without the words
    /// questions are made of (`stop_words`).
    parser: QueryParser,
    /// The same, keeping those words: for a search made only of them.
    parser_keeping_all: QueryParser,
    /// Serializes this handle's writers, so threads queue instead of polling the file lock.
    writing: Mutex<()>,
}

impl std::fmt::Debug for TextIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TextIndex").field("dir", &self.dir).finish_non_exhaustive()
    }
}

/// The index in `directory` (created with `schema` when there is none) with memcore's
/// tokenizers, and a reader reloaded only when told ([`ReloadPolicy::Manual`]).
pub(crate) fn open_english(
    directory: impl Into<Box<dyn tantivy::Directory>>,
    schema: tantivy::schema::Schema,
) -> tantivy::Result<(Index, IndexReader)> {
    let index =
        Index::builder().schema(schema).tokenizers(tokenizers()).open_or_create(directory)?;
    let reader = index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into()?;
    Ok((index, reader))
}

/// A parser of user text over title (boosted), content, context (half weight), summary,
/// author, tags and id, analysed by `tokenizers`.
fn text_parser(index: &Index, fields: &Fields, tokenizers: TokenizerManager) -> QueryParser {
    let searched = vec![
        fields.title,
        fields.content,
        fields.context,
        fields.summary,
        fields.author,
        fields.tags_text,
        fields.id,
    ];
    let mut parser = QueryParser::new(index.schema(), searched, tokenizers);
    parser.set_field_boost(fields.title, TITLE_BOOST);
    parser.set_field_boost(fields.context, CONTEXT_BOOST);
    parser.set_field_boost(fields.author, AUTHOR_BOOST);
    parser
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
        let (index, reader) = open_english(directory, schema).map_err(|e| damaged(dir, e))?;
        let parser = text_parser(&index, &fields, query_tokenizers());
        let parser_keeping_all = text_parser(&index, &fields, index.tokenizers().clone());
        let writing = Mutex::new(());
        Ok(Self {
            dir: dir.to_path_buf(),
            index,
            reader,
            fields,
            parser,
            parser_keeping_all,
            writing,
        })
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
    pub(crate) fn apply(&self, upserts: &[IndexDoc], deletes: &[MemoryRef]) -> Result<()> {
        if upserts.is_empty() && deletes.is_empty() {
            return Ok(());
        }
        let mut batch = self.batch()?;
        batch.apply(upserts, deletes)?;
        batch.commit()
    }

    /// Leaves no file holding the words of deleted documents: the segments holding any are
    /// rewritten without them, the reader moves to the new ones, and the old files are
    /// removed (purge).
    pub(crate) fn compact_deleted(&self) -> Result<()> {
        let mut batch = self.batch()?;
        batch.merge_deleted()?;
        batch.commit()?;
        self.collect_garbage()
    }

    /// Removes the files no commit uses any more (searchers still open keep their maps of
    /// them), and syncs the directory so that the removals survive a power cut.
    fn collect_garbage(&self) -> Result<()> {
        let batch = self.batch()?;
        let result = guarded(&self.dir, || {
            batch
                .writer
                .garbage_collect_files()
                .wait()
                .map_err(|e| failed("removing unused full-text index files", e))
        })?;
        if let Some(file) = result.failed_to_delete_files.first() {
            return Err(Error::io(
                format!("removing {} from the full-text index", file.display()),
                std::io::Error::other("tantivy could not delete it"),
            ));
        }
        crate::store::fsutil::sync_dir(&self.dir)
    }

    /// Opens a writer session whose changes stay invisible until [`TextBatch::commit`] (and
    /// are discarded if the batch is dropped), so a caller can index while it writes the
    /// store and publish once the store write is durable. Other writers of this handle wait
    /// for the batch to end.
    pub(crate) fn batch(&self) -> Result<TextBatch<'_>> {
        let writing = self.writing.lock();
        let (writer, committed) = guarded(&self.dir, || {
            let writer = self.writer()?;
            // The writer's lock keeps other processes from committing: a reader level with the
            // index now sees every document this batch could replace.
            let committed = self.refresh_unguarded().ok().map(|()| self.reader.searcher());
            Ok((writer, committed))
        })?;
        Ok(TextBatch { index: self, _writing: writing, writer, committed, added: HashSet::new() })
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
    ) -> Result<Vec<(MemoryRef, f32)>> {
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
    ) -> Result<Vec<(MemoryRef, f32)>> {
        let searcher = self.reader.searcher();
        let text = self.with_authors_named(&searcher, text);
        let text = tame(&text);
        let (mut text_query, _ignored) = self.parser.parse_query_lenient(&text);
        // The id field is not analysed: every word is a term of it.
        let mut searches_a_word = false;
        text_query.query_terms(&mut |term, _| searches_a_word |= term.field() != self.fields.id);
        if !searches_a_word {
            // Only words questions are made of ("what was it?"): search for them after all.
            text_query = self.parser_keeping_all.parse_query_lenient(&text).0;
        }
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
        let top = TopDocs::with_limit(limit).order_by_score();
        // A search in some collections ranks with their statistics, as in a store of their own.
        let top = match CollectionStatistics::of(
            &searcher,
            self.fields.collection,
            &filter.collections,
        ) {
            Some(statistics) => searcher.search_with_statistics_provider(&query, &top, &statistics),
            None => searcher.search(&query, &top),
        }
        .map_err(|e| failed("searching the full-text index", e))?;
        let mut hits = top
            .into_iter()
            .map(|(score, address)| Ok((self.stored_key(&searcher, address)?, score)))
            .collect::<Result<Vec<_>>>()?;
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        Ok(hits)
    }

    /// The keys of the `limit` most recently updated documents `filter` lets through (only
    /// pinned ones when `pinned_only`), newest first, ties by key: what composition's working
    /// memory reads without touching the store.
    pub(crate) fn recent(
        &self,
        filter: &DocFilter,
        pinned_only: bool,
        limit: usize,
    ) -> Result<Vec<MemoryRef>> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        guarded(&self.dir, || {
            let mut clauses: Vec<Box<dyn Query>> = Vec::new();
            clauses.extend(self.filter_query(filter));
            if pinned_only {
                let term = Term::from_field_text(self.fields.pinned, schema::PINNED);
                clauses.push(Box::new(TermQuery::new(term, IndexRecordOption::Basic)));
            }
            let query: Box<dyn Query> = match clauses.len() {
                0 => Box::new(AllQuery),
                1 => clauses.remove(0),
                _ => Box::new(BooleanQuery::intersection(clauses)),
            };
            let searcher = self.reader.searcher();
            let collector = TopDocs::with_limit(limit)
                .order_by_fast_field::<tantivy::DateTime>("updated", tantivy::Order::Desc);
            let top = searcher
                .search(query.as_ref(), &collector)
                .map_err(|e| failed("listing recent memories in the full-text index", e))?;
            let mut keyed = top
                .into_iter()
                .map(|(updated, address)| Ok((updated, self.stored_key(&searcher, address)?)))
                .collect::<Result<Vec<_>>>()?;
            keyed.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            Ok(keyed.into_iter().map(|(_, key)| key).collect())
        })
    }

    /// The keys of all documents `filter` lets through (all keys for an empty filter), sorted;
    /// used to restrict vector search.
    #[cfg(test)]
    pub(crate) fn filter_keys(&self, filter: &DocFilter) -> Result<Vec<MemoryRef>> {
        let query = self.filter_query(filter).unwrap_or_else(|| Box::new(AllQuery));
        let mut keys =
            self.collect(query.as_ref())?.into_iter().map(|(key, _)| key).collect::<Vec<_>>();
        keys.sort_unstable();
        Ok(keys)
    }

    /// The content hashes of those of `keys` the index holds.
    pub(crate) fn hashes_of(&self, keys: &[MemoryRef]) -> Result<HashMap<MemoryRef, String>> {
        let terms = keys.iter().map(|key| Term::from_field_text(self.fields.key, &key.to_string()));
        let query = TermSetQuery::new(terms.collect::<Vec<_>>());
        Ok(self.collect(&query)?.into_iter().collect())
    }

    /// The keys of the documents whose id is `id`, in any collection.
    pub(crate) fn keys_with_id(&self, id: &crate::MemoryId) -> Result<Vec<MemoryRef>> {
        self.keys_with(self.fields.id, id.as_str())
    }

    /// The keys of the documents whose conversation place is `term` ([`IndexDoc::turn_term`]).
    pub(crate) fn keys_with_turn(&self, term: &str) -> Result<Vec<MemoryRef>> {
        self.keys_with(self.fields.turn, term)
    }

    /// The keys of the documents holding the raw term `text` in `field`.
    fn keys_with(&self, field: tantivy::schema::Field, text: &str) -> Result<Vec<MemoryRef>> {
        let query = TermQuery::new(Term::from_field_text(field, text), IndexRecordOption::Basic);
        Ok(self.collect(&query)?.into_iter().map(|(key, _)| key).collect())
    }

    /// Those of `keys` that are conversation turns, with their places
    /// ([`IndexDoc::turn_term`]) and how much they ask: each key's live document found in the
    /// term dictionary, the rest read from fast columns (no stored document is
    /// decompressed). Empty at once when no segment holds a turn.
    pub(crate) fn turns_of(&self, keys: &[MemoryRef]) -> Result<HashMap<MemoryRef, IndexedTurn>> {
        guarded(&self.dir, || {
            let searcher = self.reader.searcher();
            let read = |e: std::io::Error| Error::io(format!("reading {}", self.dir.display()), e);
            let mut segments = Vec::new();
            for segment in searcher.segment_readers() {
                let fast = segment.fast_fields();
                let turns = fast.str(TURN_FIELD).map_err(|e| damaged(&self.dir, e))?;
                if let Some(turns) = turns.filter(|column| column.num_terms() > 0) {
                    let keys = segment.inverted_index(self.fields.key);
                    let asks = fast.f64(QUESTION_SHARE_FIELD).map_err(|e| damaged(&self.dir, e))?;
                    segments.push((segment, keys.map_err(|e| damaged(&self.dir, e))?, turns, asks));
                }
            }
            let mut found = HashMap::new();
            if segments.is_empty() {
                return Ok(found);
            }
            for key in keys {
                let term = Term::from_field_text(self.fields.key, &key.to_string());
                for (segment, inverted, turns, asks) in &segments {
                    let Some(mut postings) =
                        inverted.read_postings(&term, IndexRecordOption::Basic).map_err(read)?
                    else {
                        continue;
                    };
                    let mut doc = postings.doc();
                    while doc != TERMINATED && segment.is_deleted(doc) {
                        doc = postings.advance();
                    }
                    let mut place = String::new();
                    if doc != TERMINATED
                        && let Some(ord) = turns.term_ords(doc).next()
                        && turns.ord_to_str(ord, &mut place).map_err(read)?
                    {
                        let question_share = asks.first(doc).unwrap_or(0.0);
                        found.insert(key.clone(), IndexedTurn { place, question_share });
                        break;
                    }
                }
            }
            Ok(found)
        })
    }

    /// The `link_edge` terms starting with `prefix` that a live document holds, in term order
    /// (see `crate::links::term`): a range scan of each segment's term dictionary, with the
    /// postings checked only to skip deleted documents.
    pub(crate) fn link_terms(&self, prefix: &str) -> Result<Vec<String>> {
        guarded(&self.dir, || self.live_terms(self.fields.link_edge, prefix))
    }

    /// Whether a live document has the key `key`: one term-dictionary lookup per segment, no
    /// stored document read (what link resolution asks for every `collection/id` target).
    pub(crate) fn has_key(&self, key: &MemoryRef) -> Result<bool> {
        let key = key.to_string();
        let terms = guarded(&self.dir, || self.live_terms(self.fields.key, &key))?;
        Ok(terms.contains(&key))
    }

    /// The terms of `field` starting with `prefix` that a live document holds, sorted.
    fn live_terms(&self, field: tantivy::schema::Field, prefix: &str) -> Result<Vec<String>> {
        let searcher = self.reader.searcher();
        let read = |e: std::io::Error| Error::io(format!("reading {}", self.dir.display()), e);
        let mut upper = prefix.as_bytes().to_vec();
        // The first byte string after every string starting with `prefix` (none for "").
        let upper = loop {
            match upper.pop() {
                None => break None,
                Some(0xff) => {}
                Some(last) => {
                    upper.push(last + 1);
                    break Some(upper);
                }
            }
        };
        let mut terms = Vec::new();
        for segment in searcher.segment_readers() {
            let inverted = segment.inverted_index(field).map_err(|e| damaged(&self.dir, e))?;
            let mut range = inverted.terms().range().ge(prefix.as_bytes());
            if let Some(upper) = &upper {
                range = range.lt(upper);
            }
            let mut stream = range.into_stream().map_err(read)?;
            while stream.advance() {
                let mut postings = inverted
                    .read_postings_from_terminfo(stream.value(), IndexRecordOption::Basic)
                    .map_err(read)?;
                let mut doc = postings.doc();
                while doc != TERMINATED && segment.is_deleted(doc) {
                    doc = postings.advance();
                }
                if doc != TERMINATED
                    && let Ok(term) = std::str::from_utf8(stream.key())
                {
                    terms.push(term.to_owned());
                }
            }
        }
        terms.sort_unstable();
        terms.dedup();
        Ok(terms)
    }

    /// Every `(key, content hash)` in the index, sorted by key.
    #[cfg(test)]
    pub(crate) fn all_keys(&self) -> Result<Vec<(MemoryRef, String)>> {
        let mut pairs = self.collect(&AllQuery)?;
        pairs.sort_unstable();
        Ok(pairs)
    }

    /// The number of live documents (as of the last reload): the store's size, without
    /// reading it.
    pub(crate) fn live_count(&self) -> usize {
        usize::try_from(self.reader.searcher().num_docs()).unwrap_or(usize::MAX)
    }

    /// The stored `(key, hash)` of every document matching `query`.
    fn collect(&self, query: &dyn Query) -> Result<Vec<(MemoryRef, String)>> {
        guarded(&self.dir, || self.collect_unguarded(query))
    }

    /// [`TextIndex::collect`] without the panic guard.
    fn collect_unguarded(&self, query: &dyn Query) -> Result<Vec<(MemoryRef, String)>> {
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
    fn stored(&self, searcher: &Searcher, address: DocAddress) -> Result<(MemoryRef, String)> {
        let doc = self.doc(searcher, address)?;
        let hash = doc.get_first(self.fields.hash).and_then(|value| value.as_str());
        match hash {
            Some(hash) => Ok((self.key_of(&doc)?, hash.to_owned())),
            None => Err(self.invalid_document()),
        }
    }

    /// The stored key of one document (all a search needs).
    fn stored_key(&self, searcher: &Searcher, address: DocAddress) -> Result<MemoryRef> {
        self.key_of(&self.doc(searcher, address)?)
    }

    /// The stored document at `address`.
    fn doc(&self, searcher: &Searcher, address: DocAddress) -> Result<TantivyDocument> {
        searcher.doc(address).map_err(|e| damaged(&self.dir, e))
    }

    /// The `collection/id` key of `doc`.
    fn key_of(&self, doc: &TantivyDocument) -> Result<MemoryRef> {
        let key = doc.get_first(self.fields.key).and_then(|value| value.as_str());
        match key.and_then(|key| key.parse::<MemoryRef>().ok()) {
            Some(key) if key.is_qualified() => Ok(key),
            _ => Err(self.invalid_document()),
        }
    }

    /// The error for a document without a valid key or hash: the index is damaged.
    fn invalid_document(&self) -> Error {
        Error::index(
            format!(
                "the full-text index in {} has a document without a valid key or hash",
                self.dir.display()
            ),
            None,
            REBUILD,
        )
    }
}

impl DerivedIndex for TextIndex {
    fn name(&self) -> &'static str {
        "text"
    }

    fn ready(&self) -> std::result::Result<(), Unavailable> {
        Ok(())
    }

    fn stage<'a>(&'a self, docs: &[IndexDoc]) -> Box<dyn Staged + 'a> {
        let batch = self.batch().and_then(|mut batch| {
            batch.apply(docs, &[])?;
            Ok(batch)
        });
        Box::new(StagedText { batch })
    }

    fn apply(&self, upserts: &[IndexDoc], removed: &[MemoryRef]) -> Result<Applied> {
        TextIndex::apply(self, upserts, removed)?;
        Ok(Applied::Done)
    }

    fn clear(&self) -> Result<()> {
        TextIndex::clear(self)
    }

    fn hashes(&self) -> Result<HashMap<MemoryRef, String>> {
        Ok(self.collect(&AllQuery)?.into_iter().collect())
    }

    fn refresh(&self) -> Result<()> {
        TextIndex::refresh(self)
    }
}

/// Full-text entries added to an uncommitted writer.
struct StagedText<'a> {
    /// The writer session holding them, or why it could not be opened.
    batch: Result<TextBatch<'a>>,
}

impl Staged for StagedText<'_> {
    fn publish(
        self: Box<Self>,
        docs: &[IndexDoc],
        changed: &[usize],
        replaced: &[MemoryRef],
    ) -> Result<Applied> {
        let mut batch = self.batch?;
        let rebuilt: Vec<IndexDoc> = changed.iter().map(|&i| docs[i].clone()).collect();
        batch.apply(&rebuilt, replaced)?;
        batch.commit()?;
        Ok(Applied::Done)
    }
}
