//! Progressive hydration (seed 002, section 4.2): a memory with more of its git context on
//! demand: the whole note and the commit it is attached to, then the files that commit
//! changed, each capped in size and number.

use git2::{Commit, DiffOptions, Oid, Repository};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::errors::git_error;
use crate::{Memory, Result, Timestamp};

/// The largest file content included at [`HydrationLevel::Files`] (seed 002: 100 KiB).
pub const MAX_HYDRATED_FILE_BYTES: usize = 100 * 1024;
/// The most files included at [`HydrationLevel::Files`] (seed 002: 20).
pub const MAX_HYDRATED_FILES: usize = 20;

/// How much to load with a memory.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum HydrationLevel {
    /// The memory alone (fastest).
    #[default]
    Summary,
    /// Plus the whole note and the commit it is attached to.
    Full,
    /// Plus the files that commit changed.
    Files,
}

/// The commit a memory is attached to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct CommitInfo {
    /// The full commit id.
    pub sha: String,
    /// The author's name.
    pub author: String,
    /// The author's email address.
    pub email: String,
    /// When the commit was authored.
    pub time: Timestamp,
    /// The commit message.
    pub message: String,
}

/// A file changed by the commit of a hydrated memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ChangedFile {
    /// The path in the repository.
    pub path: String,
    /// Its size at that commit, in bytes (0 when the commit deleted it).
    pub size: usize,
    /// Its text at that commit; `None` when deleted, binary or over
    /// [`MAX_HYDRATED_FILE_BYTES`].
    pub content: Option<String>,
}

/// A memory with the context its [`HydrationLevel`] asked for.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[non_exhaustive]
pub struct Hydrated {
    /// The memory (serialised with its `ref`).
    #[serde(serialize_with = "crate::api::serialize_memory")]
    #[schemars(with = "crate::api::MemoryRecord")]
    pub memory: Memory,
    /// The level loaded.
    pub level: HydrationLevel,
    /// The whole note holding the memory ([`HydrationLevel::Full`] and up).
    pub note: Option<String>,
    /// The commit the note is attached to ([`HydrationLevel::Full`] and up).
    pub commit: Option<CommitInfo>,
    /// The files that commit changed, at most [`MAX_HYDRATED_FILES`]
    /// ([`HydrationLevel::Files`]).
    pub files: Vec<ChangedFile>,
    /// How many changed files were left out beyond [`MAX_HYDRATED_FILES`].
    pub files_omitted: usize,
}

impl Hydrated {
    /// The memory alone, at [`HydrationLevel::Summary`].
    pub fn summary(memory: Memory) -> Self {
        Self {
            memory,
            level: HydrationLevel::Summary,
            note: None,
            commit: None,
            files: Vec::new(),
            files_omitted: 0,
        }
    }
}

/// Hydrates `memory`, whose note (text `note`) is attached to `commit`.
pub(crate) fn hydrate(
    repo: &Repository,
    memory: Memory,
    commit: Oid,
    note: &str,
    level: HydrationLevel,
) -> Result<Hydrated> {
    let mut hydrated = Hydrated::summary(memory);
    hydrated.level = level;
    if level == HydrationLevel::Summary {
        return Ok(hydrated);
    }
    let commit = repo.find_commit(commit).map_err(|e| git_error("reading the commit", e))?;
    hydrated.note = Some(note.to_owned());
    hydrated.commit = Some(commit_info(&commit));
    if level == HydrationLevel::Files {
        let (files, omitted) = changed_files(repo, &commit)?;
        hydrated.files = files;
        hydrated.files_omitted = omitted;
    }
    Ok(hydrated)
}

/// The author, time and message of `commit`.
pub(crate) fn commit_info(commit: &Commit<'_>) -> CommitInfo {
    let author = commit.author();
    CommitInfo {
        sha: commit.id().to_string(),
        author: String::from_utf8_lossy(author.name_bytes()).into_owned(),
        email: String::from_utf8_lossy(author.email_bytes()).into_owned(),
        time: Timestamp::from_timestamp(author.when().seconds(), 0).unwrap_or_default(),
        message: String::from_utf8_lossy(commit.message_bytes()).trim_end().to_owned(),
    }
}

/// The files `commit` changed against its first parent (all files of a root commit), with
/// their content at `commit`; and how many were left out past the cap.
fn changed_files(repo: &Repository, commit: &Commit<'_>) -> Result<(Vec<ChangedFile>, usize)> {
    let failed = |e| git_error("listing the files of the commit", e);
    let tree = commit.tree().map_err(failed)?;
    let parent_tree = match commit.parents().next() {
        Some(parent) => Some(parent.tree().map_err(failed)?),
        None => None,
    };
    let diff = repo
        .diff_tree_to_tree(parent_tree.as_ref(), Some(&tree), Some(&mut DiffOptions::new()))
        .map_err(failed)?;
    let mut files = Vec::new();
    let mut omitted = 0;
    for delta in diff.deltas() {
        let Some(path) = delta.new_file().path().or_else(|| delta.old_file().path()) else {
            continue;
        };
        if files.len() == MAX_HYDRATED_FILES {
            omitted += 1;
            continue;
        }
        // A submodule bump (a gitlink) or a deleted file has no blob to show.
        let is_blob = matches!(
            delta.new_file().mode(),
            git2::FileMode::Blob | git2::FileMode::BlobExecutable | git2::FileMode::Link
        );
        let blob = match delta.new_file().exists() && is_blob {
            true => Some(repo.find_blob(delta.new_file().id()).map_err(failed)?),
            false => None,
        };
        let size = blob.as_ref().map_or(0, |b| b.size());
        let content = blob
            .filter(|b| !b.is_binary() && b.size() <= MAX_HYDRATED_FILE_BYTES)
            .and_then(|b| String::from_utf8(b.content().to_vec()).ok());
        files.push(ChangedFile { path: path.to_string_lossy().into_owned(), size, content });
    }
    Ok((files, omitted))
}
