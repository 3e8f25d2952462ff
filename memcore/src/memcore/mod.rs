//! [`Memcore`], the one entry point: a store, its derived indexes and the engines over them.
//!
//! The handle is split by capability, one file each: opening ([`builder`]), writing
//! (`write.rs`), reading and listing (`read.rs`), history (`history.rs`), git
//! (`git.rs`), search (`search.rs`), the decay engine (`decay.rs`), the capture engine
//! (`capture.rs`), the link graph (`links.rs`), index maintenance (`maintain.rs`) and statistics (`stats.rs`). An engine adds its file here (its methods on `Memcore`), its request and
//! result records beside its code, and its operations to [`crate::api`]; every binding then
//! reaches it.

mod agents;
mod builder;
mod capture;
mod compact;
mod compose;
mod compositions;
mod decay;
mod docs;
mod docs_change;
mod git;
mod history;
mod links;
mod maintain;
mod project;
mod purge;
mod read;
mod recall;
mod retrieve;
mod search;
mod session_compose;
mod sessions;
mod stats;
mod tiers;
mod write;

use std::path::Path;
use std::sync::Arc;

pub use self::builder::MemcoreBuilder;
pub use self::read::{ListOptions, Listing};
pub use self::stats::{LinkStats, Stats, TargetCount};
use crate::config::{Config, Location};
use crate::indexed::{IndexedStore, Maintenance};
use crate::search::query_cache::QueryCache;
use crate::{Result, Timestamp};

/// A source of the current time; injectable so tests are exact.
pub type Clock = Arc<dyn Fn() -> Timestamp + Send + Sync>;

/// An open memory store with its engines. `Send + Sync`: share it across threads with an
/// `Arc`, every method takes `&self`.
///
/// Memories are named by a [`crate::MemoryRef`]: their id, or `collection/id` when the id is
/// not unique across collections (text is parsed as one).
///
/// ```
/// use memcore::{ListOptions, Memcore, MemoryUpdate, NewMemory};
///
/// let dir = tempfile::tempdir()?;
/// let memcore = Memcore::open(dir.path())?;
///
/// let stored = memcore.put(
///     NewMemory::new("# GPU Patterns\n\nPrefer Metal on Apple silicon.")
///         .collection("knowledge")
///         .tags(["gpu"]),
/// )?;
/// assert_eq!(stored.id.as_str(), "gpu-patterns");
///
/// memcore.update("knowledge/gpu-patterns", MemoryUpdate::new().tags(["perf"]).merge_tags(true))?;
/// let memory = memcore.get("gpu-patterns")?;
/// assert_eq!((memory.version, memory.tags.clone()), (2, vec!["gpu".into(), "perf".into()]));
///
/// let listing = memcore.list(&ListOptions::new().filter("tags=perf")?)?;
/// assert_eq!(listing.memories.len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Memcore {
    /// The store and its indexes, kept level by the write protocol.
    indexed: IndexedStore,
    /// Recent query embeddings.
    query_cache: QueryCache,
    /// Where the store is and its settings.
    location: Location,
    /// The time of writes and of the recency boost.
    clock: Clock,
    /// What opening had to do to the indexes.
    opened: Vec<Maintenance>,
    /// The summariser compressions use when asked for the callback (`None`: extractive).
    summarizer: parking_lot::RwLock<Option<Arc<dyn crate::session::Summarizer>>>,
    /// The project's manifest and the summariser it names.
    project: project::ProjectState,
}

impl std::fmt::Debug for Memcore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memcore")
            .field("store", &self.indexed.store())
            .field("location", &self.location)
            .finish()
    }
}

impl Memcore {
    /// A builder for the less common ways to open a store.
    pub fn builder() -> MemcoreBuilder {
        MemcoreBuilder::default()
    }

    /// Opens (creating if needed) the file store at `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::builder().path(path.as_ref()).open()
    }

    /// Where the store is and which settings it runs with.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The settings in force.
    pub fn config(&self) -> &Config {
        &self.location.config
    }

    /// The backend's short name: `file`, `git-notes`, or a custom store's.
    pub fn backend(&self) -> &'static str {
        self.indexed.store().backend()
    }

    /// What opening the store had to do to its indexes (rebuild a missing or damaged one,
    /// finish work a crashed writer left, bring in notes fetched from another clone); empty
    /// when they were in order.
    pub fn opened_with(&self) -> &[Maintenance] {
        &self.opened
    }

    /// The current time, by the handle's clock.
    fn now(&self) -> Timestamp {
        (self.clock)()
    }

    /// How long writers wait for a lock.
    fn lock_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.config().lock_timeout_ms)
    }
}
