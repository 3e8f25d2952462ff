//! put, get, delete, restore and list: output, JSON schemas, stdin.

use predicates::str::contains;

use crate::support::{GPU, Sandbox, json_error, json_of, keys};

#[test]
fn put_from_a_file_with_every_option_then_get_in_each_format() {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.path().join("analysis.md"), GPU).unwrap();
    sandbox
        .run(&[
            "put",
            "analysis.md",
            "--id",
            "gpu",
            "--collection",
            "knowledge",
            "--title",
            "GPU Patterns",
            "--tags",
            "gpu,performance",
            "--category",
            "research",
            "--context",
            "Research for arcaneum-183",
            "--metadata",
            r#"{"priority_score": 3}"#,
            "--created-by",
            "claude",
        ])
        .assert()
        .success()
        .stdout("stored knowledge/gpu (version 1)\n");

    let context = sandbox.run(&["get", "gpu"]).assert().success().get_output().stdout.clone();
    let context = String::from_utf8(context).unwrap();
    let lines: Vec<&str> = context.lines().collect();
    assert_eq!(lines[..2], ["# GPU Patterns", "ID: gpu"]);
    assert!(lines[2].starts_with("Created: ") && lines[2].ends_with(" by claude"), "{context}");
    assert_eq!(
        lines[3..6],
        ["Context: Research for arcaneum-183", "Tags: gpu, performance", "Category: research"]
    );
    assert!(context.ends_with("Prefer Metal on Apple silicon.\n"), "{context:?}");

    sandbox.run(&["get", "knowledge/gpu", "--format", "raw"]).assert().success().stdout(GPU);

    // `--format json` and `--json` print the same document: memcore's `json` rendering.
    let json = sandbox.json(&["get", "gpu"]);
    let by_format = sandbox.run(&["get", "gpu", "--format", "json"]).assert().success();
    let by_format: serde_json::Value =
        serde_json::from_slice(&by_format.get_output().stdout).unwrap();
    assert_eq!(json, by_format);
    assert_eq!(keys(&json), ["content", "id", "metadata", "title"]);
    let metadata = &json["metadata"];
    assert_eq!(metadata["collection"], "knowledge");
    assert_eq!(metadata["tags"], serde_json::json!(["gpu", "performance"]));
    assert_eq!(metadata["created_by"], "claude");
    assert_eq!(metadata["version"], 1);
    assert_eq!(metadata["extra"]["priority_score"], 3);
    for key in ["created_at", "updated_at", "status", "category", "context", "related_to"] {
        assert!(metadata.get(key).is_some(), "metadata.{key} in {json}");
    }
}

#[test]
fn put_from_stdin_reads_frontmatter_and_options_override_it() {
    let sandbox = Sandbox::new();
    let document = "---\ntags: [from-file]\ncategory: notes\n---\n# Stdin Note\n\nbody\n";
    let stored = sandbox.put(document, &["--category", "from-flag"]);
    assert_eq!(stored["id"], "stdin-note");
    assert_eq!(stored["metadata"]["tags"], serde_json::json!(["from-file"]));
    assert_eq!(stored["metadata"]["category"], "from-flag");
    assert_eq!(stored["metadata"]["collection"], "memory");
    assert_eq!(stored["content"], "# Stdin Note\n\nbody\n");
}

#[test]
fn put_several_files_in_one_batch() {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.path().join("gpu.md"), GPU).unwrap();
    std::fs::write(sandbox.path().join("auth.md"), "---\nid: auth\n---\nRefresh early.\n").unwrap();
    sandbox
        .run(&["put", "gpu.md", "auth.md", "--collection", "knowledge", "--tags", "team"])
        .assert()
        .success()
        .stdout(
            "stored knowledge/gpu-acceleration-patterns (version 1)\n\
             stored knowledge/auth (version 1)\n",
        );
    let auth = sandbox.json(&["get", "auth"]);
    assert_eq!(auth["metadata"]["tags"], serde_json::json!(["team"]), "options apply to each");

    // With --json, several FILEs print {"memories": [memory...]}; stdin may be one of them.
    let mut cmd = sandbox.run(&["put", "gpu.md", "-", "--collection", "inbox"]);
    let stored = json_of(cmd.write_stdin("# Standup\n\nDaily at ten.\n"));
    assert_eq!(keys(&stored), ["memories"]);
    let ids: Vec<&str> =
        stored["memories"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["gpu-acceleration-patterns", "standup"]);
    assert_eq!(stored["memories"][1]["metadata"]["collection"], "inbox");
    assert_eq!(sandbox.json(&["stats"])["memories"], 4);
}

#[test]
fn put_create_only_refuses_to_replace_a_memory() {
    let sandbox = Sandbox::new();
    sandbox.put("First text.", &["--id", "note"]);
    let before = sandbox.memory_snapshot();
    let output = sandbox
        .run(&["put", "-", "--id", "note", "--create-only", "--json"])
        .write_stdin("Second text.")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(5), "a conflict");
    assert_eq!(json_error(&output)["category"], "CONFLICT");
    assert!(sandbox.memory_snapshot() == before, "nothing written");

    // A batch with one clash writes none of it.
    std::fs::write(sandbox.path().join("fresh.md"), "---\nid: fresh\n---\nNew.\n").unwrap();
    std::fs::write(sandbox.path().join("note.md"), "---\nid: note\n---\nAgain.\n").unwrap();
    let before = sandbox.memory_snapshot();
    sandbox.run(&["put", "fresh.md", "note.md", "--create-only"]).assert().code(5);
    assert!(sandbox.memory_snapshot() == before, "nothing of the batch written");
    sandbox
        .run(&["put", "fresh.md", "--create-only"])
        .assert()
        .success()
        .stdout("stored memory/fresh (version 1)\n");
    sandbox.run(&["get", "note", "--format", "raw"]).assert().success().stdout("First text.\n");
}

