//! The tiered store: the backend conformance suite over [`TieredStore`], and live sessions
//! through [`Memcore`] (start, turns, notes, end to the warm and cold tiers and the
//! timeline), with their bad input and an interrupted end resumed.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

mod conformance;

use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use memcore::session::{
    SessionEndRequest, SessionNoteRequest, SessionStartRequest, SessionTurnRequest,
};
use memcore::{
    ArchivedKind, Backend, Category, Config, EmbeddingConfig, Memcore, Query, SearchMode,
    TieredConfig, TieredStore, TimelineEntry, TimelineRequest,
};

fn store() -> (TieredStore, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = TieredStore::open(dir.path().join("store"), &Config::default()).expect("opens");
    (store, dir)
}

mod conformance_tiered {
    use super::*;
    conformance_suite!(store(), history: true);
}

/// A tiered handle without the model (nothing here needs vectors), keeping 4 turns hot, on a
/// clock the test moves.
fn open(dir: &Path, clock: &Arc<AtomicI64>) -> Memcore {
    let config = Config {
        backend: Backend::Tiered,
        tiered: TieredConfig {
            hot_context_turns: 4,
            hot_summary_tokens: 60,
            ..TieredConfig::default()
        },
        embedding: EmbeddingConfig { enabled: false, ..EmbeddingConfig::default() },
        ..Config::default()
    };
    let clock = Arc::clone(clock);
    Memcore::builder()
        .path(dir)
        .config(config)
        .clock(move || conformance::at(clock.load(Ordering::SeqCst)))
        .open()
        .unwrap()
}

fn start(memcore: &Memcore, session: &str, agents: &[&str]) {
    let mut request = SessionStartRequest::new(session);
    request.title = Some("Weekly planning".into());
    request.agents = agents.iter().map(|a| (*a).to_owned()).collect();
    memcore.session_start(&request).unwrap();
}

fn turn(memcore: &Memcore, session: &str, role: &str, content: &str) {
    memcore.session_turn(&SessionTurnRequest::new(session, role, content)).unwrap();
}

/// Every record of the cold archive of `session`, by id.
fn archived(memcore: &Memcore, session: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let cold = memcore.tiers().unwrap().cold();
    cold.scan(&mut |record| {
        let record = record.unwrap();
        if record.session.as_deref() == Some(session) {
            assert_eq!(record.kind, ArchivedKind::Turn);
            found.push((record.id, record.text));
        }
        ControlFlow::Continue(())
    })
    .unwrap();
    found.sort();
    found
}

