//! Project manifests through the public API: `project init` scaffolds one, the tiered store
//! and compaction follow its retention, its summary mode picks the summariser (a trusted
//! local program, or none), unknown keys survive, and a malformed one is refused.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use memcore::project::{ProjectInitRequest, SummaryMode};
use memcore::session::{SessionEndRequest, SessionStartRequest, SessionTurnRequest};
use memcore::{
    Backend, Category, CompactRequest, Config, EmbeddingConfig, Memcore, NewMemory, Timestamp,
};

fn at(text: &str) -> Timestamp {
    text.parse().unwrap()
}

/// A tiered handle on `store` without the model, on a fixed clock, keeping trusted commands
/// in `trust`, with summaries of about `summary_tokens` tokens.
fn open(store: &Path, trust: &Path, summary_tokens: usize) -> memcore::Result<Memcore> {
    let mut config = Config {
        backend: Backend::Tiered,
        embedding: EmbeddingConfig { enabled: false, ..EmbeddingConfig::default() },
        ..Config::default()
    };
    config.tiered.hot_summary_tokens = summary_tokens;
    Memcore::builder()
        .path(store)
        .config(config)
        .trusted_commands(trust)
        .clock(|| at("2026-06-01T00:00:00Z"))
        .open()
}

/// A project directory holding a store and a place for trusted commands.
struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Self {
        Self { dir: tempfile::tempdir().unwrap() }
    }
    fn store(&self) -> PathBuf {
        self.dir.path().join("knit-cast")
    }
    fn trust(&self) -> PathBuf {
        self.dir.path().join("home/trusted-commands.json")
    }
    fn open(&self) -> memcore::Result<Memcore> {
        open(&self.store(), &self.trust(), 300)
    }
    fn manifest(&self, json: &str) {
        std::fs::create_dir_all(self.store()).unwrap();
        std::fs::write(self.store().join("project.json"), json).unwrap();
    }
}

/// Runs a session of `turns` long turns and ends it; the text of its summary memory.
fn session(memcore: &Memcore, id: &str, turns: usize) -> memcore::Result<String> {
    memcore.session_start(&SessionStartRequest::new(id))?;
    for n in 0..turns {
        let text = format!(
            "Turn {n}: the lace pattern needs a lighter yarn, and the supplier ships on Fridays \
             only, so the launch of episode {n} waits for the wool delivery."
        );
        memcore.session_turn(&SessionTurnRequest::new(id, "patch", text))?;
    }
    memcore.session_end(&SessionEndRequest::new(id))?;
    Ok(memcore.get(format!("sessions/{id}").as_str())?.content)
}

#[test]
fn init_writes_the_policy_in_force_and_never_overwrites() {
    let project = Project::new();
    let memcore = project.open().unwrap();
    let request = ProjectInitRequest::new().default_agents(["patch", "loom"]);
    let info = memcore.project_init(&request).unwrap();
    let manifest = info.manifest.unwrap();
    assert_eq!(manifest.project_id.as_deref(), Some("knit-cast"));
    assert_eq!(manifest.retention.hot_context_turns, Some(12));
    assert_eq!(manifest.retention.warm_window_days, Some(120));
    assert_eq!(manifest.summary.mode, SummaryMode::Heuristic);
    assert!(info.notes[0].contains("next time"), "{:?}", info.notes);

    let again = memcore.project_init(&request).unwrap_err();
    assert_eq!(again.category(), Category::Conflict, "{again}");

    let reopened = project.open().unwrap();
    assert_eq!(reopened.project_info().unwrap().agents, ["loom", "patch"]);
    // A session started without agents has the manifest's.
    let started = reopened.session_start(&SessionStartRequest::new("ep-0")).unwrap();
    assert_eq!(started.agents, ["patch", "loom"]);
    let reopened = reopened.project_info().unwrap();
    assert_eq!(reopened.policy.backend, "tiered");
    let text = std::fs::read_to_string(project.store().join("project.json")).unwrap();
    assert!(text.contains("\"default_agents\""), "{text}");
}

