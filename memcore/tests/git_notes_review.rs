//! The git-notes store against the failure modes found in review: bodies that look like
//! block openers, memories read back and put again, notes changed by other git processes,
//! several writer processes, linked worktrees, empty repositories on any branch, and
//! git-ignored file stores.

#![allow(clippy::unwrap_used)]

mod gitrepo;

use std::process::{Command, Stdio};

use git2::Repository;
use memcore::{
    Backend, Category, Config, EmbeddingConfig, GitNotesStore, ListOptions, Memcore, MemoryStore,
    MemoryUpdate, NewMemory,
};

const ROLE: &str = "MEMCORE_TEST_NOTES_WRITER";
const DIR: &str = "MEMCORE_TEST_NOTES_REPO";
const PER_WRITER: usize = 15;

fn config() -> Config {
    Config {
        backend: Backend::GitNotes,
        embedding: EmbeddingConfig { enabled: false, model_dir: None },
        ..Config::default()
    }
}

fn open(dir: &std::path::Path) -> Memcore {
    Memcore::builder().path(dir).config(config()).open().unwrap()
}

#[test]
fn a_body_starting_with_type_stays_in_its_block() {
    let dir = tempfile::tempdir().unwrap();
    gitrepo::init_with_commit(dir.path());
    let memcore = open(dir.path());
    let schema = "type: object\nproperties: {}\n";
    let first = memcore.put(NewMemory::new(schema).collection("patterns")).unwrap();
    let second = memcore.put(NewMemory::new("after it").collection("patterns")).unwrap();
    assert!(second.id.as_str().ends_with(":1"), "{}", second.id);
    // A fresh handle reads the note from git, not from the writer's cache.
    let fresh = open(dir.path());
    assert_eq!(fresh.get(first.id.as_str()).unwrap().content, schema);
    assert_eq!(fresh.get(second.id.as_str()).unwrap().content, "after it");
    assert!(fresh.list(&ListOptions::new()).unwrap().skipped.is_empty());
}

#[test]
fn a_memory_read_back_and_put_again_replaces_itself() {
    let dir = tempfile::tempdir().unwrap();
    gitrepo::init_with_commit(dir.path());
    let memcore = open(dir.path());
    let stored = memcore.put(NewMemory::new("one copy only").collection("learnings")).unwrap();
    let store = GitNotesStore::open(dir.path(), &config()).unwrap();
    let mut read = (*store.get(&memcore::MemoryRef::bare(stored.id.clone())).unwrap()).clone();
    read.content = "one copy only, edited".into();
    let again = store.put(read, memcore::PutMode::Upsert).unwrap();
    assert_eq!((again.id.clone(), again.version), (stored.id.clone(), 2));
    assert_eq!(memcore.list(&ListOptions::new()).unwrap().memories.len(), 1);
    // An id of that form naming nothing is refused, not stored under a made-up position.
    let mut stray = again.clone();
    stray.id = format!("learnings:{}:7", &stored.id.as_str()[10..50]).parse().unwrap();
    let err = store.put(stray, memcore::PutMode::Upsert).unwrap_err();
    assert_eq!(err.category(), Category::Validation, "{err}");
}

#[test]
fn notes_changed_by_another_git_process_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let repo = gitrepo::init_with_commit(dir.path());
    let memcore = open(dir.path());
    let first = memcore.put(NewMemory::new("ours, first").collection("decisions")).unwrap();
    // The seed's plugin appends to the same note with `git notes append` meanwhile.
    let head = repo.head().unwrap().peel_to_commit().unwrap().id();
    let refname = "refs/notes/mem/decisions";
    let current = repo.find_note(Some(refname), head).unwrap().message().unwrap().to_owned();
    let theirs = "---\ntype: decisions\ntimestamp: 2024-01-15T10:30:00Z\nsummary: Theirs\n---\n\nfrom \
                  the plugin\n";
    let signature = git2::Signature::now("plugin", "p@example.com").unwrap();
    repo.note(&signature, &signature, Some(refname), head, &format!("{current}\n{theirs}"), true)
        .unwrap();
    let third = memcore.put(NewMemory::new("ours, third").collection("decisions")).unwrap();
    assert!(third.id.as_str().ends_with(":2"), "{}", third.id);
    let listing = memcore.list(&ListOptions::new()).unwrap();
    let contents: Vec<String> =
        listing.memories.iter().map(|m| memcore.get(m.id.as_str()).unwrap().content).collect();
    assert_eq!(contents, ["ours, first", "from the plugin", "ours, third"]);
    assert_eq!(memcore.get(first.id.as_str()).unwrap().version, 1);
}

