//! The link graph on a store ([`crate::links`]): a memory's links, the backlinks of a memory
//! or ghost node, appending to a memory, and merging memories (crash-safe: an interrupted
//! merge is finished the next time the store is opened).

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::Memcore;
use crate::api::MemoryRecord;
use crate::hex::hex;
use crate::links::merge::{merged_content, repoint};
use crate::links::{LinkEdge, MergeRequest, MergeResult, extract_links, graph};
use crate::store::PutMode;
use crate::store::fsutil::{create_private_dir_all, sync_dir};
use crate::{Error, IntoMemoryRef, Memory, MemoryRef, MemoryUpdate, NewMemory, Result, TrashEntry};

/// How often an append is retried when another writer changed the memory meanwhile.
const APPEND_ATTEMPTS: usize = 5;
/// The metadata key naming a merged memory's sources.
const MERGED_FROM: &str = "merged_from";
/// The directory (in the store's private directory) holding the records of merges under way.
const MERGES_DIR: &str = "merges";

/// A merge under way, recorded (and locked by the merging process) before anything is
/// written, so that a crash can be finished or undone by the next open.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct MergeIntent {
    /// The merged memory.
    into: MemoryRef,
    /// The sources, qualified.
    sources: Vec<MemoryRef>,
    /// The version of each source that was merged: a source changed since is kept.
    versions: Vec<u64>,
}

/// A merge record on disk, locked while its merge runs.
struct IntentFile {
    /// Where it is.
    path: PathBuf,
    /// The open file, holding the lock.
    file: File,
}

impl IntentFile {
    /// Creates a new record of `intent` in `dir` (a name no other merge has), locks it and
    /// writes it durably.
    fn create(dir: &Path, intent: &MergeIntent) -> Result<Self> {
        create_private_dir_all(dir)?;
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let name = format!(
            "{}-{}-{nanos}.json",
            hex(intent.into.to_string().as_bytes()),
            std::process::id()
        );
        let path = dir.join(name);
        let failed = |e| Error::io(format!("recording the merge in {}", path.display()), e);
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .map_err(failed)?;
        file.lock().map_err(failed)?;
        let bytes = serde_json::to_vec(intent).map_err(|e| {
            Error::index("cannot record the merge", Some(Box::new(e)), "report this as a bug")
        })?;
        file.write_all(&bytes).and_then(|()| file.sync_all()).map_err(failed)?;
        sync_dir(dir)?;
        Ok(Self { path, file })
    }

