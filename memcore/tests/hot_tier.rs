//! The hot tier through its public API: a bounded working set per live session with a
//! rolling summary, action items and notes, kept in a snapshot that a new process resumes,
//! and dropped at session end.
#![allow(clippy::unwrap_used)]

use memcore::{Category, HotTier, Timestamp};

fn at(minute: u32) -> Timestamp {
    format!("2026-11-27T10:{minute:02}:00Z").parse().unwrap()
}

#[test]
fn a_session_keeps_its_last_turns_and_summarises_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let hot = HotTier::open(dir.path(), 3).unwrap();
    hot.start("ep-47", at(0)).unwrap();
    let said = [
        "The lace supplier is late again.",
        "We could switch to the mill in Leeds.",
        "Leeds quoted twelve pounds a cone.",
        "That is cheaper than we pay now.",
        "Then we order from Leeds next week.",
    ];
    for (i, text) in said.iter().enumerate() {
        hot.add_turn("ep-47", if i % 2 == 0 { "patch" } else { "loom" }, text, at(i as u32 + 1))
            .unwrap();
    }
    let session = hot.get("ep-47").unwrap();
    assert_eq!(session.turn_count, 5);
    let kept: Vec<&str> = session.turns.iter().map(|t| t.content.as_str()).collect();
    assert_eq!(kept, &said[2..]);
    assert_eq!(session.turns[0].number, 3);
    // The evicted turns live on in the summary (short enough to be kept whole).
    assert!(session.summary.contains("lace supplier is late"), "{}", session.summary);
    assert!(session.summary.contains("loom: We could switch"), "{}", session.summary);
    assert_eq!(session.updated_at, at(5));
}

#[test]
fn a_long_session_keeps_its_summary_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let hot = HotTier::open(dir.path(), 2).unwrap();
    hot.start("long", at(0)).unwrap();
    for n in 0..200 {
        let text = format!(
            "Turn {n}: the committee discussed budget line {n} and agreed to revisit the \
             forecast for quarter {} after the audit.",
            n % 4 + 1
        );
        hot.add_turn("long", "chair", &text, at(1)).unwrap();
    }
    let session = hot.get("long").unwrap();
    assert_eq!(session.turns.len(), 2);
    assert!(!session.summary.is_empty());
    // About 300 tokens: far less than the 198 evicted turns (each ~25 tokens), each line
    // still saying who spoke.
    assert!(session.summary.len() < 3_000, "{} bytes", session.summary.len());
    assert!(session.summary.lines().all(|l| l.starts_with("chair: ")), "{}", session.summary);
}

#[test]
fn a_new_process_resumes_live_sessions_from_their_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let hot = HotTier::open(dir.path(), 12).unwrap();
    hot.start("board-q4", at(0)).unwrap();
    hot.add_turn("board-q4", "ceo", "We hire two engineers in January.", at(1)).unwrap();
    hot.add_action_item("board-q4", "post the two job ads").unwrap();
    hot.add_action_item("board-q4", "book the offsite").unwrap();
    hot.resolve_action_item("board-q4", 0).unwrap();
    hot.add_note("board-q4", Some("cfo"), "watch the hiring budget").unwrap();
    hot.add_note("board-q4", None, "minutes go to the wiki").unwrap();
    let before = hot.get("board-q4").unwrap();
    drop(hot);

    let resumed = HotTier::open(dir.path(), 12).unwrap();
    let session = resumed.get("board-q4").unwrap();
    assert_eq!(session, before);
    assert_eq!(session.action_items, ["book the offsite"]);
    let cfo: Vec<&str> = session.notes_for("cfo").map(|n| n.text.as_str()).collect();
    assert_eq!(cfo, ["watch the hiring budget", "minutes go to the wiki"]);
    let ceo: Vec<&str> = session.notes_for("ceo").map(|n| n.text.as_str()).collect();
    assert_eq!(ceo, ["minutes go to the wiki"]);
    assert_eq!(resumed.live(), ["board-q4"]);

    let ended = resumed.end("board-q4").unwrap();
    assert_eq!(ended.turns.len(), 1);
    assert!(resumed.get("board-q4").is_none());
    assert!(HotTier::open(dir.path(), 12).unwrap().live().is_empty());
}

