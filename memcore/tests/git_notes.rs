//! The git-notes backend through the public API, on real repositories: seed 002's ids and
//! note format, multi-memory notes, search through the indexes, sync between clones,
//! verify/repair, hydration and bad input.

#![allow(clippy::unwrap_used)]

mod gitrepo;

use std::path::Path;

use git2::Repository;
use memcore::{
    Backend, Category, CommitAttachment, Config, EmbeddingConfig, GitNotesStore, HydrationLevel,
    Limits, Maintenance, Memcore, MemoryStore, MemoryUpdate, NewMemory, PutMode, Query, SearchMode,
};

/// Stores one memory attached to the commit `rev` (the store's commit attachment).
fn put_at(
    store: &GitNotesStore,
    memory: memcore::Memory,
    rev: &str,
) -> memcore::Result<memcore::Memory> {
    let mut stored = store.put_many_at(vec![memory], rev, PutMode::Upsert)?;
    Ok(stored.remove(0))
}

fn config() -> Config {
    Config {
        backend: Backend::GitNotes,
        embedding: EmbeddingConfig { enabled: false, model_dir: None },
        ..Config::default()
    }
}

fn open(dir: &Path) -> Memcore {
    Memcore::builder().path(dir).config(config()).open().unwrap()
}

fn head(repo: &Repository) -> String {
    repo.head().unwrap().peel_to_commit().unwrap().id().to_string()
}

fn note_text(repo: &Repository, namespace: &str, commit: &str) -> String {
    let oid = git2::Oid::from_str(commit).unwrap();
    let note = repo.find_note(Some(&format!("refs/notes/mem/{namespace}")), oid).unwrap();
    note.message().unwrap().to_owned()
}

fn decision(text: &str) -> NewMemory {
    NewMemory::new(text).collection("decisions")
}

#[test]
fn memories_are_seed_format_blocks_with_positional_ids() {
    let dir = tempfile::tempdir().unwrap();
    let repo = gitrepo::init_with_commit(dir.path());
    let memcore = open(dir.path());
    let first = memcore
        .put(decision("## Context\n\nWe need ACID.").summary("Use PostgreSQL").tags(["db"]))
        .unwrap();
    let second = memcore.put(decision("Cache reads in Redis.").id("cache")).unwrap();
    let sha = head(&repo);
    assert_eq!(first.id.as_str(), format!("decisions:{sha}:0"));
    assert_eq!(second.id.as_str(), format!("decisions:{sha}:1"));
    assert_eq!(second.summary.as_deref(), Some("Cache reads in Redis."), "derived summary");

    let text = note_text(&repo, "decisions", &sha);
    assert!(text.starts_with("---\ntype: decisions\ntimestamp: "), "{text}");
    assert!(text.contains("summary: Use PostgreSQL\n"), "{text}");
    assert_eq!(text.matches("\n---\ntype: decisions\n").count(), 1, "two blocks: {text}");

    // Lookups: full id, short sha, the memory's own id, with or without the namespace.
    let short = format!("decisions:{}:1", &sha[..7]);
    for reference in [second.id.as_str(), short.as_str(), "cache", "decisions/cache"] {
        assert_eq!(memcore.get(reference).unwrap().content, "Cache reads in Redis.", "{reference}");
    }
    let err = memcore.get(format!("decisions:{}:1", &sha[..3])).unwrap_err();
    assert_eq!(err.category(), Category::NotFound, "3 hex digits are no sha: {err}");
}

