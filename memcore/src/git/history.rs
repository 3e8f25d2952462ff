//! Git history of a file store inside a work tree (seed 000's local versioning): the versions
//! of a memory file follow renames through the commits of `HEAD`; any revision reads an old
//! version back; with `git_autocommit`, every write commits just the files it changed.

use std::path::{Path, PathBuf};

use git2::build::TreeUpdateBuilder;
use git2::{DiffFindOptions, ErrorCode, FileMode, Oid, Repository, Signature, Sort};
use parking_lot::Mutex;

use super::errors::git_error;
use super::hydrate::{CommitInfo, commit_info};
use super::repo::open_repository;
use super::revspec::{check_relative_path, check_revision};
use crate::{Error, Result};

/// The revision naming uncommitted changes of a memory file in [`GitHistory::versions`].
pub(crate) const WORKTREE_REV: &str = "worktree";

/// The git repository whose work tree holds a file store.
pub(crate) struct GitHistory {
    repo: Mutex<Repository>,
    /// The work tree's top, canonical.
    workdir: PathBuf,
    autocommit: bool,
}

impl std::fmt::Debug for GitHistory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GitHistory")
            .field("workdir", &self.workdir)
            .field("autocommit", &self.autocommit)
            .finish_non_exhaustive()
    }
}

/// One commit that changed a memory file.
#[derive(Debug, Clone)]
pub(crate) struct FileVersion {
    /// The commit.
    pub(crate) commit: CommitInfo,
    /// The file's path (relative to the work tree) at that commit.
    pub(crate) path: String,
}

impl GitHistory {
    /// The repository whose work tree holds `store_root`.
    pub(crate) fn open(store_root: &Path, autocommit: bool) -> Result<Self> {
        let repo = open_repository(store_root)?;
        let workdir = repo.workdir().ok_or_else(|| {
            Error::validation(
                format!("the repository holding {} is bare", store_root.display()),
                "keep the store in a work tree, or set `versioning: builtin`",
            )
        })?;
        let workdir = canonical(workdir)?;
        let history = Self { repo: Mutex::new(repo), workdir, autocommit };
        history.relative(store_root)?;
        Ok(history)
    }

    /// `path` relative to the work tree, checked to stay inside it (symlinks resolved).
    fn relative(&self, path: &Path) -> Result<String> {
        // The file may not exist (deleted, or not yet written): resolve its folder.
        let (dir, name) = match (path.parent(), path.file_name()) {
            (Some(dir), Some(name)) if !path.is_dir() => (dir, Some(name)),
            _ => (path, None),
        };
        let mut resolved = canonical(dir)?;
        if let Some(name) = name {
            resolved.push(name);
        }
        let inside = resolved.strip_prefix(&self.workdir).map_err(|_| {
            Error::validation(
                format!("{} is outside the work tree {}", path.display(), self.workdir.display()),
                "keep the store inside the repository's work tree",
            )
        })?;
        let relative = inside.to_string_lossy().into_owned();
        if relative.is_empty() {
            return Ok(relative);
        }
        check_relative_path(&relative)?;
        Ok(relative)
    }

