//! The link graph from the command line: `links`, `backlinks`, `search --linked-to`,
//! `append`, `merge`, their text and JSON output, and the input they refuse.

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::Sandbox;

/// A plan and a journal both linking `src/server.py`.
fn bank() -> Sandbox {
    let sandbox = Sandbox::new();
    sandbox.put("We will refactor [[src/server.py]] soon.", &["--id", "plan"]);
    sandbox.put("Fixed a bug in [[src/server.py]] today.", &["--id", "journal"]);
    sandbox
}

#[test]
fn links_and_backlinks_print_nodes_types_and_context() {
    let sandbox = bank();
    sandbox
        .run(&["links", "plan"])
        .assert()
        .success()
        .stdout(contains("ghost:src/server.py").and(contains("refactors")));
    let back = sandbox.json(&["backlinks", "ghost:src/server.py"]);
    let sources: Vec<&str> =
        back["links"].as_array().unwrap().iter().map(|l| l["source"].as_str().unwrap()).collect();
    assert_eq!(sources, ["memory/journal", "memory/plan"]);
    sandbox
        .run(&["backlinks", "nowhere"])
        .assert()
        .success()
        .stderr(contains("nothing links there"));
    let hits = sandbox.json(&["search", "bug", "--mode", "text", "--linked-to", "src/server.py"]);
    assert_eq!(hits["hits"][0]["memory"]["ref"], "memory/journal");
    assert_eq!(hits["hits"][0]["links"][0]["target"], "src/server.py");
}

#[test]
fn append_and_merge() {
    let sandbox = bank();
    sandbox
        .run(&["append", "journal"])
        .write_stdin("See [[docs/ops.md]].")
        .assert()
        .success()
        .stdout(contains("appended to memory/journal (version 2)"));
    sandbox
        .run(&["merge", "plan", "journal", "--into", "server", "--summary", "Server work."])
        .assert()
        .success()
        .stdout(contains("merged into memory/server"))
        .stderr(contains("moved memory/plan to the trash"));
    let listed = sandbox.json(&["list"]);
    let ids: Vec<&str> =
        listed["memories"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["server"]);
}

#[test]
fn bad_input_is_refused_with_nothing_written() {
    let sandbox = bank();
    let error = sandbox.rejected(&["merge", "plan", "--into", "plan"], "", 3);
    assert!(error["message"].as_str().unwrap().contains("into itself"), "{error}");
    sandbox.rejected(&["append", "plan"], "   ", 3);
    sandbox.rejected(&["merge", "plan", "nope", "--into", "x"], "", 1);
    sandbox.run(&["merge", "--into", "x"]).assert().code(2);
}
