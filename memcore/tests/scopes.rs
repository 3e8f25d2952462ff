//! Opening stores by scope: project-local detection from nested directories, explicit
//! overrides, and the global store.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use std::fs;

use memcore::{Memcore, NewMemory, Scope};

#[test]
fn project_store_is_found_from_a_nested_directory() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    let nested = project.join("src/deep/er");
    fs::create_dir_all(&nested).unwrap();
    fs::write(project.join(".memcore.yaml"), "version: 1\npath: .memories\nmax_versions: 2\n")
        .unwrap();
    let memcore = Memcore::builder().start_dir(&nested).open().unwrap();
    assert_eq!(memcore.location().root, project.join(".memories"));
    assert_eq!(
        memcore.location().config_file.as_deref(),
        Some(project.join(".memcore.yaml").as_path())
    );
    assert_eq!(memcore.config().max_versions, 2);
    memcore.put(NewMemory::new("project note").id("note")).unwrap();
    assert!(project.join(".memories/memory/note.md").is_file());

    let local = Memcore::builder().scope(Scope::Local).start_dir(&nested).open().unwrap();
    assert_eq!(local.get("note").unwrap().content, "project note");
}

#[test]
fn json_project_config_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join(".memcore.json"), r#"{"version": 1, "path": "mem"}"#).unwrap();
    let memcore = Memcore::builder().scope(Scope::Local).start_dir(dir.path()).open().unwrap();
    assert_eq!(memcore.location().root, dir.path().join("mem"));
}

#[test]
fn explicit_path_wins_over_detection() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join(".memcore.yaml"), "version: 1\n").unwrap();
    let explicit = dir.path().join("explicit");
    let memcore = Memcore::builder().path(&explicit).start_dir(dir.path()).open().unwrap();
    assert_eq!(memcore.location().root, explicit);
    assert!(memcore.location().config_file.is_none());
}
