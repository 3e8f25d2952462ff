//! reindex, verify, repair, stats and model.

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Sandbox, json_error};

#[test]
fn verify_finds_hand_edits_repair_fixes_them_reindex_rebuilds() {
    let sandbox = Sandbox::new();
    sandbox.put("Prefer Metal.", &["--id", "gpu", "--collection", "knowledge"]);
    sandbox.put("Basil.", &["--id", "lasagna", "--collection", "personal"]);

    let clean = sandbox.json(&["verify"]);
    assert_eq!(clean["consistent"], true);
    assert_eq!(clean["store_count"], 2);
    let vector = &clean["indexes"]["vector"];
    assert!(vector["unavailable"].is_string(), "no model in the sandbox: {vector}");
    assert_eq!(clean["indexes"]["text"]["missing"], serde_json::json!([]));

    // A hand edit and a hand deletion leave the text index stale and orphaned.
    let gpu = sandbox.store().join("knowledge/gpu.md");
    let edited = std::fs::read_to_string(&gpu).unwrap().replace("Metal", "Vulkan");
    std::fs::write(&gpu, edited).unwrap();
    std::fs::remove_file(sandbox.store().join("personal/lasagna.md")).unwrap();

    let output = sandbox.run(&["verify", "--json"]).output().unwrap();
    assert_eq!(output.status.code(), Some(4));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["consistent"], false);
    assert_eq!(report["indexes"]["text"]["mismatched"], serde_json::json!(["knowledge/gpu"]));
    assert_eq!(report["indexes"]["text"]["orphaned"], serde_json::json!(["personal/lasagna"]));
    assert_eq!(json_error(&output)["category"], "INDEX");
    sandbox
        .run(&["verify", "-v"])
        .assert()
        .code(4)
        .stdout(contains("text index: 0 missing, 1 orphaned, 1 stale"))
        .stdout(contains("  stale: knowledge/gpu"))
        .stderr(contains("memcore repair"));

    let repaired = sandbox.json(&["repair"]);
    assert_eq!(
        repaired,
        serde_json::json!({"reindexed": 1, "removed": 1, "leftovers": 0,
                           "indexes": {"text": {"reindexed": 1, "removed": 1}}})
    );
    sandbox.run(&["verify"]).assert().success().stdout(contains("text index: consistent"));
    let hits = sandbox.json(&["search", "vulkan", "--mode", "text"]);
    assert_eq!(hits["hits"][0]["memory"]["id"], "gpu");

    // Not on a terminal: no progress bar, just the result.
    sandbox.run(&["reindex"]).assert().success().stdout("indexed 1 memory\n").stderr("");
    let rebuilt = sandbox.json(&["reindex"]);
    assert_eq!(rebuilt["memories"], 1);
    assert_eq!(rebuilt["indexes"]["text"], serde_json::json!({"indexed": 1, "unavailable": null}));
    assert!(rebuilt["indexes"]["vector"]["unavailable"].is_string());
}

#[test]
fn stats_counts_by_collection_and_status() {
    let sandbox = Sandbox::new();
    sandbox.put("a", &["--id", "a", "--collection", "one"]);
    sandbox.put("b", &["--id", "b", "--collection", "one"]);
    sandbox.put("c", &["--id", "c", "--collection", "two"]);
    let stats = sandbox.json(&["stats"]);
    assert_eq!(stats["memories"], 3);
    assert_eq!(stats["collections"], serde_json::json!({"one": 2, "two": 1}));
    assert_eq!(stats["statuses"], serde_json::json!({"active": 3}));
    assert_eq!(stats["unreadable"], 0);
    assert_eq!(stats["versioning"], "auto");
    assert_eq!(stats["backend"], "file");
    assert_eq!(stats["store"], sandbox.store().display().to_string());
    assert_eq!(stats["config_file"], serde_json::Value::Null);
    // The vector graph runs only once semantic search is used by a process: stats makes none.
    assert_eq!(stats["vector_graph"], serde_json::Value::Null);
    sandbox.run(&["stats"]).assert().success().stdout(
        contains("memories    3")
            .and(contains("graph       not started: no semantic search in this process\n"))
            .and(contains("COLLECTION  MEMORIES")),
    );
}

#[test]
fn model_says_how_to_fetch_missing_files() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&["model", "--json"]).output().unwrap();
    assert_eq!(output.status.code(), Some(5));
    let error = json_error(&output);
    assert_eq!(error["category"], "EMBEDDING");
    assert!(error["message"].as_str().unwrap().contains("model.onnx"), "{error}");
    assert!(error["recovery"].as_str().unwrap().contains("scripts/fetch-models"), "{error}");
    assert!(!sandbox.store().exists(), "model opens no store");

    // A complete (if fake) directory is found and then fails the hash check.
    let fake = sandbox.path().join("fake");
    std::fs::create_dir(&fake).unwrap();
    for name in ["model.onnx", "tokenizer.json", "libonnxruntime.so.1.31.1"] {
        std::fs::write(fake.join(name), "x").unwrap();
    }
    sandbox
        .run(&["model"])
        .env("MEMCORE_MODEL_DIR", &fake)
        .assert()
        .code(5)
        .stderr(contains("sha256").and(contains("hint:")));
}

/// A damaged index is rebuilt on open and the user is told (a warning, even without `-v`);
/// building the index of a new or hand-made store is routine and says so only with `-v`.
#[test]
fn a_damaged_index_rebuilt_on_open_is_reported() {
    let sandbox = Sandbox::new();
    // A hand-made store: markdown files, no index yet.
    let notes = sandbox.store().join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(notes.join("hand.md"), "---\ntitle: Hand made\n---\nWritten by hand.\n")
        .unwrap();
    sandbox.run(&["list"]).assert().success().stderr(predicate::str::is_empty());
    std::fs::remove_dir_all(sandbox.store().join(".memcore/index/text")).unwrap();
    sandbox
        .run(&["list", "-v"])
        .assert()
        .success()
        .stderr(contains("built the full-text index from the store (1 memories)"));

    // Damage: a file of the index overwritten with garbage.
    std::fs::write(sandbox.store().join(".memcore/index/text/meta.json"), "garbage").unwrap();
    sandbox
        .run(&["get", "hand"])
        .assert()
        .success()
        .stderr(contains("warning: the full-text index was damaged and was rebuilt"));
    sandbox.run(&["list"]).assert().success().stderr(predicate::str::is_empty());
    sandbox.run(&["verify"]).assert().success();
}
