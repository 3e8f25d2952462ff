//! Git: the git-notes backend ([`GitNotesStore`], seed 002) and the git history of file stores
//! (seed 000's versioning), through libgit2 (`git2`, vendored): an application embedding
//! memcore needs no `git` binary.
//!
//! Every revision or path a caller passes is checked by [`revspec`] before it reaches git.

mod diff;
mod errors;
pub(crate) mod history;
mod hydrate;
mod note_format;
mod notes;
mod repo;
pub(crate) mod revspec;

pub use hydrate::{
    ChangedFile, CommitInfo, Hydrated, HydrationLevel, MAX_HYDRATED_FILE_BYTES, MAX_HYDRATED_FILES,
};
pub use notes::{DEFAULT_NAMESPACES, GitNotesStore, NOTES_REF_PREFIX};

pub(crate) use diff::unified_diff;
pub(crate) use repo::inside_work_tree;
