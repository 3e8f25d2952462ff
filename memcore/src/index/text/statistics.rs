//! BM25 statistics of some collections only. One store often holds several sources, each in
//! a collection (a conversation, a project, an agent's notes); a search restricted to some
//! of them should rank their memories as a store of their own would. With the whole index's
//! statistics, a word common in another collection counts for little here although it is
//! rare here, and the other way round (plain LoCoMo, five conversations in one store, each
//! question searched in its conversation's collection: hybrid R@10 0.791 against 0.802 in
//! separate stores, BENCHMARKS.md).

use tantivy::BitSet;
use tantivy::query::Bm25StatisticsProvider;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocSet, Searcher, TERMINATED, Term};

/// The statistics of the documents in some collections: how many there are and how many hold
/// each term are counted over them; the number of tokens of a field is the whole index's, in
/// proportion to their number (the average length of a field is taken to be alike across
/// collections).
pub(super) struct CollectionStatistics<'s> {
    /// The index as searched.
    searcher: &'s Searcher,
    /// Per segment, which of its live documents are in the collections.
    members: Vec<BitSet>,
    /// How many live documents are in the collections.
    docs: u64,
    /// How many live documents the index holds.
    all_docs: u64,
}

impl<'s> CollectionStatistics<'s> {
    /// The statistics of the documents whose `field` (the raw collection field) holds one of
    /// `collections`; `None` when none is given, when they hold no live document or all of
    /// them (the index's own statistics then are theirs), or when they cannot be read.
    pub(super) fn of(searcher: &'s Searcher, field: Field, collections: &[String]) -> Option<Self> {
        if collections.is_empty() {
            return None;
        }
        let mut members = Vec::with_capacity(searcher.segment_readers().len());
        let mut docs = 0u64;
        for segment in searcher.segment_readers() {
            let inverted = segment.inverted_index(field).ok()?;
            let mut in_collections = BitSet::with_max_value(segment.max_doc());
            for collection in collections {
                let term = Term::from_field_text(field, collection);
                let Some(mut postings) =
                    inverted.read_postings(&term, IndexRecordOption::Basic).ok()?
                else {
                    continue;
                };
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    if !segment.is_deleted(doc) && in_collections.insert(doc) {
                        docs += 1;
                    }
                    doc = postings.advance();
                }
            }
            members.push(in_collections);
        }
        let all_docs = searcher.num_docs();
        (docs > 0 && docs < all_docs).then_some(Self { searcher, members, docs, all_docs })
    }
}

impl Bm25StatisticsProvider for CollectionStatistics<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        let all = self.searcher.total_num_tokens(field)?;
        Ok(all * self.docs / self.all_docs.max(1))
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.docs)
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        let mut count = 0u64;
        for (segment, members) in self.searcher.segment_readers().iter().zip(&self.members) {
            let inverted = segment.inverted_index(term.field())?;
            let Some(mut postings) = inverted.read_postings(term, IndexRecordOption::Basic)? else {
                continue;
            };
            let mut doc = postings.doc();
            while doc != TERMINATED {
                count += u64::from(members.contains(doc));
                doc = postings.advance();
            }
        }
        Ok(count)
    }
}