#[test]
fn the_tiers_and_compaction_follow_the_manifests_retention() {
    let project = Project::new();
    project.manifest(
        r#"{"project_id": "knit-cast",
            "retention": {"hot_context_turns": 2, "warm_window_days": 30, "archive_after_days": 400},
            "speech": {"default_style": "podcast", "overrides": {"patch": {"tts_voice": "alto"}}}}"#,
    );
    let memcore = project.open().unwrap();
    let info = memcore.project_info().unwrap();
    assert_eq!(
        (info.policy.hot_context_turns, info.policy.warm_window_days),
        (2, 30),
        "the manifest overrides the config"
    );
    assert_eq!(info.policy.archive_after_days, 400.0);
    // Unknown keys survive: what info returns carries them as they were.
    let shown = serde_json::to_value(&info.manifest).unwrap();
    assert_eq!(shown["speech"]["overrides"]["patch"]["tts_voice"], "alto");

    memcore.session_start(&SessionStartRequest::new("ep-1")).unwrap();
    for n in 0..5 {
        let turn = SessionTurnRequest::new("ep-1", "patch", format!("Turn {n} about lace."));
        memcore.session_turn(&turn).unwrap();
    }
    assert_eq!(memcore.session_live("ep-1").unwrap().turns.len(), 2);

    // 40 days old: past the manifest's 30-day window (the default 120 would keep it warm).
    let old = NewMemory::new("We chose alpaca wool.")
        .collection("decisions")
        .created_at(at("2026-04-22T00:00:00Z"));
    memcore.put(old).unwrap();
    let report = memcore.compact(&CompactRequest::new().dry_run()).unwrap();
    assert_eq!(report.cutoff, at("2026-05-02T00:00:00Z"));
    assert_eq!(report.digests.len(), 1);
}

#[test]
fn summary_mode_none_writes_no_summaries() {
    let project = Project::new();
    project.manifest(r#"{"summary": {"mode": "none"}}"#);
    let memcore = open(&project.store(), &project.trust(), 20).unwrap();
    let summary = session(&memcore, "quiet", 3).unwrap();
    assert!(summary.starts_with("3 turns."), "{summary}");
    assert!(!summary.contains("lace"), "no summary of the turns: {summary}");
}

#[cfg(unix)]
#[test]
fn a_summary_command_runs_once_trusted_and_its_failures_are_typed() {
    use std::os::unix::fs::PermissionsExt;

    let project = Project::new();
    let script = project.dir.path().join("summarize.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nprintf 'Lace waits for wool (%s tokens).' \"$MEMCORE_SUMMARY_TOKENS\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    project.manifest(r#"{"summary": {"mode": "command", "command": ["./summarize.sh"]}}"#);

    // Untrusted, it does not run: the session stays live, nothing is lost.
    let memcore = open(&project.store(), &project.trust(), 20).unwrap();
    let info = memcore.project_info().unwrap();
    assert_eq!(info.policy.command_trusted, Some(false));
    let refused = session(&memcore, "ep-2", 3).unwrap_err();
    assert!(refused.to_string().contains("not trusted"), "{refused}");
    assert!(memcore.session_live("ep-2").is_ok());

    let trusted = memcore.project_trust().unwrap();
    assert_eq!(trusted.policy.command_trusted, Some(true));
    memcore.session_end(&SessionEndRequest::new("ep-2")).unwrap();
    let summary = memcore.get("sessions/ep-2").unwrap().content;
    assert!(summary.contains("Lace waits for wool (20 tokens)."), "{summary}");

    // Trust covers the script's contents: a changed script is untrusted again.
    std::fs::write(&script, "#!/bin/sh\nsleep 30\n").unwrap();
    let reopened = open(&project.store(), &project.trust(), 20).unwrap();
    assert_eq!(reopened.project_info().unwrap().policy.command_trusted, Some(false));
    reopened.project_trust().unwrap();
    // A command that hangs is stopped at its deadline.
    project.manifest(
        r#"{"summary": {"mode": "command", "command": ["./summarize.sh"], "timeout_ms": 300}}"#,
    );
    let hanging = open(&project.store(), &project.trust(), 20).unwrap();
    let error = session(&hanging, "ep-3", 3).unwrap_err();
    assert_eq!(error.category(), Category::Callback, "{error}");
    assert!(error.to_string().contains("did not finish within 300 ms"), "{error}");
}

#[test]
fn a_malformed_manifest_is_refused_with_its_key() {
    let project = Project::new();
    for (json, says) in [
        ("{\"retention\": {\"hot_context_turns\": \"many\"}}", "retention.hot_context_turns"),
        ("{\"summary\": {\"mode\": \"frontier\"}}", "summary.mode"),
        ("{\"retention\": {\"warm_window_days\": 0}}", "warm_window_days is 0"),
        ("{\"summary\": {\"mode\": \"command\"}}", "names no program"),
        ("{\"default_agents\": [\"Not An Id\"]}", "agent id"),
        ("not json", "does not read"),
    ] {
        project.manifest(json);
        let error = project.open().unwrap_err();
        assert_eq!(error.category(), Category::Validation, "{json}: {error}");
        assert!(error.to_string().contains(says), "{json}: {error}");
        assert!(error.to_string().contains("project.json"), "{json}: {error}");
    }
}
