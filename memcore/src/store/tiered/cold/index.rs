//! The archive's own full-text index: a tantivy index of every record's text (English
//! analysis, BM25, as the warm tier's), its filters (session, agent, kind, time) and where
//! the record is (segment file and frame offset). It stores no text: a hit's record is read
//! from its frame.
//!
//! Each commit carries, as its payload, how far each segment is indexed (its byte length
//! then), so that frames appended by a writer that died before its commit are found and
//! indexed by the next writer, and the index always says exactly what it holds.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::path::{Path, PathBuf};

use tantivy::collector::{DocSetCollector, TopDocs};
use tantivy::directory::MmapDirectory;
use tantivy::indexer::{IndexWriterOptions, NoMergePolicy};
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, QueryParser, RangeQuery};
use tantivy::query::{TermQuery, TermSetQuery};
use tantivy::schema::{
    DateOptions, DateTimePrecision, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema,
    TextFieldIndexing, TextOptions, Value,
};
use tantivy::{DateTime, Index, IndexReader, IndexWriter, TantivyDocument, Term};

use super::record::{ArchivedKind, ArchivedRecord};
use crate::index::text::{ENGLISH, guarded, open_english, tame};
use crate::store::fsutil::remove_dir_if_present;
use crate::{Error, Result, Timestamp};

/// Which records a search of the archive considers. Empty lists and `None` bounds mean "no
/// condition".
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ArchiveFilter {
    /// Only records of these sessions.
    pub sessions: Vec<String>,
    /// Only records of these agents.
    pub agents: Vec<String>,
    /// Only records of these kinds.
    pub kinds: Vec<ArchivedKind>,
    /// Only records at or after this time.
    pub from: Option<Timestamp>,
    /// Only records before this time.
    pub to: Option<Timestamp>,
}

/// Where a record is: its segment file and the offset of its frame.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Location {
    /// The record's id.
    pub(super) id: String,
    /// The segment's file name.
    pub(super) segment: String,
    /// The frame's offset in it.
    pub(super) offset: u64,
}

/// How far each segment (by file name) is indexed: its length at the last commit.
pub(super) type Indexed = BTreeMap<String, u64>;

#[derive(Debug, Clone, Copy)]
struct Fields {
    id: Field,
    text: Field,
    session: Field,
    agent: Field,
    kind: Field,
    at: Field,
    segment: Field,
    offset: Field,
}

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let english = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(ENGLISH)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions),
    );
    let date = DateOptions::default()
        .set_indexed()
        .set_fast()
        .set_precision(DateTimePrecision::Microseconds);
    let fields = Fields {
        id: builder.add_text_field("id", STRING | STORED),
        text: builder.add_text_field("text", english),
        session: builder.add_text_field("session", STRING),
        agent: builder.add_text_field("agent", STRING),
        kind: builder.add_text_field("kind", STRING),
        at: builder.add_date_field("at", date),
        segment: builder.add_text_field("segment", STRING | STORED),
        offset: builder.add_u64_field("offset", INDEXED | STORED),
    };
    (builder.build(), fields)
}

/// The archive's index. `Send + Sync`; writes happen under the archive's lock.
pub(super) struct ArchiveIndex {
    dir: PathBuf,
    index: Index,
    reader: IndexReader,
    fields: Fields,
    parser: QueryParser,
}

impl std::fmt::Debug for ArchiveIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArchiveIndex").field("dir", &self.dir).finish_non_exhaustive()
    }
}

fn damaged(dir: &Path, e: impl std::fmt::Display) -> Error {
    Error::index(
        format!("the archive's full-text index in {} is damaged: {e}", dir.display()),
        None,
        "the archive's segments are intact: run `memcore repair` to rebuild its index from them",
    )
}

fn failed(doing: &str, e: tantivy::TantivyError) -> Error {
    Error::index(
        format!("{doing} failed: {e}"),
        Some(Box::new(e)),
        "retry; if it keeps failing, run `memcore repair` to rebuild the archive's index",
    )
}

/// `t` to the microsecond (the index's precision; records' years are 0 to 9999, which
/// tantivy's nanosecond dates hold).
fn tantivy_date(t: Timestamp) -> DateTime {
    DateTime::from_timestamp_micros(t.timestamp_micros())
}

