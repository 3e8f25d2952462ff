//! What the full-text index makes of a search: user text tamed for tantivy's query parser,
//! and a [`DocFilter`] as one tantivy query.

use std::ops::Bound;

use tantivy::Term;
use tantivy::query::{BooleanQuery, Query, RangeQuery, TermQuery, TermSetQuery};
use tantivy::schema::{Field, IndexRecordOption};

use super::TextIndex;
use super::schema::tantivy_date;
use crate::index::DocFilter;
use crate::{Status, Timestamp};

/// The deepest parenthesis nesting passed to the query parser; deeper groups are flattened.
/// The parser recurses once per level (and once per `NOT` in a run of them): a few hundred
/// levels overflow a 2 MB thread stack, which aborts the process.
pub(super) const MAX_NESTING: usize = 8;

/// The longest query text passed to the query parser, in bytes; the rest is ignored.
pub(super) const MAX_QUERY_BYTES: usize = 8 * 1024;

impl TextIndex {
    /// `filter` without its status condition when no indexed document has a status outside it
    /// (the usual case: searches exclude archived and tombstoned memories, and most stores
    /// have none), decided from the term dictionary in microseconds.
    pub(super) fn effective_filter<'f>(
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
    pub(super) fn filter_query(&self, filter: &DocFilter) -> Option<Box<dyn Query>> {
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
        if let Some(keys) = &filter.keys {
            // An empty set lets nothing through: a term no document has.
            let mut terms: Vec<Term> =
                keys.iter().map(|k| Term::from_field_text(f.key, &k.to_string())).collect();
            if terms.is_empty() {
                terms.push(Term::from_field_text(f.key, ""));
            }
            clauses.push(Box::new(TermSetQuery::new(terms)));
        }
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
}

/// User text made safe for the query parser, whose recursion is otherwise unbounded: at most
/// [`MAX_QUERY_BYTES`], parentheses nested deeper than [`MAX_NESTING`] replaced by spaces,
/// and a run of `NOT` keywords cut to its first.
pub(crate) fn tame(text: &str) -> String {
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
