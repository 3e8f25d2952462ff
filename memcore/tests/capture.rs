//! The capture engine through the public API: every pattern of seed 002's tables with its base
//! confidence, a labelled set of realistic prompts (precision and recall printed), markers,
//! novelty with the real model and without it, storing what was decided, bad input, and
//! property tests that detection never panics and is deterministic.
//!
//! The semantic tests need the model files (`scripts/fetch-models`; `scripts/test-all` runs
//! it first).

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use memcore::capture::{
    CaptureAction, CaptureRequest, NoveltyMethod, PATTERNS, SignalType, detect_signals,
};
use memcore::{Category, Config, EmbeddingConfig, ListOptions, Memcore, NewMemory};
use proptest::prelude::*;

/// Each pattern of the seed's tables (by index into `PATTERNS`), a phrase it matches, and the
/// confidence expected when it opens `<phrase> the parser work today`: the base, with
/// -0.05 for a match under 5 characters, +0.02 for one over 20, +0.05 for a reinforcing word.
const GOLDEN: [(usize, &str, f64); 44] = [
    (0, "we decided to", 0.90),
    (1, "the decision was to", 0.88),
    (2, "we'll go with", 0.85),
    (3, "after evaluating, we", 0.85),
    (4, "I went with", 0.80),
    (5, "finally settled on", 0.82),
    (6, "made the call to", 0.80),
    (7, "I realized that", 0.90),
    (8, "TIL", 0.90),
    (9, "turns out", 0.85),
    (10, "key insight:", 0.97),
    (11, "interestingly, ", 0.70),
    (12, "I didn't know", 0.80),
    (13, "now I understand", 0.82),
    (14, "aha moment", 0.88),
    (15, "blocked by", 0.92),
    (16, "stuck on", 0.88),
    (17, "can't ship because", 0.85),
    (18, "this is blocking", 0.90),
    (19, "issue with ", 0.75),
    (20, "problem:", 0.70),
    (21, "we're struggling with", 0.82),
    (22, "can't figure out", 0.78),
    (23, "fixed the", 0.92),
    (24, "workaround:", 0.88),
    (25, "solution:", 0.85),
    (26, "figured it out", 0.88),
    (27, "that worked", 0.85),
    (28, "got it working", 0.82),
    (29, "the fix was", 0.85),
    (30, "finally got", 0.75),
    (31, "I always prefer to", 0.88),
    (32, "my preference is", 0.90),
    (33, "I would rather", 0.88),
    (34, "I don't like when", 0.75),
    (35, "I want it to", 0.70),
    (36, "I require", 0.68),
    (37, "remember this", 0.98),
    (38, "save this for", 0.95),
    (39, "note that ", 0.92),
    (40, "for future reference", 0.90),
    (41, "don't forget", 0.88),
    (42, "keep this in mind", 0.85),
    (43, "important:", 0.80),
];

#[test]
fn every_pattern_fires_with_its_base_confidence() {
    assert_eq!(PATTERNS.len(), GOLDEN.len());
    for (index, phrase, expected) in GOLDEN {
        let pattern = &PATTERNS[index];
        let text = format!("{} the parser work today", phrase.trim_end());
        let signals = detect_signals(&text, 100);
        let signal = signals
            .iter()
            .find(|s| s.kind == pattern.kind && s.start == 0)
            .unwrap_or_else(|| panic!("pattern {index} ({}) missed {text:?}", pattern.pattern));
        assert_eq!(signal.matched, phrase, "pattern {index} matched {:?}", signal.matched);
        assert_eq!(signal.confidence, expected, "pattern {index} on {text:?}");
        assert_eq!(signal.namespace, pattern.kind.namespace());
    }
}

#[test]
fn adjustments_apply_to_real_contexts() {
    // A complete sentence: +0.02.
    let signal = &detect_signals("We decided to use the queue for this.", 100)[0];
    assert_eq!(signal.confidence, 0.92);
    // A short context: -0.05; a short match too: -0.05 again.
    let signal = &detect_signals("TIL ok", 100)[0];
    assert_eq!((signal.context.as_str(), signal.confidence), ("TIL ok", 0.85));
    // A reinforcing word anywhere in the context: +0.05.
    let signal = &detect_signals("We decided to use the queue; it is critical for us", 100)[0];
    assert_eq!(signal.confidence, 0.95);
}

#[test]
fn context_is_a_window_of_whole_words() {
    let before = "word ".repeat(40);
    let after = " more".repeat(40);
    let text = format!("{before}we decided to ship{after}");
    let signal = &detect_signals(&text, 20)[0];
    assert_eq!(signal.context, "...word word word word we decided to ship more more more...");
}

