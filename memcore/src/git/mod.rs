//! Git beneath the stores: the git history of file stores (seed 000's versioning), progressive
//! hydration of git-notes memories, unified diffs, and the checks every revision or path a
//! caller passes goes through ([`revspec`]) before it reaches git. Through libgit2 (`git2`,
//! vendored): an application embedding memcore needs no `git` binary. The git-notes store
//! itself is [`crate::GitNotesStore`], under `store/`.

mod diff;
pub(crate) mod errors;
pub(crate) mod history;
pub(crate) mod hydrate;
pub(crate) mod repo;
pub(crate) mod revspec;

pub use hydrate::{
    ChangedFile, CommitInfo, Hydrated, HydrationLevel, MAX_HYDRATED_FILE_BYTES, MAX_HYDRATED_FILES,
};

pub(crate) use diff::unified_diff;
pub(crate) use repo::inside_work_tree;
