//! update, versions, diff and restore --version: built-in history, and git history for a
//! project store inside a git work tree.

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{GPU, Sandbox, keys};

#[test]
fn update_then_versions_and_get_an_earlier_version() {
    let sandbox = Sandbox::new();
    sandbox.put(GPU, &["--tags", "gpu", "--metadata", r#"{"source": "review", "keep": 1}"#]);
    sandbox
        .run(&["update", "gpu-acceleration-patterns", "--content", "-"])
        .write_stdin("# GPU Acceleration Patterns\n\nMetal and CUDA.\n")
        .assert()
        .success()
        .stdout("updated memory/gpu-acceleration-patterns (version 2)\n");
    let updated = sandbox.json(&[
        "update",
        "gpu-acceleration-patterns",
        "--tags",
        "metal",
        "--merge-tags",
        "--metadata",
        r#"{"source": null, "reviewed": true}"#,
    ]);
    assert_eq!(updated["metadata"]["version"], 3);
    assert_eq!(updated["metadata"]["tags"], serde_json::json!(["gpu", "metal"]));
    assert_eq!(updated["metadata"]["extra"], serde_json::json!({"keep": 1, "reviewed": true}));
    let replaced = sandbox.json(&["update", "memory/gpu-acceleration-patterns", "--tags", "x"]);
    assert_eq!(replaced["metadata"]["tags"], serde_json::json!(["x"]));

    let versions = sandbox.json(&["versions", "gpu-acceleration-patterns"]);
    let versions = versions["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 4);
    assert_eq!(keys(&versions[0]), ["author", "current", "message", "rev", "timestamp", "version"]);
    assert_eq!(versions[0]["rev"], "1");
    assert_eq!(versions[3]["current"], true);

    sandbox
        .run(&["get", "gpu-acceleration-patterns", "--version", "1", "--format", "raw"])
        .assert()
        .success()
        .stdout(GPU);
    sandbox
        .run(&["versions", "gpu-acceleration-patterns"])
        .assert()
        .success()
        .stdout(contains("REV").and(contains("VERSION")).and(contains("*  4")));
}

#[test]
fn diff_between_versions_and_restore_an_earlier_one() {
    let sandbox = Sandbox::new();
    sandbox.put("first text\n", &["--id", "note"]);
    sandbox
        .run(&["update", "note", "--content", "-"])
        .write_stdin("second text\n")
        .assert()
        .success();

    sandbox
        .run(&["diff", "note", "--from", "1"])
        .assert()
        .success()
        .stdout(contains("-first text").and(contains("+second text")).and(contains("@@")));
    let json = sandbox.json(&["diff", "note", "--from", "1", "--to", "2"]);
    assert_eq!(keys(&json), ["diff", "from", "to"]);
    assert!(json["diff"].as_str().unwrap().contains("+second text"), "{json}");
    sandbox
        .run(&["diff", "note", "--from", "2"])
        .assert()
        .success()
        .stdout("")
        .stderr(contains("no differences"));
    sandbox.run(&["diff", "note", "--from", "9"]).assert().code(1);
    sandbox.run(&["diff", "note"]).assert().code(2);

    sandbox
        .run(&["restore", "note", "--version", "1"])
        .assert()
        .success()
        .stdout("restored memory/note (version 3)\n");
    sandbox.run(&["get", "note", "--format", "raw"]).assert().success().stdout("first text\n");
}

#[test]
fn a_project_in_a_git_work_tree_has_git_history() {
    let sandbox = Sandbox::new();
    let project = sandbox.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let git = std::process::Command::new("git").args(["init", "-q"]).current_dir(&project).status();
    assert!(git.unwrap().success(), "git init");
    sandbox.bare_in(&project).arg("init").assert().success();
    // Every write becomes a commit, so each version is in git.
    let config = std::fs::read_to_string(project.join(".memcore.yaml")).unwrap();
    let config = config.replace("git_autocommit: false", "git_autocommit: true");
    std::fs::write(project.join(".memcore.yaml"), config).unwrap();

    let memcore = |args: &[&str]| {
        let mut cmd = sandbox.bare_in(&project);
        cmd.args(args);
        cmd
    };
    memcore(&["put", "-", "--id", "note"]).write_stdin("first\n").assert().success();
    memcore(&["update", "note", "--content", "-"]).write_stdin("second\n").assert().success();

    let versions = memcore(&["versions", "note", "--json"]).assert().success();
    let versions: serde_json::Value =
        serde_json::from_slice(&versions.get_output().stdout).unwrap();
    let versions = versions["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(versions[0]["rev"].as_str().unwrap().len(), 40, "a commit id");
    assert_eq!(versions[1]["current"], true);

    memcore(&["diff", "note", "--from", "HEAD~1", "--to", "HEAD"])
        .assert()
        .success()
        .stdout(contains("-first").and(contains("+second")));
    memcore(&["get", "note", "--version", "HEAD~1", "--format", "raw"])
        .assert()
        .success()
        .stdout("first\n");
}
