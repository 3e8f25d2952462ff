//! The session registry through the public API (seed 004): registering Claude Code and
//! generic transcripts, immutable originals, compression versions with keepit decay and
//! lineage, summariser callbacks that fail, panic or return garbage (the registry unchanged),
//! multi-session composition and pruning versions in use.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use memcore::session::{
    CallbackSummarizer, ComponentRequest, CompressionSettings, KeepitMode, SessionAddRequest,
    SessionComposeRequest, SessionCompressRequest, SessionPruneRequest, Summarizer,
    SummarizerChoice, SummaryMessage, SummaryRequest, TierPreset,
};
use memcore::{Category, Config, EmbeddingConfig, Memcore};

fn open(dir: &Path) -> Memcore {
    let config = Config {
        embedding: EmbeddingConfig { enabled: false, ..EmbeddingConfig::default() },
        ..Config::default()
    };
    Memcore::builder().path(dir).config(config).open().unwrap()
}

/// A Claude Code transcript of `turns` exchanges with three keepit markers, a summary record
/// and one broken line.
fn claude_transcript(dir: &Path, session: &str, turns: usize) -> PathBuf {
    let mut lines =
        vec![r#"{"type":"summary","summary":"Earlier work","leafUuid":"x"}"#.to_owned()];
    for turn in 0..turns {
        let minute = turn % 60;
        let note = match turn {
            3 => " ##keepit0.80## We chose Postgres for JSONB support.",
            7 => " ##keepit0.25## Maybe revisit Redis caching later.",
            11 => " ##keepit1.00## Never drop the write-ahead log.",
            _ => "",
        };
        let user = format!(
            "Turn {turn}: please look at the ingestion service, the parser step {turn} is slow \
             and the retry queue keeps growing.{note}"
        );
        let assistant = format!(
            "I profiled step {turn}. The tokenizer allocates per line, so batching lines cuts \
             the time; the retry queue grows because timeouts are too short. I raised them."
        );
        for (role, text, n) in [("user", user, 2 * turn), ("assistant", assistant, 2 * turn + 1)] {
            let record = serde_json::json!({
                "type": role, "sessionId": session, "uuid": format!("u{n}"), "cwd": "/home/dev/ingest",
                "gitBranch": "main", "version": "1.0.30",
                "timestamp": format!("2026-01-15T1{}:{minute:02}:00Z", turn / 60),
                "message": {"role": role, "content": text},
            });
            lines.push(record.to_string());
        }
    }
    lines.insert(5, "{not json".to_owned());
    let path = dir.join(format!("{session}.jsonl"));
    std::fs::write(&path, lines.join("\n")).unwrap();
    path
}

fn add(memcore: &Memcore, path: &Path) -> memcore::session::SessionRecord {
    memcore.session_add(&SessionAddRequest::new(path.to_string_lossy())).unwrap()
}

#[test]
fn a_transcript_is_registered_with_its_metadata_and_kept_immutable() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(&dir.path().join("store"));
    let path = claude_transcript(dir.path(), "abc123", 40);
    let session = add(&memcore, &path);
    assert_eq!(session.session_id, "abc123");
    assert_eq!(session.original_messages, 80);
    assert!(session.original_tokens > 2_000, "{}", session.original_tokens);
    assert_eq!(session.skipped_count, 1);
    assert_eq!(session.skipped_lines[0].line, 6);
    assert_eq!(session.metadata.git_branch.as_deref(), Some("main"));
    assert_eq!(session.metadata.project_name.as_deref(), Some("ingest"));
    let weights: Vec<f64> = session.keepit_markers.iter().map(|m| m.weight).collect();
    assert_eq!(weights, [0.8, 0.25, 1.0]);
    assert_eq!(session.keepit_markers[0].marker_id, "u6#0");
    assert!(session.keepit_markers[0].context.contains("ingestion service"));
    assert_eq!(session.first_timestamp.unwrap().to_rfc3339(), "2026-01-15T10:00:00+00:00");
    // The same file again changes nothing; a changed one needs replace.
    assert_eq!(add(&memcore, &path), session);
    std::fs::write(&path, std::fs::read_to_string(&path).unwrap().replace("slow", "fast")).unwrap();
    let err = memcore.session_add(&SessionAddRequest::new(path.to_string_lossy())).unwrap_err();
    assert_eq!(err.category(), Category::Conflict, "{err}");
    let mut replace = SessionAddRequest::new(path.to_string_lossy());
    replace.replace = true;
    let replaced = memcore.session_add(&replace).unwrap();
    assert_ne!(replaced.original_sha256, session.original_sha256);
    assert_eq!(replaced.registered_at, session.registered_at);
    let listing = memcore.session_list().unwrap();
    assert_eq!(listing.sessions.len(), 1);
    assert_eq!(listing.sessions[0].keepit_markers, 3);
}