    /// The commits of `HEAD` that changed the file at `path`, oldest first, following renames.
    /// A file that differs from `HEAD` adds a last entry with [`WORKTREE_REV`] as its sha.
    pub(crate) fn versions(&self, path: &Path) -> Result<Vec<FileVersion>> {
        let mut current = self.relative(path)?;
        let repo = self.repo.lock();
        let failed = |e| git_error("reading the history", e);
        let mut walk = repo.revwalk().map_err(failed)?;
        walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME).map_err(failed)?;
        let mut versions = Vec::new();
        match walk.push_head() {
            Ok(()) => {}
            Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => {}
            Err(e) => return Err(failed(e)),
        }
        let head = repo.head().ok().and_then(|head| head.peel_to_commit().ok());
        let committed = head.as_ref().and_then(|commit| blob_at(commit, &current));
        for oid in walk {
            let commit = repo.find_commit(oid.map_err(failed)?).map_err(failed)?;
            let Some(blob) = blob_at(&commit, &current) else { continue };
            let parent = commit.parents().next();
            let parent_blob = parent.as_ref().and_then(|p| blob_at(p, &current));
            if parent_blob == Some(blob) {
                continue;
            }
            versions.push(FileVersion { commit: commit_info(&commit), path: current.clone() });
            if let (Some(parent), None) = (&parent, parent_blob)
                && let Some(old) = renamed_from(&repo, parent, &commit, &current)?
            {
                current = old;
            }
        }
        versions.reverse();
        let on_disk = std::fs::read(path).ok();
        let differs = match (&on_disk, committed) {
            (Some(bytes), Some(blob)) => Oid::hash_object(git2::ObjectType::Blob, bytes)
                .map(|oid| oid != blob)
                .unwrap_or(true),
            (Some(_), None) => true,
            (None, _) => false,
        };
        if differs {
            let time = std::fs::metadata(path)
                .and_then(|m| m.modified())
                .map(crate::Timestamp::from)
                .unwrap_or_else(|_| crate::now());
            let message = "uncommitted changes in the work tree".to_owned();
            versions.push(FileVersion {
                commit: CommitInfo {
                    sha: WORKTREE_REV.to_owned(),
                    author: String::new(),
                    email: String::new(),
                    time,
                    message,
                },
                path: self.relative(path)?,
            });
        }
        Ok(versions)
    }

    /// The text of the file at `path` as it was at `rev`, looking under its earlier names
    /// when it was renamed (the history is walked only then).
    pub(crate) fn read_at(&self, path: &Path, rev: &str) -> Result<String> {
        check_revision(rev)?;
        let relative = self.relative(path)?;
        if let Some(text) = self.read_names_at(path, rev, std::slice::from_ref(&relative))? {
            return Ok(text);
        }
        let mut names: Vec<String> =
            self.versions(path)?.into_iter().map(|v| v.path).filter(|p| *p != relative).collect();
        names.dedup();
        self.read_names_at(path, rev, &names)?.ok_or_else(|| {
            Error::not_found(
                format!("{relative} at revision {rev}"),
                "the memory did not exist yet at that revision; list its versions",
            )
        })
    }

    /// The text of the first of `names` that exists at `rev`, if any.
    fn read_names_at(&self, path: &Path, rev: &str, names: &[String]) -> Result<Option<String>> {
        let repo = self.repo.lock();
        let commit =
            repo.revparse_single(rev).and_then(|object| object.peel_to_commit()).map_err(|e| {
                match e.code() {
                    ErrorCode::NotFound | ErrorCode::UnbornBranch | ErrorCode::InvalidSpec => {
                        Error::not_found(
                            format!("revision {rev:?}"),
                            "list the memory's versions, or pass an existing commit, tag or HEAD~N",
                        )
                    }
                    _ => git_error(&format!("resolving revision {rev:?}"), e),
                }
            })?;
        let Some(blob) = names.iter().find_map(|name| blob_at(&commit, name)) else {
            return Ok(None);
        };
        let blob = repo.find_blob(blob).map_err(|e| git_error("reading an old version", e))?;
        let text = String::from_utf8(blob.content().to_vec()).map_err(|_| {
            Error::corrupted(
                path,
                None,
                format!("the version at {rev} is not UTF-8"),
                "pick another version",
            )
        })?;
        Ok(Some(text))
    }

    /// With autocommit on, commits the current state of `paths` (files written or removed)
    /// on `HEAD`, leaving everything else the user staged untouched.
    pub(crate) fn commit(&self, paths: &[&Path], message: &str) -> Result<()> {
        if !self.autocommit {
            return Ok(());
        }
        let relative: Vec<String> =
            paths.iter().map(|p| self.relative(p)).collect::<Result<_>>()?;
        let repo = self.repo.lock();
        let failed = |e| committing_failed(message, e);
        let head = match repo.head() {
            Ok(head) => Some(head.peel_to_commit().map_err(failed)?),
            Err(e) if matches!(e.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => None,
            Err(e) => return Err(failed(e)),
        };
        let base = match &head {
            Some(commit) => commit.tree().map_err(failed)?,
            None => {
                let empty = repo.treebuilder(None).and_then(|b| b.write()).map_err(failed)?;
                repo.find_tree(empty).map_err(failed)?
            }
        };
        let mut update = TreeUpdateBuilder::new();
        // The index may have changed on disk since this handle last read it (the user staged
        // or committed meanwhile): read it again, so that only our paths change in it.
        let mut index = repo.index().map_err(failed)?;
        index.read(true).map_err(failed)?;
        for (path, name) in paths.iter().zip(&relative) {
            if path.is_file() {
                let blob = repo.blob_path(path).map_err(failed)?;
                update.upsert(name.as_str(), blob, FileMode::Blob);
                index.add_path(Path::new(name)).map_err(failed)?;
            } else {
                update.remove(name.as_str());
                match index.remove_path(Path::new(name)) {
                    Ok(()) => {}
                    Err(e) if e.code() == ErrorCode::NotFound => {}
                    Err(e) => return Err(failed(e)),
                }
            }
        }
        let tree = update.create_updated(&repo, &base).map_err(failed)?;
        if tree == base.id() {
            return Ok(());
        }
        // Index first: should the commit then fail, the change is merely staged, never
        // shown as staged in reverse.
        index.write().map_err(failed)?;
        let tree = repo.find_tree(tree).map_err(failed)?;
        let signature = repo
            .signature()
            .or_else(|_| Signature::now("memcore", "memcore@localhost"))
            .map_err(failed)?;
        let parents: Vec<&git2::Commit<'_>> = head.iter().collect();
        repo.commit(Some("HEAD"), &signature, &signature, message, &tree, &parents)
            .map_err(failed)?;
        Ok(())
    }
}