impl ArchiveIndex {
    /// Opens the index in `dir`, creating an empty one if there is none; one that cannot be
    /// read is an [`Error::Index`] (rebuild it with [`ArchiveIndex::create_fresh`]).
    pub(super) fn open(dir: &Path) -> Result<Self> {
        crate::store::fsutil::create_private_dir_all(dir)?;
        guarded(dir, || {
            let directory = MmapDirectory::open(dir).map_err(|e| damaged(dir, e))?;
            let (schema, fields) = schema();
            let (index, reader) = open_english(directory, schema).map_err(|e| damaged(dir, e))?;
            let parser = QueryParser::for_index(&index, vec![fields.text]);
            Ok(Self { dir: dir.to_path_buf(), index, reader, fields, parser })
        })
    }

    /// Removes the index in `dir` (damaged or not) and opens a new, empty one.
    pub(super) fn create_fresh(dir: &Path) -> Result<Self> {
        remove_dir_if_present(dir, "the archive's index")?;
        Self::open(dir)
    }

    /// How far each segment is indexed, as of the last commit.
    pub(super) fn indexed(&self) -> Result<Indexed> {
        let metas = self.index.load_metas().map_err(|e| damaged(&self.dir, e))?;
        match metas.payload {
            None => Ok(Indexed::new()),
            Some(payload) => serde_json::from_str(&payload).map_err(|e| damaged(&self.dir, e)),
        }
    }

