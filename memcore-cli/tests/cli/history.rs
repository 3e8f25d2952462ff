//! update, versions, diff and restore --version: built-in history, and git history for a
//! project store inside a git work tree.

use predicates::prelude::*;
use predicates::str::contains;

use crate::gitrepo;
use crate::support::{GPU, Sandbox, json_of, keys};

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
fn a_project_in_a_git_work_tree_has_git_history_by_any_revision() {
    let sandbox = Sandbox::new();
    let project = sandbox.path().join("project");
    let repo = gitrepo::init_with_commit(&project);
    // Every write becomes a commit, so each version is in git.
    sandbox.bare_in(&project).args(["init", "--git-autocommit"]).assert().success();
    let config = std::fs::read_to_string(project.join(".memcore.yaml")).unwrap();
    assert!(config.contains("git_autocommit: true\n"), "{config}");
    gitrepo::commit_all(&repo, "add the project config");

    let memcore = |args: &[&str]| {
        let mut cmd = sandbox.bare_in(&project);
        cmd.args(args);
        cmd
    };
    memcore(&["put", "-", "--id", "note"]).write_stdin("first\n").assert().success();
    let first = repo.head().unwrap().peel_to_commit().unwrap();
    repo.tag_lightweight("v1", first.as_object(), false).unwrap();
    memcore(&["update", "note", "--content", "-"]).write_stdin("second\n").assert().success();

    let versions = json_of(&mut memcore(&["versions", "note"]));
    let versions = versions["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2);
    assert_eq!(versions[0]["rev"], first.id().to_string(), "a commit id");
    assert_eq!(
        (&versions[0]["author"], &versions[1]["current"]),
        (&"Test Author".into(), &true.into())
    );
    memcore(&["versions", "note"])
        .assert()
        .success()
        .stdout(contains(&first.id().to_string()[..12]));

    // HEAD~1, a tag, a short commit id and `current` all name versions.
    let short = &first.id().to_string()[..7];
    for rev in ["HEAD~1", "v1", short] {
        memcore(&["get", "note", "--version", rev, "--format", "raw"])
            .assert()
            .success()
            .stdout("first\n");
    }
    memcore(&["get", "note", "--version", "current", "--format", "raw"])
        .assert()
        .success()
        .stdout("second\n");
    for (from, to) in [("HEAD~1", "HEAD"), ("v1", "current"), (short, "current")] {
        memcore(&["diff", "note", "--from", from, "--to", to])
            .assert()
            .success()
            .stdout(contains("-first").and(contains("+second")));
    }
    let json = json_of(&mut memcore(&["diff", "note", "--from", "v1"]));
    assert_eq!((&json["from"], &json["to"]), (&"v1".into(), &"current".into()));

    memcore(&["restore", "note", "--version", "v1"])
        .assert()
        .success()
        .stdout("restored memory/note (version 3)\n");
    memcore(&["get", "note", "--format", "raw"]).assert().success().stdout("first\n");
    let versions = json_of(&mut memcore(&["versions", "note"]));
    assert_eq!(versions["versions"].as_array().unwrap().len(), 3, "the restore is a commit");

    // Revisions that are no revisions: validation, or not found.
    for rev in ["--version=-x", "--version=HEAD..v1", "--version=a b"] {
        let error = sandbox.error_in(&project, &["get", "note", rev], 3);
        assert_eq!(error["category"], "VALIDATION", "{rev}");
    }
    memcore(&["diff", "note", "--from=-x"]).assert().code(3).stderr(contains("hint:"));
    memcore(&["restore", "note", "--version", "v9"]).assert().code(1);
    memcore(&["get", "note", "--version", "HEAD~9"]).assert().code(1);
}
