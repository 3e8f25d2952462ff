//! The capture engine from the command line: `capture [FILE|-]` with its text and JSON
//! output, `--apply` and `--apply-suggested`, explicit captures, and the input it refuses.

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::Sandbox;

/// The memory `reference` names, as `get --format json` prints it.
fn get(sandbox: &Sandbox, reference: &str) -> serde_json::Value {
    let output = sandbox.run(&["get", reference, "--format", "json"]).output().unwrap();
    serde_json::from_slice(&output.stdout).unwrap()
}

const DECISION: &str = "We decided to move the job queue from Redis to Postgres for durability.";

#[test]
fn capture_decides_and_stores_nothing_unless_asked() {
    let sandbox = Sandbox::new();
    sandbox
        .run(&["capture"])
        .write_stdin(DECISION)
        .assert()
        .success()
        .stdout(contains("suggest  decisions  0.92").and(contains("suggest: confidence 0.92")))
        .stderr(contains("word overlap"));
    let decision = sandbox.json(&["capture", "-"]);
    assert_eq!(decision["stored"], serde_json::json!([]));
    assert!(sandbox.json(&["list"])["memories"].as_array().unwrap().is_empty());
}

#[test]
fn apply_stores_auto_and_with_apply_suggested_suggestions() {
    let sandbox = Sandbox::new();
    let file = sandbox.path().join("prompt.md");
    std::fs::write(&file, DECISION).unwrap();
    let file = file.to_str().unwrap();
    let decision = sandbox.json(&["capture", file, "--apply"]);
    assert_eq!(decision["stored"], serde_json::json!([]), "a suggestion is not auto");
    let decision = sandbox.json(&[
        "capture",
        file,
        "--apply",
        "--apply-suggested",
        "--tag",
        "infra",
        "--created-by",
        "cli",
    ]);
    let stored = decision["stored"][0].as_str().unwrap().to_owned();
    let memory = get(&sandbox, &stored);
    assert_eq!(memory["metadata"]["tags"], serde_json::json!(["decision", "database", "infra"]));
    assert_eq!(memory["metadata"]["created_by"], "cli");
    // Again: a duplicate, skipped with the reason.
    sandbox
        .run(&["capture", file, "--apply", "--apply-suggested"])
        .assert()
        .success()
        .stdout(contains("skip: all signals are duplicates"))
        .stderr(contains(format!("duplicate of {stored}")));
    assert_eq!(sandbox.json(&["list"])["memories"].as_array().unwrap().len(), 1);
}

#[test]
fn markers_and_explicit_captures() {
    let sandbox = Sandbox::new();
    let decision = sandbox.json(&["capture", "--apply"]);
    assert_eq!(decision["action"], "skip", "empty standard input has nothing to capture");
    let output = sandbox
        .run(&["capture", "--apply", "--json"])
        .write_stdin("[remember:decisions] Use PostgreSQL.\n[remember] Standups move to 10:00.")
        .output()
        .unwrap();
    let decision: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(decision["action"], "auto");
    assert_eq!(decision["stored"].as_array().unwrap().len(), 2);
    assert!(decision["stored"][1].as_str().unwrap().starts_with("notes/"));

    let output = sandbox
        .run(&[
            "capture",
            "--namespace",
            "progress",
            "--summary",
            "v2 shipped",
            "--apply",
            "--json",
        ])
        .write_stdin("## Release\n\nv2 is out on all regions.")
        .output()
        .unwrap();
    let decision: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let memory = get(&sandbox, decision["stored"][0].as_str().unwrap());
    assert_eq!(memory["title"], "v2 shipped");
    assert_eq!(memory["metadata"]["collection"], "progress");
}

#[test]
fn bad_input_is_refused_with_nothing_written() {
    let sandbox = Sandbox::new();
    sandbox.put("seed", &["--id", "seed"]);
    for (args, stdin, message) in [
        (&["capture", "--apply"][..], "[remember:nope] x", "names unknown namespace `nope`"),
        (&["capture", "--apply"], "[remember:] x", "names no namespace"),
        (&["capture", "--apply", "--namespace", "Bad"], "TIL x", "invalid namespace"),
        (
            &["capture", "--apply", "--namespace", "notes", "--summary", "  "],
            "x",
            "summary cannot be empty",
        ),
    ] {
        let error = sandbox.rejected(args, stdin, 3);
        assert!(error["message"].as_str().unwrap().contains(message), "{error}");
    }
    // --summary needs --namespace; --apply-suggested needs --apply (usage errors).
    sandbox.run(&["capture", "--summary", "s"]).write_stdin("x").assert().code(2);
    sandbox.run(&["capture", "--apply-suggested"]).write_stdin("x").assert().code(2);
    sandbox
        .run(&["capture", "no-such-file.md"])
        .assert()
        .failure()
        .stderr(contains("no-such-file.md"));
}