#[test]
fn bad_transcripts_are_typed_errors_and_register_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(&dir.path().join("store"));
    let missing = memcore.session_add(&SessionAddRequest::new("/nonexistent/x.jsonl")).unwrap_err();
    assert_eq!(missing.category(), Category::NotFound);
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "garbage\n[1]\n").unwrap();
    assert_eq!(
        memcore
            .session_add(&SessionAddRequest::new(empty.to_string_lossy()))
            .unwrap_err()
            .category(),
        Category::Validation
    );
    let generic = dir.path().join("bad name!.jsonl");
    std::fs::write(&generic, "{\"role\":\"user\",\"content\":\"hi\"}\n").unwrap();
    let err = memcore.session_add(&SessionAddRequest::new(generic.to_string_lossy())).unwrap_err();
    assert_eq!(err.category(), Category::Validation, "{err}");
    let mut named = SessionAddRequest::new(generic.to_string_lossy());
    named.session_id = Some("generic-1".to_owned());
    assert_eq!(memcore.session_add(&named).unwrap().original_messages, 1);
    assert_eq!(memcore.session_list().unwrap().sessions.len(), 1);
}

#[test]
fn compression_versions_follow_the_seed_and_keep_lineage() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(&dir.path().join("store"));
    add(&memcore, &claude_transcript(dir.path(), "abc123", 40));
    // Seed example 2: aggressive 30:1 at distance 5 -> threshold 0.65: 0.80 and 1.00 survive.
    let mut settings = CompressionSettings::uniform(30.0);
    settings.session_distance = Some(5);
    let v1 = memcore.session_compress(&SessionCompressRequest::new("abc123", settings)).unwrap();
    assert_eq!(v1.version_id, "v001");
    assert!(v1.file.starts_with("v001_uniform-aggressive_"), "{}", v1.file);
    assert_eq!((v1.keepit_stats.preserved, v1.keepit_stats.summarized), (2, 1));
    assert_eq!(v1.settings.model, "extractive");
    assert!(v1.compression_ratio > 15.0, "{}", v1.compression_ratio);
    let sessions = memcore.session_show("abc123").unwrap();
    // Records round-trip through versions.json and manifest.json unchanged.
    assert_eq!(sessions.compressions, std::slice::from_ref(&v1));
    let json = serde_json::to_value(&sessions).unwrap();
    let back: memcore::session::SessionRecord = serde_json::from_value(json).unwrap();
    assert_eq!(back, sessions);
    let summaries = dir.path().join("store/.memcore/sessions/summaries/abc123");
    let markdown = std::fs::read_to_string(summaries.join(format!("{}.md", v1.file))).unwrap();
    assert!(markdown.contains("##keepit1.00## Never drop the write-ahead log."));
    assert!(markdown.contains("##keepit0.80## We chose Postgres"));
    assert!(summaries.join("versions.json").is_file());
    assert_eq!(sessions.keepit_markers[0].survived_in, ["v001"]);
    assert_eq!(sessions.keepit_markers[1].summarized_in, ["v001"]);
    // Tiered, then a further compression of v002 with its lineage.
    let v2 = memcore
        .session_compress(&SessionCompressRequest::new(
            "abc123",
            CompressionSettings::tiered(TierPreset::Gentle),
        ))
        .unwrap();
    assert!(v2.file.starts_with("v002_tiered-gentle_"));
    let mut further = SessionCompressRequest::new("abc123", CompressionSettings::uniform(4.0));
    further.from_version = Some("v002".to_owned());
    let v3 = memcore.session_compress(&further).unwrap();
    assert_eq!(v3.source_version.as_deref(), Some("v002"));
    assert!(v3.output_tokens < v2.output_tokens);
    assert_eq!(v3.keepit_stats.preserved + v3.keepit_stats.summarized, v2.keepit_stats.preserved);
    let mut all = SessionCompressRequest::new("abc123", CompressionSettings::uniform(50.0));
    all.settings.keepit_mode = KeepitMode::PreserveAll;
    assert_eq!(memcore.session_compress(&all).unwrap().keepit_stats.preserved, 3);
    let unknown = memcore
        .session_compress(&SessionCompressRequest::new("nope", CompressionSettings::uniform(4.0)));
    assert_eq!(unknown.unwrap_err().category(), Category::NotFound);
}

