//! The timeline (`timeline.jsonl`): typed entries appended durably, listed by agent and
//! time, a torn last line skipped by readers and cut by the next append.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use memcore::{Category, Timeline, TimelineEntry, TimelineFilter, TimelineKind, Timestamp};

fn at(day: u32) -> Timestamp {
    format!("2026-10-{day:02}T20:00:00Z").parse().unwrap()
}

#[test]
fn entries_are_listed_by_agent_and_time_and_a_torn_line_is_cut() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("timeline.jsonl");
    let timeline = Timeline::open(&path, Duration::from_secs(5));
    assert_eq!(timeline.entries(&TimelineFilter::default()).unwrap(), (Vec::new(), 0));
    let lace = TimelineEntry::session("2025-10-16-lace", "Episode 47 - The Lace Disaster", at(16))
        .agents(["patch", "loom", "hook", "spindle"])
        .duration(1860)
        .topics(["lace", "suppliers"])
        .consensus("Delay launch by two weeks");
    timeline.append(&lace).unwrap();
    timeline.append(&TimelineEntry::event("Warm tier compacted", at(20))).unwrap();
    timeline
        .append(&TimelineEntry::session("2025-10-23-wool", "Episode 48", at(23)).agents(["patch"]))
        .unwrap();

    // The seed's fields, as one line of JSON each.
    let text = std::fs::read_to_string(&path).unwrap();
    let first: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["session_id"], "2025-10-16-lace");
    assert_eq!(first["duration"], 1860);
    assert_eq!(first["consensus"], "Delay launch by two weeks");

    let (all, unreadable) = timeline.entries(&TimelineFilter::default()).unwrap();
    assert_eq!((all.len(), unreadable), (3, 0));
    assert_eq!(all[0], lace);
    assert_eq!(all[1].kind, TimelineKind::Event);
    let mut loom = TimelineFilter::default();
    loom.agent = Some("loom".into());
    assert_eq!(timeline.entries(&loom).unwrap().0, std::slice::from_ref(&lace));
    let mut late = TimelineFilter::default();
    late.since = Some(at(20));
    assert_eq!(timeline.entries(&late).unwrap().0.len(), 2);

    // A crash mid-append: readers skip the torn line, the next append cuts it.
    std::fs::write(&path, format!("{text}{{\"at\":\"2026-10-")).unwrap();
    assert_eq!(timeline.entries(&TimelineFilter::default()).unwrap().1, 1);
    timeline.append(&TimelineEntry::event("Season ends", at(30))).unwrap();
    let (all, unreadable) = timeline.entries(&TimelineFilter::default()).unwrap();
    assert_eq!((all.len(), unreadable), (4, 0));
    assert_eq!(all[3].title, "Season ends");
}

#[test]
fn bad_entries_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("timeline.jsonl");
    let timeline = Timeline::open(&path, Duration::from_secs(5));
    let err = timeline.append(&TimelineEntry::session("../x", "t", at(1))).unwrap_err();
    assert_eq!(err.category(), Category::Validation, "{err}");
    let err = timeline.append(&TimelineEntry::event("  ", at(1))).unwrap_err();
    assert_eq!(err.category(), Category::Validation, "{err}");
    assert!(!path.exists());
}
