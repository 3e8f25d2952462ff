//! [`Stats`]: what a store holds, counted in one scan (`memcore stats`).

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Memcore;
use crate::Result;

/// Counts of the memories in a store, from [`Memcore::stats`].
///
/// ```
/// use memcore::{Memcore, NewMemory};
///
/// let dir = tempfile::tempdir()?;
/// let memcore = Memcore::open(dir.path())?;
/// memcore.put(NewMemory::new("Prefer Metal.").id("gpu").collection("knowledge"))?;
/// memcore.put(NewMemory::new("Basil, ricotta.").id("lasagna").collection("personal"))?;
/// let stats = memcore.stats()?;
/// assert_eq!(stats.memories, 2);
/// assert_eq!(stats.collections["knowledge"], 1);
/// assert_eq!(stats.statuses["active"], 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct Stats {
    /// Memories that could be read.
    pub memories: usize,
    /// Memories per collection, by name; every collection of the store appears, empty ones
    /// with 0.
    pub collections: BTreeMap<String, usize>,
    /// Memories per status (`active`, `resolved`, ...); only statuses in use appear.
    pub statuses: BTreeMap<String, usize>,
    /// Memory files that could not be read (`verify` and `list` name them).
    pub unreadable: usize,
}

impl Memcore {
    /// Counts the memories of the store by collection and status, in one scan.
    pub fn stats(&self) -> Result<Stats> {
        let mut stats = Stats::default();
        for collection in self.collections()? {
            stats.collections.insert(collection.to_string(), 0);
        }
        self.indexed.store().scan(None, &mut |item| {
            match item {
                Ok(memory) => {
                    stats.memories += 1;
                    *stats.collections.entry(memory.collection.to_string()).or_default() += 1;
                    *stats.statuses.entry(memory.status.to_string()).or_default() += 1;
                }
                Err(_) => stats.unreadable += 1,
            }
            ControlFlow::Continue(())
        })?;
        Ok(stats)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Memcore, MemoryUpdate, NewMemory, Status};

    #[test]
    fn counts_collections_statuses_and_unreadable_files() {
        let dir = tempfile::tempdir().unwrap();
        let memcore = Memcore::open(dir.path()).unwrap();
        assert_eq!(memcore.stats().unwrap(), super::Stats::default());
        memcore.put(NewMemory::new("a").id("a").collection("one")).unwrap();
        memcore.put(NewMemory::new("b").id("b").collection("one")).unwrap();
        memcore.put(NewMemory::new("c").id("c").collection("two")).unwrap();
        memcore.update("b", MemoryUpdate::new().status(Status::Resolved)).unwrap();
        std::fs::write(dir.path().join("two/broken.md"), "---\ntags: [\n---\nx").unwrap();
        std::fs::create_dir(dir.path().join("empty")).unwrap();

        let stats = memcore.stats().unwrap();
        assert_eq!(stats.memories, 3);
        assert_eq!(stats.unreadable, 1);
        let collections: Vec<_> = stats.collections.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(collections, [("empty", 0), ("one", 2), ("two", 1)]);
        let statuses: Vec<_> = stats.statuses.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        assert_eq!(statuses, [("active", 2), ("resolved", 1)]);
    }
}
