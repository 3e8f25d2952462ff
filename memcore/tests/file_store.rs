//! FileStore behaviour beyond the conformance suite: hand-edited files, damaged files,
//! history pruning, trash layout, git work trees.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::{Path, PathBuf};

use memcore::{
    Category, Config, Error, ListOptions, Memcore, MemoryUpdate, NewMemory, PutMode, Versioning,
};

fn open(dir: &Path) -> Memcore {
    Memcore::open(dir.join("store")).expect("store opens")
}

fn file(dir: &Path, collection: &str, id: &str) -> PathBuf {
    dir.join("store").join(collection).join(format!("{id}.md"))
}

#[test]
fn files_are_plain_markdown_with_frontmatter() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    memcore
        .put(NewMemory::new("# GPU Patterns\n\nUse Metal.\n").collection("knowledge").tags(["gpu"]))
        .unwrap();
    let text = fs::read_to_string(file(dir.path(), "knowledge", "gpu-patterns")).unwrap();
    assert!(
        text.starts_with("---\nid: gpu-patterns\ntitle: GPU Patterns\ncollection: knowledge\n")
    );
    assert!(text.contains("\ntags:\n- gpu\n"), "{text}");
    assert!(text.ends_with("---\n# GPU Patterns\n\nUse Metal.\n"));
}

#[test]
fn hand_edits_are_seen_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    memcore.put(NewMemory::new("original").id("note")).unwrap();
    assert_eq!(memcore.get("note").unwrap().content, "original");
    let path = file(dir.path(), "memory", "note");
    // Same length, same second: only a stat-validated cache with the racy-write rule sees it.
    let edited = fs::read_to_string(&path).unwrap().replace("original", "ORIGINAL");
    fs::write(&path, edited).unwrap();
    assert_eq!(memcore.get("note").unwrap().content, "ORIGINAL");
    // A file dropped in by hand, without frontmatter, is a memory too.
    fs::write(file(dir.path(), "memory", "dropped"), "# Dropped In\n\ntext").unwrap();
    let dropped = memcore.get("memory/dropped").unwrap();
    assert_eq!((dropped.title.as_str(), dropped.version), ("Dropped In", 1));
}

#[test]
fn a_broken_file_fails_alone_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    for id in ["a", "b", "c"] {
        memcore.put(NewMemory::new(format!("memory {id}")).id(id)).unwrap();
    }
    let broken = file(dir.path(), "memory", "b");
    fs::write(&broken, "---\nid: b\ntags: [unclosed\ntitle: x\n---\nbody\n").unwrap();
    fs::write(file(dir.path(), "memory", "latin1"), b"---\nid: x\n---\ncaf\xe9\n").unwrap();

    let err = memcore.get("b").unwrap_err();
    let Error::Corrupted { path, line, .. } = &err else { panic!("expected Corrupted, got {err}") };
    assert_eq!(path, &broken);
    assert!(line.is_some_and(|l| (3..=5).contains(&l)), "line {line:?}");
    assert!(err.to_string().starts_with(&broken.display().to_string()));

    let err = memcore.get("latin1").unwrap_err();
    assert!(matches!(err, Error::Corrupted { line: Some(4), .. }), "{err}");

    let listing = memcore.list(&ListOptions::new()).unwrap();
    let ids: Vec<&str> = listing.memories.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["a", "c"]);
    assert_eq!(listing.skipped.len(), 2);
    assert!(listing.skipped.iter().all(|e| e.category() == Category::Parse));

    // Updating a broken memory is refused; replacing it keeps the broken file in the trash.
    assert_eq!(
        memcore.update("b", MemoryUpdate::new().title("t")).unwrap_err().category(),
        Category::Parse
    );
    memcore.put(NewMemory::new("fresh").id("b")).unwrap();
    assert_eq!(memcore.get("b").unwrap().content, "fresh");
    let trash = dir.path().join("store/.trash/memory");
    let kept = fs::read_dir(trash).unwrap().count();
    assert_eq!(kept, 1);
}

#[test]
fn bad_file_names_are_reported_not_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    memcore.put(NewMemory::new("ok").id("ok")).unwrap();
    fs::write(dir.path().join("store/memory/My Notes.md"), "text").unwrap();
    fs::write(dir.path().join("store/memory/.hidden.md"), "text").unwrap();
    fs::write(dir.path().join("store/memory/readme.txt"), "text").unwrap();
    let listing = memcore.list(&ListOptions::new()).unwrap();
    assert_eq!(listing.memories.len(), 1);
    assert_eq!(listing.skipped.len(), 1);
    assert!(listing.skipped[0].to_string().contains("My Notes.md"));
}

#[test]
fn builtin_history_keeps_at_most_max_versions() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config { versioning: Versioning::Builtin, max_versions: 3, ..Config::default() };
    let memcore = Memcore::builder().path(dir.path().join("store")).config(config).open().unwrap();
    memcore.put(NewMemory::new("v1").id("doc")).unwrap();
    for n in 2..=6 {
        memcore.update("doc", MemoryUpdate::new().content(format!("v{n}"))).unwrap();
    }
    let versions = memcore.versions("doc").unwrap();
    let revs: Vec<&str> = versions.iter().map(|v| v.rev.as_str()).collect();
    assert_eq!(revs, ["3", "4", "5", "6"]);
    assert_eq!(memcore.get_version("doc", "4").unwrap().content, "v4");
    assert_eq!(memcore.get_version("doc", "v6").unwrap().content, "v6");
    assert_eq!(memcore.get_version("doc", "1").unwrap_err().category(), Category::NotFound);
    assert_eq!(memcore.get_version("doc", "HEAD~1").unwrap_err().category(), Category::Validation);
    let kept = fs::read_dir(dir.path().join("store/memory/.versions/doc")).unwrap().count();
    assert_eq!(kept, 3);
    // History folders never show up as memories.
    assert_eq!(memcore.list(&ListOptions::new()).unwrap().memories.len(), 1);
}