#[test]
fn update_delete_and_restore_inside_a_multi_memory_note() {
    let dir = tempfile::tempdir().unwrap();
    let repo = gitrepo::init_with_commit(dir.path());
    let memcore = open(dir.path());
    let ids: Vec<String> = ["one", "two", "three"]
        .iter()
        .map(|text| memcore.put(decision(text).id(*text)).unwrap().id.to_string())
        .collect();
    let updated = memcore.update(&ids[1], MemoryUpdate::new().content("two, revised")).unwrap();
    assert_eq!((updated.id.as_str(), updated.version), (ids[1].as_str(), 2));
    memcore.delete(&ids[0]).unwrap();
    assert_eq!(memcore.get(&ids[0]).unwrap_err().category(), Category::NotFound);
    // The other memories keep their ids: the deleted block stays, marked.
    assert_eq!(memcore.get(&ids[2]).unwrap().content, "three");
    let text = note_text(&repo, "decisions", &head(&repo));
    assert!(text.contains("deleted_at: "), "{text}");
    let restored = memcore.restore(&ids[0]).unwrap();
    assert_eq!((restored.id.to_string(), restored.content.as_str()), (ids[0].clone(), "one"));
    let listing = memcore.list(&memcore::ListOptions::new()).unwrap();
    assert_eq!(listing.memories.len(), 3);
}

/// A repository in `dir` with two commits, and the id of the first.
fn two_commits(dir: &Path) -> (Repository, String) {
    let repo = gitrepo::init_with_commit(dir);
    let first = head(&repo);
    std::fs::write(dir.join("b.txt"), "b").unwrap();
    gitrepo::commit_all(&repo, "second");
    (repo, first)
}

#[test]
fn memories_attach_to_the_commit_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let (_, first) = two_commits(dir.path());
    let store = GitNotesStore::open(dir.path(), &Config::default()).unwrap();
    let memory = NewMemory::new("found on the first commit")
        .into_memory(&"learnings".parse().unwrap(), &Limits::default(), memcore::now())
        .unwrap();
    let stored = put_at(&store, memory, "HEAD~1").unwrap();
    assert_eq!(stored.id.as_str(), format!("learnings:{first}:0"));

    let pinned = Config {
        git_notes: memcore::GitNotesConfig { commit: first.clone(), ..Default::default() },
        ..Config::default()
    };
    let store = GitNotesStore::open(dir.path(), &pinned).unwrap();
    let memory = NewMemory::new("also there")
        .into_memory(&"learnings".parse().unwrap(), &Limits::default(), memcore::now())
        .unwrap();
    assert_eq!(
        store.put(memory, PutMode::Upsert).unwrap().id.as_str(),
        format!("learnings:{first}:1")
    );
}

#[test]
fn memcore_put_at_attaches_to_the_commit_asked_for_and_indexes_it() {
    let dir = tempfile::tempdir().unwrap();
    let (repo, first) = two_commits(dir.path());
    let memcore = open(dir.path());
    let memory = decision("Parse with recursive descent.").id("parser");
    let stored = memcore.put_at(memory, "HEAD~1", PutMode::CreateOnly).unwrap();
    assert_eq!(stored.id.as_str(), format!("decisions:{first}:0"));
    assert!(note_text(&repo, "decisions", &first).contains("recursive descent"));
    let hits = memcore.search(&Query::new("recursive descent").mode(SearchMode::Text)).unwrap();
    assert_eq!(hits.hits[0].memory.id, stored.id);

    let clash = memcore.put_at(decision("again").id("parser"), &first, PutMode::CreateOnly);
    assert_eq!(clash.unwrap_err().category(), Category::Conflict);
    let batch = vec![decision("One.").id("one"), decision("Two.").id("two")];
    let stored = memcore.put_many_at(batch, &first[..7], PutMode::Upsert).unwrap();
    let ids: Vec<&str> = stored.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, [format!("decisions:{first}:1"), format!("decisions:{first}:2")]);
    assert!(memcore.verify().unwrap().is_consistent());

    // Only git notes attach memories to commits: a file store writes nothing.
    let files = tempfile::tempdir().unwrap();
    let config = Config { backend: Backend::File, ..config() };
    let memcore = Memcore::builder().path(files.path()).config(config).open().unwrap();
    let err = memcore.put_at(NewMemory::new("x").id("x"), "HEAD", PutMode::Upsert).unwrap_err();
    assert_eq!(err.category(), Category::Unsupported, "{err}");
    assert!(memcore.list(&memcore::ListOptions::new()).unwrap().memories.is_empty());
}

