//! A project's `.memcore.yaml` may come from a cloned repository: naming a model directory
//! in it must never make memcore load native code from there (issue 14). The model and
//! tokenizer may come from the configured directory (the model must be the pinned file);
//! the ONNX Runtime library only from the user's environment.
//!
//! Its own test binary, so that the process has loaded no ONNX Runtime before. Needs the
//! real model files (`scripts/fetch-models`, or MEMCORE_MODEL_DIR).

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use memcore::{Memcore, ModelFiles, NewMemory, Query, Scope, SearchMode};

#[test]
fn a_project_config_cannot_choose_the_runtime_library() {
    let real = ModelFiles::locate(None).unwrap_or_else(|e| {
        panic!("this test needs the real model files: {e}\n-> {}", e.recovery())
    });
    let project = tempfile::tempdir().unwrap();
    // What a hostile repository would ship: the real model and tokenizer (so they pass the
    // hash check) beside a "runtime" that is not one. Loading it would fail the test.
    let planted = project.path().join("models");
    std::fs::create_dir(&planted).unwrap();
    std::fs::copy(&real.model, planted.join("model.onnx")).unwrap();
    std::fs::copy(&real.tokenizer, planted.join("tokenizer.json")).unwrap();
    for name in ["libonnxruntime.so.1.31.1", "libonnxruntime.so"] {
        std::fs::write(planted.join(name), "#!/bin/sh\necho pwned\n").unwrap();
    }
    let config = format!("version: 1\nembedding:\n  model_dir: {}\n", planted.display());
    std::fs::write(project.path().join(".memcore.yaml"), config).unwrap();

    let memcore = Memcore::builder().scope(Scope::Local).start_dir(project.path()).open().unwrap();
    assert!(memcore.location().config_file.is_some(), "the project config was read");
    memcore.put(NewMemory::new("GPU kernels run faster when launches are batched.")).unwrap();
    let results = memcore
        .search(&Query::new("speeding up graphics code").mode(SearchMode::Semantic))
        .unwrap();
    assert!(results.warnings.is_empty(), "{:?}", results.warnings);
    assert_eq!(results.mode, SearchMode::Semantic);
    assert_eq!(results.hits.len(), 1);
}

/// A store from an untrusted clone may hold links and directories where memory files belong:
/// memcore never follows a link out of the store (a memory file or a collection linking to a
/// secret), and reports both instead of skipping them silently.
#[test]
fn links_and_directories_in_a_store_are_refused_and_reported() {
    use memcore::{Category, ListOptions};

    let dir = tempfile::tempdir().unwrap();
    let secret = tempfile::tempdir().unwrap();
    std::fs::write(secret.path().join("id_rsa"), "PRIVATE KEY").unwrap();
    std::fs::write(secret.path().join("key.md"), "---\nid: key\n---\nPRIVATE KEY").unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    memcore.put(NewMemory::new("A real memory.").id("real").collection("notes")).unwrap();
    let notes = dir.path().join("notes");
    std::os::unix::fs::symlink(secret.path().join("id_rsa"), notes.join("leak.md")).unwrap();
    std::fs::create_dir(notes.join("folder.md")).unwrap();
    std::os::unix::fs::symlink(secret.path(), dir.path().join("linked")).unwrap();

    for reference in ["notes/leak", "leak", "notes/folder", "linked/key"] {
        let err = memcore.get(reference).unwrap_err();
        assert!(
            matches!(err.category(), Category::Parse | Category::NotFound),
            "{reference}: {err}"
        );
        assert!(!err.to_string().contains("PRIVATE KEY"), "{reference}: {err}");
    }
    assert!(memcore.get("notes/leak").unwrap_err().to_string().contains("symbolic link"));
    let listing = memcore.list(&ListOptions::new()).unwrap();
    let ids: Vec<String> = listing.memories.iter().map(|m| m.id.to_string()).collect();
    assert_eq!(ids, ["real"]);
    assert_eq!(listing.skipped.len(), 2, "the link and the directory are reported: {listing:?}");
    let results =
        memcore.search(&memcore::Query::new("private key").mode(memcore::SearchMode::Text));
    assert!(results.unwrap().hits.is_empty());
}

/// A file or a link where the index (or one of its directories) belongs is removed and the
/// index rebuilt from the store, reported as damage; a link's target is never touched.
#[test]
fn a_file_or_link_where_the_index_belongs_is_rebuilt_around() {
    use memcore::Maintenance;

    let dir = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("keep.txt"), "untouched").unwrap();
    Memcore::open(dir.path()).unwrap().put(NewMemory::new("hello there").id("a")).unwrap();
    let index = dir.path().join(".memcore/index");
    for squat in ["text", "journal", ""] {
        let path = if squat.is_empty() { index.clone() } else { index.join(squat) };
        if path.is_dir() {
            std::fs::remove_dir_all(&path).unwrap();
        }
        if squat.is_empty() {
            std::os::unix::fs::symlink(elsewhere.path(), &path).unwrap();
        } else {
            std::fs::write(&path, "not an index").unwrap();
        }
        let memcore = Memcore::open(dir.path()).unwrap();
        assert!(
            matches!(memcore.opened_with(), [Maintenance::Rebuilt { damaged: true, memories: 1 }]),
            "{squat}: {:?}",
            memcore.opened_with()
        );
        let hits = memcore.search(&Query::new("hello").mode(SearchMode::Text)).unwrap().hits;
        assert_eq!(hits.len(), 1, "{squat}");
    }
    assert_eq!(std::fs::read_to_string(elsewhere.path().join("keep.txt")).unwrap(), "untouched");
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 1);
}

/// Issue 14, item 3: a memory file whose frontmatter names another id or collection than its
/// place (copied or moved by hand) is read by its place, and `verify` warns about it.
#[test]
fn frontmatter_names_that_disagree_with_the_place_are_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = memcore::Memcore::builder()
        .path(dir.path())
        .config(memcore::Config {
            embedding: memcore::EmbeddingConfig { enabled: false, model_dir: None },
            ..memcore::Config::default()
        })
        .open()
        .unwrap();
    memcore
        .put(memcore::NewMemory::new("original text").id("original").collection("notes"))
        .unwrap();
    assert!(memcore.verify().unwrap().warnings.is_empty());
    let notes = dir.path().join("notes");
    std::fs::copy(notes.join("original.md"), notes.join("copy.md")).unwrap();
    std::fs::create_dir_all(dir.path().join("other")).unwrap();
    std::fs::copy(notes.join("original.md"), dir.path().join("other/original.md")).unwrap();
    memcore.repair().unwrap();
    assert_eq!(memcore.get("notes/copy").unwrap().id.as_str(), "copy", "the place wins");
    let warnings = memcore.verify().unwrap().warnings;
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings.iter().any(|w| w.contains("copy.md") && w.contains("id `original`")));
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("other/original.md") && w.contains("collection `notes`"))
    );
}
