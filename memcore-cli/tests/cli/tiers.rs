//! Live sessions of a tiered store from the command line: `session start|turn|note|live|end`,
//! `timeline`, `compact`, `retain`, `purge`, `search --tier|--session|--agent|--shared`, in
//! text and `--json`, and their errors.

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Sandbox, hit_ids};

/// `--backend tiered ARGS...` on the sandbox's store.
fn tiered<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut all = vec!["--backend", "tiered"];
    all.extend_from_slice(args);
    all
}

#[test]
fn a_live_session_runs_from_start_to_end() {
    let sandbox = Sandbox::new();
    sandbox
        .run(&tiered(&["session", "start", "retro-1", "--title", "Retro", "--agent", "ann"]))
        .assert()
        .success()
        .stdout(contains("session retro-1 started"));
    sandbox
        .run(&tiered(&["session", "turn", "retro-1", "ann", "The deploy broke twice."]))
        .assert()
        .success();
    sandbox
        .run(&tiered(&["session", "turn", "retro-1", "user", "-"]))
        .write_stdin("Add a canary stage.\n")
        .assert()
        .success()
        .stdout(contains("turn 2"));
    sandbox
        .run(&tiered(&["session", "note", "retro-1", "--action-item", "add the canary"]))
        .assert()
        .success();
    sandbox
        .run(&tiered(&["session", "note", "retro-1", "--agent", "ann", "check the logs"]))
        .assert()
        .success();
    sandbox
        .run(&tiered(&["session", "live", "retro-1"]))
        .assert()
        .success()
        .stdout(contains("[2] user: Add a canary stage.\n").and(contains("todo: add the canary")));
    let live = sandbox.json(&tiered(&["session", "live", "retro-1"]));
    assert_eq!(live["turn_count"], 2);
    assert_eq!(live["notes"][0]["agent"], "ann");

    let ended = sandbox.json(&tiered(&[
        "session",
        "end",
        "retro-1",
        "--topic",
        "deploys",
        "--consensus",
        "Canary first",
    ]));
    assert_eq!(ended["archived"], 2);
    assert_eq!(ended["memories"][0], "sessions/retro-1");
    sandbox
        .run(&tiered(&["get", "sessions/retro-1"]))
        .assert()
        .success()
        .stdout(contains("- add the canary"));
    sandbox
        .run(&tiered(&["timeline", "--agent", "ann"]))
        .assert()
        .success()
        .stdout(contains("retro-1").and(contains("Canary first")));
    let listing = sandbox.json(&tiered(&["timeline", "--since", "2100-01-01T00:00:00Z"]));
    assert_eq!(listing["entries"].as_array().unwrap().len(), 0);

    let twice = sandbox.rejected(&tiered(&["session", "end", "retro-1"]), "", 1);
    assert_eq!(twice["category"], "NOT_FOUND");
    let bad = sandbox.rejected(&tiered(&["session", "start", "../up"]), "", 3);
    assert_eq!(bad["category"], "VALIDATION");
}

#[test]
fn a_file_store_says_how_to_get_live_sessions() {
    let sandbox = Sandbox::new();
    sandbox.put("A memory, so that the store exists.", &[]);
    let error = sandbox.rejected(&["timeline"], "", 5);
    assert_eq!(error["category"], "UNSUPPORTED");
    assert!(error["recovery"].as_str().unwrap().contains("--backend tiered"));
}

#[test]
fn compact_and_retain_from_the_command_line() {
    let sandbox = Sandbox::new();
    for (id, content) in
        [("staging", "The staging database moved."), ("backups", "Keep the backups.")]
    {
        let args = tiered(&["put", "-", "--collection", "notes", "--id", id]);
        sandbox.run(&args).write_stdin(content).assert().success();
    }
    sandbox
        .run(&tiered(&["retain", "notes/backups"]))
        .assert()
        .success()
        .stdout(contains("pinned notes/backups"));
    // Four years on, both are past the 120-day window; the pinned one stays.
    let later = ["--now", "2030-01-01T00:00:00Z"];
    sandbox
        .run(&tiered(&["compact", "--dry-run", later[0], later[1]]))
        .assert()
        .success()
        .stdout(contains("notes/digest-").and(contains("would demote 1 memories")));
    let report = sandbox.json(&tiered(&["compact", later[0], later[1]]));
    assert_eq!((report["demoted"].as_u64(), report["pinned"].as_u64()), (Some(1), Some(1)));
    let digest = report["digests"][0]["digest"].as_str().unwrap();
    sandbox.run(&tiered(&["get", digest])).assert().success().stdout(contains("staging database"));
    let moved = sandbox.rejected(&tiered(&["get", "notes/staging"]), "", 1);
    assert!(moved["message"].as_str().unwrap().contains("moved it to the cold tier"), "{moved}");
    assert!(moved["recovery"].as_str().unwrap().contains("notes/staging@"), "{moved}");
    let error = sandbox.rejected(&tiered(&["retain", "--session", "never-ran"]), "", 1);
    assert_eq!(error["category"], "NOT_FOUND");
}