#[derive(Debug)]
struct Panicking;

impl Summarizer for Panicking {
    fn name(&self) -> &str {
        "panicking"
    }
    fn summarize(
        &self,
        _: &SummaryRequest,
        _: &dyn memcore::compose::TokenCounter,
    ) -> memcore::Result<Vec<SummaryMessage>> {
        panic!("the model fell over")
    }
}

#[test]
fn summariser_callbacks_are_used_and_their_failures_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(&dir.path().join("store"));
    add(&memcore, &claude_transcript(dir.path(), "abc123", 20));
    let registry = dir.path().join("store/.memcore/sessions");
    let snapshot = || {
        let mut files: Vec<(PathBuf, Vec<u8>)> = walk(&registry)
            .into_iter()
            .map(|p| {
                let b = std::fs::read(&p).unwrap();
                (p, b)
            })
            .collect();
        files.sort();
        files
    };
    let before = snapshot();
    let request = SessionCompressRequest::new("abc123", CompressionSettings::uniform(10.0));
    let failing: [Arc<dyn Summarizer>; 3] = [
        Arc::new(Panicking),
        Arc::new(CallbackSummarizer::new(
            "raises",
            Arc::new(|_: &str| Err("rate limited".to_owned())),
        )),
        Arc::new(CallbackSummarizer::new(
            "verbose",
            Arc::new(|_: &str| Ok("words ".repeat(100_000))),
        )),
    ];
    for summarizer in failing {
        memcore.set_summarizer(Some(summarizer));
        let err = memcore.session_compress(&request).unwrap_err();
        assert_eq!(err.category(), Category::Callback, "{err}");
        assert_eq!(snapshot(), before, "a failed summariser writes nothing");
    }
    let seen = Arc::new(std::sync::Mutex::new(String::new()));
    let log = Arc::clone(&seen);
    memcore.set_summarizer(Some(Arc::new(CallbackSummarizer::new(
        "llm",
        Arc::new(move |json: &str| {
            *log.lock().unwrap() = json.to_owned();
            Ok("The ingestion service was slow; batching and longer timeouts fixed it.".to_owned())
        }),
    ))));
    let version = memcore.session_compress(&request).unwrap();
    assert_eq!(version.settings.model, "llm");
    let asked: serde_json::Value = serde_json::from_str(&seen.lock().unwrap()).unwrap();
    assert!(
        asked["target_tokens"].as_u64().unwrap() > 0
            && asked["messages"].as_array().unwrap().len() > 10
    );
    let mut extractive = request.clone();
    extractive.summarizer = SummarizerChoice::Extractive;
    assert_eq!(memcore.session_compress(&extractive).unwrap().settings.model, "extractive");
    memcore.set_summarizer(None);
    let mut callback = request;
    callback.summarizer = SummarizerChoice::Callback;
    assert_eq!(memcore.session_compress(&callback).unwrap_err().category(), Category::Validation);
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path))
        } else if !path.ends_with("lock") {
            out.push(path)
        }
    }
    out
}