#[test]
fn a_session_ends_in_the_warm_and_cold_tiers_and_on_the_timeline() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(AtomicI64::new(0));
    let memcore = open(dir.path(), &clock);
    start(&memcore, "planning-1", &["ann", "bob"]);
    for n in 1..=10 {
        clock.fetch_add(30, Ordering::SeqCst);
        let speaker = if n % 2 == 0 { "ann" } else { "bob" };
        turn(
            &memcore,
            "planning-1",
            speaker,
            &format!("Point {n}: the zeppelin budget needs review."),
        );
    }
    memcore
        .session_note(&SessionNoteRequest::action_item("planning-1", "book the hangar"))
        .unwrap();
    memcore.session_note(&SessionNoteRequest::note("planning-1", "budget is tight")).unwrap();
    memcore
        .session_note(&SessionNoteRequest::note("planning-1", "ask about helium").agent("ann"))
        .unwrap();

    // Hot: the last four turns verbatim, the rest in the rolling summary.
    let live = memcore.session_live("planning-1").unwrap();
    assert_eq!((live.turn_count, live.turns.len()), (10, 4));
    assert_eq!(live.turns[0].number, 7);
    assert!(live.summary.contains("zeppelin"), "{}", live.summary);

    let mut end = SessionEndRequest::new("planning-1");
    end.topics = vec!["budget".into()];
    end.consensus = Some("Review the budget".into());
    let report = memcore.session_end(&end).unwrap();
    assert_eq!((report.turns, report.archived), (10, 10));
    let refs: Vec<String> = report.memories.iter().map(ToString::to_string).collect();
    assert_eq!(refs, ["sessions/planning-1", "sessions/planning-1:ann"]);

    // Cold: every turn, the evicted ones too.
    let cold = archived(&memcore, "planning-1");
    assert_eq!(cold.len(), 10);
    assert!(cold.contains(&(
        "turn/planning-1/1".into(),
        "bob: Point 1: the zeppelin budget needs review.".into()
    )));

    // Warm: the summary with its action item and note, the agent's notes as the agent's.
    let summary = memcore.get("sessions/planning-1").unwrap();
    assert_eq!(summary.title, "Weekly planning");
    assert_eq!(summary.tags, ["session", "budget"]);
    for part in ["10 turns.", "## Open action items", "- book the hangar", "- budget is tight"] {
        assert!(summary.content.contains(part), "{part:?} in {}", summary.content);
    }
    let notes = memcore.get("sessions/planning-1:ann").unwrap();
    assert_eq!(notes.created_by.as_deref(), Some("ann"));
    assert!(notes.content.contains("ask about helium"));
    let hits = memcore.search(&Query::new("hangar").mode(SearchMode::Text)).unwrap();
    assert_eq!(hits.hits[0].memory.reference.to_string(), "sessions/planning-1");

    // Timeline: one entry, with the agents, topics, consensus and duration.
    let listing = memcore.timeline(&TimelineRequest::default()).unwrap();
    assert_eq!(listing.entries.len(), 1);
    let entry = &listing.entries[0];
    assert_eq!(entry.session_id.as_deref(), Some("planning-1"));
    assert_eq!((entry.title.as_str(), entry.duration), ("Weekly planning", Some(300)));
    assert_eq!(entry.agents, ["ann", "bob"]);
    assert_eq!(entry.consensus.as_deref(), Some("Review the budget"));
    let mut ann = TimelineRequest::default();
    ann.agent = Some("ann".into());
    assert_eq!(memcore.timeline(&ann).unwrap().entries.len(), 1);
    let mut carl = TimelineRequest::default();
    carl.agent = Some("carl".into());
    assert!(memcore.timeline(&carl).unwrap().entries.is_empty());

    // Hot is cleared: ending twice is not found, and so is reading it.
    let again = memcore.session_end(&end).unwrap_err();
    assert_eq!(again.category(), Category::NotFound, "{again}");
    assert_eq!(memcore.session_live("planning-1").unwrap_err().category(), Category::NotFound);
    let hot_dir = dir.path().join(".memcore/tiers/hot");
    assert_eq!(std::fs::read_dir(hot_dir).unwrap().count(), 0, "snapshot and journal removed");
}

#[test]
fn a_crashed_process_resumes_its_session_with_every_turn() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(AtomicI64::new(0));
    {
        let memcore = open(dir.path(), &clock);
        start(&memcore, "long-1", &[]);
        for n in 1..=9 {
            turn(&memcore, "long-1", "user", &format!("message {n}"));
        }
        // Dropped without ending: as if the process died.
    }
    let memcore = open(dir.path(), &clock);
    let live = memcore.session_live("long-1").unwrap();
    assert_eq!(live.turn_count, 9);
    turn(&memcore, "long-1", "assistant", "message 10");
    let report = memcore.session_end(&SessionEndRequest::new("long-1")).unwrap();
    assert_eq!((report.turns, report.archived), (10, 10));
    assert_eq!(archived(&memcore, "long-1").len(), 10);
}

