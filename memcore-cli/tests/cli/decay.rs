//! The decay engine from the command line: `status`, `search --status`, `lifecycle run` and
//! `keepit list|set|preview`, their text and JSON output, and the input they refuse.

use predicates::prelude::*;
use predicates::str::contains;
use serde_json::{Value, json};

use crate::support::{Sandbox, json_of, keys};

/// A time past every lifecycle threshold from now: whatever is unchanged until then is due.
const FUTURE: &str = "2099-01-01T00:00:00Z";

/// The summary of [`long_content`]; `priming` is not in the content.
const SUMMARY: &str = "Boot-time priming of caches";

/// A memory long enough that archiving compresses it.
fn long_content() -> String {
    format!(
        "# Cache warming\n\n{}",
        "The cache is warmed at boot from the snapshot file.\n".repeat(30)
    )
}

/// A memory with three keepit markers: 0.80, 0.25 and a pinned 1.00.
const MARKED: &str = "# API notes\n\n##keepit0.80## Use REST for the public API.\n\n\
                      ##keepit0.25## Maybe try gRPC later.\n\n\
                      ##keepit1.00## Never break v1 clients.\n";

/// Runs `args` on the store, expects success and returns stdout.
fn stdout(sandbox: &Sandbox, args: &[&str]) -> String {
    let output = sandbox.run(args).assert().success().get_output().stdout.clone();
    String::from_utf8(output).unwrap()
}

/// The memory `reference` names, as `get --format json` prints it.
fn get(sandbox: &Sandbox, reference: &str) -> Value {
    let output = stdout(sandbox, &["get", reference, "--format", "json"]);
    serde_json::from_str(&output).unwrap()
}

/// How many versions the history of `reference` holds.
fn version_count(sandbox: &Sandbox, reference: &str) -> usize {
    sandbox.json(&["versions", reference])["versions"].as_array().unwrap().len()
}