#[test]
fn sessions_compose_by_the_seeds_algorithm_and_versions_in_use_are_protected() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(&dir.path().join("store"));
    let old = add(&memcore, &claude_transcript(dir.path(), "old", 60));
    let new = add(&memcore, &claude_transcript(dir.path(), "new", 10));
    let v1 = memcore
        .session_compress(&SessionCompressRequest::new("old", CompressionSettings::uniform(10.0)))
        .unwrap();
    let components = vec![ComponentRequest::new("old"), ComponentRequest::new("new")];
    let request = SessionComposeRequest::new("feature-x", components, 2 * (v1.output_tokens + 50));
    // "new" has no versions: the seed's rule compresses it on demand even though it fits.
    let composition = memcore.session_compose(&request).unwrap();
    let picks: Vec<(&str, &str)> = composition
        .components
        .iter()
        .map(|c| (c.version_id.as_str(), c.selection.as_str()))
        .collect();
    assert_eq!(picks, [("v001", "selected"), ("v001", "compressed-on-demand")]);
    let on_demand = &composition.components[1].recompress.as_ref().unwrap().settings;
    assert_eq!(on_demand.session_distance, Some(2));
    assert_eq!(
        on_demand.compaction_ratio,
        Some((new.original_tokens as f64 / (request.budget / 2) as f64).ceil().max(1.0))
    );
    assert_eq!(
        composition.total_tokens,
        composition.components.iter().map(|c| c.token_contribution).sum::<usize>()
    );
    let composed = dir.path().join("store/.memcore/sessions/composed/feature-x");
    for file in ["composed.md", "composed.jsonl", "composition.json"] {
        assert!(composed.join(file).is_file(), "{file}");
    }
    assert!(memcore.session_show("old").unwrap().last_accessed.is_some());
    // Now "new" has a version and fits whole: the original is used.
    let mut again = request.clone();
    again.name = "feature-y".to_owned();
    again.budget = 4 * new.original_tokens + 4 * old.original_tokens;
    let whole = memcore.session_compose(&again).unwrap();
    assert_eq!(whole.components[1].version_id, "original");
    assert_eq!(memcore.session_compose(&again).unwrap_err().category(), Category::Conflict);
    // Explicit versions and a session that started from the composition.
    let explicit = SessionComposeRequest::new(
        "explicit",
        vec![ComponentRequest::at_version("old", "v001")],
        100,
    );
    let over = memcore.session_compose(&explicit).unwrap();
    assert!(over.warnings[0].contains("over its budget"), "{:?}", over.warnings);
    let mut next =
        SessionAddRequest::new(claude_transcript(dir.path(), "next", 3).to_string_lossy());
    next.composed_from = vec!["feature-x".to_owned()];
    memcore.session_add(&next).unwrap();
    let listing = memcore.session_list().unwrap();
    let feature = listing.compositions.iter().find(|c| c.name == "feature-x").unwrap();
    assert_eq!(feature.used_in_sessions, ["next"]);
    // Pruning a version in use is refused unless forced.
    let prune = SessionPruneRequest::versions("old", vec!["v001".to_owned()]);
    let err = memcore.session_prune(&prune).unwrap_err();
    assert_eq!(err.category(), Category::Conflict);
    assert!(err.to_string().contains("feature-x"), "{err}");
    let forced = memcore.session_prune(&prune.force(true)).unwrap();
    assert_eq!(forced.deleted, ["v001"]);
    assert!(forced.warnings[0].contains("feature-x"));
    assert!(memcore.session_show("old").unwrap().compressions.is_empty());
    let none = SessionPruneRequest::versions("new", vec![]);
    assert_eq!(memcore.session_prune(&none).unwrap_err().category(), Category::Validation);
    let keep = SessionPruneRequest::keep_latest("new", 0).force(true);
    assert_eq!(memcore.session_prune(&keep).unwrap().kept.len(), 0);
}