#[test]
fn a_stray_git_folder_that_is_no_repository_keeps_built_in_history() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join(".git")).unwrap();
    let memcore = open(dir.path());
    memcore.put(NewMemory::new("x").id("x")).unwrap();
    memcore.update("x", memcore::MemoryUpdate::new().content("y")).unwrap();
    assert_eq!(memcore.versions("x").unwrap().len(), 2);
    assert!(dir.path().join("store/memory/.versions").exists());
}

#[test]
fn delete_moves_to_trash_and_restore_brings_back() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    memcore.put(NewMemory::new("bye").id("bye").collection("notes")).unwrap();
    let entry = memcore.delete("notes/bye").unwrap();
    assert!(entry.path.starts_with(dir.path().join("store/.trash/notes")));
    assert!(entry.path.file_name().unwrap().to_str().unwrap().starts_with("bye@"));
    assert!(!file(dir.path(), "notes", "bye").exists());
    assert_eq!(memcore.restore("bye").unwrap().content, "bye");
    assert!(file(dir.path(), "notes", "bye").exists());
    assert_eq!(memcore.collections().unwrap().len(), 1);
}

#[test]
fn create_only_through_the_handle() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    memcore.put_with(NewMemory::new("one").id("x"), PutMode::CreateOnly).unwrap();
    let err = memcore.put_with(NewMemory::new("two").id("x"), PutMode::CreateOnly).unwrap_err();
    assert_eq!(err.category(), Category::Conflict);
    assert_eq!(memcore.get("x").unwrap().content, "one");
}

#[test]
fn list_filters_offset_and_limit() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    for n in 0..10 {
        let priority = if n % 2 == 0 { "high" } else { "low" };
        memcore
            .put(NewMemory::new(format!("n{n}")).id(format!("m{n}")).priority(priority))
            .unwrap();
    }
    let high = ListOptions::new().filter("priority=high").unwrap();
    let ids = |options: &ListOptions| -> Vec<String> {
        memcore.list(options).unwrap().memories.iter().map(|m| m.id.to_string()).collect()
    };
    assert_eq!(ids(&high), ["m0", "m2", "m4", "m6", "m8"]);
    assert_eq!(ids(&high.clone().offset(1).limit(2)), ["m2", "m4"]);
    assert_eq!(ids(&ListOptions::new().collection("memory").limit(3)), ["m0", "m1", "m2"]);
    assert!(ids(&ListOptions::new().collection("empty")).is_empty());
}

/// Temp files an interrupted write left (each a complete memory's text) are removed by
/// `repair`, wherever in the store they are; nothing else is touched.
#[test]
fn repair_removes_the_temp_files_of_interrupted_writes() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    memcore.put(NewMemory::new("v1").id("note")).unwrap();
    memcore.update("note", MemoryUpdate::new().content("v2")).unwrap();
    let root = dir.path().join("store");
    let planted = [
        root.join("memory/.tmp-AbC123"),
        root.join("memory/.versions/note/.tmp-XyZ789"),
        root.join(".trash/memory/.tmp-Q1"),
    ];
    for path in &planted {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, "---\nid: note\n---\nsecret text of a crashed write\n").unwrap();
    }
    // Not a leftover: the index's own files and a .git directory are never swept.
    let git_file = root.join(".git/.tmp-keep");
    fs::create_dir_all(git_file.parent().unwrap()).unwrap();
    fs::write(&git_file, "x").unwrap();

    let report = memcore.repair().unwrap();
    assert_eq!(report.leftovers, 3);
    assert!(planted.iter().all(|path| !path.exists()));
    assert!(git_file.exists());
    assert_eq!(memcore.get("note").unwrap().content, "v2");
    assert_eq!(memcore.versions("note").unwrap().len(), 2);
    assert_eq!(memcore.repair().unwrap().leftovers, 0);
}

/// Every file memcore makes, the derived indexes' included, is readable by its owner only:
/// they all hold memory text (tantivy creates its segments world-readable on its own).
#[test]
fn every_file_in_the_store_is_private() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    memcore.put(NewMemory::new("secret plans").id("plans")).unwrap();
    memcore.update("plans", MemoryUpdate::new().content("more secret plans")).unwrap();
    memcore.delete("plans").unwrap();
    memcore.put(NewMemory::new("another").id("other")).unwrap();
    let mut dirs = vec![dir.path().join("store")];
    let mut files = 0;
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            let mode = meta.permissions().mode() & 0o777;
            if meta.is_dir() {
                assert_eq!(mode, 0o700, "{}", path.display());
                dirs.push(path);
            } else {
                assert_eq!(mode, 0o600, "{}", path.display());
                files += 1;
            }
        }
    }
    assert!(files > 10, "the index files were checked too ({files} files)");
}

/// A file saved with a UTF-8 byte order mark (some Windows editors) keeps its frontmatter as
/// frontmatter, not as content.
#[test]
fn a_byte_order_mark_does_not_turn_frontmatter_into_content() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    let path = file(dir.path(), "notes", "bom");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, "\u{feff}---\ntitle: With BOM\ntags: [a]\n---\nBody text.\n").unwrap();
    let memory = memcore.get("notes/bom").unwrap();
    assert_eq!((memory.title.as_str(), memory.content.as_str()), ("With BOM", "Body text.\n"));
    assert_eq!(memory.tags, ["a"]);
    let listing = memcore.list(&ListOptions::new().filter("tags=a").unwrap()).unwrap();
    assert_eq!(listing.memories.len(), 1);
}