/// The refs of the hits of `search QUERY --mode text` with extra options.
fn found(sandbox: &Sandbox, query: &str, options: &[&str]) -> Vec<String> {
    let mut args = vec!["search", query, "--mode", "text"];
    args.extend_from_slice(options);
    let hits = sandbox.json(&args)["hits"].as_array().unwrap().clone();
    hits.iter().map(|hit| hit["memory"]["ref"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn status_moves_a_memory_and_archiving_keeps_the_original_exactly() {
    let sandbox = Sandbox::new();
    let content = long_content();
    let stored = sandbox.put(&content, &["--id", "warm", "--summary", SUMMARY]);
    assert_eq!(stored["content"], content.as_str());

    sandbox
        .run(&["status", "warm", "resolved"])
        .assert()
        .success()
        .stdout("resolved: memory/warm (version 2)\n");

    // --json prints the memory as `get --format json` does.
    let archived = sandbox.json(&["status", "warm", "archived"]);
    assert_eq!(keys(&archived), ["content", "id", "metadata", "title"]);
    assert_eq!(archived, get(&sandbox, "warm"));
    let metadata = &archived["metadata"];
    assert_eq!((&metadata["status"], &metadata["version"]), (&"archived".into(), &3.into()));
    let stub = archived["content"].as_str().unwrap();
    assert!(stub.starts_with("[ARCHIVED] [Compressed: "), "{stub}");
    assert!(stub.ends_with(&format!("Original summary: {SUMMARY}")), "{stub}");
    let kept = &metadata["extra"]["archived_original"];
    assert_eq!(kept["encoding"], "zlib+base64");
    assert_eq!(kept["bytes"], content.len());
    let raw = stdout(&sandbox, &["get", "warm", "--format", "raw"]);
    assert!(raw.contains("[ARCHIVED]") && !raw.contains("snapshot file"), "{raw}");

    // Back to active: the original content, byte for byte, and no archive left behind.
    sandbox
        .run(&["status", "memory/warm", "active"])
        .assert()
        .success()
        .stdout("active: memory/warm (version 4)\n");
    sandbox.run(&["get", "warm", "--format", "raw"]).assert().success().stdout(content.clone());
    let active = get(&sandbox, "warm");
    assert_eq!(active["metadata"]["status"], "active");
    assert!(active["metadata"]["extra"].get("archived_original").is_none(), "{active}");
    assert_eq!(version_count(&sandbox, "warm"), 4);

    // Through tombstone and back, the original survives too.
    sandbox.run(&["-q", "status", "warm", "archived"]).assert().success().stdout("");
    sandbox.run(&["-q", "status", "warm", "tombstone"]).assert().success();
    assert!(get(&sandbox, "warm")["content"].as_str().unwrap().starts_with("[ARCHIVED]"));
    sandbox.run(&["-q", "status", "warm", "active"]).assert().success();
    sandbox.run(&["get", "warm", "--format", "raw"]).assert().success().stdout(content);
}

#[test]
fn status_refuses_moves_the_table_forbids_and_unknown_statuses() {
    let sandbox = Sandbox::new();
    sandbox.put("Ship it.", &["--id", "ship"]);
    sandbox.run(&["-q", "status", "ship", "resolved"]).assert().success();

    // An invalid move: a validation error whose hint lists where the memory can go.
    let error = sandbox.rejected(&["status", "ship", "active"], "", 3);
    assert_eq!(error["category"], "VALIDATION");
    assert_eq!(error["message"], "a memory cannot go from status resolved to active");
    assert_eq!(error["recovery"], "from resolved it can go to: archived, tombstone");
    sandbox
        .run(&["status", "ship", "active"])
        .assert()
        .code(3)
        .stderr(contains("hint: from resolved it can go to: archived, tombstone"));

    // An unknown status is a usage error from the command line parser, naming the values.
    let error = sandbox.rejected(&["status", "ship", "done"], "", 2);
    assert_eq!(error["category"], "USAGE");
    assert!(error["message"].as_str().unwrap().contains("'done'"), "{error}");
    sandbox
        .run(&["status", "ship", "done"])
        .assert()
        .code(2)
        .stderr(contains("[possible values: active, resolved, archived, tombstone]"));
    sandbox.rejected(&["status", "ship"], "", 2);
    sandbox.rejected(&["status", "missing", "archived"], "", 1);
    sandbox.rejected(&["status", "Bad Id", "archived"], "", 3);

    // The status it has already: the memory is printed as it is, no new version.
    let before = sandbox.snapshot();
    sandbox
        .run(&["status", "ship", "resolved"])
        .assert()
        .success()
        .stdout("resolved: memory/ship (version 2)\n");
    assert_eq!(sandbox.json(&["status", "ship", "resolved"])["metadata"]["version"], 2);
    assert!(sandbox.snapshot() == before, "nothing written");
    assert_eq!(version_count(&sandbox, "ship"), 2);

    // Content too short to gain from compression is archived as it is.
    let archived = sandbox.json(&["status", "ship", "archived"]);
    assert_eq!(archived["content"], "Ship it.");
    assert!(archived["metadata"]["extra"].get("archived_original").is_none(), "{archived}");
}

#[test]
fn search_finds_archived_memories_only_when_asked() {
    let sandbox = Sandbox::new();
    sandbox.put(&long_content(), &["--id", "warm", "--summary", SUMMARY]);
    sandbox.put("Priming: run the warm-up job before traffic.", &["--id", "prime"]);
    // The summary is searched beside the content, while the memory is active too.
    let mut active = found(&sandbox, "priming", &["--status", "active,archived"]);
    active.sort();
    assert_eq!(active, ["memory/prime", "memory/warm"]);
    sandbox.run(&["-q", "status", "warm", "archived"]).assert().success();

    // By default only active and resolved memories are searched.
    assert_eq!(found(&sandbox, "priming", &[]), ["memory/prime"]);
    assert_eq!(found(&sandbox, "caches", &[]), Vec::<String>::new());
    sandbox
        .run(&["search", "caches", "--mode", "text"])
        .assert()
        .success()
        .stdout("")
        .stderr(contains("no memories match"));

    // Archived, it is found by the words of its summary, which its stub holds.
    assert_eq!(found(&sandbox, "priming", &["--status", "archived"]), ["memory/warm"]);
    let hits =
        sandbox.json(&["search", "boot-time caches", "--mode", "text", "--status", "archived"]);
    assert_eq!(hits["hits"][0]["memory"]["status"], "archived");
    let table = stdout(&sandbox, &["search", "priming", "--mode", "text", "--status", "archived"]);
    assert!(table.lines().nth(1).unwrap().contains("memory/warm"), "{table}");
    let mut both = found(&sandbox, "priming", &["--status", "active,archived"]);
    both.sort();
    assert_eq!(both, ["memory/prime", "memory/warm"]);
    assert_eq!(found(&sandbox, "priming", &["--status", "tombstone"]), Vec::<String>::new());
    sandbox.rejected(&["search", "priming", "--status", "gone"], "", 2);
}

/// A store with two memories the lifecycle archives at [`FUTURE`] and three pinned ones it
/// never archives: importance 1.0 by `call put`, by frontmatter, and a `##keepit1.00##` marker.
fn lifecycle_store() -> Sandbox {
    let sandbox = Sandbox::new();
    sandbox.put(
        "Met the team; agreed on weekly demos.",
        &["--id", "standup", "--collection", "journal"],
    );
    sandbox.put("Basil and ricotta.", &["--id", "lasagna", "--collection", "personal"]);
    let pinned = json!({"memories": [
        {"content": "Never drop the WAL before the checkpoint.", "id": "wal", "importance": 1.0}
    ]});
    sandbox.run(&["-q", "call", "put", &pinned.to_string()]).assert().success();
    let stored = sandbox
        .put("---\nimportance: 1.0\n---\nThe on-call rota lives in the wiki.\n", &["--id", "rota"]);
    assert_eq!(stored["metadata"]["importance"], 1.0);
    sandbox.put("Release notes. ##keepit1.00## Tag before you build.", &["--id", "release"]);
    sandbox
}

#[test]
fn lifecycle_dry_run_plans_and_the_real_run_carries_out_the_same_plan() {
    let sandbox = lifecycle_store();
    let before = sandbox.snapshot();
    let plan = stdout(&sandbox, &["lifecycle", "run", "--dry-run", "--now", FUTURE]);
    let lines: Vec<&str> = plan.lines().collect();
    assert_eq!(lines.len(), 4, "{plan}");
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(header, ["REF", "FROM", "TO", "WHY"], "{plan}");
    for (line, reference) in lines[1..3].iter().zip(["journal/standup", "personal/lasagna"]) {
        let cells: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(cells[..3], [reference, "active", "archived"], "{plan}");
        assert!(line.contains("(archived after 90 days)"), "{plan}");
        // Aligned: every column starts where its header does.
        assert_eq!(line.find("active"), lines[0].find("FROM"), "{plan}");
        assert_eq!(line.find("unchanged for "), lines[0].find("WHY"), "{plan}");
    }
    assert_eq!(lines[3], "would archive 2, tombstone 0, delete 0; skipped 3 of 5 memories scanned");
    assert!(sandbox.snapshot() == before, "a dry run changes nothing");
    assert_eq!(get(&sandbox, "standup")["metadata"]["status"], "active");

    let dry = sandbox.json(&["lifecycle", "run", "--dry-run", "--now", FUTURE]);
    assert_eq!(keys(&dry), ["dry_run", "errors", "now", "stats", "steps"]);
    assert_eq!((&dry["dry_run"], &dry["now"]), (&true.into(), &FUTURE.into()));
    let stats = json!({"scanned": 5, "archived": 2, "tombstoned": 0, "deleted": 0,
                       "skipped": 3, "failed": 0});
    assert_eq!(dry["stats"], stats);
    let step = &dry["steps"][0];
    assert_eq!(
        keys(step),
        ["action", "age_days", "from", "reason", "ref", "relevance", "to", "version"]
    );
    assert_eq!((&step["ref"], &step["action"]), (&"journal/standup".into(), &"archive".into()));
    assert!(step["age_days"].as_f64().unwrap() > 90.0, "{step}");
    assert!(sandbox.snapshot() == before, "a dry run changes nothing");

    // The real run does what the dry run planned.
    let done = sandbox.json(&["lifecycle", "run", "--now", FUTURE]);
    assert_eq!(done["dry_run"], false);
    assert_eq!(done["stats"], stats);
    assert_eq!(done["steps"], dry["steps"]);
    assert_eq!(done["errors"], json!([]));
    for (reference, status) in [
        ("standup", "archived"),
        ("lasagna", "archived"),
        ("wal", "active"),
        ("rota", "active"),
        ("release", "active"),
    ] {
        assert_eq!(get(&sandbox, reference)["metadata"]["status"], status, "{reference}");
    }

    // Again at the same time: the archived memories changed then, nothing is due.
    sandbox
        .run(&["lifecycle", "run", "--now", FUTURE])
        .assert()
        .success()
        .stdout("archived 0, tombstoned 0, deleted 0; skipped 5 of 5 memories scanned\n");
    let again = sandbox.json(&["lifecycle", "run", "--now", FUTURE]);
    assert_eq!((&again["stats"]["archived"], &again["steps"]), (&0.into(), &json!([])));
}

#[test]
fn lifecycle_by_collection_through_tombstone_and_delete() {
    let sandbox = Sandbox::new();
    sandbox.put(&long_content(), &["--id", "warm", "--collection", "journal"]);
    sandbox.put("Basil and ricotta.", &["--id", "lasagna", "--collection", "personal"]);
    sandbox.put(&long_content(), &["--id", "plain", "--collection", "notes"]);

    let run = stdout(&sandbox, &["lifecycle", "run", "--now", FUTURE, "--collection", "journal"]);
    assert!(run.contains("journal/warm") && !run.contains("personal/"), "{run}");
    assert!(run.ends_with("archived 1, tombstoned 0, deleted 0; skipped 0 of 1 memory scanned\n"));
    assert_eq!(get(&sandbox, "lasagna")["metadata"]["status"], "active");
    assert!(get(&sandbox, "warm")["content"].as_str().unwrap().starts_with("[ARCHIVED]"));

    // Several collections; the one archived at FUTURE is not due again then.
    let both = sandbox.json(&[
        "lifecycle",
        "run",
        "--dry-run",
        "--now",
        FUTURE,
        "--collection",
        "personal",
        "--collection",
        "journal",
    ]);
    assert_eq!(both["stats"]["scanned"], 2);
    assert_eq!(both["steps"].as_array().unwrap().len(), 1);
    assert_eq!(both["steps"][0]["ref"], "personal/lasagna");

    // --no-compress archives the content as it is.
    let plain = sandbox.json(&[
        "lifecycle",
        "run",
        "--now",
        FUTURE,
        "--collection",
        "notes",
        "--no-compress",
    ]);
    assert_eq!(plain["stats"]["archived"], 1);
    let archived = get(&sandbox, "plain");
    assert_eq!(archived["metadata"]["status"], "archived");
    assert_eq!(archived["content"], long_content().as_str());

    // A year after archiving it is tombstoned; more than a year later deleted (to the trash).
    let later = sandbox.json(&[
        "lifecycle",
        "run",
        "--now",
        "2100-01-01T00:00:00Z",
        "--collection",
        "journal",
    ]);
    let step = &later["steps"][0];
    assert_eq!((&step["action"], &step["to"]), (&"tombstone".into(), &"tombstone".into()));
    assert_eq!(step["reason"], "archived 365 days ago (tombstoned after 180 days)");
    let gone = stdout(
        &sandbox,
        &["lifecycle", "run", "--now", "2101-06-01T00:00:00Z", "--collection", "journal"],
    );
    let row: Vec<&str> = gone.lines().nth(1).unwrap().split_whitespace().collect();
    assert_eq!(row[..3], ["journal/warm", "tombstone", "deleted"], "{gone}");
    assert!(gone.ends_with("archived 0, tombstoned 0, deleted 1; skipped 0 of 1 memory scanned\n"));
    sandbox.run(&["get", "warm"]).assert().code(1);
    sandbox.run(&["-q", "restore", "journal/warm"]).assert().success();
    assert_eq!(get(&sandbox, "warm")["metadata"]["status"], "tombstone");
    sandbox.run(&["-q", "status", "warm", "active"]).assert().success();
    sandbox.run(&["get", "warm", "--format", "raw"]).assert().success().stdout(long_content());
}

#[test]
fn lifecycle_thresholds_override_the_settings() {
    let sandbox = lifecycle_store();
    // Not yet old enough, but far below the minimum relevance.
    let by_relevance = sandbox.json(&[
        "lifecycle",
        "run",
        "--dry-run",
        "--now",
        FUTURE,
        "--archive-after-days",
        "1e9",
    ]);
    assert_eq!(by_relevance["stats"]["archived"], 2);
    let reason = by_relevance["steps"][0]["reason"].as_str().unwrap();
    assert!(reason.starts_with("relevance 0.000 is below 0.1"), "{reason}");
    // Neither by age nor by relevance: nothing to do.
    let neither = sandbox.json(&[
        "lifecycle",
        "run",
        "--dry-run",
        "--now",
        FUTURE,
        "--archive-after-days",
        "1e9",
        "--min-relevance",
        "0",
    ]);
    assert_eq!(
        (&neither["stats"]["archived"], &neither["stats"]["skipped"]),
        (&0.into(), &5.into())
    );
}

#[test]
fn lifecycle_refuses_bad_thresholds_and_times() {
    let sandbox = lifecycle_store();
    let error = sandbox.rejected(&["lifecycle", "run", "--min-relevance", "2"], "", 3);
    assert_eq!(error["message"], "invalid lifecycle threshold min_relevance: 2");
    let error = sandbox.rejected(&["lifecycle", "run", "--archive-after-days", "-1"], "", 3);
    assert_eq!(error["message"], "invalid lifecycle threshold archive_after_days: -1");
    assert!(error["recovery"].as_str().unwrap().contains("0 or more"), "{error}");
    sandbox.rejected(&["lifecycle", "run", "--min-relevance", "-0.5"], "", 3);
    sandbox.rejected(&["lifecycle", "run", "--tombstone-after-days", "NaN"], "", 3);
    sandbox.rejected(&["lifecycle", "run", "--delete-after-days", "inf"], "", 3);
    sandbox.rejected(&["lifecycle", "run", "--collection", "Bad Name"], "", 3);

    let error = sandbox.rejected(&["lifecycle", "run", "--now", "yesterday"], "", 2);
    assert_eq!(error["category"], "USAGE");
    assert!(error["message"].as_str().unwrap().contains("'yesterday' for '--now <TIME>'"));
    sandbox.rejected(&["lifecycle", "run", "--archive-after-days", "soon"], "", 2);
    sandbox.rejected(&["lifecycle", "run", "--dry-run", "--bogus"], "", 2);
    sandbox.rejected(&["lifecycle"], "", 2);
}

#[test]
fn keepit_list_reads_markers_from_a_memory_or_a_text() {
    let sandbox = Sandbox::new();
    sandbox.put(MARKED, &["--id", "api"]);
    sandbox.run(&["keepit", "list", "api"]).assert().success().stdout(
        "#  WEIGHT  LEVEL      TEXT\n\
         0  0.80    important  Use REST for the public API.\n\
         1  0.25    minor      Maybe try gRPC later.\n\
         2  1.00    pinned     Never break v1 clients.\n",
    );

    let listed = sandbox.json(&["keepit", "list", "memory/api"]);
    assert_eq!(keys(&listed), ["markers"]);
    let markers = listed["markers"].as_array().unwrap();
    assert_eq!(
        keys(&markers[0]),
        ["content", "end", "end_char", "index", "level", "start", "start_char", "weight"]
    );
    let summary: Vec<(u64, f64, &str)> = markers
        .iter()
        .map(|m| {
            (
                m["index"].as_u64().unwrap(),
                m["weight"].as_f64().unwrap(),
                m["level"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(summary, [(0, 0.8, "important"), (1, 0.25, "minor"), (2, 1.0, "pinned")]);
    let start = markers[0]["start"].as_u64().unwrap() as usize;
    assert!(MARKED[start..].starts_with("##keepit0.80## Use REST"));
    assert_eq!(markers[0]["end"], markers[1]["start"]);
    assert_eq!(markers[2]["end"], MARKED.len());

    // From standard input: a weight below every level has none; offsets in characters too.
    let text = "Naïve ✓ ##keepit0.50## from stdin\n##keepit0.05## faint\n";
    sandbox.run(&["keepit", "list", "--text", "-"]).write_stdin(text).assert().success().stdout(
        "#  WEIGHT  LEVEL    TEXT\n0  0.50    notable  from stdin\n1  0.05             faint\n",
    );
    let listed = json_of(sandbox.run(&["keepit", "list", "--text", "-"]).write_stdin(text));
    let faint = &listed["markers"][1];
    assert!(faint.get("level").is_none(), "{faint}");
    let (start, start_char) =
        (faint["start"].as_u64().unwrap(), faint["start_char"].as_u64().unwrap());
    assert_eq!(start - start_char, 3, "ï and ✓ take 2 and 3 bytes");

    // From a file; a text without markers lists none.
    std::fs::write(sandbox.path().join("notes.md"), "a ##KEEPIT0.90## b").unwrap();
    let from_file = sandbox.json(&["keepit", "list", "--text", "notes.md"]);
    assert_eq!(from_file["markers"][0]["level"], "critical");
    sandbox
        .run(&["keepit", "list", "--text", "-"])
        .write_stdin("No markers here.")
        .assert()
        .success()
        .stdout("")
        .stderr(contains("no keepit markers"));
    let none = json_of(sandbox.run(&["keepit", "list", "--text", "-"]).write_stdin("Plain."));
    assert_eq!(none, json!({"markers": []}));
}

#[test]
fn keepit_set_changes_one_weight_in_place() {
    let sandbox = Sandbox::new();
    sandbox.put(MARKED, &["--id", "api"]);
    sandbox
        .run(&["keepit", "set", "api", "1", "0.9"])
        .assert()
        .success()
        .stdout("marker 1 set in memory/api (version 2)\n");
    let changed = MARKED.replace("##keepit0.25##", "##keepit0.90##");
    sandbox.run(&["get", "api", "--format", "raw"]).assert().success().stdout(changed.clone());
    assert_eq!(version_count(&sandbox, "api"), 2);

    // --json prints the memory; a weight is clamped to 0.00..1.00 and rounded to two decimals.
    let memory = sandbox.json(&["keepit", "set", "api", "0", "1.5"]);
    assert_eq!(memory["metadata"]["version"], 3);
    let pinned = changed.replace("##keepit0.80##", "##keepit1.00##");
    assert_eq!(memory["content"], pinned.as_str());
    let memory = sandbox.json(&["keepit", "set", "memory/api", "0", "-0.5"]);
    assert_eq!(memory["content"], changed.replace("##keepit0.80##", "##keepit0.00##").as_str());
    let memory = sandbox.json(&["keepit", "set", "api", "0", "0.333"]);
    assert_eq!(memory["content"], changed.replace("##keepit0.80##", "##keepit0.33##").as_str());

    // An index past the markers, a weight that is not a number, a missing memory.
    let error = sandbox.rejected(&["keepit", "set", "api", "3", "0.5"], "", 3);
    assert_eq!(error["message"], "there is no keepit marker 3: the text has 3");
    assert!(error["recovery"].as_str().unwrap().contains("keepit list"), "{error}");
    sandbox.rejected(&["keepit", "set", "api", "0", "NaN"], "", 3);
    sandbox.rejected(&["keepit", "set", "api", "-1", "0.5"], "", 2);
    sandbox.rejected(&["keepit", "set", "api", "0", "high"], "", 2);
    sandbox.rejected(&["keepit", "set", "api", "0"], "", 2);
    sandbox.rejected(&["keepit", "set", "missing", "0", "0.5"], "", 1);
    assert_eq!(version_count(&sandbox, "api"), 5);
}

#[test]
fn keepit_preview_shows_survival_by_session_distance() {
    let sandbox = Sandbox::new();
    let text = "##keepit0.80## API choice ##keepit0.60## cache layout ##keepit0.25## a hunch \
                ##keepit1.00## the WAL";
    sandbox.put(text, &["--id", "plan"]);

    // Ratio 30 is aggressive: thresholds 0.5 + 0.3 * distance / 10.
    let preview = stdout(&sandbox, &["keepit", "preview", "plan", "--ratio", "30"]);
    let lines: Vec<&str> = preview.lines().collect();
    assert_eq!(
        lines[0],
        "ratio 30:1, aggressive; thresholds 0.530 0.560 0.590 0.620 0.650 0.680 0.710 0.740 \
         0.770 0.800"
    );
    let header: Vec<&str> = lines[1].split("  ").filter(|c| !c.is_empty()).collect();
    assert_eq!(header, ["#", "WEIGHT", "SURVIVES (1..)", "THROUGH", "TEXT"]);
    let rows: Vec<Vec<&str>> = lines[2..].iter().map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(rows[0][..4], ["0", "0.80", "++++++++++", "10"]);
    assert_eq!(rows[1][..4], ["1", "0.60", "+++-------", "3"]);
    assert_eq!(rows[2][..4], ["2", "0.25", "----------", "0"]);
    assert_eq!(rows[3][..4], ["3", "1.00", "++++++++++", "10"]);
    assert_eq!(rows[1][4..], ["cache", "layout"]);

    let json = sandbox.json(&["keepit", "preview", "plan", "--ratio", "30"]);
    assert_eq!(keys(&json), ["aggressiveness", "markers", "max_distance", "ratio", "thresholds"]);
    assert_eq!((&json["ratio"], &json["aggressiveness"]), (&30.0.into(), &"aggressive".into()));
    assert_eq!(json["max_distance"], 10);
    let thresholds = json["thresholds"].as_array().unwrap();
    assert_eq!(thresholds.len(), 10);
    for (at, threshold) in thresholds.iter().enumerate() {
        assert_eq!(keys(threshold), ["distance", "surviving", "threshold"]);
        assert_eq!(threshold["distance"], at + 1);
        let expected = 0.5 + 0.03 * (at + 1) as f64;
        assert!((threshold["threshold"].as_f64().unwrap() - expected).abs() < 1e-9, "{threshold}");
        assert_eq!(threshold["surviving"], if at < 3 { 3 } else { 2 }, "{threshold}");
    }
    let through: Vec<u64> = json["markers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["survives_through"].as_u64().unwrap())
        .collect();
    assert_eq!(through, [10, 3, 0, 10]);
    let cache = &json["markers"][1];
    assert_eq!(
        (&cache["index"], &cache["weight"], &cache["content"]),
        (&1.into(), &0.6.into(), &"cache layout".into())
    );
    let expected: Vec<bool> = (0..10).map(|at| at < 3).collect();
    assert_eq!(cache["survives"], json!(expected));

    // Lighter and nearer: base 0.1 + 0.3 * distance / 4, from a text on standard input.
    let mut cmd = sandbox.run(&["keepit", "preview", "--text", "-", "--ratio", "30"]);
    cmd.args(["--aggressiveness", "light", "--max-distance", "4"]);
    let light = json_of(cmd.write_stdin(text));
    assert_eq!((&light["aggressiveness"], &light["max_distance"]), (&"light".into(), &4.into()));
    assert_eq!(light["thresholds"].as_array().unwrap().len(), 4);
    assert_eq!(light["markers"][2]["survives_through"], 2, "0.25 against 0.175, 0.25, 0.325");
    let text_line = stdout(&sandbox, &["keepit", "preview", "plan", "--ratio", "5"]);
    assert!(text_line.starts_with("ratio 5:1, light; thresholds 0.105 "), "{text_line}");

    sandbox.rejected(&["keepit", "preview", "plan", "--ratio", "0.5"], "", 3);
    sandbox.rejected(&["keepit", "preview", "plan", "--ratio", "30", "--max-distance", "0"], "", 3);
    sandbox.rejected(&["keepit", "preview", "plan"], "", 2);
    sandbox.rejected(
        &["keepit", "preview", "plan", "--ratio", "30", "--aggressiveness", "extreme"],
        "",
        2,
    );
    sandbox.rejected(&["keepit", "preview", "missing", "--ratio", "30"], "", 1);
}

#[test]
fn keepit_refuses_malformed_markers_and_a_missing_source() {
    let sandbox = Sandbox::new();
    let bad = "Notes ##keepit.5## half kept.";
    sandbox.put(bad, &["--id", "bad"]);
    for (args, stdin) in [
        (&["keepit", "list", "bad"][..], ""),
        (&["keepit", "list", "--text", "-"], bad),
        (&["keepit", "set", "bad", "0", "0.5"], ""),
        (&["keepit", "preview", "bad", "--ratio", "30"], ""),
    ] {
        let error = sandbox.rejected(args, stdin, 3);
        assert_eq!(error["category"], "VALIDATION", "{args:?}");
        assert_eq!(error["message"], "malformed keepit marker `##keepit.5##` at character 6");
        assert!(error["recovery"].as_str().unwrap().contains("##keepit0.50##"), "{error}");
    }
    sandbox
        .run(&["keepit", "list", "bad"])
        .assert()
        .code(3)
        .stderr(contains("`##keepit.5##`").and(contains("hint: write the weight")));
    // In code it is text, not a marker.
    sandbox
        .run(&["keepit", "list", "--text", "-", "--json"])
        .write_stdin("Write `##keepit.5##` like this.")
        .assert()
        .success()
        .stdout(contains(r#""markers": []"#));

    // Neither a memory nor --text, or both: usage errors naming the choice.
    let error = sandbox.rejected(&["keepit", "list"], "", 2);
    assert_eq!(error["category"], "USAGE");
    assert!(error["message"].as_str().unwrap().contains("<REF|--text <FILE>>"), "{error}");
    sandbox.run(&["keepit", "list"]).assert().code(2).stderr(contains("<REF|--text <FILE>>"));
    sandbox.rejected(&["keepit", "list", "bad", "--text", "-"], "x", 2);
    sandbox.rejected(&["keepit", "preview", "--ratio", "30"], "", 2);
    sandbox.rejected(&["keepit", "list", "--text", "no-such-file.md"], "", 2);
    sandbox.rejected(&["keepit", "list", "missing"], "", 1);
    sandbox.rejected(&["keepit"], "", 2);
}