#[test]
fn an_interrupted_end_resumes_without_loss_or_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(AtomicI64::new(0));
    let memcore = open(dir.path(), &clock);
    start(&memcore, "retry-1", &["ann"]);
    for n in 1..=6 {
        turn(&memcore, "retry-1", "ann", &format!("turn {n} about lighthouses"));
    }
    // Bad input changes nothing.
    let mut bad = SessionEndRequest::new("retry-1");
    bad.topics = vec!["two\nlines".into()];
    let err = memcore.session_end(&bad).unwrap_err();
    assert_eq!(err.category(), Category::Validation, "{err}");
    assert!(archived(&memcore, "retry-1").is_empty());

    // The end fails after archiving the transcript: a file where the warm tier's `sessions`
    // collection would go makes the warm write fail.
    let blocker = dir.path().join("sessions");
    std::fs::write(&blocker, "in the way").unwrap();
    let err = memcore.session_end(&SessionEndRequest::new("retry-1")).unwrap_err();
    assert_ne!(err.category(), Category::Validation, "{err}");
    assert_eq!(archived(&memcore, "retry-1").len(), 6, "the transcript is archived");
    assert!(memcore.get("sessions/retry-1").is_err(), "nothing warm yet");
    assert!(memcore.session_live("retry-1").is_ok(), "still live");
    std::fs::remove_file(&blocker).unwrap();

    // A crash after the timeline entry was written (it is there already): ending again
    // archives nothing twice and writes the entry once.
    let live = memcore.session_live("retry-1").unwrap();
    let tiers = memcore.tiers().unwrap();
    let entry = TimelineEntry::session("retry-1", "retry-1", live.started_at).agents(["ann"]);
    tiers.timeline().append(&entry).unwrap();
    let report = memcore.session_end(&SessionEndRequest::new("retry-1")).unwrap();
    assert_eq!((report.turns, report.archived), (6, 0));
    assert_eq!(archived(&memcore, "retry-1").len(), 6);
    assert_eq!(memcore.timeline(&TimelineRequest::default()).unwrap().entries.len(), 1);
    assert!(memcore.get("sessions/retry-1").is_ok());

    // An id names one session for good.
    clock.fetch_add(3600, Ordering::SeqCst);
    let again = memcore.session_start(&SessionStartRequest::new("retry-1")).unwrap_err();
    assert_eq!(again.category(), Category::Conflict, "{again}");
}

#[test]
fn bad_session_input_is_refused_with_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(AtomicI64::new(0));
    let memcore = open(dir.path(), &clock);
    for id in ["../escape", "a/b", "", "UPPER", "x".repeat(200).as_str()] {
        let err = memcore.session_start(&SessionStartRequest::new(id)).unwrap_err();
        assert_eq!(err.category(), Category::Validation, "{id:?}: {err}");
    }
    let mut bad_agent = SessionStartRequest::new("ok-1");
    bad_agent.agents = vec!["../ann".into()];
    assert_eq!(memcore.session_start(&bad_agent).unwrap_err().category(), Category::Validation);

    start(&memcore, "ok-1", &["ann"]);
    let twice = memcore.session_start(&SessionStartRequest::new("ok-1")).unwrap_err();
    assert_eq!(twice.category(), Category::Conflict, "{twice}");
    let no_role = memcore.session_turn(&SessionTurnRequest::new("ok-1", " ", "hi")).unwrap_err();
    assert_eq!(no_role.category(), Category::Validation);
    let stranger = SessionNoteRequest::note("ok-1", "hello").agent("carl");
    assert_eq!(memcore.session_note(&stranger).unwrap_err().category(), Category::Validation);
    let agent_item = SessionNoteRequest::action_item("ok-1", "do it").agent("ann");
    assert_eq!(memcore.session_note(&agent_item).unwrap_err().category(), Category::Validation);
    let empty = SessionNoteRequest::note("ok-1", "  ");
    assert_eq!(memcore.session_note(&empty).unwrap_err().category(), Category::Validation);
    let not_live =
        memcore.session_turn(&SessionTurnRequest::new("nope", "user", "hi")).unwrap_err();
    assert_eq!(not_live.category(), Category::NotFound);
    assert_eq!(memcore.session_live("ok-1").unwrap().turn_count, 0, "nothing changed");

    // A session with no turns ends cleanly.
    let report = memcore.session_end(&SessionEndRequest::new("ok-1")).unwrap();
    assert_eq!((report.turns, report.archived), (0, 0));
}

#[test]
fn a_store_that_is_not_tiered_says_how_to_get_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        embedding: EmbeddingConfig { enabled: false, ..EmbeddingConfig::default() },
        ..Config::default()
    };
    let memcore = Memcore::builder().path(dir.path()).config(config).open().unwrap();
    assert!(memcore.tiers().is_none());
    let err = memcore.session_start(&SessionStartRequest::new("s")).unwrap_err();
    assert_eq!(err.category(), Category::Unsupported);
    assert!(err.recovery().contains("backend `tiered`"), "{}", err.recovery());
    assert_eq!(
        memcore.timeline(&TimelineRequest::default()).unwrap_err().category(),
        Category::Unsupported
    );
}