/// The child side of `writer_processes_lose_nothing`: a no-op unless started by it.
#[test]
fn notes_writer_child() {
    let (Ok(name), Ok(dir)) = (std::env::var(ROLE), std::env::var(DIR)) else { return };
    let memcore = open(std::path::Path::new(&dir));
    for n in 0..PER_WRITER {
        memcore
            .put(
                NewMemory::new(format!("{name} {n}"))
                    .id(format!("{name}-{n}"))
                    .collection("progress"),
            )
            .unwrap();
        let tag = MemoryUpdate::new().tags([format!("{name}-{n}")]).merge_tags(true);
        memcore.update("progress/shared", tag).unwrap();
    }
}

#[test]
fn writer_processes_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    gitrepo::init_with_commit(dir.path());
    let memcore = open(dir.path());
    memcore.put(NewMemory::new("tagged by everyone").id("shared").collection("progress")).unwrap();
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = ["alpha", "beta", "gamma"]
        .iter()
        .map(|name| {
            Command::new(&exe)
                .args(["--exact", "notes_writer_child", "--test-threads", "1"])
                .env(ROLE, name)
                .env(DIR, dir.path())
                .stdout(Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut child in children {
        assert!(child.wait().unwrap().success(), "a writer process failed");
    }
    let listing = memcore.list(&ListOptions::new()).unwrap();
    assert!(listing.skipped.is_empty(), "{:?}", listing.skipped);
    assert_eq!(listing.memories.len(), 3 * PER_WRITER + 1);
    let shared = memcore.get("progress/shared").unwrap();
    assert_eq!(shared.tags.len(), 3 * PER_WRITER, "an update was lost");
}

#[test]
fn linked_worktrees_share_the_lock_and_the_notes() {
    let dir = tempfile::tempdir().unwrap();
    let repo = gitrepo::init_with_commit(dir.path());
    let linked = tempfile::tempdir().unwrap();
    let path = linked.path().join("wt");
    repo.worktree("wt", &path, None).unwrap();
    let main = GitNotesStore::open(dir.path(), &config()).unwrap();
    let other = GitNotesStore::open(&path, &config()).unwrap();
    assert_eq!(main.git_dir().canonicalize().unwrap(), other.git_dir().canonicalize().unwrap());
    let memcore = open(&path);
    let stored = memcore.put(NewMemory::new("from the worktree").collection("research")).unwrap();
    assert_eq!(open(dir.path()).get(stored.id.as_str()).unwrap().content, "from the worktree");
}

#[test]
fn an_empty_repository_on_any_branch_asks_for_a_first_commit() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = git2::RepositoryInitOptions::new();
    options.initial_head("main");
    Repository::init_opts(dir.path(), &options).unwrap();
    let err = open(dir.path()).put(NewMemory::new("early").collection("inception")).unwrap_err();
    assert_eq!(err.category(), Category::Storage, "{err}");
    assert!(err.recovery().contains("git commit --allow-empty"), "{}", err.recovery());
}

#[test]
fn a_git_ignored_file_store_keeps_built_in_history() {
    let dir = tempfile::tempdir().unwrap();
    gitrepo::init_with_commit(dir.path());
    std::fs::write(dir.path().join(".gitignore"), ".memcore/\n").unwrap();
    let config = Config {
        embedding: EmbeddingConfig { enabled: false, model_dir: None },
        ..Config::default()
    };
    let memcore =
        Memcore::builder().path(dir.path().join(".memcore")).config(config).open().unwrap();
    memcore.put(NewMemory::new("v1").id("m")).unwrap();
    memcore.update("m", MemoryUpdate::new().content("v2")).unwrap();
    let versions = memcore.versions("m").unwrap();
    assert_eq!(versions.iter().map(|v| v.rev.as_str()).collect::<Vec<_>>(), ["1", "2"]);
}