/// The labelled prompts: (label is capture, expected type, text).
fn labelled() -> Vec<(bool, Option<SignalType>, String)> {
    let data = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/capture_prompts.tsv"),
    )
    .unwrap();
    data.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let mut columns = line.splitn(3, '\t');
            let label = columns.next().unwrap() == "capture";
            let kind = match columns.next().unwrap() {
                "-" => None,
                name => Some(serde_json::from_value(serde_json::json!(name)).unwrap()),
            };
            (label, kind, columns.next().unwrap().to_owned())
        })
        .collect()
}

fn text_only(dir: &Path) -> Memcore {
    let config = Config {
        embedding: EmbeddingConfig { enabled: false, ..EmbeddingConfig::default() },
        ..Config::default()
    };
    Memcore::builder().path(dir).config(config).open().unwrap()
}

#[test]
fn labelled_prompts_precision_and_recall() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = text_only(dir.path());
    let (mut true_pos, mut false_pos, mut false_neg, mut right_type) = (0, 0, 0, 0);
    let prompts = labelled();
    for (label, kind, text) in &prompts {
        let decision = memcore.capture(&CaptureRequest::new(text.as_str())).unwrap();
        let captured = decision.action != CaptureAction::Skip;
        match (captured, label) {
            (true, true) => true_pos += 1,
            (true, false) => false_pos += 1,
            (false, true) => false_neg += 1,
            (false, false) => {}
        }
        if captured && decision.captures.iter().any(|c| Some(c.kind) == *kind) {
            right_type += 1;
        }
        if captured != *label {
            println!("mislabelled: {label} -> {:?} ({}) {text}", decision.action, decision.reason);
        }
    }
    let precision = f64::from(true_pos) / f64::from(true_pos + false_pos);
    let recall = f64::from(true_pos) / f64::from(true_pos + false_neg);
    println!(
        "capture on {} labelled prompts: precision {precision:.3}, recall {recall:.3}, \
         type right on {right_type} of {true_pos}",
        prompts.len()
    );
    assert!(precision >= 0.85 && recall >= 0.85, "precision {precision}, recall {recall}");
    assert!(right_type >= true_pos - 1, "type right on {right_type} of {true_pos}");
    assert!(memcore.list(&ListOptions::new()).unwrap().memories.is_empty(), "nothing stored");
}

#[test]
fn markers_capture_explicitly_and_only_they_count() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = text_only(dir.path());
    let text = "We decided to try Rust. [remember:decisions] Use PostgreSQL for the job queue. \
                [remember] TIL the runners have only two cores.";
    let decision = memcore.capture(&CaptureRequest::new(text).apply(false)).unwrap();
    assert_eq!(decision.signals.len(), 2, "markers only: {:?}", decision.signals);
    assert!(decision.signals.iter().all(|s| s.kind == SignalType::Explicit && s.confidence == 1.0));
    let namespaces: Vec<&str> = decision.captures.iter().map(|c| c.namespace.as_str()).collect();
    assert_eq!(namespaces, ["decisions", "learnings"], "[remember] takes the signal's namespace");
    assert_eq!(decision.action, CaptureAction::Auto);
    assert_eq!(decision.stored.len(), 2);
    let stored = memcore.get(&decision.stored[0]).unwrap();
    assert_eq!(stored.content, "Use PostgreSQL for the job queue.");
    assert_eq!(stored.collection.as_str(), "decisions");
    assert_eq!(stored.kind.as_deref(), Some("note"));
    assert_eq!(stored.metadata["capture"]["signal"], "explicit");
}

#[test]
fn bad_markers_and_requests_are_validation_errors_and_store_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = text_only(dir.path());
    let long_summary = "s".repeat(101);
    let big = "x".repeat(100 * 1024 + 1);
    let bad = [
        CaptureRequest::new("[remember:] x").apply(true),
        CaptureRequest::new("[remember:../x] y").apply(true),
        CaptureRequest::new("[remember:UPPER] z").apply(true),
        CaptureRequest::new("[remember:decisions]").apply(true),
        CaptureRequest::new("TIL x").namespace("nope").apply(true),
        CaptureRequest::new("body").summary("one line").apply(true),
        CaptureRequest::new("body").namespace("notes").summary("  ").apply(true),
        CaptureRequest::new("body").namespace("notes").summary(long_summary).apply(true),
        CaptureRequest::new(big.clone()).namespace("notes").summary("big").apply(true),
        CaptureRequest::new(format!("[remember] {big}")).apply(true),
    ];
    for request in bad {
        let err = memcore.capture(&request).unwrap_err();
        assert_eq!(err.category(), Category::Validation, "{err}");
        assert!(!err.recovery().is_empty());
    }
    assert!(memcore.list(&ListOptions::new()).unwrap().memories.is_empty());
}

