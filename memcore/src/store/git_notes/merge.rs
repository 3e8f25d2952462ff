//! Merging the notes of another clone (fetched to `refs/notes/<remote>/mem/<namespace>`, the
//! tracking refs the reference implementation uses for `origin`) into this clone's notes.
//!
//! Per namespace: nothing to do when this side already holds the other, a fast-forward when
//! the other side holds this one, else a merge commit with both tips as parents, whose notes
//! are merged per annotated commit. A note changed on one side only is taken as it is; a note
//! changed on both sides is merged block by block against the merge base: this side's blocks
//! keep their places (so their ids never move), a block the other side changed and this side
//! did not takes the other side's version, a block both changed keeps the more recently
//! updated version, and the other side's new blocks are appended (their ids are reported when
//! their index changes). A memory the other side added whose own id (`id:`) is taken here by
//! another live memory gets a free one (`<id>-2`, ...), reported too.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use git2::build::TreeUpdateBuilder;
use git2::{ErrorCode, FileMode, Oid, Repository, TreeWalkMode, TreeWalkResult};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::format::{Entry, Note, ends_in_frontmatter};
use super::read::read_note;
use super::write::{note_path, notes_signature};
use super::{GitNotesStore, notes_ref};
use crate::git::errors::git_error;
use crate::{Collection, Error, MAX_ID_LEN, MemoryId, Result, Timestamp};

/// What [`GitNotesStore::merge_notes`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct NotesMergeReport {
    /// The remote whose tracking refs were merged.
    pub remote: String,
    /// One entry per namespace the remote has notes for.
    pub namespaces: Vec<NamespaceMerge>,
    /// Memories the indexes took in afterwards ([`crate::Memcore::merge_notes`] syncs them;
    /// 0 from the store alone).
    pub indexed: usize,
}

/// What merging one namespace did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct NamespaceMerge {
    /// The namespace.
    pub namespace: String,
    /// How this side's notes ref moved.
    pub outcome: MergeOutcome,
    /// Memories of the other side that were new here.
    pub added: usize,
    /// Memories the other side changed (and this side did not) whose change was taken.
    pub updated: usize,
    /// The other side's memories whose id here differs from their id there.
    pub moved: Vec<MovedMemory>,
    /// The other side's memories whose own id was taken here, and the one they got.
    pub renamed: Vec<RenamedMemory>,
    /// Memories both sides changed differently, and which version was kept.
    pub conflicts: Vec<MergeConflict>,
}

/// How a namespace's notes ref moved in a merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MergeOutcome {
    /// This side already held everything of the other.
    UpToDate,
    /// This side had nothing the other lacked: its ref now points at the other's tip.
    FastForward,
    /// Both sides had notes the other lacked: a merge commit joins them.
    Merged,
}

/// A memory of the other side whose positional id is different here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MovedMemory {
    /// Its id on the other side.
    pub from: String,
    /// Its id here.
    pub to: String,
}

/// A memory of the other side whose own id was taken here by another live memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RenamedMemory {
    /// The memory (its positional id here).
    pub id: String,
    /// The own id it had.
    pub from: String,
    /// The own id it has now.
    pub to: String,
}

/// A memory both sides changed differently since they diverged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MergeConflict {
    /// The memory (its positional id here).
    pub id: String,
    /// Whose version was kept: `ours` (this side) or `theirs`, the more recently updated.
    pub kept: String,
}

/// The notes of one notes commit: annotated commit -> note blob.
type NoteBlobs = BTreeMap<Oid, Oid>;

impl GitNotesStore {
    /// The tracking ref of `remote` for `namespace`: `refs/notes/<remote>/mem/<namespace>`.
    fn tracking_ref(remote: &str, namespace: &Collection) -> String {
        format!("refs/notes/{remote}/mem/{namespace}")
    }

