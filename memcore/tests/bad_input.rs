//! Bad input through the public API: each is a typed error with a message and a recovery
//! hint, and nothing is written.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use std::fs;
use std::path::Path;

use memcore::{Category, Config, Error, Limits, Memcore, MemoryUpdate, NewMemory, Scope};

/// Every file below `root`, except the writers' lock file.
fn files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("readable dir") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if !path.ends_with(".memcore/lock") {
                out.push(path.strip_prefix(root).expect("below root").display().to_string());
            }
        }
    }
    out.sort();
    out
}

fn assert_rejected(err: Error, category: Category) {
    assert_eq!(err.category(), category, "{err}");
    assert!(!err.to_string().is_empty() && !err.recovery().is_empty());
}

#[test]
fn bad_ids_and_collections_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    memcore.put(NewMemory::new("keep").id("keep")).unwrap();
    let before = files(dir.path());
    let long = "x".repeat(129);
    let bad_names = ["..", "../escape", "a/b", "a\\b", "a\0b", "-flag", ".hidden", long.as_str()];
    for bad in bad_names {
        let err = memcore.put(NewMemory::new("text").id(bad)).unwrap_err();
        assert_rejected(err, Category::Validation);
        let err = memcore.put(NewMemory::new("text").collection(bad)).unwrap_err();
        assert_rejected(err, Category::Validation);
    }
    for bad in ["..", "a\\b", "-flag", ".hidden", "a/b/c", "../x", "/abs"] {
        assert_rejected(memcore.get(bad).unwrap_err(), Category::Validation);
        assert_rejected(memcore.delete(bad).unwrap_err(), Category::Validation);
        let change = MemoryUpdate::new().title("t");
        assert_rejected(memcore.update(bad, change).unwrap_err(), Category::Validation);
    }
    assert_eq!(files(dir.path()), before);
}

#[test]
fn bad_content_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        limits: Limits { max_content_bytes: 1024, ..Limits::default() },
        ..Config::default()
    };
    let memcore = Memcore::builder().path(dir.path()).config(config).open().unwrap();
    memcore.put(NewMemory::new("keep").id("keep")).unwrap();
    let before = files(dir.path());
    let err = memcore.put(NewMemory::new("x".repeat(1025))).unwrap_err();
    assert!(err.to_string().contains("1025 bytes (max 1024)"), "{err}");
    assert_rejected(err, Category::Validation);
    assert_rejected(memcore.put(NewMemory::new("")).unwrap_err(), Category::Validation);
    assert_rejected(memcore.put(NewMemory::new(" \n\t")).unwrap_err(), Category::Validation);
    let change = MemoryUpdate::new().content("y".repeat(2000));
    assert_rejected(memcore.update("keep", change).unwrap_err(), Category::Validation);
    let err = memcore.put(NewMemory::new("x").summary("s".repeat(101))).unwrap_err();
    assert_rejected(err, Category::Validation);
    assert_eq!(files(dir.path()), before);
    assert_eq!(memcore.get("keep").unwrap().version, 1);
}

#[test]
fn duplicate_create_only_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    memcore.put(NewMemory::new("first").id("dup")).unwrap();
    let before = fs::read(dir.path().join("memory/dup.md")).unwrap();
    let err = memcore
        .put_with(NewMemory::new("second").id("dup"), memcore::PutMode::CreateOnly)
        .unwrap_err();
    assert_rejected(err, Category::Conflict);
    assert_eq!(fs::read(dir.path().join("memory/dup.md")).unwrap(), before);
}

#[test]
fn invalid_utf8_and_yaml_in_the_store_are_parse_errors() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    fs::create_dir_all(dir.path().join("memory")).unwrap();
    fs::write(dir.path().join("memory/binary.md"), [0xff, 0xfe, 0x00]).unwrap();
    fs::write(dir.path().join("memory/yaml.md"), "---\n: : :\n---\n").unwrap();
    assert_rejected(memcore.get("binary").unwrap_err(), Category::Parse);
    assert_rejected(memcore.get("yaml").unwrap_err(), Category::Parse);
}

#[test]
fn config_escaping_the_project_root_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    fs::create_dir_all(project.join("src")).unwrap();
    fs::write(project.join(".memcore.yaml"), "version: 1\npath: ../../elsewhere\n").unwrap();
    let err =
        Memcore::builder().scope(Scope::Local).start_dir(project.join("src")).open().unwrap_err();
    assert_rejected(err, Category::Validation);
    assert!(!dir.path().join("elsewhere").exists());
}

#[test]
fn a_store_path_that_is_a_file_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    fs::write(&file, "x").unwrap();
    assert_rejected(Memcore::open(&file).unwrap_err(), Category::Validation);
    assert_rejected(Memcore::open("").unwrap_err(), Category::Validation);
    assert_eq!(fs::read_to_string(&file).unwrap(), "x");
}

#[test]
fn bad_filters_and_statuses_are_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    assert_rejected(
        memcore::ListOptions::new().filter("no-equals").unwrap_err(),
        Category::Validation,
    );
    let options = memcore::ListOptions::new().collection("../x");
    assert_rejected(memcore.list(&options).unwrap_err(), Category::Validation);
    assert_rejected("done".parse::<memcore::Status>().unwrap_err(), Category::Validation);
}