#[test]
fn search_runs_over_the_notes_through_the_indexes() {
    let dir = tempfile::tempdir().unwrap();
    gitrepo::init_with_commit(dir.path());
    let memcore = open(dir.path());
    memcore.put(decision("PostgreSQL was selected for ACID compliance.")).unwrap();
    memcore
        .put(NewMemory::new("The flaky test was a race in the cache.").collection("blockers"))
        .unwrap();
    let results = memcore.search(&Query::new("postgresql acid").mode(SearchMode::Text)).unwrap();
    assert_eq!(results.hits.len(), 1);
    assert!(results.hits[0].memory.id.as_str().starts_with("decisions:"));
    let blockers = Query::new("race cache").collection("blockers");
    assert_eq!(memcore.search(&blockers).unwrap().hits.len(), 1);
    assert!(memcore.verify().unwrap().is_consistent());
    // The indexes live in the git directory, never in the work tree.
    assert!(dir.path().join(".git/memcore/index").is_dir());
}

/// Fetches every notes ref of `from` into `into`, as `git fetch origin 'refs/notes/*:refs/notes/*'`.
fn fetch_notes(into: &Repository, from: &Path) {
    let mut remote = into.remote_anonymous(from.to_str().unwrap()).unwrap();
    remote.fetch(&["+refs/notes/*:refs/notes/*"], None, None).unwrap();
}

#[test]
fn notes_fetched_from_another_clone_show_up_after_a_sync() {
    let origin = tempfile::tempdir().unwrap();
    gitrepo::init_with_commit(origin.path());
    let a = open(origin.path());
    a.put(decision("Adopt trunk-based development.").id("trunk")).unwrap();

    let clone_dir = tempfile::tempdir().unwrap();
    let clone = Repository::clone(origin.path().to_str().unwrap(), clone_dir.path()).unwrap();
    fetch_notes(&clone, origin.path());
    let b = open(clone_dir.path()); // syncs on open
    assert_eq!(
        b.opened_with(),
        [Maintenance::Rebuilt { memories: 1, damaged: false }],
        "a new index"
    );
    let trunk = Query::new("trunk development").mode(SearchMode::Text);
    assert_eq!(b.search(&trunk).unwrap().hits.len(), 1);

    a.put(decision("Release every Tuesday.").id("release")).unwrap();
    a.delete("trunk").unwrap();
    assert_eq!(a.sync().unwrap().synced, 0, "a handle's own writes are indexed already");
    fetch_notes(&clone, origin.path());
    let report = b.sync().unwrap();
    assert!(!report.full && report.synced >= 2, "{report:?}");
    assert_eq!(b.search(&trunk).unwrap().hits.len(), 0);
    let release = Query::new("release tuesday").mode(SearchMode::Text);
    assert_eq!(b.search(&release).unwrap().hits.len(), 1);
    assert_eq!(b.sync().unwrap().synced, 0, "nothing new");

    // A handle opened after a fetch says what its open-time sync brought in.
    a.put(decision("Freeze on Fridays.").id("freeze")).unwrap();
    fetch_notes(&clone, origin.path());
    let c = open(clone_dir.path());
    assert_eq!(c.opened_with(), [Maintenance::Synced { memories: 1, full: false }]);
    assert!(open(clone_dir.path()).opened_with().is_empty(), "in order");
}