    /// The merge is over (done or undone): the record goes, then its lock.
    fn remove(self) {
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

impl MergeIntent {
    /// Whether `memory` is the merged memory of this merge (not one another writer made).
    fn made(&self, memory: &Memory) -> bool {
        let sources: Vec<String> = self.sources.iter().map(ToString::to_string).collect();
        memory.metadata.get(MERGED_FROM) == Some(&serde_json::json!(sources))
    }

    /// How links may name the sources: `collection/id` and the bare id.
    fn source_targets(&self) -> Vec<String> {
        let mut names = Vec::new();
        for source in &self.sources {
            for name in [source.to_string(), source.id().to_string()] {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        names
    }
}

impl Memcore {
    /// The links of the memory `reference` names, in content order, each with its node (the
    /// memory its target names, else `ghost:<target>`), edge type and anchor context.
    ///
    /// ```
    /// use memcore::{Memcore, NewMemory};
    ///
    /// let dir = tempfile::tempdir()?;
    /// let memcore = Memcore::open(dir.path())?;
    /// memcore.put(NewMemory::new("Prefer Metal.").id("gpu"))?;
    /// memcore.put(NewMemory::new("We will refactor [[src/server.py]]; see [[gpu]].").id("plan"))?;
    /// let links = memcore.links("plan")?;
    /// assert_eq!((links[0].node.as_str(), links[0].edge_type.as_str()), ("ghost:src/server.py", "refactors"));
    /// assert_eq!((links[1].node.as_str(), links[1].ghost), ("memory/gpu", false));
    /// assert_eq!(memcore.backlinks("ghost:src/server.py")?[0].source.to_string(), "memory/plan");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn links(&self, reference: impl IntoMemoryRef) -> Result<Vec<LinkEdge>> {
        let memory = self.get(reference)?;
        let source = memory.reference();
        let text = &self.indexed.indexes().text;
        self.indexed.refresh()?;
        extract_links(&memory.content, &self.config().links)
            .into_iter()
            .map(|link| {
                let resolved = graph::resolve(text, &link.target)?;
                Ok(graph::edge(&source, link, resolved.as_ref()))
            })
            .collect()
    }

    /// Every link into `target`: a memory (`collection/id` or its id; links naming it either
    /// way count), a ghost node (`ghost:src/server.py`) or a target as links write it. Sorted
    /// by source, then position. A target nothing links to has no backlinks (not an error).
    pub fn backlinks(&self, target: &str) -> Result<Vec<LinkEdge>> {
        self.indexed.refresh()?;
        graph::backlinks(&self.indexed.indexes().text, target, &self.config().links)
    }

    /// Adds `text` to the end of a memory, after a blank line: a new version, its links
    /// re-indexed (seed 001's `append_memory`). Blank text is a validation error.
    pub fn append(&self, reference: impl IntoMemoryRef, text: &str) -> Result<Memory> {
        if text.trim().is_empty() {
            return Err(Error::validation(
                "nothing to append: the text is blank",
                "give the markdown to add to the memory",
            ));
        }
        let reference = reference.into_memory_ref()?;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let memory = self.get(&reference)?;
            let content = format!("{}\n\n{}\n", memory.content.trim_end(), text.trim());
            let change = MemoryUpdate::new().content(content).expected_version(memory.version);
            match self.indexed.update(&memory.reference(), &change, self.now()) {
                Err(Error::Conflict { .. }) if attempt < APPEND_ATTEMPTS => {}
                written => return written,
            }
        }
    }

    /// Merges memories into a new one (seed 001's `merge_memories`): the summary, then each
    /// source's content under a `## <title>` heading; tags united; the type kept when all
    /// sources share it; links to a source (in other memories and in the sources) re-pointed
    /// to the merged memory; the sources moved to the trash.
    ///
    /// All or nothing: the merge is recorded (and locked) before anything is written, and a
    /// merge cut short (a crash, a failing disk) is finished by the next merge or the next
    /// open of the store, so no source survives beside the merged memory and none is lost (a
    /// source changed by another writer after it was read is kept, not trashed). Merging a memory into
    /// itself, a source named twice, a source that does not exist or an `into` that exists
    /// already are errors, with nothing written.
    pub fn merge(&self, request: &MergeRequest) -> Result<MergeResult> {
        // Merges an earlier process left under way are finished first.
        self.finish_merges();
        let (sources, into) = self.merge_plan(request)?;
        let intent = MergeIntent {
            into: into.clone(),
            sources: sources.iter().map(Memory::reference).collect(),
            versions: sources.iter().map(|s| s.version).collect(),
        };
        let record = IntentFile::create(&self.merges_dir(), &intent)?;
        let merged = merged_memory(&sources, &into, request, &intent);
        let stored = match self.put_with(merged, PutMode::CreateOnly) {
            Ok(stored) => stored,
            // A write that failed may still have landed (a crash-like failure): the merge goes
            // on if the memory there is the one this merge wrote; else nothing was written
            // (or another writer took the id) and the merge is forgotten.
            Err(e) => match self.get(&into) {
                Ok(stored) if !matches!(e, Error::Conflict { .. }) && intent.made(&stored) => {
                    stored
                }
                _ => {
                    record.remove();
                    return Err(e);
                }
            },
        };
        let (repointed, trashed) = self.complete_merge(&intent).map_err(|e| {
            Error::storage(
                format!("the merge into {into} stopped part-way: {e}"),
                Some(Box::new(e)),
                "the merged memory is stored; the merge is finished by the next merge or the \
                 next time the store is opened (no source is lost)",
            )
        })?;
        record.remove();
        let memory = self.get(stored.reference()).unwrap_or(stored);
        Ok(MergeResult { memory: MemoryRecord::of(memory), trashed, repointed })
    }

    /// The sources of a merge, read, and the merged memory's qualified reference; every
    /// check made before anything is written.
    fn merge_plan(&self, request: &MergeRequest) -> Result<(Vec<Memory>, MemoryRef)> {
        if request.refs.is_empty() {
            return Err(Error::validation(
                "a merge needs at least one memory",
                "name the memories to merge in `refs`",
            ));
        }
        let mut sources: Vec<Memory> = Vec::with_capacity(request.refs.len());
        for reference in &request.refs {
            let memory = self.get(reference)?;
            if sources.iter().any(|s| s.reference() == memory.reference()) {
                return Err(Error::validation(
                    format!("{} is named twice in the merge", memory.reference()),
                    "name each memory once",
                ));
            }
            sources.push(memory);
        }
        let into = match request.into.collection() {
            Some(_) => request.into.clone(),
            None => MemoryRef::new(sources[0].collection.clone(), request.into.id().clone()),
        };
        if sources.iter().any(|s| s.reference() == into) {
            return Err(Error::validation(
                format!("cannot merge {into} into itself"),
                "merge into a new id; the sources are moved to the trash",
            ));
        }
        if self.get(&into).is_ok() {
            return Err(Error::conflict(
                format!("{into} exists already"),
                "merge into a new id, or delete that memory first",
            ));
        }
        Ok((sources, into))
    }

    /// Re-points links to the sources of `intent` at the merged memory and moves the sources
    /// to the trash; safe to run again (what was done is skipped).
    fn complete_merge(&self, intent: &MergeIntent) -> Result<(Vec<MemoryRef>, Vec<TrashEntry>)> {
        let from = intent.source_targets();
        let into = intent.into.to_string();
        let mut linking: BTreeSet<MemoryRef> = BTreeSet::new();
        for source in &intent.sources {
            for edge in self.backlinks(&source.to_string())? {
                linking.insert(edge.source);
            }
        }
        let mut repointed = Vec::new();
        for reference in linking {
            if intent.sources.contains(&reference) {
                continue;
            }
            let memory = match self.get(&reference) {
                Ok(memory) => memory,
                Err(Error::NotFound { .. }) => continue,
                Err(e) => return Err(e),
            };
            if let Some(content) = repoint(&memory.content, &from, &into) {
                let change = MemoryUpdate::new().content(content).expected_version(memory.version);
                self.indexed.update(&reference, &change, self.now())?;
                if reference != intent.into {
                    repointed.push(reference);
                }
            }
        }
        let mut trashed = Vec::new();
        for (source, version) in intent.sources.iter().zip(&intent.versions) {
            // A source changed since it was merged holds content the merged memory lacks:
            // it is kept, not trashed.
            match self.get(source) {
                Ok(now) if now.version != *version => continue,
                Err(Error::NotFound { .. }) => continue,
                _ => {}
            }
            match self.delete(source) {
                Ok(entry) => trashed.push(entry),
                Err(Error::NotFound { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok((repointed, trashed))
    }

    /// Finishes merges an earlier process left under way: those whose merged memory was
    /// stored are completed, the others forgotten (nothing of them was written). A merge
    /// that cannot be finished now is left for the next open.
    pub(super) fn finish_merges(&self) {
        let Ok(entries) = std::fs::read_dir(self.merges_dir()) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(mut file) = OpenOptions::new().read(true).write(true).open(&path) else {
                continue;
            };
            // A record another process holds locked is a merge still running.
            if file.try_lock().is_err() {
                continue;
            }
            let mut bytes = Vec::new();
            let finished = match file
                .read_to_end(&mut bytes)
                .ok()
                .and_then(|_| serde_json::from_slice::<MergeIntent>(&bytes).ok())
            {
                // Cut short before it was written whole: nothing of the merge was written.
                None => true,
                Some(intent) => match self.get(&intent.into) {
                    Ok(merged) if intent.made(&merged) => self.complete_merge(&intent).is_ok(),
                    Ok(_) | Err(Error::NotFound { .. }) => true,
                    Err(_) => false,
                },
            };
            if finished {
                let _ = std::fs::remove_file(&path);
            }
            let _ = file.unlock();
        }
    }

    /// Where merges under way are recorded.
    fn merges_dir(&self) -> PathBuf {
        self.indexed.store().private_dir().join(MERGES_DIR)
    }
}

/// The merged memory of `sources`, links among them already pointing at `into`.
fn merged_memory(
    sources: &[Memory],
    into: &MemoryRef,
    request: &MergeRequest,
    intent: &MergeIntent,
) -> NewMemory {
    let refs: Vec<&Memory> = sources.iter().collect();
    let content = merged_content(&refs, request.summary.as_deref());
    let content = repoint(&content, &intent.source_targets(), &into.to_string()).unwrap_or(content);
    let mut tags: Vec<String> = Vec::new();
    for tag in sources.iter().flat_map(|s| s.tags.iter()) {
        if !tags.contains(tag) {
            tags.push(tag.clone());
        }
    }
    let title = sources.iter().map(|s| s.title.as_str()).collect::<Vec<_>>().join(" + ");
    let merged_from: Vec<String> = intent.sources.iter().map(ToString::to_string).collect();
    let mut memory = NewMemory::new(content)
        .id(into.id().as_str())
        .collection(into.collection().map_or("", |c| c.as_str()))
        .title(title)
        .tags(tags)
        .meta(MERGED_FROM, merged_from);
    let kind = sources[0].kind.clone();
    if kind.is_some() && sources.iter().all(|s| s.kind == kind) {
        memory.kind = kind;
    }
    memory
}
