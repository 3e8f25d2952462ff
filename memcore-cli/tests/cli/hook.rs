//! `memcore hook EVENT`: each lifecycle event answered in seed 002's JSON shapes, and a hook
//! that never fails the agent (bad JSON, no prompt, a missing transcript: `{"continue":
//! true}`, a reason on stderr, exit 0).

use predicates::str::contains;
use serde_json::Value;

use crate::support::Sandbox;

/// Runs `hook EVENT` with `stdin`; expects exit 0 and returns the JSON it printed.
fn hook(sandbox: &Sandbox, event: &str, stdin: &str) -> Value {
    let output = sandbox.run(&["hook", event]).write_stdin(stdin).output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{event}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn each_event_answers_in_the_seeds_shape() {
    let sandbox = Sandbox::new();
    sandbox.put(
        "Blocked by the expired staging certificate.",
        &["--collection", "blockers", "--id", "cert"],
    );
    sandbox.put(
        "The OAuth flow lives in the auth module.",
        &["--collection", "notes", "--id", "oauth", "--tags", "auth"],
    );

    let start = hook(
        &sandbox,
        "session-start",
        r#"{"session_id": "s1", "cwd": "/tmp/myapp", "source": "startup"}"#,
    );
    assert_eq!(start["hookSpecificOutput"]["hookEventName"], "SessionStart");
    let context = start["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert!(
        context.starts_with("<memory_context>") && context.contains("blockers/cert"),
        "{context}"
    );

    let skip =
        hook(&sandbox, "user-prompt-submit", r#"{"prompt": "Thanks, looks good.", "cwd": "/tmp"}"#);
    assert_eq!(skip, serde_json::json!({"continue": true}));
    let suggest = hook(
        &sandbox,
        "user-prompt-submit",
        r#"{"prompt": "We decided to move the job queue to Postgres."}"#,
    );
    let suggestions = &suggest["hookSpecificOutput"]["captureSuggestions"];
    assert_eq!(suggestions[0]["namespace"], "decisions", "{suggest}");
    assert!(
        suggest["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .starts_with("<capture_suggestions>")
    );
    let auto = hook(
        &sandbox,
        "user-prompt-submit",
        r#"{"prompt": "[remember:learnings] The runners have two cores."}"#,
    );
    assert_eq!(auto["message"], "Captured 1 memory(s) automatically", "{auto}");
    assert!(
        auto["hookSpecificOutput"]["capturedMemories"][0]["memory_id"]
            .as_str()
            .unwrap()
            .starts_with("learnings/")
    );

    let related = hook(
        &sandbox,
        "post-tool-use",
        r#"{"tool_name": "Read", "tool_input": {"file_path": "/repo/src/auth/oauth.py"}}"#,
    );
    let context = related["hookSpecificOutput"]["additionalContext"].as_str().unwrap();
    assert!(context.contains("notes/oauth"), "{context}");
    let other_tool = hook(
        &sandbox,
        "post-tool-use",
        r#"{"tool_name": "Bash", "tool_input": {"command": "ls"}}"#,
    );
    assert_eq!(other_tool, serde_json::json!({"continue": true}));

    let compacted = hook(
        &sandbox,
        "pre-compact",
        r#"{"transcript_excerpt": "Key insight: the cache must be warmed before the tests run."}"#,
    );
    assert_eq!(
        compacted["hookSpecificOutput"]["capturedMemories"].as_array().unwrap().len(),
        1,
        "{compacted}"
    );

    let transcript = sandbox.path().join("t.jsonl");
    std::fs::write(
        &transcript,
        "{\"role\": \"user\", \"content\": \"I decided to use SQLite for the cache.\"}\n",
    )
    .unwrap();
    let stop = hook(
        &sandbox,
        "stop",
        &format!("{{\"transcript_path\": {:?}}}", transcript.to_str().unwrap()),
    );
    assert_eq!(stop["hookSpecificOutput"]["hookEventName"], "Stop");
    assert_eq!(
        stop["hookSpecificOutput"]["uncapturedContent"][0]["suggestedNamespace"], "decisions",
        "{stop}"
    );
    assert!(stop["message"].as_str().unwrap().contains("Index synced"));
}

#[test]
fn a_hook_never_fails_the_agent() {
    let sandbox = Sandbox::new();
    for (event, stdin) in [
        ("session-start", "not json"),
        ("user-prompt-submit", ""),
        ("user-prompt-submit", "[1, 2]"),
        ("user-prompt-submit", r#"{"cwd": "/tmp"}"#),
        ("user-prompt-submit", r#"{"prompt": "[remember:../x] y"}"#),
        ("pre-compact", r#"{"transcript_path": "/nonexistent/t.jsonl"}"#),
    ] {
        sandbox
            .run(&["hook", event])
            .write_stdin(stdin)
            .assert()
            .success()
            .stdout("{\"continue\":true}\n")
            .stderr(contains(format!("memcore hook {event}:")));
    }
    let stop = hook(&sandbox, "stop", r#"{"transcript_path": "/nonexistent/t.jsonl"}"#);
    assert_eq!(stop["continue"], true);
    let prompt = "x".repeat(9 * 1024 * 1024);
    sandbox
        .run(&["hook", "user-prompt-submit"])
        .write_stdin(prompt)
        .assert()
        .success()
        .stdout("{\"continue\":true}\n");
}

#[test]
fn a_hook_past_its_time_limit_lets_the_agent_go_on() {
    let sandbox = Sandbox::new();
    let prompt = r#"{"prompt": "We decided to move the job queue to Postgres."}"#;
    // The event never finishes arriving (stdin stays open): the hook answers at its limit
    // instead of waiting for it.
    let mut waiting = sandbox
        .process(&["hook", "user-prompt-submit"])
        .env("HOOK_USER_PROMPT_TIMEOUT", "0.2")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = waiting.stdin.take();
    let started = std::time::Instant::now();
    let output = waiting.wait_with_output().unwrap();
    assert!(started.elapsed() < std::time::Duration::from_secs(20), "the hook waited");
    drop(stdin);
    assert!(output.status.success());
    assert_eq!(output.stdout, b"{\"continue\":true}\n");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("gave up after 0.2 s (HOOK_USER_PROMPT_TIMEOUT)"), "{stderr}");
    // The master switch and a per-event switch turn hooks off without reading anything.
    for (variable, event) in [("HOOK_ENABLED", "session-start"), ("HOOK_STOP_ENABLED", "stop")] {
        sandbox
            .run(&["hook", event])
            .env(variable, "false")
            .write_stdin("not json")
            .assert()
            .success()
            .stdout("{\"continue\":true}\n")
            .stderr("");
    }
    // A limit that is not a duration is the default (30 s here, plenty).
    let answered = sandbox
        .run(&["hook", "user-prompt-submit"])
        .env("HOOK_USER_PROMPT_TIMEOUT", "soon")
        .write_stdin(prompt)
        .output()
        .unwrap();
    let answer: Value = serde_json::from_slice(&answered.stdout).unwrap();
    assert!(answer["hookSpecificOutput"]["captureSuggestions"].is_array(), "{answer}");
}

#[test]
fn install_prints_or_merges_the_claude_code_settings() {
    let sandbox = Sandbox::new();
    let printed = sandbox.json(&["hook", "install", "--command", "memcore"]);
    assert_eq!(
        printed["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        "memcore hook session-start"
    );
    assert_eq!(printed["hooks"]["PostToolUse"][0]["matcher"], "Read|Write|Edit|MultiEdit");
    // Claude Code's limit sits above the hook's own (seed: PostToolUse 5 s, default 30 s).
    assert_eq!(printed["hooks"]["PostToolUse"][0]["hooks"][0]["timeout"], 10);
    assert_eq!(printed["hooks"]["SessionStart"][0]["hooks"][0]["timeout"], 35);
    let settings = sandbox.path().join("settings.json");
    std::fs::write(&settings, r#"{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "other"}]}]}}"#).unwrap();
    let file = settings.to_str().unwrap();
    sandbox
        .run(&["hook", "install", "--settings", file, "--command", "memcore"])
        .assert()
        .success()
        .stdout(contains("5 hook(s) added"));
    sandbox
        .run(&["hook", "install", "--settings", file, "--command", "memcore"])
        .assert()
        .success()
        .stdout(contains("0 hook(s) added"));
    // Installing again with another limit refreshes memcore's entries, adding none.
    sandbox
        .run(&["hook", "install", "--settings", file, "--command", "memcore"])
        .env("HOOK_POST_TOOL_USE_TIMEOUT", "20")
        .assert()
        .success()
        .stdout(contains("0 hook(s) added"));
    let merged: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(merged["hooks"]["PostToolUse"][0]["hooks"][0]["timeout"], 25);
    assert_eq!(merged["model"], "opus");
    assert_eq!(merged["hooks"]["Stop"].as_array().unwrap().len(), 2, "the other hook is kept");
}