#[test]
fn purge_removes_a_session_and_is_audited() {
    let sandbox = Sandbox::new();
    sandbox.run(&tiered(&["session", "start", "oops-1"])).assert().success();
    sandbox
        .run(&tiered(&["session", "turn", "oops-1", "user", "token zqxjwvbkpl"]))
        .assert()
        .success();
    sandbox.run(&tiered(&["session", "end", "oops-1"])).assert().success();
    let error =
        sandbox.rejected(&tiered(&["purge", "--session", "oops-1", "--reason", " "]), "", 3);
    assert_eq!(error["category"], "VALIDATION");
    sandbox
        .run(&tiered(&["purge", "--session", "oops-1", "--reason", "leaked token", "--by", "ops"]))
        .assert()
        .success()
        .stdout(contains("purged session oops-1").and(contains("1 cold records")));
    sandbox.run(&tiered(&["get", "sessions/oops-1"])).assert().code(1);
    let audit =
        std::fs::read_to_string(sandbox.store().join(".memcore/tiers/audit.jsonl")).unwrap();
    assert!(audit.contains("\"reason\":\"leaked token\"") && audit.contains("\"by\":\"ops\""));
    assert!(!audit.contains("zqxjwvbkpl"), "the audit log names, never quotes");
}

#[test]
fn search_across_tiers_labels_hits_and_records_them_in_a_session() {
    let sandbox = Sandbox::new();
    sandbox
        .run(&tiered(&["put", "-", "--id", "rotation"]))
        .write_stdin("Rotate the deploy key every month.")
        .assert()
        .success();
    sandbox.run(&tiered(&["session", "start", "ops-1"])).assert().success();
    sandbox
        .run(&tiered(&["session", "turn", "ops-1", "ann", "The deploy key expires on Friday."]))
        .assert()
        .success();
    sandbox.run(&tiered(&["session", "end", "ops-1"])).assert().success();

    sandbox
        .run(&tiered(&["search", "deploy key", "--mode", "text", "--tier", "cold"]))
        .assert()
        .success()
        .stdout(contains("[M1]").and(contains("cold")).and(contains("turn/ops-1/1")));
    let all = sandbox.json(&tiered(&["search", "deploy key", "--mode", "text", "--tier", "all"]));
    let tiers: Vec<&str> =
        all["hits"].as_array().unwrap().iter().map(|h| h["tier"].as_str().unwrap()).collect();
    assert!(tiers.contains(&"warm") && tiers.contains(&"cold"), "{all}");
    assert_eq!(all["hits"][0]["label"], "M1");

    sandbox.run(&tiered(&["session", "start", "ops-2"])).assert().success();
    let recorded =
        sandbox.json(&tiered(&["search", "key rotation", "--mode", "text", "--session", "ops-2"]));
    assert_eq!(recorded["hits"][0]["source"], "memory/rotation");
    sandbox
        .run(&tiered(&["session", "live", "ops-2"]))
        .assert()
        .success()
        .stdout(contains("source [M1]: Rotate the deploy key every month. (memory/rotation)"));
    let live = sandbox.json(&tiered(&["session", "live", "ops-2"]));
    assert_eq!(live["retrievals"][0]["query"], "key rotation");
    assert_eq!(live["evidence"][0]["source"], "memory/rotation");

    sandbox
        .run(&tiered(&["search", "key", "--tier", "cold", "--tags", "x"]))
        .assert()
        .code(2)
        .stderr(contains("cannot be used with"));
    let flat = sandbox.rejected(&["search", "key", "--tier", "cold"], "", 5);
    assert_eq!(flat["category"], "UNSUPPORTED");
}