#[test]
fn verify_finds_notes_written_behind_our_back_and_repair_indexes_them() {
    let dir = tempfile::tempdir().unwrap();
    let repo = gitrepo::init_with_commit(dir.path());
    let memcore = open(dir.path());
    memcore.put(decision("Indexed through memcore.")).unwrap();
    // Another tool (seed 002's Python plugin) writes a note on a new commit.
    std::fs::write(dir.path().join("c.txt"), "c").unwrap();
    let commit = gitrepo::commit_all(&repo, "third");
    let signature = git2::Signature::now("plugin", "p@example.com").unwrap();
    let foreign = "---\ntype: learnings\ntimestamp: 2024-01-15T10:30:00+00:00\nsummary: \
                   Lifetimes need care\n---\n\nBorrowck insights.\n";
    repo.note(&signature, &signature, Some("refs/notes/mem/learnings"), commit, foreign, false)
        .unwrap();
    let report = memcore.verify().unwrap();
    assert_eq!(
        report.indexes["text"].diff.missing,
        [format!("learnings/learnings:{commit}:0").as_str()]
    );
    let repaired = memcore.repair().unwrap();
    assert_eq!(repaired.reindexed, 1);
    assert!(memcore.verify().unwrap().is_consistent());
    let hit = memcore.search(&Query::new("borrowck").mode(SearchMode::Text)).unwrap();
    // No title in the note: the summary is the title (seed 002 has no title field).
    assert_eq!(hit.hits[0].memory.title, "Lifetimes need care");
    // A full reindex finds both.
    assert_eq!(memcore.reindex(&mut |_| {}).unwrap().memories, 2);
}

#[test]
fn a_note_with_broken_yaml_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    let repo = gitrepo::init_with_commit(dir.path());
    let memcore = open(dir.path());
    let good = memcore.put(decision("Still readable.")).unwrap();
    std::fs::write(dir.path().join("d.txt"), "d").unwrap();
    let commit = gitrepo::commit_all(&repo, "fourth");
    let signature = git2::Signature::now("hand", "h@example.com").unwrap();
    let broken = "---\ntype: decisions\nsummary: [never closed\n---\nbody\n";
    repo.note(&signature, &signature, Some("refs/notes/mem/decisions"), commit, broken, false)
        .unwrap();
    let listing = memcore.list(&memcore::ListOptions::new()).unwrap();
    assert_eq!(listing.memories.len(), 1);
    assert_eq!(listing.memories[0].id, good.id);
    assert_eq!(listing.skipped.len(), 1);
    let err = &listing.skipped[0];
    assert_eq!(err.category(), Category::Parse);
    assert!(err.to_string().contains("refs/notes/mem/decisions@"), "{err}");
    assert!(err.recovery().contains("git notes --ref=mem/decisions edit"), "{}", err.recovery());
}

#[test]
fn hydration_adds_the_note_the_commit_and_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let repo = gitrepo::init_with_commit(dir.path());
    for n in 0..22 {
        std::fs::write(dir.path().join(format!("f{n:02}.txt")), format!("file {n}\n")).unwrap();
    }
    std::fs::write(dir.path().join("big.bin"), vec![b'x'; 200 * 1024]).unwrap();
    gitrepo::commit_all(&repo, "add many files");
    let memcore = open(dir.path());
    let stored = memcore.put(decision("Split the files.")).unwrap();
    let id = stored.id.as_str();

    let summary = memcore.hydrate(id, HydrationLevel::Summary).unwrap();
    assert!(summary.note.is_none() && summary.commit.is_none() && summary.files.is_empty());
    let full = memcore.hydrate(id, HydrationLevel::Full).unwrap();
    let commit = full.commit.unwrap();
    assert_eq!(
        (commit.author.as_str(), commit.message.as_str()),
        ("Test Author", "add many files")
    );
    assert!(full.note.unwrap().contains("Split the files."));
    let files = memcore.hydrate(id, HydrationLevel::Files).unwrap();
    assert_eq!(files.files.len(), memcore::MAX_HYDRATED_FILES);
    assert_eq!(files.files_omitted, 3);
    let big = files.files.iter().find(|f| f.path == "big.bin").unwrap();
    assert_eq!((big.size, big.content.is_none()), (200 * 1024, true));
    let small = files.files.iter().find(|f| f.path == "f00.txt").unwrap();
    assert_eq!(small.content.as_deref(), Some("file 0\n"));

    let file_store = tempfile::tempdir().unwrap();
    let plain = Memcore::open(file_store.path()).unwrap();
    plain.put(NewMemory::new("x").id("x")).unwrap();
    assert_eq!(
        plain.hydrate("x", HydrationLevel::Full).unwrap_err().category(),
        Category::Unsupported
    );
}