#[test]
fn bad_session_ids_double_starts_and_double_ends_are_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let hot = HotTier::open(dir.path(), 12).unwrap();
    for id in ["../escape", "a/b", "", "Caps"] {
        assert_eq!(hot.start(id, at(0)).unwrap_err().category(), Category::Validation, "{id:?}");
    }
    hot.start("s1", at(0)).unwrap();
    assert_eq!(hot.start("s1", at(0)).unwrap_err().category(), Category::Conflict);
    assert_eq!(hot.resolve_action_item("s1", 0).unwrap_err().category(), Category::NotFound);
    hot.end("s1").unwrap();
    assert_eq!(hot.end("s1").unwrap_err().category(), Category::NotFound);
    assert_eq!(hot.add_turn("s1", "a", "b", at(1)).unwrap_err().category(), Category::NotFound);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_damaged_snapshot_is_named_in_the_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("broken.json"), "{ not json").unwrap();
    let err = HotTier::open(dir.path(), 12).unwrap_err();
    assert_eq!(err.category(), Category::Parse, "{err}");
    assert!(err.to_string().contains("broken.json"), "{err}");
}

/// A summariser that echoes everything it is given (the longest answer memcore accepts).
#[derive(Debug)]
struct Echo;

impl memcore::session::Summarizer for Echo {
    fn name(&self) -> &str {
        "echo"
    }

    fn summarize(
        &self,
        request: &memcore::session::SummaryRequest,
        _: &dyn memcore::compose::TokenCounter,
    ) -> memcore::Result<Vec<memcore::session::SummaryMessage>> {
        let all: Vec<&str> = request.messages.iter().map(|m| m.content.as_str()).collect();
        Ok(vec![memcore::session::SummaryMessage::new("summary", all.join(" "))])
    }
}

/// A summariser that panics.
#[derive(Debug)]
struct Panics;

impl memcore::session::Summarizer for Panics {
    fn name(&self) -> &str {
        "panics"
    }

    fn summarize(
        &self,
        _: &memcore::session::SummaryRequest,
        _: &dyn memcore::compose::TokenCounter,
    ) -> memcore::Result<Vec<memcore::session::SummaryMessage>> {
        panic!("the model fell over")
    }
}

#[test]
fn a_summariser_that_says_too_much_is_cut_and_one_that_panics_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let long = "The committee talked at length about the budget and the forecast. ".repeat(8);
    let hot =
        HotTier::open(dir.path(), 1).unwrap().with_summarizer(Some(std::sync::Arc::new(Echo)), 100);
    hot.start("echo", at(0)).unwrap();
    for _ in 0..30 {
        hot.add_turn("echo", "chair", &long, at(1)).unwrap();
    }
    let summary = hot.get("echo").unwrap().summary.clone();
    // Capped at twice the 100 tokens asked (about 4 bytes a token), though it never drops
    // a word: thirty turns of 100 tokens went in.
    assert!(summary.len() < 1_200, "{} bytes", summary.len());

    let dir = tempfile::tempdir().unwrap();
    let hot = HotTier::open(dir.path(), 1)
        .unwrap()
        .with_summarizer(Some(std::sync::Arc::new(Panics)), 10);
    hot.start("p", at(0)).unwrap();
    hot.add_turn("p", "a", &long, at(1)).unwrap();
    let before = hot.get("p").unwrap();
    let err = hot.add_turn("p", "b", &long, at(2)).unwrap_err();
    assert_eq!(err.category(), Category::Callback, "{err}");
    assert_eq!(hot.get("p").unwrap(), before);
    assert_eq!(HotTier::open(dir.path(), 1).unwrap().get("p").unwrap(), before);
}

#[test]
fn a_snapshot_whose_name_disagrees_with_its_session_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let hot = HotTier::open(dir.path(), 12).unwrap();
    hot.start("real", at(0)).unwrap();
    drop(hot);
    std::fs::rename(dir.path().join("real.json"), dir.path().join("other.json")).unwrap();
    let err = HotTier::open(dir.path(), 12).unwrap_err();
    assert_eq!(err.category(), Category::Parse, "{err}");
    assert!(err.to_string().contains("other.json"), "{err}");
}

#[test]
fn a_journal_left_without_its_snapshot_is_removed_on_open() {
    let dir = tempfile::tempdir().unwrap();
    {
        let hot = HotTier::open(dir.path(), 4).unwrap();
        hot.start("kept", memcore::now()).unwrap();
        hot.add_turn("kept", "user", "still live", memcore::now()).unwrap();
    }
    // An end that stopped after removing the snapshot, before the journal.
    std::fs::write(dir.path().join("gone.turns.jsonl"), "{}\n").unwrap();
    let hot = HotTier::open(dir.path(), 4).unwrap();
    assert!(!dir.path().join("gone.turns.jsonl").exists());
    assert!(dir.path().join("kept.turns.jsonl").exists());
    assert_eq!(hot.transcript("kept").unwrap().len(), 1);
}