#[test]
fn search_asks_for_one_agents_view_or_the_shared_one() {
    let sandbox = Sandbox::new();
    let owned = [
        ("shared", None),
        ("alices", Some(r#"{"agent": "alice"}"#)),
        ("bobs", Some(r#"{"agent": "bob"}"#)),
    ];
    for (id, agent) in owned {
        let mut args = vec!["put", "-", "--id", id];
        if let Some(agent) = agent {
            args.extend(["--metadata", agent]);
        }
        sandbox.run(&args).write_stdin("The budget review notes.").assert().success();
    }
    let ids = |extra: &[&str]| {
        let mut args = vec!["search", "budget review", "--mode", "text"];
        args.extend_from_slice(extra);
        hit_ids(&sandbox.json(&args))
    };
    assert_eq!(ids(&["--agent", "alice"]), ["alices", "shared"]);
    assert_eq!(ids(&["--shared"]), ["shared"]);
    assert_eq!(ids(&[]), ["alices", "bobs", "shared"]);
    sandbox
        .run(&["search", "budget", "--agent", "alice", "--shared"])
        .assert()
        .code(2)
        .stderr(contains("cannot be used with"));
}

#[test]
fn verify_reports_the_cold_archive() {
    let sandbox = Sandbox::new();
    sandbox.run(&tiered(&["session", "start", "ops-1"])).assert().success();
    sandbox
        .run(&tiered(&["session", "turn", "ops-1", "ann", "The heron nests."]))
        .assert()
        .success();
    sandbox.run(&tiered(&["session", "end", "ops-1"])).assert().success();
    sandbox
        .run(&tiered(&["verify"]))
        .assert()
        .success()
        .stdout(contains("cold archive: 1 records in 1 segments, consistent"));
    let report = sandbox.json(&tiered(&["verify"]));
    assert_eq!(report["cold"]["records"], 1);
    let repaired = sandbox.json(&tiered(&["repair"]));
    assert_eq!(repaired["cold"]["frames_set_aside"], 0);
}

#[test]
fn a_live_session_retrieves_labelled_passages() {
    let sandbox = Sandbox::new();
    std::fs::write(
        sandbox.path().join("runbook.md"),
        "# Runbook\n\n## Rollback\n\nRoll back with the previous image tag.\n",
    )
    .unwrap();
    sandbox.run(&tiered(&["docs", "ingest", "runbook.md"])).assert().success();
    sandbox.run(&tiered(&["session", "start", "inc-1", "--agent", "ops"])).assert().success();
    sandbox
        .run(&tiered(&["session", "retrieve", "inc-1", "previous image tag", "--mode", "text"]))
        .assert()
        .success()
        .stdout(
            contains("[Doc 1] Runbook").and(contains("Roll back with the previous image tag.")),
        );
    let from_output = serde_json::from_slice::<serde_json::Value>(
        &sandbox
            .run(&tiered(&[
                "session", "retrieve", "inc-1", "--output", "-", "--agent", "ops", "--json",
            ]))
            .write_stdin("I will check. <<retrieve: rollback>>\n")
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(from_output["queries"], serde_json::json!(["rollback"]));
    assert_eq!(from_output["passages"][0]["label"], "Doc 1", "{from_output}");
    sandbox
        .run(&tiered(&["session", "retrieve", "inc-1", "--output", "-"]))
        .write_stdin("No markers here.\n")
        .assert()
        .success()
        .stderr(contains("no retrieval asked for"));
    let live = sandbox.json(&tiered(&["session", "live", "inc-1"]));
    assert_eq!(live["retrievals"].as_array().unwrap().len(), 2);
    sandbox.run(&tiered(&["session", "end", "inc-1"])).assert().success();
    let summary = sandbox.json(&["get", "sessions/inc-1"]);
    assert!(
        summary["content"].as_str().unwrap().trim_end().ends_with("Sources: Doc 1"),
        "{summary}"
    );
    let missing = sandbox.error_in(
        sandbox.path(),
        &["--store", "store", "--backend", "tiered", "session", "retrieve", "inc-1", "x"],
        1,
    );
    assert_eq!(missing["category"], "NOT_FOUND");
}
