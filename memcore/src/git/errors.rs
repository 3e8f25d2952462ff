//! Mapping libgit2 failures to memcore errors with seed 002's recovery hints.

use git2::ErrorCode;

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
