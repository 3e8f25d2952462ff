//! Searching memories; the engine is [`crate::search`].

use super::Memcore;
use crate::search::engine::{self, SearchContext};
use crate::{Query, Result, SearchResults};

impl Memcore {
    /// Searches the memories; see [`Query`].
    ///
    /// Without the embedding model, semantic and hybrid searches fall back to full text and
    /// say so in [`SearchResults::warnings`]. Index work the search had to do first (see
    /// [`crate::Maintenance`]) is listed in [`SearchResults::maintenance`].
    pub fn search(&self, query: &Query) -> Result<SearchResults> {
        let context = SearchContext {
            indexed: &self.indexed,
            cache: &self.query_cache,
            now: self.now(),
            decay: &self.config().decay,
            links: &self.config().links,
        };
        engine::search(&context, query)
    }
}
