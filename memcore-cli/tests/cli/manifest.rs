//! `project init | info | trust` (the project manifest), in text and `--json`: a tiered
//! store follows the manifest's retention, a trusted summary command writes a session's
//! summary, an untrusted one never runs, and a malformed manifest is refused.

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::Sandbox;

/// `--backend tiered ARGS...`.
fn tiered<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut all = vec!["--backend", "tiered"];
    all.extend_from_slice(args);
    all
}

#[test]
fn a_project_is_scaffolded_shown_and_followed() {
    let sandbox = Sandbox::new();
    sandbox
        .run(&["project", "info"])
        .assert()
        .success()
        .stdout(contains("none (").and(contains("project.json would hold it")));
    let info = sandbox.json(&[
        "project",
        "init",
        "--id",
        "knit-cast",
        "--title",
        "The AI Knitting Circle",
        "--agents",
        "patch,loom",
        "--hot-context-turns",
        "2",
    ]);
    assert_eq!(info["manifest"]["retention"]["hot_context_turns"], 2);
    assert_eq!(info["manifest"]["summary"]["mode"], "heuristic");
    let again = sandbox.error_in(sandbox.path(), &["--store", "store", "project", "init"], 5);
    assert_eq!(again["category"], "CONFLICT", "{again}");

    // A key memcore does not know, added by hand, is shown and kept.
    let path = sandbox.store().join("project.json");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    manifest["speech"] = serde_json::json!({"default_style": "podcast"});
    std::fs::write(&path, manifest.to_string()).unwrap();
    sandbox
        .run(&["project", "info"])
        .assert()
        .success()
        .stdout(contains("knit-cast").and(contains("OTHER KEYS")).and(contains("speech")));
    let shown = sandbox.json(&["project", "info"]);
    assert_eq!(shown["manifest"]["speech"]["default_style"], "podcast");
    assert_eq!(shown["agents"], serde_json::json!(["loom", "patch"]));

    sandbox.run(&tiered(&["session", "start", "ep-1"])).assert().success();
    for n in 1..=4 {
        let text = format!("Turn {n} on lace.");
        sandbox.run(&tiered(&["session", "turn", "ep-1", "patch", &text])).assert().success();
    }
    let live = sandbox.json(&tiered(&["session", "live", "ep-1"]));
    assert_eq!(live["turns"].as_array().unwrap().len(), 2, "the manifest's hot_context_turns");
}

#[cfg(unix)]
#[test]
fn a_summary_command_runs_only_once_trusted() {
    use std::os::unix::fs::PermissionsExt;

    let sandbox = Sandbox::new();
    let script = sandbox.path().join("summarize.sh");
    std::fs::write(&script, "#!/bin/sh\ncat > /dev/null\necho 'Lace waits for wool.'\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    sandbox
        .run(&["project", "init", "--summary-mode", "command", "--", "./summarize.sh"])
        .assert()
        .success();
    std::fs::write(sandbox.path().join("store/config.yaml"), "tiered:\n  hot_summary_tokens: 10\n")
        .unwrap();
    sandbox.run(&["project", "info"]).assert().success().stdout(contains("NOT trusted"));
    sandbox.run(&tiered(&["session", "start", "ep-2"])).assert().success();
    let long = "The lace pattern needs a lighter yarn and the supplier ships on Fridays only.";
    for _ in 0..3 {
        sandbox.run(&tiered(&["session", "turn", "ep-2", "patch", long])).assert().success();
    }
    let refused = sandbox.error_in(
        sandbox.path(),
        &["--store", "store", "--backend", "tiered", "session", "end", "ep-2"],
        3,
    );
    assert!(refused["message"].as_str().unwrap().contains("not trusted"), "{refused}");

    let trusted = sandbox.json(&["project", "trust"]);
    assert_eq!(trusted["policy"]["command_trusted"], true);
    assert!(sandbox.path().join("home/trusted-commands.json").is_file());
    sandbox.run(&tiered(&["session", "end", "ep-2"])).assert().success();
    let summary = sandbox.json(&["get", "sessions/ep-2"]);
    assert!(summary["content"].as_str().unwrap().contains("Lace waits for wool."), "{summary}");
}

#[test]
fn a_malformed_manifest_is_refused_with_a_hint() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.store()).unwrap();
    std::fs::write(sandbox.store().join("project.json"), r#"{"summary": {"mode": "frontier"}}"#)
        .unwrap();
    let error = sandbox.error_in(sandbox.path(), &["--store", "store", "project", "info"], 3);
    assert_eq!(error["category"], "VALIDATION");
    assert!(error["message"].as_str().unwrap().contains("summary.mode"), "{error}");
    assert!(error["recovery"].as_str().unwrap().contains("project.json"), "{error}");
    sandbox.run(&["project", "init", "--summary-mode", "frontier"]).assert().failure();
}