#[test]
fn empty_and_plain_texts_skip() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = text_only(dir.path());
    for text in ["", "   ", "Please run the tests again."] {
        let decision = memcore.capture(&CaptureRequest::new(text).apply(true)).unwrap();
        assert_eq!(
            (decision.action, decision.reason.as_str()),
            (CaptureAction::Skip, "no capture signals")
        );
        assert!(decision.stored.is_empty());
    }
}

#[test]
fn an_explicit_capture_stores_the_whole_text() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = text_only(dir.path());
    let request = CaptureRequest::new("## Context\n\nWe need ACID.\n\n## Decision\n\nPostgreSQL.")
        .namespace("decisions")
        .summary("Use PostgreSQL")
        .tags(["database"])
        .created_by("claude")
        .apply(false);
    let decision = memcore.capture(&request).unwrap();
    assert_eq!(decision.action, CaptureAction::Auto);
    let stored = memcore.get(&decision.stored[0]).unwrap();
    assert_eq!(
        (stored.title.as_str(), stored.summary.as_deref()),
        ("Use PostgreSQL", Some("Use PostgreSQL"))
    );
    assert_eq!(stored.tags, ["explicit", "database"]);
    assert_eq!(stored.created_by.as_deref(), Some("claude"));
    assert!(stored.content.starts_with("## Context"));
}

#[test]
fn suggestions_are_stored_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = text_only(dir.path());
    let text = "We decided to move the job queue from Redis to Postgres for durability.";
    let decision = memcore.capture(&CaptureRequest::new(text).apply(false)).unwrap();
    assert_eq!((decision.action, decision.stored.len()), (CaptureAction::Suggest, 0));
    let decision = memcore.capture(&CaptureRequest::new(text).apply(true)).unwrap();
    assert_eq!(decision.stored.len(), 1);
    let stored = memcore.get(&decision.stored[0]).unwrap();
    assert_eq!(stored.tags, ["decision", "database"]);
    assert!(stored.summary.unwrap().chars().count() <= 100);
}

#[test]
fn without_the_model_novelty_is_word_overlap_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = text_only(dir.path());
    memcore
        .put(
            NewMemory::new("TIL the staging runners have only two cores and 8 GB.")
                .collection("learnings"),
        )
        .unwrap();
    let decision = memcore
        .capture(&CaptureRequest::new("TIL the staging runners have only two cores and 8 GB."))
        .unwrap();
    assert_eq!(decision.action, CaptureAction::Skip);
    let skipped = &decision.skipped[0];
    assert!(skipped.reason.starts_with("duplicate of learnings/"), "{}", skipped.reason);
    assert_eq!(skipped.novelty.as_ref().unwrap().method, NoveltyMethod::Text);
    assert!(
        decision.warnings.iter().any(|w| w.contains("word overlap")),
        "{:?}",
        decision.warnings
    );
}

#[test]
fn with_the_model_paraphrases_are_duplicates_and_new_facts_are_not() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::open(dir.path()).unwrap();
    let first = memcore
        .capture(&CaptureRequest::new("TIL that git notes are not fetched by default.").apply(true))
        .unwrap();
    assert_eq!(first.stored.len(), 1, "{first:?}");
    assert_eq!(first.captures[0].novelty.method, NoveltyMethod::Semantic);

    let paraphrase =
        memcore.capture(&CaptureRequest::new("TIL git notes aren't fetched by default!")).unwrap();
    assert_eq!(paraphrase.action, CaptureAction::Skip, "{paraphrase:?}");
    let novelty = paraphrase.skipped[0].novelty.as_ref().unwrap();
    assert!(novelty.highest_similarity >= 0.7 && novelty.similar[0].reference == first.stored[0]);

    let new_fact = memcore
        .capture(&CaptureRequest::new("TIL the CI runners only have two cores and no GPU."))
        .unwrap();
    assert_ne!(new_fact.action, CaptureAction::Skip, "{new_fact:?}");
    assert!(new_fact.captures[0].novelty.score > 0.3);
    // Novelty is checked within the namespace: the same text elsewhere is new.
    let elsewhere = memcore
        .capture(
            &CaptureRequest::new("TIL that git notes are not fetched by default.")
                .namespace("notes"),
        )
        .unwrap();
    assert_ne!(elsewhere.action, CaptureAction::Skip);
}

