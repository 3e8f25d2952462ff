//! Merging the git notes of two clones that both wrote (issue 21): every memory of both sides
//! survives exactly once, this side's ids never move, the other side's moved ids and renamed
//! own ids are reported, and content with markdown rules survives the trip.

#![allow(clippy::unwrap_used)]

mod gitrepo;

use std::path::Path;

use git2::Repository;
use memcore::{
    Backend, Config, EmbeddingConfig, ListOptions, Memcore, MemoryUpdate, MergeOutcome, NewMemory,
    NotesMergeReport,
};

fn open(dir: &Path) -> Memcore {
    let config = Config {
        backend: Backend::GitNotes,
        embedding: EmbeddingConfig { enabled: false, model_dir: None },
        ..Config::default()
    };
    Memcore::builder().path(dir).config(config).open().unwrap()
}

fn decision(text: &str) -> NewMemory {
    NewMemory::new(text).collection("decisions")
}

/// Fetches the other clone's memory notes to its tracking refs, as `memcore notes sync` does
/// with `git fetch REMOTE '+refs/notes/mem/*:refs/notes/REMOTE/mem/*'`.
fn fetch_tracking(into: &Path, from: &Path, remote: &str) {
    let repo = Repository::open(into).unwrap();
    let mut other = repo.remote_anonymous(from.to_str().unwrap()).unwrap();
    let refspec = format!("+refs/notes/mem/*:refs/notes/{remote}/mem/*");
    other.fetch(&[refspec.as_str()], None, None).unwrap();
}

/// Every live memory: (own content, positional id).
fn contents(memcore: &Memcore) -> Vec<(String, String)> {
    let listing = memcore.list(&ListOptions::new()).unwrap();
    assert!(listing.skipped.is_empty(), "{:?}", listing.skipped);
    let mut all: Vec<_> = listing
        .memories
        .iter()
        .map(|m| (memcore.get(m.id.as_str()).unwrap().content, m.id.to_string()))
        .collect();
    all.sort();
    all
}

fn decisions(report: &NotesMergeReport) -> &memcore::NamespaceMerge {
    report.namespaces.iter().find(|n| n.namespace == "decisions").unwrap()
}

/// Two clones: A, whose first memory is `first` (own id `shared`), and B, cloned from A,
/// which took A's notes by a merge (a fast-forward, checked).
struct Clones {
    a_dir: tempfile::TempDir,
    a: Memcore,
    b_dir: tempfile::TempDir,
    b: Memcore,
    first: memcore::Memory,
}

fn clones(first: &str) -> Clones {
    let a_dir = tempfile::tempdir().unwrap();
    gitrepo::init_with_commit(a_dir.path());
    let a = open(a_dir.path());
    let first = a.put(decision(first).id("shared")).unwrap();
    let b_dir = tempfile::tempdir().unwrap();
    Repository::clone(a_dir.path().to_str().unwrap(), b_dir.path()).unwrap();
    fetch_tracking(b_dir.path(), a_dir.path(), "origin");
    let b = open(b_dir.path());
    let taken = b.merge_notes("origin").unwrap();
    assert_eq!(decisions(&taken).outcome, MergeOutcome::FastForward);
    assert_eq!((decisions(&taken).added, taken.indexed), (1, 1));
    Clones { a_dir, a, b_dir, b, first }
}

#[test]
fn diverged_clones_merge_with_every_memory_once() {
    let Clones { a_dir, a, b_dir, b, first: shared } = clones("Shared before the split.");

    // Both write to the same note (the same HEAD) and change the shared memory.
    let rule = "Context\n\n---\n\ntype: not a new block\n---\nafter the rules";
    let a_new = a.put(decision(rule).id("from-a")).unwrap();
    let b_new = b.put(decision("Written on B.").id("from-b")).unwrap();
    let b_same_key = b.put(decision("B's take on a shared key.").id("from-a")).unwrap();
    b.update(shared.id.as_str(), MemoryUpdate::new().content("Changed on B.")).unwrap();
    assert_eq!(a_new.id, b_new.id, "both appended at index 1 of the same note");

    fetch_tracking(a_dir.path(), b_dir.path(), "b");
    let report = a.merge_notes("b").unwrap();
    let merge = decisions(&report);
    assert_eq!(merge.outcome, MergeOutcome::Merged);
    assert_eq!((merge.added, merge.updated), (2, 1), "{merge:?}");
    assert!(merge.conflicts.is_empty(), "{merge:?}");
    // B's two new memories moved from indexes 1 and 2 to 2 and 3; A's kept theirs.
    let moved: Vec<_> = merge.moved.iter().map(|m| (m.from.as_str(), m.to.as_str())).collect();
    let sha = shared.id.as_str().rsplit_once(':').unwrap().0.to_owned();
    let (i1, i2, i3) = (format!("{sha}:1"), format!("{sha}:2"), format!("{sha}:3"));
    assert_eq!(moved, [(i1.as_str(), i2.as_str()), (i2.as_str(), i3.as_str())]);
    // B's memory with the own id A had taken got a free one.
    assert_eq!(merge.renamed.len(), 1, "{merge:?}");
    assert_eq!(
        (merge.renamed[0].from.as_str(), merge.renamed[0].to.as_str()),
        ("from-a", "from-a-2")
    );
    assert_eq!(b_same_key.id.as_str(), i2);

    let expected = vec![
        ("B's take on a shared key.".to_owned(), i3.clone()),
        ("Changed on B.".to_owned(), shared.id.to_string()),
        (rule.to_owned(), i1.clone()),
        ("Written on B.".to_owned(), i2.clone()),
    ];
    assert_eq!(contents(&a), expected);
    assert_eq!(a.get("from-a").unwrap().content, rule, "A's own id still names A's memory");
    assert_eq!(a.get("from-a-2").unwrap().content, "B's take on a shared key.");
    // Searchable at once: the merge indexed what came in.
    let hits = a.search(&memcore::Query::new("written").mode(memcore::SearchMode::Text)).unwrap();
    assert_eq!(hits.hits.len(), 1);

    // Merging again changes nothing; B then fast-forwards to the merge.
    assert_eq!(decisions(&a.merge_notes("b").unwrap()).outcome, MergeOutcome::UpToDate);
    fetch_tracking(b_dir.path(), a_dir.path(), "origin");
    let back = b.merge_notes("origin").unwrap();
    assert_eq!(decisions(&back).outcome, MergeOutcome::FastForward);
    assert_eq!(contents(&b), expected);
}