fn committing_failed(message: &str, e: git2::Error) -> Error {
    let mut err =
        git_error(&format!("the change is stored, but committing it ({message}) failed"), e);
    if let Error::Storage { recovery, .. } | Error::Conflict { recovery, .. } = &mut err {
        *recovery = "the memory file is written (and staged when the index could be updated): \
                     commit it by hand (`git commit`) once no other git process holds the \
                     repository"
            .to_owned();
    }
    err
}

/// The blob of `path` in `commit`'s tree.
fn blob_at(commit: &git2::Commit<'_>, path: &str) -> Option<Oid> {
    let tree = commit.tree().ok()?;
    let entry = tree.get_path(Path::new(path)).ok()?;
    (entry.kind() == Some(git2::ObjectType::Blob)).then(|| entry.id())
}

/// The earlier name of `path` when `commit` renamed it from a file of `parent`.
fn renamed_from(
    repo: &Repository,
    parent: &git2::Commit<'_>,
    commit: &git2::Commit<'_>,
    path: &str,
) -> Result<Option<String>> {
    let failed = |e| git_error("following a rename", e);
    let old_tree = parent.tree().map_err(failed)?;
    let new_tree = commit.tree().map_err(failed)?;
    let mut diff =
        repo.diff_tree_to_tree(Some(&old_tree), Some(&new_tree), None).map_err(failed)?;
    diff.find_similar(Some(DiffFindOptions::new().renames(true))).map_err(failed)?;
    let renamed = diff.deltas().find(|delta| {
        delta.status() == git2::Delta::Renamed
            && delta.new_file().path().is_some_and(|p| p == Path::new(path))
    });
    Ok(renamed.and_then(|delta| delta.old_file().path()).map(|p| p.to_string_lossy().into_owned()))
}

fn canonical(path: &Path) -> Result<PathBuf> {
    path.canonicalize().map_err(|e| Error::io(format!("resolving {}", path.display()), e))
}
