//! Reading memories: get one, list many ([`ListOptions`], [`Listing`]), the collections.

use std::ops::ControlFlow;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Memcore;
use crate::error::{ErrorInfo, serialize_infos};
use crate::{Collection, Error, Filter, IntoMemoryRef, Memory, MemoryRef, MemorySummary, Result};

/// What [`Memcore::list`] returns: the memories that loaded, and the files that did not.
#[derive(Debug, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct Listing {
    /// Matching memories, sorted by collection then id.
    pub memories: Vec<MemorySummary>,
    /// One error per memory file that could not be read (each names its file); the listing
    /// is complete apart from these.
    #[serde(serialize_with = "serialize_infos")]
    #[schemars(with = "Vec<ErrorInfo>")]
    pub skipped: Vec<Error>,
}

/// Which memories [`Memcore::list`] returns. Its serde form is the list request of every
/// binding; every field is optional.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[must_use]
#[non_exhaustive]
pub struct ListOptions {
    /// Only this collection.
    pub collection: Option<String>,
    /// All of these filters must match.
    #[serde(deserialize_with = "crate::filter::deserialize_list")]
    #[schemars(schema_with = "crate::filter::list_schema")]
    pub filters: Vec<Filter>,
    /// Skip this many matches.
    pub offset: usize,
    /// Return at most this many.
    pub limit: Option<usize>,
}

impl ListOptions {
    /// All memories of all collections.
    pub fn new() -> Self {
        Self::default()
    }

    /// Only memories of `collection`.
    pub fn collection(mut self, collection: impl Into<String>) -> Self {
        self.collection = Some(collection.into());
        self
    }

    /// Adds a `key=value[,value...]` filter.
    pub fn filter(mut self, expr: &str) -> Result<Self> {
        self.filters.push(expr.parse()?);
        Ok(self)
    }

    /// Skips the first `offset` matches.
    pub fn offset(mut self, offset: usize) -> Self {
        self.offset = offset;
        self
    }

    /// Returns at most `limit` matches.
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }
}

impl Memcore {
    /// The memory `reference` names (`id` or `collection/id`).
    pub fn get(&self, reference: impl IntoMemoryRef) -> Result<Memory> {
        let reference = reference.into_memory_ref()?;
        match self.indexed.store().get(&reference) {
            Ok(memory) => Ok(Arc::unwrap_or_clone(memory)),
            Err(e @ Error::NotFound { .. }) => Err(self.demoted(&reference).unwrap_or(e)),
            Err(e) => Err(e),
        }
    }

    /// For a tiered store's memory that compaction moved to the cold tier: the not-found
    /// error that says so and how to read it there.
    fn demoted(&self, reference: &MemoryRef) -> Option<Error> {
        let tiers = self.tiers()?;
        reference.collection()?;
        let records = tiers.cold().demoted(reference).ok()?;
        let record = records.last()?;
        let digest =
            record.origin.as_ref().map(|d| format!(", summarised in {d}")).unwrap_or_default();
        Some(Error::not_found(
            format!(
                "memory {reference} in the warm tier (compaction moved it to the cold tier{digest})"
            ),
            format!(
                "read archive record {} (`ColdArchive::get`), or find it with recall or \
                 `memcore search --tier cold`",
                record.id
            ),
        ))
    }

    /// The store's collections.
    pub fn collections(&self) -> Result<Vec<Collection>> {
        self.indexed.store().collections()
    }

    /// The memories matching `options`, sorted by collection then id.
    pub fn list(&self, options: &ListOptions) -> Result<Listing> {
        let collection = options.collection.as_deref().map(Collection::new).transpose()?;
        let mut listing = Listing { memories: Vec::new(), skipped: Vec::new() };
        let mut to_skip = options.offset;
        let limit = options.limit.unwrap_or(usize::MAX);
        if limit == 0 {
            return Ok(listing);
        }
        self.indexed.store().scan(collection.as_ref(), &mut |item| {
            match item {
                Ok(memory) if options.filters.iter().all(|f| f.matches(&memory)) => {
                    if to_skip > 0 {
                        to_skip -= 1;
                    } else {
                        listing.memories.push(memory.summary_view());
                    }
                }
                Ok(_) => {}
                Err(e) => listing.skipped.push(e),
            }
            if listing.memories.len() >= limit {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })?;
        Ok(listing)
    }
}