#[test]
fn ten_megabytes_are_detected_in_one_linear_pass() {
    // Detection is linear in the text (one RegexSet pass, then each occurring pattern's
    // matches, one markdown pass for code): 10 MB with a signal every ~1 KB complete here in
    // about a second in release builds. The time goal lives in benches/capture.rs.
    let paragraph = format!("{} We decided to keep going.\n\n", "lorem ipsum dolor ".repeat(55));
    let text = paragraph.repeat(10 * 1024 * 1024 / paragraph.len());
    let signals = detect_signals(&text, 100);
    let expected = text.matches("We decided to").count().min(memcore::capture::MAX_SIGNALS);
    assert_eq!(signals.len(), expected);
    let dir = tempfile::tempdir().unwrap();
    let memcore = text_only(dir.path());
    let decision = memcore.capture(&CaptureRequest::new(text).check_novelty(false)).unwrap();
    assert_eq!(decision.action, CaptureAction::Suggest);
}

#[test]
fn dense_matches_are_bounded() {
    // 250,000 matches of "TIL": the overlap filter is O(n log n), the signals stop at
    // MAX_SIGNALS and the captures at MAX_CAPTURES (each skipped one says why).
    let text = "TIL ".repeat(250_000);
    let signals = detect_signals(&text, 20);
    assert_eq!(signals.len(), memcore::capture::MAX_SIGNALS);
    let dir = tempfile::tempdir().unwrap();
    let memcore = text_only(dir.path());
    let decision = memcore.capture(&CaptureRequest::new(text).check_novelty(false)).unwrap();
    assert!(decision.captures.len() <= memcore::capture::MAX_CAPTURES);
}

#[test]
fn captures_never_replace_other_memories_and_repeat_once() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = text_only(dir.path());
    // The same heading: ids are content hashes, not the heading's slug.
    let first = memcore
        .capture(
            &CaptureRequest::new("[remember:decisions] # Plan\nWe decided to use Postgres.")
                .apply(false),
        )
        .unwrap();
    let second = memcore
        .capture(
            &CaptureRequest::new("[remember:decisions] # Plan\nWe decided to drop Redis for good.")
                .apply(false),
        )
        .unwrap();
    assert_ne!(first.stored, second.stored);
    assert_eq!(memcore.list(&ListOptions::new()).unwrap().memories.len(), 2);
    // The same marked text twice in one text: one capture.
    let twice = memcore
        .capture(
            &CaptureRequest::new("[remember] ok [remember] ok").check_novelty(false).apply(false),
        )
        .unwrap();
    assert_eq!(twice.stored.len(), 1, "{twice:?}");
}

#[test]
fn a_marker_keeps_its_namespace_and_positions_index_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = text_only(dir.path());
    let decision = memcore
        .capture(
            &CaptureRequest::new("[remember:decisions] Use WAL. [remember] TIL x.")
                .namespace("notes"),
        )
        .unwrap();
    let namespaces: Vec<&str> = decision.captures.iter().map(|c| c.namespace.as_str()).collect();
    assert_eq!(namespaces, ["decisions", "notes"]);
    let text = "  \n Body of the note.";
    let decision =
        memcore.capture(&CaptureRequest::new(text).namespace("notes").summary("s")).unwrap();
    let signal = &decision.signals[0];
    assert_eq!(&text[signal.start..signal.end], signal.matched);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn detection_never_panics_and_is_deterministic(text in "\\PC{0,400}") {
        let once = detect_signals(&text, 100);
        prop_assert_eq!(&once, &detect_signals(&text, 100));
        for signal in &once {
            prop_assert!(text.is_char_boundary(signal.start) && text.is_char_boundary(signal.end));
            prop_assert!((0.0..=1.0).contains(&signal.confidence));
        }
    }

    #[test]
    fn phrases_in_any_text_never_panic(
        prefix in "\\PC{0,120}",
        phrase in prop::sample::select(GOLDEN.iter().map(|g| g.1).collect::<Vec<_>>()),
        suffix in "\\PC{0,120}",
        window in 0usize..150,
    ) {
        let text = format!("{prefix}{phrase}{suffix}");
        for signal in detect_signals(&text, window) {
            prop_assert!(!signal.context.is_empty());
        }
    }

    #[test]
    fn markers_in_any_text_never_panic(text in "(\\PC|\\[remember(:[a-zA-Z./]{0,6})?\\]){0,40}") {
        let dir = tempfile::tempdir().unwrap();
        let memcore = text_only(dir.path());
        match memcore.capture(&CaptureRequest::new(text).check_novelty(false).apply(true)) {
            Ok(_) => {}
            Err(err) => prop_assert_eq!(err.category(), Category::Validation),
        }
    }
}
