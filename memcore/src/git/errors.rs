//! Mapping libgit2 failures to memcore errors with seed 002's recovery hints.

use std::path::Path;

use git2::{ErrorCode, Repository};

use crate::Error;

/// The error for a failed git operation; `action` says what memcore was doing.
pub(crate) fn git_error(action: &str, e: git2::Error) -> Error {
    let message = format!("{action}: {}", e.message());
    match e.code() {
        ErrorCode::NotFound => Error::not_found(
            message,
            "check the revision or id (`git log` lists commits, `memcore list` memories)",
        ),
        ErrorCode::UnbornBranch => no_commits(),
        ErrorCode::Locked | ErrorCode::Modified => Error::conflict(
            message,
            "another git process holds the ref; wait for it and retry (remove a stale `.lock` \
             file under .git only if no git process runs)",
        ),
        ErrorCode::Ambiguous => Error::validation(
            message,
            "give more characters of the commit id (at least 4) so that only one commit matches",
        ),
        ErrorCode::InvalidSpec => Error::validation(
            message,
            "pass a revision such as `HEAD~2`, a commit id or a tag, or a valid id",
        ),
        _ => Error::storage(
            message,
            Some(Box::new(e)),
            "check that the repository is intact (`git fsck`) and writable, then retry",
        ),
    }
}

/// The error for a repository without commits (seed 002's `NO_COMMITS_ERROR`).
pub(crate) fn no_commits() -> Error {
    Error::storage(
        "the repository has no commits yet, so there is nothing to attach notes to",
        None,
        "create an initial commit: git commit --allow-empty -m 'initial'",
    )
}

/// Opens the repository holding `dir` (searching upwards, as git does, from the nearest
/// folder that exists: a store folder may not be created yet).
pub(crate) fn open_repository(dir: &Path) -> crate::Result<Repository> {
    let existing = dir.ancestors().find(|d| d.is_dir()).unwrap_or(dir);
    Repository::discover(existing).map_err(|e| match e.code() {
        ErrorCode::NotFound => Error::validation(
            format!("{} is not inside a git repository", dir.display()),
            "run `git init` there (and make a first commit), or open a directory inside a \
             repository",
        ),
        _ => git_error(&format!("opening the git repository at {}", dir.display()), e),
    })
}

/// Whether git can keep the history of the store at `dir` (which may not exist yet): it lies
/// inside the work tree of a repository and is not ignored there.
pub(crate) fn inside_work_tree(dir: &Path) -> bool {
    let Some(existing) = dir.ancestors().find(|d| d.is_dir()) else { return false };
    let Ok(repo) = Repository::discover(existing) else { return false };
    let workdir = repo.workdir().and_then(|w| w.canonicalize().ok());
    let (Some(workdir), Ok(resolved)) = (workdir, existing.canonicalize()) else { return false };
    let rest = dir.strip_prefix(existing).unwrap_or(Path::new(""));
    match resolved.join(rest).strip_prefix(&workdir) {
        Ok(relative) if relative.as_os_str().is_empty() => true,
        Ok(relative) => !repo.is_path_ignored(relative).unwrap_or(false),
        Err(_) => false,
    }
}
