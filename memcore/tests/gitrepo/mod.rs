//! Real git repositories for tests, made with libgit2 in temp dirs.
#![allow(dead_code, unreachable_pub)]

use std::path::Path;

use git2::{Repository, Signature};

/// A new repository in `dir` with one commit (`README.md`).
pub fn init_with_commit(dir: &Path) -> Repository {
    let repo = Repository::init(dir).expect("git init");
    {
        let mut config = repo.config().expect("repo config");
        config.set_str("user.name", "Test Author").expect("user.name");
        config.set_str("user.email", "author@example.com").expect("user.email");
    }
    std::fs::write(dir.join("README.md"), "# test repo\n").expect("write README");
    commit_all(&repo, "initial commit");
    repo
}

/// Stages every file of the work tree and commits on HEAD; returns the commit id.
pub fn commit_all(repo: &Repository, message: &str) -> git2::Oid {
    let mut index = repo.index().expect("index");
    index.add_all(["*"], git2::IndexAddOption::DEFAULT, None).expect("add all");
    index.update_all(["*"], None).expect("update all");
    index.write().expect("write index");
    let tree = repo.find_tree(index.write_tree().expect("write tree")).expect("tree");
    let signature = Signature::now("Test Author", "author@example.com").expect("signature");
    let parent = repo.head().ok().and_then(|head| head.peel_to_commit().ok());
    let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
    repo.commit(Some("HEAD"), &signature, &signature, message, &tree, &parents).expect("commit")
}
