//! `agent set | profile | remember`, in text and `--json`, and their errors.

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::Sandbox;

#[test]
fn an_agent_is_set_remembers_and_shows_its_profile() {
    let sandbox = Sandbox::new();
    sandbox
        .run(&[
            "agent",
            "set",
            "loom",
            "--persona",
            "A patient weaver.",
            "--fields",
            r#"{"voice": "warm"}"#,
        ])
        .assert()
        .success()
        .stdout(contains("agent loom set"));
    sandbox
        .run(&["agent", "remember", "loom", "Prefers wool to acrylic.", "--tags", "craft"])
        .assert()
        .success()
        .stdout(contains("for agent loom"));
    sandbox
        .run(&["agent", "remember", "loom", "-"])
        .write_stdin("Knits on Sundays.\n")
        .assert()
        .success();
    sandbox.run(&["agent", "profile", "loom"]).assert().success().stdout(
        contains("A patient weaver.").and(contains("voice")).and(contains("Knits on Sundays.")),
    );
    let view = sandbox.json(&["agent", "profile", "loom", "--limit", "1"]);
    assert_eq!(view["total"], 2);
    assert_eq!(view["memories"].as_array().unwrap().len(), 1);
    assert_eq!(view["profile"]["fields"]["voice"], "warm");

    let store = sandbox.store();
    let store = store.to_str().unwrap();
    let unknown =
        sandbox.error_in(sandbox.path(), &["--store", store, "agent", "profile", "nobody"], 1);
    assert_eq!(unknown["category"], "NOT_FOUND");
    let fields = sandbox.error_in(
        sandbox.path(),
        &["--store", store, "agent", "set", "x", "--fields", "[1]"],
        3,
    );
    assert!(fields["recovery"].as_str().unwrap().contains("object"), "{fields}");
}
