//! The composition engine from the command line: `compose` (text, `--manifest`, `--json`,
//! budgets refused), and the `session` family (add, list, show, compress, compose, prune).

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::Sandbox;

#[test]
fn compose_prints_a_labelled_context_and_its_manifest() {
    let sandbox = Sandbox::new();
    sandbox.put(
        "We use Postgres for the main database.",
        &["--collection", "decisions", "--id", "postgres"],
    );
    sandbox.put(
        "Blocked by the expired staging certificate.",
        &["--collection", "blockers", "--id", "cert"],
    );
    sandbox
        .run(&[
            "compose",
            "database",
            "--budget",
            "400",
            "--search-mode",
            "text",
            "--manifest",
            "--recent-decisions",
            "3",
            "--candidates",
            "10",
            "--decision-collection",
            "decisions",
        ])
        .assert()
        .success()
        .stdout(
            contains("<memory_context>").and(contains("label=\"M1\"")).and(contains("duplicate")),
        )
        .stderr(contains("tokens of 400"));
    let context = sandbox.json(&[
        "compose",
        "database",
        "--tier",
        "simple",
        "--format",
        "markdown",
        "--budget-mode",
        "fixed",
    ]);
    assert!(context["text"].as_str().unwrap().starts_with("# Memory context"));
    assert_eq!(context["budget"]["total"], 500);
    let error = sandbox.rejected(&["compose", "x", "--budget", "3"], "", 3);
    assert!(error["recovery"].as_str().unwrap().contains("at least"));
}

#[test]
fn sessions_are_added_compressed_composed_and_pruned() {
    let sandbox = Sandbox::new();
    let file = sandbox.path().join("Chat-1.jsonl");
    let lines: Vec<String> = (0..10)
        .map(|n| {
            let note = if n == 2 { " ##keepit1.00## Never drop the WAL." } else { "" };
            serde_json::json!({"role": if n % 2 == 0 { "user" } else { "assistant" },
                "content": format!("Step {n}: the importer is slow, so we stream files in chunks.{note}")})
            .to_string()
        })
        .collect();
    std::fs::write(&file, lines.join("\n") + "\nbroken line\n").unwrap();
    let file = file.to_str().unwrap();
    sandbox
        .run(&["session", "add", file])
        .assert()
        .success()
        .stdout(contains("session chat-1: 10 messages"))
        .stderr(contains("line 11 skipped"));
    sandbox
        .run(&["session", "compress", "chat-1", "--ratio", "3", "--distance", "5"])
        .assert()
        .success()
        .stdout(contains("v001 (v001_uniform-minimal_1k)").and(contains("keepit 1 kept")));
    let version = sandbox.json(&["session", "compress", "chat-1", "--tiered", "gentle"]);
    assert_eq!(version["version_id"], "v002");
    sandbox
        .run(&["session", "version", "chat-1", "v002"])
        .assert()
        .success()
        .stdout(contains("# Session chat-1, v002"));
    let original = sandbox.json(&["session", "version", "chat-1", "original"]);
    assert!(original["version"].is_null() && original["content"].is_string(), "{original}");
    sandbox.rejected(&["session", "version", "chat-1", "v009"], "", 1);
    sandbox
        .run(&["session", "show", "chat-1"])
        .assert()
        .success()
        .stdout(contains("v002").and(contains("##keepit1.00## Never drop the WAL.")));
    sandbox
        .run(&["session", "compose", "ctx", "chat-1@v001", "--budget", "1000"])
        .assert()
        .success()
        .stdout(contains("explicit").and(contains("composition ctx")));
    let listing = sandbox.json(&["session", "list"]);
    assert_eq!(listing["compositions"][0]["name"], "ctx");
    sandbox
        .run(&["session", "composition", "show", "ctx"])
        .assert()
        .success()
        .stdout(contains("## Session chat-1 (v001)"));
    let shown = sandbox.json(&["session", "composition", "show", "ctx"]);
    assert_eq!(shown["composition"]["name"], "ctx");
    let error = sandbox.rejected(&["session", "prune", "chat-1", "--version", "v001"], "", 5);
    assert!(error["message"].as_str().unwrap().contains("used by compositions: ctx"));
    let pruned = sandbox.json(&["session", "prune", "chat-1", "--keep-latest", "0", "--force"]);
    assert_eq!(pruned["deleted"], serde_json::json!(["v001", "v002"]));
    sandbox
        .run(&["session", "composition", "delete", "ctx"])
        .assert()
        .success()
        .stdout(contains("deleted composition ctx"));
    sandbox.rejected(&["session", "composition", "show", "ctx"], "", 1);
    sandbox.rejected(&["session", "show", "nope"], "", 1);
    sandbox.rejected(&["session", "add", "/nonexistent.jsonl"], "", 1);
}