    /// Merges the notes another clone has, fetched to `refs/notes/<remote>/mem/<namespace>`
    /// (for example by `git fetch origin '+refs/notes/mem/*:refs/notes/origin/mem/*'`), into
    /// this clone's `refs/notes/mem/<namespace>`: every memory of both sides is kept once. See
    /// the module docs for the rules. Namespaces the remote has no notes for are left alone.
    ///
    /// Fails with [`Error::Validation`] for a remote name git cannot use in a ref name.
    pub fn merge_notes(&self, remote: &str) -> Result<NotesMergeReport> {
        let probe = Self::tracking_ref(remote, &Collection::default());
        if remote.is_empty() || remote.contains('*') || !git2::Reference::is_valid_name(&probe) {
            return Err(Error::validation(
                format!("{remote:?} is not a remote name git can use in a ref name"),
                "give the name of a git remote, such as origin",
            ));
        }
        let mut report =
            NotesMergeReport { remote: remote.to_owned(), namespaces: Vec::new(), indexed: 0 };
        for namespace in &self.namespaces {
            let theirs_ref = Self::tracking_ref(remote, namespace);
            // A namespace the remote has no notes for is left alone.
            let Some(theirs) = Self::tip(&self.repo.lock(), &theirs_ref)? else { continue };
            let merged = self
                .with_retries(|repo| self.merge_namespace(repo, namespace, &theirs_ref, theirs))?;
            report.namespaces.push(merged);
        }
        Ok(report)
    }

