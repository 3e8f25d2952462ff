//! One versioning API for file stores (seed 000): git history inside a work tree, built-in
//! `.versions/` outside, through `versions`, `get_version`, `diff` and `restore_version`.

#![allow(clippy::unwrap_used)]

mod gitrepo;

use std::path::Path;

use memcore::{Category, Config, EmbeddingConfig, Memcore, MemoryUpdate, NewMemory};

fn config(autocommit: bool) -> Config {
    Config {
        git_autocommit: autocommit,
        embedding: EmbeddingConfig { enabled: false, model_dir: None },
        ..Config::default()
    }
}

fn open(root: &Path, autocommit: bool) -> Memcore {
    Memcore::builder().path(root).config(config(autocommit)).open().unwrap()
}

#[test]
fn history_comes_from_the_users_commits_and_follows_renames() {
    let dir = tempfile::tempdir().unwrap();
    let repo = gitrepo::init_with_commit(dir.path());
    let root = dir.path().join("memories");
    let memcore = open(&root, false);
    memcore.put(NewMemory::new("v1: use tabs").id("style").collection("notes")).unwrap();
    gitrepo::commit_all(&repo, "add style memory");
    memcore.update("style", MemoryUpdate::new().content("v2: use spaces")).unwrap();
    gitrepo::commit_all(&repo, "spaces");
    repo.tag_lightweight("v2", &repo.revparse_single("HEAD").unwrap(), false).unwrap();
    // The user renames the file by hand and commits; history follows it.
    std::fs::create_dir_all(root.join("style")).unwrap();
    std::fs::rename(root.join("notes/style.md"), root.join("style/style.md")).unwrap();
    gitrepo::commit_all(&repo, "move to the style collection");
    memcore.update("style/style", MemoryUpdate::new().content("v3: use 4 spaces")).unwrap();

    let versions = memcore.versions("style/style").unwrap();
    let messages: Vec<_> = versions.iter().map(|v| v.message.clone().unwrap()).collect();
    assert_eq!(
        messages,
        [
            "add style memory",
            "spaces",
            "move to the style collection",
            "uncommitted changes in the work tree"
        ]
    );
    assert!(versions.last().unwrap().current);
    assert_eq!(versions[0].author.as_deref(), Some("Test Author"));

    let content = |rev: &str| memcore.get_version("style/style", rev).unwrap().content;
    assert_eq!(content("HEAD~2"), "v1: use tabs", "found under the old name");
    assert_eq!(content(&versions[1].rev), "v2: use spaces");
    assert_eq!(content("v2"), "v2: use spaces");
    assert_eq!(content(&versions[1].rev[..8]), "v2: use spaces");
    assert_eq!(content("worktree"), "v3: use 4 spaces");
    assert_eq!(content(Memcore::CURRENT), "v3: use 4 spaces");

    let diff = memcore.diff("style/style", "HEAD~2", Memcore::CURRENT).unwrap();
    assert!(diff.contains("-v1: use tabs") && diff.contains("+v3: use 4 spaces"), "{diff}");
    assert!(memcore.diff("style/style", "HEAD", "HEAD").unwrap().is_empty());
}

#[test]
fn with_autocommit_every_write_is_a_commit_and_restore_is_one_more() {
    let dir = tempfile::tempdir().unwrap();
    let repo = gitrepo::init_with_commit(dir.path());
    let root = dir.path().join("memories");
    let memcore = open(&root, true);
    memcore.put(NewMemory::new("first").id("m")).unwrap();
    // Something the user stages between two writes stays staged and uncommitted.
    std::fs::write(dir.path().join("staged.txt"), "mine").unwrap();
    let mut index = repo.index().unwrap();
    index.add_path(Path::new("staged.txt")).unwrap();
    index.write().unwrap();
    memcore.update("m", MemoryUpdate::new().content("second")).unwrap();
    memcore.update("m", MemoryUpdate::new().content("third")).unwrap();
    let versions = memcore.versions("m").unwrap();
    assert_eq!(versions.len(), 3);
    assert_eq!(versions[2].message.as_deref(), Some("memcore: update memory/m"));

    let restored = memcore.restore_version("m", &versions[0].rev).unwrap();
    assert_eq!((restored.content.as_str(), restored.version), ("first", 4));
    assert_eq!(memcore.versions("m").unwrap().len(), 4);
    let head = repo.head().unwrap().peel_to_commit().unwrap();
    assert!(head.tree().unwrap().get_path(Path::new("staged.txt")).is_err(), "not committed");
    let status = repo.status_file(Path::new("staged.txt")).unwrap();
    assert!(status.contains(git2::Status::INDEX_NEW), "still staged: {status:?}");
    // The store's private folders stay out of git.
    assert!(repo.status_should_ignore(&root.join(".memcore/index")).unwrap());
    memcore.delete("m").unwrap();
    assert!(head.tree().unwrap().get_path(Path::new("memories/memory/m.md")).is_ok());
    let after = repo.head().unwrap().peel_to_commit().unwrap();
    assert!(after.tree().unwrap().get_path(Path::new("memories/memory/m.md")).is_err());
    assert!(repo.status_should_ignore(&root.join(".trash/memory")).unwrap());
}

#[test]
fn built_in_history_offers_the_same_api() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path(), false);
    memcore.put(NewMemory::new("alpha").id("n")).unwrap();
    memcore.update("n", MemoryUpdate::new().content("beta")).unwrap();
    let versions = memcore.versions("n").unwrap();
    assert_eq!(versions.iter().map(|v| v.rev.as_str()).collect::<Vec<_>>(), ["1", "2"]);
    let diff = memcore.diff("n", "1", "2").unwrap();
    assert!(diff.contains("-alpha") && diff.contains("+beta"), "{diff}");
    let restored = memcore.restore_version("n", "1").unwrap();
    assert_eq!((restored.content.as_str(), restored.version), ("alpha", 3));
}

#[test]
fn bad_revisions_are_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let repo = gitrepo::init_with_commit(dir.path());
    let memcore = open(&dir.path().join("memories"), false);
    memcore.put(NewMemory::new("text").id("m")).unwrap();
    gitrepo::commit_all(&repo, "add m");
    for rev in ["-p", "--output=/tmp/x", "HEAD..HEAD~1", "HEAD:memory/m.md", "a b", "x\0"] {
        let err = memcore.get_version("m", rev).unwrap_err();
        assert_eq!(err.category(), Category::Validation, "{rev:?}: {err}");
    }
    for rev in ["no-such-tag", "HEAD~5", "deadbeef"] {
        let err = memcore.get_version("m", rev).unwrap_err();
        assert_eq!(err.category(), Category::NotFound, "{rev:?}: {err}");
    }
    // Before its first commit the memory did not exist.
    let err = memcore.get_version("m", "HEAD~1").unwrap_err();
    assert_eq!(err.category(), Category::NotFound, "{err}");
    assert_eq!(memcore.diff("m", "-x", "HEAD").unwrap_err().category(), Category::Validation);
}

#[test]
fn a_store_reaching_outside_the_work_tree_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    gitrepo::init_with_commit(dir.path());
    let outside = tempfile::tempdir().unwrap();
    let link = dir.path().join("memories");
    std::os::unix::fs::symlink(outside.path(), &link).unwrap();
    let config = Config { versioning: memcore::Versioning::Git, ..config(false) };
    let err = Memcore::builder().path(&link).config(config).open().unwrap_err();
    assert_eq!(err.category(), Category::Validation, "{err}");
    assert!(std::fs::read_dir(outside.path()).unwrap().next().is_none(), "nothing written");
}