#[test]
fn delete_moves_to_the_trash_and_restore_brings_back() {
    let sandbox = Sandbox::new();
    sandbox.put(GPU, &["--id", "gpu", "--collection", "knowledge"]);
    let entry = sandbox.json(&["delete", "gpu"]);
    assert_eq!(keys(&entry), ["collection", "deleted_at", "id", "path", "ref"]);
    assert_eq!(entry["ref"], "knowledge/gpu");
    assert_eq!((&entry["collection"], &entry["id"]), (&"knowledge".into(), &"gpu".into()));
    assert!(std::path::Path::new(entry["path"].as_str().unwrap()).is_file());

    sandbox.run(&["get", "gpu"]).assert().code(1).stderr(contains("[NOT_FOUND]"));
    sandbox
        .run(&["restore", "knowledge/gpu"])
        .assert()
        .success()
        .stdout("restored knowledge/gpu (version 1)\n");
    sandbox.run(&["get", "gpu", "--format", "raw"]).assert().success().stdout(GPU);
    sandbox.run(&["restore", "gpu"]).assert().code(1);
}

#[test]
fn list_as_a_table_and_as_json_with_filters() {
    let sandbox = Sandbox::new();
    sandbox.put("Prefer Metal.", &["--id", "gpu", "--collection", "knowledge", "--tags", "gpu"]);
    sandbox.put("Basil and ricotta.", &["--id", "lasagna", "--collection", "personal"]);
    sandbox.put("Batch launches.", &["--id", "kernels", "--collection", "knowledge"]);

    let table = sandbox.run(&["list"]).assert().success().get_output().stdout.clone();
    let table = String::from_utf8(table).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4, "{table}");
    assert!(lines[0].starts_with("REF ") && lines[0].contains("  TITLE "), "{table}");
    // Aligned: every row's TITLE starts in the header's TITLE column.
    let column = lines[0].find("TITLE").unwrap();
    assert!(lines[1..].iter().all(|l| l[column - 2..column].trim().is_empty()), "{table}");
    assert!(lines[1].starts_with("knowledge/gpu "), "{table}");

    let listing = sandbox.json(&["list", "--collection", "knowledge"]);
    assert_eq!(keys(&listing), ["memories", "skipped"]);
    let memories = listing["memories"].as_array().unwrap();
    let ids: Vec<&str> = memories.iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["gpu", "kernels"]);
    for key in ["collection", "title", "status", "tags", "created_at", "updated_at", "version"] {
        assert!(memories[0].get(key).is_some(), "{key} in {}", memories[0]);
    }

    let filtered = sandbox.run(&["list", "--filter", "tags=gpu", "--format", "json"]).assert();
    let filtered: serde_json::Value =
        serde_json::from_slice(&filtered.success().get_output().stdout).unwrap();
    assert_eq!(filtered["memories"].as_array().unwrap().len(), 1);

    sandbox
        .run(&["list", "--filter", "tags=none"])
        .assert()
        .success()
        .stdout("")
        .stderr(contains("no memories match"));

    // A page: memories in collection, then id order, --offset skipped, at most --limit.
    let page = sandbox.json(&["list", "--offset", "1", "--limit", "1"]);
    assert_eq!(page["memories"].as_array().unwrap().len(), 1);
    assert_eq!(page["memories"][0]["id"], "kernels");
    let rest = sandbox.run(&["list", "--offset", "2"]).assert().success();
    let rest = String::from_utf8(rest.get_output().stdout.clone()).unwrap();
    assert!(rest.lines().nth(1).unwrap().starts_with("personal/lasagna "), "{rest}");
    assert_eq!(rest.lines().count(), 2, "{rest}");
}

#[test]
fn collections_lists_the_collections() {
    let sandbox = Sandbox::new();
    sandbox
        .run(&["collections"])
        .assert()
        .success()
        .stdout("")
        .stderr(contains("no collections yet"));
    sandbox.put("Prefer Metal.", &["--id", "gpu", "--collection", "knowledge"]);
    sandbox.put("Basil.", &["--id", "lasagna", "--collection", "personal"]);
    sandbox.run(&["collections"]).assert().success().stdout("knowledge\npersonal\n");
    let collections = sandbox.json(&["collections"]);
    assert_eq!(collections, serde_json::json!({"collections": ["knowledge", "personal"]}));
}

#[test]
fn quiet_hides_confirmations_and_verbose_names_the_store() {
    let sandbox = Sandbox::new();
    sandbox.run(&["-q", "put", "-"]).write_stdin(GPU).assert().success().stdout("").stderr("");
    let store = sandbox.store().display().to_string();
    sandbox
        .run(&["list", "-v"])
        .assert()
        .success()
        .stderr(contains(format!("store: {store}")))
        .stdout(contains("CREATED"));
}
