//! [`Stats`]: what a store holds, counted in one scan (`memcore stats`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ops::ControlFlow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Memcore;
use crate::Result;
use crate::links::{GHOST_PREFIX, extract_links};

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
    /// The link graph.
    pub links: LinkStats,
}

/// The link graph in numbers (part of [`Stats`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct LinkStats {
    /// Links in all memories.
    pub links: usize,
    /// Memories with at least one link.
    pub linking_memories: usize,
    /// Distinct nodes linked (memories and ghost nodes).
    pub targets: usize,
    /// Of those, targets that are no memory (ghost nodes).
    pub ghosts: usize,
    /// Links per edge type.
    pub edge_types: BTreeMap<String, usize>,
    /// The most linked nodes (memories and `ghost:` nodes), most links first, at most 10.
    pub top_targets: Vec<TargetCount>,
}

/// A node and how many links reach it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct TargetCount {
    /// `collection/id` of a memory, or `ghost:<target>`.
    pub node: String,
    /// Links to it.
    pub links: usize,
}

/// How many nodes `top_targets` lists.
const TOP_TARGETS: usize = 10;

impl Memcore {
    /// Counts the memories of the store by collection and status, and its links by type and
    /// target, in one scan.
    pub fn stats(&self) -> Result<Stats> {
        let mut stats = Stats::default();
        let mut keys: HashSet<String> = HashSet::new();
        let mut ids: HashMap<String, String> = HashMap::new();
        let mut targets: HashMap<String, usize> = HashMap::new();
        for collection in self.collections()? {
            stats.collections.insert(collection.to_string(), 0);
        }
        self.indexed.store().scan(None, &mut |item| {
            match item {
                Ok(memory) => {
                    stats.memories += 1;
                    let links = extract_links(&memory.content, &self.config().links);
                    stats.links.links += links.len();
                    stats.links.linking_memories += usize::from(!links.is_empty());
                    for link in links {
                        *stats.links.edge_types.entry(link.edge_type).or_default() += 1;
                        *targets.entry(link.target).or_default() += 1;
                    }
                    let key = memory.reference().to_string();
                    // A bare id names the memory of the first collection by name holding it,
                    // as link resolution does.
                    let first = ids.entry(memory.id.to_string()).or_insert_with(|| key.clone());
                    if key < *first {
                        first.clone_from(&key);
                    }
                    keys.insert(key);
                    *stats.collections.entry(memory.collection.to_string()).or_default() += 1;
                    *stats.statuses.entry(memory.status.to_string()).or_default() += 1;
                }
                Err(_) => stats.unreadable += 1,
            }
            ControlFlow::Continue(())
        })?;
        // A target is a memory when it names one (`collection/id`, or an id), else a ghost.
        let mut nodes: HashMap<String, usize> = HashMap::new();
        for (target, count) in targets {
            let node = if keys.contains(&target) {
                target
            } else if let Some(key) = ids.get(&target) {
                key.clone()
            } else {
                stats.links.ghosts += 1;
                format!("{GHOST_PREFIX}{target}")
            };
            *nodes.entry(node).or_default() += count;
        }
        stats.links.targets = nodes.len();
        let mut top: Vec<TargetCount> =
            nodes.into_iter().map(|(node, links)| TargetCount { node, links }).collect();
        top.sort_by(|a, b| b.links.cmp(&a.links).then_with(|| a.node.cmp(&b.node)));
        top.truncate(TOP_TARGETS);
        stats.links.top_targets = top;
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