    /// Merges the notes at `theirs` (the tip of `theirs_ref`) into one namespace; `None` when
    /// another git process moved this side's ref meanwhile (the caller retries).
    fn merge_namespace(
        &self,
        repo: &Repository,
        namespace: &Collection,
        theirs_ref: &str,
        theirs: Oid,
    ) -> Result<Option<NamespaceMerge>> {
        let ours = Self::ref_tip(repo, namespace)?;
        let failed = |e| git_error(&format!("merging {theirs_ref}"), e);
        let mut merge = NamespaceMerge::new(namespace);
        let descends = |a: Oid, b: Oid| repo.graph_descendant_of(a, b).map_err(failed);
        let new_tip = match ours {
            Some(ours) if ours == theirs || descends(ours, theirs)? => {
                merge.outcome = MergeOutcome::UpToDate;
                return Ok(Some(merge));
            }
            Some(ours) if descends(theirs, ours)? => {
                merge.outcome = MergeOutcome::FastForward;
                merge.added = self.count_new(repo, Some(ours), theirs, namespace)?;
                theirs
            }
            None => {
                merge.outcome = MergeOutcome::FastForward;
                merge.added = self.count_new(repo, None, theirs, namespace)?;
                theirs
            }
            Some(ours) => {
                merge.outcome = MergeOutcome::Merged;
                self.merge_commit(repo, namespace, ours, theirs, theirs_ref, &mut merge)?
            }
        };
        let message = format!("Notes merged by memcore from {theirs_ref}");
        let moved = match ours {
            Some(ours) => {
                repo.reference_matching(&notes_ref(namespace), new_tip, true, ours, &message)
            }
            None => repo.reference(&notes_ref(namespace), new_tip, false, &message),
        };
        match moved {
            Ok(_) => Ok(Some(merge)),
            Err(e)
                if matches!(
                    e.code(),
                    ErrorCode::Modified | ErrorCode::Exists | ErrorCode::Locked
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(failed(e)),
        }
    }

    /// How many memories the notes at `theirs` hold that the notes at `ours` do not (a
    /// fast-forward adds them).
    fn count_new(
        &self,
        repo: &Repository,
        ours: Option<Oid>,
        theirs: Oid,
        namespace: &Collection,
    ) -> Result<usize> {
        let before = match ours {
            Some(ours) => note_blobs(repo, Some(ours))?,
            None => NoteBlobs::new(),
        };
        let after = note_blobs(repo, Some(theirs))?;
        let mut added = 0;
        for (commit, blob) in &after {
            let count = |blob: Option<&Oid>| -> Result<usize> {
                Ok(match blob {
                    Some(blob) => read_note(repo, namespace, *commit, *blob)?.note.entries.len(),
                    None => 0,
                })
            };
            if before.get(commit) != Some(blob) {
                added += count(Some(blob))?.saturating_sub(count(before.get(commit))?);
            }
        }
        Ok(added)
    }

    /// Writes the merge commit of `ours` and `theirs` (not yet on any ref) and returns it.
    fn merge_commit(
        &self,
        repo: &Repository,
        namespace: &Collection,
        ours: Oid,
        theirs: Oid,
        theirs_ref: &str,
        merge: &mut NamespaceMerge,
    ) -> Result<Oid> {
        let failed = |e| git_error(&format!("merging {theirs_ref}"), e);
        let base = match repo.merge_base(ours, theirs) {
            Ok(base) => Some(base),
            Err(e) if e.code() == ErrorCode::NotFound => None,
            Err(e) => return Err(failed(e)),
        };
        let (our_notes, their_notes) =
            (note_blobs(repo, Some(ours))?, note_blobs(repo, Some(theirs))?);
        let base_notes = note_blobs(repo, base)?;
        let mut merged: BTreeMap<Oid, Note> = BTreeMap::new();
        // Where the other side's memories sit in the merged notes: (commit, index).
        let mut from_theirs: BTreeSet<(Oid, usize)> = BTreeSet::new();
        for (commit, their_blob) in &their_notes {
            let our_blob = our_notes.get(commit);
            let base_blob = base_notes.get(commit);
            if our_blob == Some(their_blob) || base_blob == Some(their_blob) {
                continue; // the other side did not change this note
            }
            let theirs_note = read_note(repo, namespace, *commit, *their_blob)?.note;
            let read = |blob: Option<&Oid>| -> Result<Note> {
                Ok(match blob {
                    Some(blob) => read_note(repo, namespace, *commit, *blob)?.note,
                    None => Note::default(),
                })
            };
            let ours_note = read(our_blob)?;
            if our_blob == base_blob {
                // Only the other side changed it (or only it has it): take it whole.
                merge.added += theirs_note.entries.len().saturating_sub(ours_note.entries.len());
                from_theirs.extend(
                    (ours_note.entries.len()..theirs_note.entries.len()).map(|i| (*commit, i)),
                );
                merged.insert(*commit, theirs_note);
                continue;
            }
            // Both sides changed it (this side may have removed it): block by block.
            let base_note = read(base_blob)?;
            let notes = [&ours_note, &theirs_note, &base_note];
            let note = merge_note(namespace, *commit, notes, merge, &mut from_theirs);
            merged.insert(*commit, note);
        }
        self.rename_taken_keys(repo, namespace, &our_notes, &mut merged, &from_theirs, merge)?;
        let signature = notes_signature(repo)?;
        let our_commit = repo.find_commit(ours).map_err(failed)?;
        let their_commit = repo.find_commit(theirs).map_err(failed)?;
        let base_tree = our_commit.tree().map_err(failed)?;
        let mut update = TreeUpdateBuilder::new();
        for (commit, note) in &merged {
            let blob = repo.blob(note.text().as_bytes()).map_err(failed)?;
            let sha = commit.to_string();
            update.upsert(note_path(&base_tree, &sha).unwrap_or(sha), blob, FileMode::Blob);
        }
        let tree = update
            .create_updated(repo, &base_tree)
            .and_then(|t| repo.find_tree(t))
            .map_err(failed)?;
        let message = format!("Notes merged by memcore from {theirs_ref}");
        repo.commit(None, &signature, &signature, &message, &tree, &[&our_commit, &their_commit])
            .map_err(failed)
    }

    /// Gives the other side's memories whose own id another live memory of the namespace has
    /// here a free own id (`<id>-2`, `<id>-3`, ...).
    fn rename_taken_keys(
        &self,
        repo: &Repository,
        namespace: &Collection,
        our_notes: &NoteBlobs,
        merged: &mut BTreeMap<Oid, Note>,
        from_theirs: &BTreeSet<(Oid, usize)>,
        merge: &mut NamespaceMerge,
    ) -> Result<()> {
        if from_theirs.is_empty() {
            return Ok(());
        }
        // Own ids of the live memories that are not the other side's additions.
        let mut taken: HashSet<MemoryId> = HashSet::new();
        let mut take_live = |commit: Oid, note: &Note| {
            for (index, entry) in note.entries.iter().enumerate() {
                if let Ok(entry) = entry
                    && entry.deleted_at.is_none()
                    && !from_theirs.contains(&(commit, index))
                {
                    taken.insert(entry.key.clone());
                }
            }
        };
        for (commit, blob) in our_notes {
            if !merged.contains_key(commit) {
                take_live(*commit, &read_note(repo, namespace, *commit, *blob)?.note);
            }
        }
        for (commit, note) in merged.iter() {
            take_live(*commit, note);
        }
        for &(commit, index) in from_theirs {
            let Some(note) = merged.get_mut(&commit) else { continue };
            let Some(Ok(entry)) = note.entries.get(index).cloned() else { continue };
            if entry.deleted_at.is_some() {
                continue;
            }
            if taken.insert(entry.key.clone()) {
                continue; // the id was free
            }
            let free = free_key(&entry.key, &taken).ok_or_else(|| {
                Error::conflict(
                    format!("no free own id like '{}' for a memory of the other clone", entry.key),
                    "give some of the memories with this id others, then merge again",
                )
            })?;
            taken.insert(free.clone());
            merge.renamed.push(RenamedMemory {
                id: entry.memory.id.to_string(),
                from: entry.key.to_string(),
                to: free.to_string(),
            });
            note.set(index, Entry { key: free, ..entry });
        }
        Ok(())
    }
}

impl NamespaceMerge {
    fn new(namespace: &Collection) -> Self {
        Self {
            namespace: namespace.to_string(),
            outcome: MergeOutcome::UpToDate,
            added: 0,
            updated: 0,
            moved: Vec::new(),
            renamed: Vec::new(),
            conflicts: Vec::new(),
        }
    }
}

/// Merges one note changed on both sides, block by block against `base` (see the module docs),
/// recording in `from_theirs` where the other side's added memories went.
fn merge_note(
    namespace: &Collection,
    commit: Oid,
    [ours, theirs, base]: [&Note; 3],
    merge: &mut NamespaceMerge,
    from_theirs: &mut BTreeSet<(Oid, usize)>,
) -> Note {
    let sha = commit.to_string();
    let locator = |i: usize| MemoryId::git_locator(namespace, &sha, i).to_string();
    let (ours_ids, theirs_ids, base_ids) =
        (ours.identified(), theirs.identified(), base.identified());
    let base_text: HashMap<&str, &str> =
        base_ids.iter().map(|(id, text)| (id.as_str(), *text)).collect();
    let their_blocks: HashMap<&str, (usize, &str)> = theirs_ids
        .iter()
        .enumerate()
        .map(|(pos, (id, text))| (id.as_str(), (pos, *text)))
        .collect();
    let mut blocks = Vec::new();
    // Identities both sides hold as one memory: the same text, or a memory of the base. (Two
    // memories created on each side with the same own id are two memories.)
    let mut matched = BTreeSet::new();
    for (pos, (id, our)) in ours_ids.iter().enumerate() {
        let (id, our) = (id.as_str(), *our);
        let base = base_text.get(id).copied();
        let same =
            their_blocks.get(id).copied().filter(|(_, their)| *their == our || base.is_some());
        if same.is_some() {
            matched.insert(id);
        }
        let chosen = match same {
            Some((_, their)) if their == our || base == Some(their) => our,
            Some((_, their)) if base == Some(our) => {
                merge.updated += 1;
                their
            }
            Some((their_pos, their)) => {
                let keep_theirs = theirs.changed_at(their_pos) > ours.changed_at(pos);
                let id =
                    ours.memory_index_at(pos).map_or_else(|| format!("{namespace}:{sha}"), locator);
                let kept = if keep_theirs { "theirs" } else { "ours" };
                merge.conflicts.push(MergeConflict { id, kept: kept.into() });
                if keep_theirs { their } else { our }
            }
            // Removed there and unchanged here: removed.
            None if base == Some(our) => continue,
            None => our,
        };
        blocks.push(chosen.to_owned());
    }
    let mut appended = Vec::new();
    for (pos, (id, their)) in theirs_ids.iter().enumerate() {
        let (id, their) = (id.as_str(), *their);
        if matched.contains(id) || base_text.get(id) == Some(&their) {
            continue; // here already, or removed here and unchanged there
        }
        appended.push((blocks.len(), theirs.memory_index_at(pos)));
        blocks.push(their.to_owned());
    }
    let note = Note::parse(
        &join_blocks(&blocks),
        namespace,
        &|index| MemoryId::git_locator(namespace, &sha, index),
        &Timestamp::default,
    );
    for (pos, their_index) in appended {
        let Some(index) = note.memory_index_at(pos) else { continue };
        merge.added += 1;
        from_theirs.insert((commit, index));
        if let Some(from) = their_index.filter(|from| *from != index) {
            merge.moved.push(MovedMemory { from: locator(from), to: locator(index) });
        }
    }
    note
}

/// `key` with the first suffix `-2`, `-3`, ... (up to `-999`) that makes an own id not in
/// `taken`, the key cut so that the id stays within [`MAX_ID_LEN`].
fn free_key(key: &MemoryId, taken: &HashSet<MemoryId>) -> Option<MemoryId> {
    (2..1000).find_map(|n| {
        let suffix = format!("-{n}");
        let stem: String = key.as_str().chars().take(MAX_ID_LEN - suffix.len()).collect();
        MemoryId::new(format!("{stem}{suffix}")).ok().filter(|free| !taken.contains(free))
    })
}

/// Blocks joined as a note holds them: separated by a blank line; a block whose frontmatter
/// was never closed is closed first, so that the next block's opening line does not close it
/// (see [`Note::prepare_append`]).
fn join_blocks(blocks: &[String]) -> String {
    let mut text = String::new();
    for block in blocks {
        if ends_in_frontmatter(&text) {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str("---\n");
        }
        if !text.is_empty() {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push('\n');
        }
        text.push_str(block);
    }
    text
}

/// The notes of the notes commit `tip` (none for `None`).
fn note_blobs(repo: &Repository, tip: Option<Oid>) -> Result<NoteBlobs> {
    let mut notes = NoteBlobs::new();
    let Some(tip) = tip else { return Ok(notes) };
    let failed = |e| git_error("reading a notes tree", e);
    let tree = repo.find_commit(tip).and_then(|c| c.tree()).map_err(failed)?;
    tree.walk(TreeWalkMode::PreOrder, |root, entry| {
        if entry.kind() == Some(git2::ObjectType::Blob) {
            // Notes trees may fan out (`ab/cdef...`): the path without slashes is the commit.
            let path: String = format!("{root}{}", entry.name().unwrap_or_default())
                .chars()
                .filter(|c| *c != '/')
                .collect();
            if let Ok(commit) = Oid::from_str(&path)
                && path.len() == 40
            {
                notes.insert(commit, entry.id());
            }
        }
        TreeWalkResult::Ok
    })
    .map_err(failed)?;
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_keys_fit_the_id_limit_and_skip_taken_ones() {
        let long = MemoryId::new("k".repeat(MAX_ID_LEN)).unwrap();
        let mut taken = HashSet::new();
        let first = free_key(&long, &taken).unwrap();
        assert!(first.as_str().ends_with("-2") && first.as_str().len() == MAX_ID_LEN);
        taken.insert(first);
        assert!(free_key(&long, &taken).unwrap().as_str().ends_with("-3"));
        let short = MemoryId::new("m").unwrap();
        let all: HashSet<MemoryId> =
            (2..1000).map(|n| MemoryId::new(format!("m-{n}")).unwrap()).collect();
        assert_eq!(free_key(&short, &all), None, "bounded: no endless search");
    }
}
