//! A soak of the tiered store: 200 sessions of 50 turns, each ended, then a compaction a year
//! on. The hot tier stays bounded (a live session's snapshot does not grow with its turns;
//! nothing is left once sessions end), every turn reaches the cold tier, the warm tier holds
//! one bounded summary per session and then a handful of digests.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

mod tiers;

use std::ops::ControlFlow;

use memcore::session::{SessionEndRequest, SessionStartRequest, SessionTurnRequest};
use memcore::{CompactRequest, ListOptions, TimelineRequest};
use tiers::{at, open};

const SESSIONS: usize = 200;
const TURNS: usize = 50;

#[test]
fn two_hundred_sessions_keep_every_tier_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    let hot_dir = dir.path().join(".memcore/tiers/hot");
    let mut largest_snapshot = 0;
    for s in 0..SESSIONS {
        let id = format!("soak-{s:03}");
        let mut start = SessionStartRequest::new(&id);
        start.agents = vec!["ann".into(), "bob".into()];
        memcore.session_start(&start).unwrap();
        for t in 0..TURNS {
            let role = if t % 2 == 0 { "ann" } else { "bob" };
            let text = format!("Session {s}, turn {t}: the plan for the release and its risks.");
            memcore.session_turn(&SessionTurnRequest::new(&id, role, text)).unwrap();
        }
        let snapshot = std::fs::metadata(hot_dir.join(format!("{id}.json"))).unwrap().len();
        largest_snapshot = largest_snapshot.max(snapshot);
        memcore.session_end(&SessionEndRequest::new(&id)).unwrap();
    }
    // Hot: 12 verbatim turns and a capped summary, whatever the session's length; then empty.
    assert!(largest_snapshot < 8 * 1024, "a hot snapshot of {largest_snapshot} bytes");
    assert_eq!(std::fs::read_dir(&hot_dir).unwrap().count(), 0);

    // Cold: every turn.
    let mut turns = 0;
    memcore
        .tiers()
        .unwrap()
        .cold()
        .scan(&mut |record| {
            record.unwrap();
            turns += 1;
            ControlFlow::Continue(())
        })
        .unwrap();
    assert_eq!(turns, SESSIONS * TURNS);

    // Warm: one summary per session, each bounded; the timeline has every session.
    let listing = memcore.list(&ListOptions::default()).unwrap();
    assert_eq!(listing.memories.len(), SESSIONS);
    let largest = (0..SESSIONS)
        .map(|s| memcore.get(format!("sessions/soak-{s:03}").as_str()).unwrap().content.len())
        .max()
        .unwrap();
    assert!(largest < 4 * 1024, "a session summary of {largest} bytes");
    assert_eq!(memcore.timeline(&TimelineRequest::default()).unwrap().entries.len(), SESSIONS);

    // A year on, compaction leaves a digest per quarter in the warm tier.
    let report = memcore.compact(&CompactRequest::new().at(at("2027-06-01T00:00:00Z"))).unwrap();
    assert_eq!(report.demoted, SESSIONS);
    let listing = memcore.list(&ListOptions::default()).unwrap();
    assert_eq!(listing.memories.len(), report.digests.len());
    assert!(report.digests.len() <= 2, "{} digests", report.digests.len());
}