    /// A writer session; nothing is visible until [`ArchiveWriter::commit`]. A session
    /// that will `compact` merges no segments in the background: its own merge of the
    /// segments holding deleted entries must not meet one that took them already.
    pub(super) fn writer(&self, compact: bool) -> Result<ArchiveWriter<'_>> {
        let options = IndexWriterOptions::builder().num_worker_threads(1).build();
        let writer = guarded(&self.dir, || {
            let writer: IndexWriter = self
                .index
                .writer_with_options(options)
                .map_err(|e| failed("opening the archive index's writer", e))?;
            if compact {
                writer.set_merge_policy(Box::new(NoMergePolicy));
            }
            Ok(writer)
        })?;
        Ok(ArchiveWriter { index: self, writer, indexed: self.indexed()? })
    }

    /// Whether a segment of the index holds deleted entries (whose words its files keep
    /// until they are merged away).
    pub(super) fn holds_deleted(&self) -> Result<bool> {
        let metas = self.index.searchable_segment_metas().map_err(|e| damaged(&self.dir, e))?;
        Ok(metas.iter().any(|meta| meta.num_deleted_docs() > 0))
    }

    /// Reloads the reader when another commit (this process's or another's) happened.
    pub(super) fn refresh(&self) -> Result<()> {
        guarded(&self.dir, || self.reader.reload().map_err(|e| damaged(&self.dir, e)))
    }

    /// Where the record `id` is, if indexed.
    pub(super) fn locate(&self, id: &str) -> Result<Option<Location>> {
        let term = Term::from_field_text(self.fields.id, id);
        let query = TermQuery::new(term, IndexRecordOption::Basic);
        Ok(self.run(&query, 1)?.into_iter().next().map(|(location, _)| location))
    }

    /// The locations of every indexed record, by id.
    pub(super) fn all(&self) -> Result<Vec<Location>> {
        guarded(&self.dir, || {
            let searcher = self.reader.searcher();
            let mut out = Vec::new();
            for (ordinal, segment) in searcher.segment_readers().iter().enumerate() {
                let alive = segment.alive_bitset();
                for doc in 0..segment.max_doc() {
                    if alive.is_some_and(|bits| !bits.is_alive(doc)) {
                        continue;
                    }
                    let address = tantivy::DocAddress::new(ordinal as u32, doc);
                    out.push(self.location(&searcher, address)?);
                }
            }
            Ok(out)
        })
    }

    /// The locations of the records whose ids start with `prefix` (non-empty), in id order.
    pub(super) fn with_id_prefix(&self, prefix: &str) -> Result<Vec<Location>> {
        let Some(last) = prefix.chars().last() else { return Ok(Vec::new()) };
        // Every id with the prefix sorts before the prefix with its last character bumped.
        let Some(next) = char::from_u32(u32::from(last) + 1) else { return Ok(Vec::new()) };
        let upper = format!("{}{next}", &prefix[..prefix.len() - last.len_utf8()]);
        let query = RangeQuery::new(
            Bound::Included(Term::from_field_text(self.fields.id, prefix)),
            Bound::Excluded(Term::from_field_text(self.fields.id, &upper)),
        );
        guarded(&self.dir, || {
            let searcher = self.reader.searcher();
            let found = searcher
                .search(&query, &DocSetCollector)
                .map_err(|e| failed("searching the archive", e))?;
            let mut locations: Vec<Location> = found
                .into_iter()
                .map(|address| self.location(&searcher, address))
                .collect::<Result<_>>()?;
            locations.sort();
            Ok(locations)
        })
    }

    /// Every record `filter` lets through; a filter without conditions is an
    /// [`Error::Validation`] (it would name the whole archive).
    pub(super) fn matching(&self, filter: &ArchiveFilter) -> Result<Vec<Location>> {
        let query = self.filter_query(filter).ok_or_else(|| {
            Error::validation("no condition names the records", "name a session, agent or time")
        })?;
        guarded(&self.dir, || {
            let searcher = self.reader.searcher();
            let found = searcher
                .search(query.as_ref(), &DocSetCollector)
                .map_err(|e| failed("searching the archive", e))?;
            found.into_iter().map(|address| self.location(&searcher, address)).collect()
        })
    }

    /// Whether any file of the index holds `word` (analysed as text is) in its term
    /// dictionary, deleted entries included: what a purge must leave no trace of.
    #[cfg(test)]
    pub(super) fn holds_word(&self, word: &str) -> Result<bool> {
        let mut analyzer =
            self.index.tokenizer_for_field(self.fields.text).map_err(|e| damaged(&self.dir, e))?;
        let mut stream = analyzer.token_stream(word);
        let Some(token) = stream.next() else { return Ok(false) };
        let term = Term::from_field_text(self.fields.text, &token.text);
        let searcher = self.reader.searcher();
        for segment in searcher.segment_readers() {
            let postings =
                segment.inverted_index(self.fields.text).map_err(|e| damaged(&self.dir, e))?;
            if postings.doc_freq(&term).map_err(|e| damaged(&self.dir, e))? > 0 {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The best `limit` records for `text` among those `filter` lets through, with their
    /// BM25 scores, best first.
    pub(super) fn search(
        &self,
        text: &str,
        filter: &ArchiveFilter,
        limit: usize,
    ) -> Result<Vec<(Location, f32)>> {
        let (text_query, _ignored) = self.parser.parse_query_lenient(&tame(text));
        let query: Box<dyn Query> = match self.filter_query(filter) {
            Some(filter) => Box::new(BooleanQuery::new(vec![
                (Occur::Must, text_query),
                (Occur::Must, Box::new(ConstScoreQuery::new(filter, 0.0))),
            ])),
            None => text_query,
        };
        self.run(query.as_ref(), limit)
    }

    fn run(&self, query: &dyn Query, limit: usize) -> Result<Vec<(Location, f32)>> {
        guarded(&self.dir, || {
            let searcher = self.reader.searcher();
            let top = searcher
                .search(query, &TopDocs::with_limit(limit).order_by_score())
                .map_err(|e| failed("searching the archive", e))?;
            top.into_iter()
                .map(|(score, address)| Ok((self.location(&searcher, address)?, score)))
                .collect()
        })
    }

    fn location(
        &self,
        searcher: &tantivy::Searcher,
        address: tantivy::DocAddress,
    ) -> Result<Location> {
        let doc: TantivyDocument =
            searcher.doc(address).map_err(|e| failed("reading the archive index", e))?;
        let text = |field| doc.get_first(field).and_then(|v| v.as_str()).map(str::to_owned);
        let missing = || damaged(&self.dir, "an entry lacks its location");
        Ok(Location {
            id: text(self.fields.id).ok_or_else(missing)?,
            segment: text(self.fields.segment).ok_or_else(missing)?,
            offset: doc
                .get_first(self.fields.offset)
                .and_then(|v| v.as_u64())
                .ok_or_else(missing)?,
        })
    }

    fn filter_query(&self, filter: &ArchiveFilter) -> Option<Box<dyn Query>> {
        let f = &self.fields;
        let mut clauses: Vec<Box<dyn Query>> = Vec::new();
        let mut any_of = |field: Field, values: Vec<&str>| {
            if !values.is_empty() {
                let terms = values.into_iter().map(|v| Term::from_field_text(field, v));
                clauses.push(Box::new(TermSetQuery::new(terms)));
            }
        };
        any_of(f.session, filter.sessions.iter().map(String::as_str).collect());
        any_of(f.agent, filter.agents.iter().map(String::as_str).collect());
        any_of(f.kind, filter.kinds.iter().map(|k| k.as_str()).collect());
        if filter.from.is_some() || filter.to.is_some() {
            let bound = |t: Option<Timestamp>, make: fn(Term) -> Bound<Term>| {
                t.map_or(Bound::Unbounded, |t| make(Term::from_field_date(f.at, tantivy_date(t))))
            };
            clauses.push(Box::new(RangeQuery::new(
                bound(filter.from, Bound::Included),
                bound(filter.to, Bound::Excluded),
            )));
        }
        match clauses.len() {
            0 => None,
            1 => clauses.pop(),
            _ => Some(Box::new(BooleanQuery::intersection(clauses))),
        }
    }
}

/// One writer session of the archive's index.
pub(super) struct ArchiveWriter<'a> {
    index: &'a ArchiveIndex,
    writer: IndexWriter,
    /// How far each segment will be indexed once committed.
    indexed: Indexed,
}

impl ArchiveWriter<'_> {
    /// How far `segment` is indexed (with this session's changes).
    pub(super) fn indexed_len(&self, segment: &str) -> Option<u64> {
        self.indexed.get(segment).copied()
    }

    /// The segments the index knows.
    pub(super) fn segments(&self) -> Vec<String> {
        self.indexed.keys().cloned().collect()
    }

    /// Indexes `records`, all in the frame at `offset` of `segment`.
    pub(super) fn add(
        &mut self,
        segment: &str,
        offset: u64,
        records: &[ArchivedRecord],
    ) -> Result<()> {
        let f = self.index.fields;
        for record in records {
            let mut doc = TantivyDocument::default();
            doc.add_text(f.id, &record.id);
            doc.add_text(f.text, &record.text);
            if let Some(session) = &record.session {
                doc.add_text(f.session, session);
            }
            if let Some(agent) = &record.agent {
                doc.add_text(f.agent, agent);
            }
            doc.add_text(f.kind, record.kind.as_str());
            doc.add_date(f.at, tantivy_date(record.at));
            doc.add_text(f.segment, segment);
            doc.add_u64(f.offset, offset);
            self.writer.add_document(doc).map_err(|e| failed("indexing archive records", e))?;
        }
        Ok(())
    }

    /// Notes that `segment` is indexed up to `len` bytes.
    pub(super) fn mark(&mut self, segment: &str, len: u64) {
        self.indexed.insert(segment.to_owned(), len);
    }

    /// Removes every entry.
    pub(super) fn clear(&mut self) -> Result<()> {
        self.writer.delete_all_documents().map_err(|e| failed("clearing the archive index", e))?;
        self.indexed.clear();
        Ok(())
    }

    /// Removes every entry of `segment`.
    pub(super) fn forget(&mut self, segment: &str) {
        self.writer.delete_term(Term::from_field_text(self.index.fields.segment, segment));
        self.indexed.remove(segment);
    }

    /// Commits the session with how far each segment is indexed; when `compact`, then merges
    /// the index's segments that hold deleted entries, so that no file keeps their terms
    /// (purging), and removes the files no longer used.
    pub(super) fn commit(mut self, compact: bool) -> Result<()> {
        let dir = &self.index.dir;
        let payload = serde_json::to_string(&self.indexed).map_err(|e| damaged(dir, e))?;
        guarded(dir, || {
            let mut prepared =
                self.writer.prepare_commit().map_err(|e| failed("committing the archive", e))?;
            prepared.set_payload(&payload);
            prepared.commit().map_err(|e| failed("committing the archive", e))?;
            if compact {
                let with_deletes: Vec<_> = self
                    .index
                    .index
                    .searchable_segment_metas()
                    .map_err(|e| failed("compacting the archive index", e))?
                    .into_iter()
                    .filter(|meta| meta.num_deleted_docs() > 0)
                    .map(|meta| meta.id())
                    .collect();
                if !with_deletes.is_empty() {
                    self.writer
                        .merge(&with_deletes)
                        .wait()
                        .map_err(|e| failed("compacting the archive index", e))?;
                }
            }
            self.writer
                .garbage_collect_files()
                .wait()
                .map_err(|e| failed("removing unused archive index files", e))?;
            self.writer.wait_merging_threads().map_err(|e| failed("committing the archive", e))
        })?;
        self.index.refresh()
    }
}