#[test]
fn both_sides_changing_one_memory_keep_the_later_change() {
    let Clones { a_dir, a, b_dir, b, first: memory } = clones("Original.");
    a.update("shared", MemoryUpdate::new().content("A's change.")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100)); // timestamps have seconds
    b.update("shared", MemoryUpdate::new().content("B's later change.")).unwrap();
    fetch_tracking(a_dir.path(), b_dir.path(), "b");
    let report = a.merge_notes("b").unwrap();
    let merge = decisions(&report);
    assert_eq!(merge.conflicts.len(), 1, "{merge:?}");
    assert_eq!(
        (merge.conflicts[0].id.as_str(), merge.conflicts[0].kept.as_str()),
        (memory.id.as_str(), "theirs")
    );
    assert_eq!(a.get("shared").unwrap().content, "B's later change.");
    assert_eq!(contents(&a).len(), 1);
}

#[test]
fn a_remote_without_notes_or_with_a_bad_name_is_handled() {
    let dir = tempfile::tempdir().unwrap();
    gitrepo::init_with_commit(dir.path());
    let memcore = open(dir.path());
    let report = memcore.merge_notes("nowhere").unwrap();
    assert!(report.namespaces.is_empty(), "{report:?}");
    let err = memcore.merge_notes("bad name..").unwrap_err();
    assert_eq!(err.category(), memcore::Category::Validation, "{err}");
    let files = tempfile::tempdir().unwrap();
    let file_store = Memcore::builder().path(files.path()).open().unwrap();
    let err = file_store.merge_notes("origin").unwrap_err();
    assert_eq!(err.category(), memcore::Category::Unsupported, "{err}");
}

#[test]
fn a_memory_another_tool_wrote_and_the_other_clone_deleted_is_deleted_once() {
    let Clones { a_dir, a, b_dir, b, first } = clones("Written by memcore first.");
    // The reference implementation appends a memory without an own id to the same note.
    let repo = Repository::open(a_dir.path()).unwrap();
    let sha = first.id.as_str().split(':').nth(1).unwrap().to_owned();
    let foreign = "---\ntype: decisions\ntimestamp: 2024-01-15T10:30:00+00:00\nsummary: From \
                   the reference\n---\n\nIts body.\n";
    let note = repo.find_note(Some("refs/notes/mem/decisions"), git2::Oid::from_str(&sha).unwrap());
    let text = format!("{}\n{foreign}", note.unwrap().message().unwrap());
    let signature = git2::Signature::now("plugin", "p@example.com").unwrap();
    let oid = git2::Oid::from_str(&sha).unwrap();
    repo.note(&signature, &signature, Some("refs/notes/mem/decisions"), oid, &text, true).unwrap();
    a.sync().unwrap();
    fetch_tracking(b_dir.path(), a_dir.path(), "origin");
    assert_eq!(decisions(&b.merge_notes("origin").unwrap()).outcome, MergeOutcome::FastForward);
    let foreign_id = format!("decisions:{sha}:1");
    // B deletes it (memcore rewrites the block, with its derived own id); A adds a memory.
    b.delete(foreign_id.as_str()).unwrap();
    let added = a.put(decision("Added on A.").id("added")).unwrap();
    assert_eq!(added.id.as_str(), format!("decisions:{sha}:2"));
    fetch_tracking(a_dir.path(), b_dir.path(), "b");
    let report = a.merge_notes("b").unwrap();
    let merge = decisions(&report);
    assert_eq!((merge.added, merge.updated), (0, 1), "{merge:?}");
    assert!(merge.moved.is_empty() && merge.conflicts.is_empty(), "{merge:?}");
    // Deleted once, nothing duplicated, A's ids where they were.
    assert_eq!(
        contents(&a),
        [
            ("Added on A.".to_owned(), added.id.to_string()),
            ("Written by memcore first.".to_owned(), first.id.to_string()),
        ]
    );
    let note = repo.find_note(Some("refs/notes/mem/decisions"), oid).unwrap();
    assert_eq!(note.message().unwrap().matches("From the reference").count(), 1);
}
