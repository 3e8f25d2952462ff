//! Searching memories; the engine is [`crate::search`].

use super::Memcore;
use crate::search::engine::{self, SearchContext};
use crate::{Maintenance, Query, Result, SearchResults};

impl Memcore {
    /// Searches the memories; see [`Query`].
    ///
    /// Without the embedding model, semantic and hybrid searches fall back to full text and
    /// say so in [`SearchResults::warnings`]. Index work the search had to do first (see
    /// [`crate::Maintenance`]) is listed in [`SearchResults::maintenance`].
    ///
    /// A store told of other processes' writes (PostgreSQL) is synced first.
    pub fn search(&self, query: &Query) -> Result<SearchResults> {
        let synced = self.follow_store()?;
        let context = SearchContext {
            indexed: &self.indexed,
            cache: &self.query_cache,
            now: self.now(),
            decay: &self.config().decay,
            links: &self.config().links,
        };
        let mut results = engine::search(&context, query)?;
        results.maintenance.extend(synced);
        Ok(results)
    }

    /// Syncs the indexes when the store's change feed has news of other processes' writes;
    /// what the sync did, if anything.
    fn follow_store(&self) -> Result<Option<Maintenance>> {
        let store = self.indexed.store();
        if !store.change_feed().is_some_and(|feed| feed.has_news()) {
            return Ok(None);
        }
        let report = self.sync()?;
        Ok((report.synced > 0)
            .then_some(Maintenance::Synced { memories: report.synced, full: report.full }))
    }
}