#[test]
fn turns_racing_an_end_are_archived_or_refused_never_lost() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(AtomicI64::new(0));
    let memcore = Arc::new(open(dir.path(), &clock));
    start(&memcore, "race-1", &[]);
    let writer = {
        let memcore = Arc::clone(&memcore);
        std::thread::spawn(move || {
            let mut accepted = 0u64;
            loop {
                let request = SessionTurnRequest::new("race-1", "user", format!("turn {accepted}"));
                match memcore.session_turn(&request) {
                    Ok(_) => accepted += 1,
                    Err(err) => {
                        assert_eq!(err.category(), Category::NotFound, "{err}");
                        return accepted;
                    }
                }
            }
        })
    };
    while memcore.session_live("race-1").unwrap().turn_count < 5 {
        std::thread::yield_now();
    }
    let report = memcore.session_end(&SessionEndRequest::new("race-1")).unwrap();
    let accepted = writer.join().unwrap();
    assert_eq!(report.turns, accepted, "every accepted turn ended with the session");
    assert_eq!(archived(&memcore, "race-1").len() as u64, accepted);
}

#[test]
fn a_journal_missing_turns_stops_the_end_and_keeps_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(AtomicI64::new(0));
    let memcore = open(dir.path(), &clock);
    start(&memcore, "torn-1", &[]);
    for n in 1..=3 {
        turn(&memcore, "torn-1", "user", &format!("line {n}"));
    }
    let journal = dir.path().join(".memcore/tiers/hot/torn-1.turns.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap();
    let first_line_end = text.find('\n').unwrap() + 1;
    std::fs::write(&journal, &text[first_line_end..]).unwrap();
    let err = memcore.session_end(&SessionEndRequest::new("torn-1")).unwrap_err();
    assert!(matches!(err, memcore::Error::Corrupted { .. }), "{err}");
    assert!(err.to_string().contains("2 of its 3 turns"), "{err}");
    assert!(archived(&memcore, "torn-1").is_empty(), "nothing moved down");
    assert_eq!(memcore.session_live("torn-1").unwrap().turn_count, 3);
}

#[test]
fn a_second_handle_neither_wipes_nor_revives_a_session() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(AtomicI64::new(0));
    let first = open(dir.path(), &clock);
    let second = open(dir.path(), &clock);
    start(&first, "shared-1", &[]);
    turn(&first, "shared-1", "user", "kept");
    // The second handle opened before the start: it must not start the session over.
    let err = second.session_start(&SessionStartRequest::new("shared-1")).unwrap_err();
    assert_eq!(err.category(), Category::Conflict, "{err}");
    // A third, opened now, resumes and ends it; the first then cannot add to it.
    let third = open(dir.path(), &clock);
    assert_eq!(third.session_end(&SessionEndRequest::new("shared-1")).unwrap().archived, 1);
    let err = first.session_turn(&SessionTurnRequest::new("shared-1", "user", "late")).unwrap_err();
    assert_eq!(err.category(), Category::NotFound, "{err}");
    assert!(!dir.path().join(".memcore/tiers/hot/shared-1.json").exists(), "not revived");
}

#[test]
fn session_and_agent_names_never_collide_and_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let clock = Arc::new(AtomicI64::new(0));
    let memcore = open(dir.path(), &clock);
    start(&memcore, "x", &["y"]);
    memcore.session_note(&SessionNoteRequest::note("x", "a note of y").agent("y")).unwrap();
    let refs = memcore.session_end(&SessionEndRequest::new("x")).unwrap().memories;
    assert_eq!(refs[1].to_string(), "sessions/x:y");
    start(&memcore, "x.y", &[]);
    memcore.session_end(&SessionEndRequest::new("x.y")).unwrap();
    assert!(memcore.get("sessions/x:y").unwrap().content.contains("a note of y"));

    let mut twice = SessionStartRequest::new("dup-1");
    twice.agents = vec!["ann".into(), "ann".into()];
    assert_eq!(memcore.session_start(&twice).unwrap_err().category(), Category::Validation);
    let mut title = SessionStartRequest::new("dup-1");
    title.title = Some("two\nlines".into());
    assert_eq!(memcore.session_start(&title).unwrap_err().category(), Category::Validation);
    start(&memcore, "dup-1", &[]);
    let reserved = SessionTurnRequest::new("dup-1", "summary", "pretending");
    assert_eq!(memcore.session_turn(&reserved).unwrap_err().category(), Category::Validation);
    let big = "n".repeat(60 * 1024);
    memcore.session_note(&SessionNoteRequest::note("dup-1", big.as_str())).unwrap_err();
}