#[test]
fn bad_input_is_refused_with_seed_hints() {
    let dir = tempfile::tempdir().unwrap();
    // Not a repository.
    let err = GitNotesStore::open(dir.path(), &Config::default()).unwrap_err();
    assert_eq!(err.category(), Category::Validation);
    assert!(err.recovery().contains("git init"), "{}", err.recovery());
    // No commits yet: opens, but writing says how to fix it.
    Repository::init(dir.path()).unwrap();
    let memcore = open(dir.path());
    let err = memcore.put(decision("too early")).unwrap_err();
    assert_eq!(err.category(), Category::Storage);
    assert!(err.recovery().contains("git commit --allow-empty"), "{}", err.recovery());

    let dir = tempfile::tempdir().unwrap();
    gitrepo::init_with_commit(dir.path());
    let memcore = open(dir.path());
    let cases = [
        NewMemory::new("x").collection("memory"),
        decision("x").summary("s".repeat(101)),
        decision(&"y".repeat(100 * 1024 + 1)),
        decision("x").context("a\n---\ntype: injected"),
        decision("x").meta("deleted_at", "now"),
        decision("nul \0 byte"),
    ];
    for case in cases {
        let err = memcore.put(case).unwrap_err();
        assert_eq!(err.category(), Category::Validation, "{err}");
    }
    let err = memcore.put(NewMemory::new("x").collection("memory")).unwrap_err();
    assert!(err.recovery().contains("decisions"), "{}", err.recovery());
    assert!(
        memcore.list(&memcore::ListOptions::new()).unwrap().memories.is_empty(),
        "nothing written"
    );

    let store = GitNotesStore::open(dir.path(), &Config::default()).unwrap();
    let memory = || {
        NewMemory::new("x")
            .into_memory(&"decisions".parse().unwrap(), &Limits::default(), memcore::now())
            .unwrap()
    };
    for rev in ["-x", "--output=/tmp/x", "a..b", "HEAD:x", "a\0b", ""] {
        let err = put_at(&store, memory(), rev).unwrap_err();
        assert_eq!(err.category(), Category::Validation, "{rev:?}: {err}");
    }
    let err = put_at(&store, memory(), "no-such-branch").unwrap_err();
    assert_eq!(err.category(), Category::NotFound, "{err}");
    let bad_target = Config {
        git_notes: memcore::GitNotesConfig { commit: "--exec=sh".into(), ..Default::default() },
        ..Config::default()
    };
    assert_eq!(
        GitNotesStore::open(dir.path(), &bad_target).unwrap_err().category(),
        Category::Validation
    );
}

#[test]
fn a_ref_locked_by_another_git_process_is_retried_then_reported() {
    let dir = tempfile::tempdir().unwrap();
    gitrepo::init_with_commit(dir.path());
    let memcore = open(dir.path());
    memcore.put(decision("first")).unwrap();
    let lock = dir.path().join(".git/refs/notes/mem/decisions.lock");
    std::fs::write(&lock, "").unwrap();
    let err = memcore.put(decision("second")).unwrap_err();
    assert_eq!(err.category(), Category::Conflict, "{err}");
    assert!(err.recovery().contains(".lock"), "{}", err.recovery());
    std::fs::remove_file(&lock).unwrap();
    memcore.put(decision("second")).unwrap();
    assert_eq!(memcore.list(&memcore::ListOptions::new()).unwrap().memories.len(), 2);
}

#[test]
fn a_project_store_folder_that_does_not_exist_yet_finds_its_repository() {
    let dir = tempfile::tempdir().unwrap();
    gitrepo::init_with_commit(dir.path());
    let memcore = open(&dir.path().join(".memcore"));
    let stored = memcore.put(decision("Found the repository above.")).unwrap();
    assert!(stored.id.as_str().starts_with("decisions:"));
}
