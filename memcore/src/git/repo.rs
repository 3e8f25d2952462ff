//! Finding the repository that holds a directory, and whether git can version a store there.

use std::path::Path;

use git2::{ErrorCode, Repository};

use super::errors::git_error;
use crate::Error;

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