#[test]
fn a_composition_is_read_back_and_deleting_it_frees_its_versions() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(&dir.path().join("store"));
    add(&memcore, &claude_transcript(dir.path(), "chat", 20));
    let version = memcore
        .session_compress(&SessionCompressRequest::new("chat", CompressionSettings::uniform(4.0)))
        .unwrap();
    let read = memcore.session_version("chat", &version.version_id).unwrap();
    assert_eq!(read.version.as_ref(), Some(&version));
    let md = dir.path().join(format!("store/.memcore/sessions/summaries/chat/{}.md", version.file));
    assert_eq!(read.content, std::fs::read_to_string(md).unwrap());
    let original = memcore.session_version("chat", "original").unwrap();
    assert!(original.version.is_none() && original.content.contains("\"sessionId\""));
    let missing = memcore.session_version("chat", "v404").unwrap_err();
    assert_eq!(missing.category(), Category::NotFound);
    let components = vec![ComponentRequest::at_version("chat", version.version_id.as_str())];
    let record =
        memcore.session_compose(&SessionComposeRequest::new("weekly", components, 5_000)).unwrap();
    let composed = memcore.session_composition("weekly").unwrap();
    assert_eq!(composed.composition, record);
    let file = dir.path().join("store/.memcore/sessions/composed/weekly/composed.md");
    assert_eq!(composed.context, std::fs::read_to_string(&file).unwrap());
    assert!(composed.context.contains("## Session chat"), "{}", composed.context);

    // In use, the version cannot be pruned; once the composition is gone, it can.
    let prune = SessionPruneRequest::versions("chat", vec![version.version_id.clone()]);
    assert_eq!(memcore.session_prune(&prune).unwrap_err().category(), Category::Conflict);
    assert_eq!(memcore.session_composition_delete("weekly").unwrap(), record);
    assert!(!file.parent().unwrap().exists(), "its files are gone");
    assert!(memcore.session_list().unwrap().compositions.is_empty());
    assert_eq!(memcore.session_prune(&prune).unwrap().deleted, [version.version_id]);

    for bad in ["weekly", "../manifest", ""] {
        let shown = memcore.session_composition(bad).unwrap_err().category();
        let deleted = memcore.session_composition_delete(bad).unwrap_err().category();
        let want = if bad == "weekly" { Category::NotFound } else { Category::Validation };
        assert_eq!((shown, deleted), (want, want), "{bad:?}");
    }
}

#[test]
fn a_changed_original_is_reported_as_corrupted() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(&dir.path().join("store"));
    let session = add(&memcore, &claude_transcript(dir.path(), "abc123", 5));
    assert!(session.original_file.starts_with("originals/abc123-"));
    let original = dir.path().join("store/.memcore/sessions").join(&session.original_file);
    std::fs::write(&original, "{\"role\":\"user\",\"content\":\"tampered\"}\n").unwrap();
    let err = memcore
        .session_compress(&SessionCompressRequest::new("abc123", CompressionSettings::uniform(4.0)))
        .unwrap_err();
    assert_eq!(err.category(), Category::Parse, "{err}");
}

#[test]
fn review_regressions_numbers_cjk_malformed_tags_and_hostile_records() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(&dir.path().join("store"));
    // CJK text has no spaces to cut at; one malformed tag must not hide the pinned marker.
    let path = dir.path().join("cjk.jsonl");
    let cjk = "解析器在大文件上很慢。我们需要批处理每一行。".repeat(30);
    let lines = [
        serde_json::json!({"role": "user", "content": cjk}).to_string(),
        serde_json::json!({"role": "user", "content": "##keepit1.00## Never drop the WAL. ##keepit.5## oops"}).to_string(),
    ];
    std::fs::write(&path, lines.join("\n")).unwrap();
    let session = add(&memcore, &path);
    assert_eq!(session.keepit_markers.len(), 1);
    assert_eq!(session.keepit_warnings.len(), 1);
    let v1 = memcore
        .session_compress(&SessionCompressRequest::new("cjk", CompressionSettings::uniform(20.0)))
        .unwrap();
    assert_eq!(v1.keepit_stats.preserved, 1);
    // A pruned number is never given again.
    memcore
        .session_compress(&SessionCompressRequest::new("cjk", CompressionSettings::uniform(5.0)))
        .unwrap();
    memcore.session_prune(&SessionPruneRequest::versions("cjk", vec!["v002".to_owned()])).unwrap();
    let v3 = memcore
        .session_compress(&SessionCompressRequest::new("cjk", CompressionSettings::uniform(5.0)))
        .unwrap();
    assert_eq!(v3.version_id, "v003");
    // A versions file naming a path outside the registry is refused, and nothing is deleted.
    let outside = dir.path().join("precious.md");
    std::fs::write(&outside, "keep me").unwrap();
    let versions = dir.path().join("store/.memcore/sessions/summaries/cjk/versions.json");
    let text =
        std::fs::read_to_string(&versions).unwrap().replace(&v3.file, "../../../../../precious");
    std::fs::write(&versions, text).unwrap();
    let err = memcore.session_prune(&SessionPruneRequest::keep_latest("cjk", 0)).unwrap_err();
    assert_eq!(err.category(), Category::Parse, "{err}");
    assert!(outside.is_file());
}
