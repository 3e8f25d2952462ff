//! Purge on a tiered store: a memory or a session leaves every tier, index and digest, with
//! an audit record; pinned memories and live sessions need `force`; bad requests change
//! nothing.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

mod tiers;

use std::path::PathBuf;

use memcore::session::{SessionEndRequest, SessionStartRequest, SessionTurnRequest};
use memcore::{
    ArchiveFilter, Backend, Category, CompactRequest, Config, Memcore, MemoryUpdate, NewMemory,
    PurgeRequest, Query, RetainRequest, SearchMode, TimelineRequest,
};
use tiers::{at, files_holding, open};

const SECRET: &str = "xylophonequartz";

/// Whether any record of the cold archive holds `word`.
fn cold_holds(memcore: &Memcore, word: &str) -> bool {
    tiers::cold_records(memcore).iter().any(|record| {
        record.text.contains(word) || serde_json::to_string(record).unwrap().contains(word)
    })
}

fn searchable(memcore: &Memcore, word: &str) -> bool {
    let warm = !memcore.search(&Query::new(word).mode(SearchMode::Text)).unwrap().hits.is_empty();
    let cold = !memcore
        .tiers()
        .unwrap()
        .cold()
        .search(word, &ArchiveFilter::default(), 10)
        .unwrap()
        .is_empty();
    warm || cold
}

#[test]
fn a_purged_memory_leaves_every_tier_index_and_digest() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    let old = |id: &str, content: &str, created: &str| {
        memcore
            .put(NewMemory::new(content).collection("notes").id(id).created_at(at(created)))
            .unwrap();
    };
    old("secret", &format!("The vault code word is {SECRET}."), "2025-01-10T00:00:00Z");
    old("ordinary", "The weekly sync moved to Tuesdays.", "2025-01-12T00:00:00Z");
    old("recent", "Lunch is at noon.", "2026-05-01T00:00:00Z");
    let mut change = MemoryUpdate::default();
    change.tags = Some(vec!["vault".into()]);
    memcore.update("notes/secret", change).unwrap(); // a kept version
    memcore.compact(&CompactRequest::new().at(at("2026-06-01T00:00:00Z"))).unwrap();
    assert!(memcore.get("notes/digest-2025-q1").unwrap().content.contains(SECRET));
    assert!(cold_holds(&memcore, SECRET));

    let mut request = PurgeRequest::memory("notes/secret".parse().unwrap(), "erasure request #12");
    request.by = Some("dpo@example.com".into());
    let record = memcore.purge(&request).unwrap();
    assert_eq!(record.target, "memory notes/secret");
    assert_eq!(record.cold, 1);
    assert_eq!(record.digests[0].to_string(), "notes/digest-2025-q1");
    assert!(!record.forced);

    assert!(!cold_holds(&memcore, SECRET));
    assert!(!searchable(&memcore, SECRET));
    let digest = memcore.get("notes/digest-2025-q1").unwrap();
    assert!(
        !digest.content.contains(SECRET) && digest.content.contains("Tuesdays"),
        "{}",
        digest.content
    );
    assert_eq!(digest.related_to, ["notes/ordinary"]);
    assert_eq!(files_holding(dir.path(), SECRET), Vec::<PathBuf>::new());
    assert!(
        memcore.versions("notes/digest-2025-q1").unwrap().len() <= 1,
        "old digest versions gone"
    );
    memcore.get("notes/recent").unwrap();

    let (audit, unreadable) = memcore.tiers().unwrap().audit().records().unwrap();
    assert_eq!((audit.len(), unreadable), (1, 0));
    assert_eq!(audit[0], record);
    assert_eq!(audit[0].by.as_deref(), Some("dpo@example.com"));
    assert!(memcore.verify().unwrap().consistent, "indexes level with the store");
}

#[test]
fn a_purged_session_leaves_its_turns_memories_and_timeline_entry() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    let mut start = SessionStartRequest::new("leak-1");
    start.agents = vec!["ann".into()];
    memcore.session_start(&start).unwrap();
    memcore
        .session_turn(&SessionTurnRequest::new("leak-1", "ann", format!("my password is {SECRET}")))
        .unwrap();
    memcore.session_turn(&SessionTurnRequest::new("leak-1", "user", "noted")).unwrap();
    memcore.session_end(&SessionEndRequest::new("leak-1")).unwrap();
    memcore.session_start(&SessionStartRequest::new("other-1")).unwrap();
    memcore.session_turn(&SessionTurnRequest::new("other-1", "user", "an innocent turn")).unwrap();
    memcore.session_end(&SessionEndRequest::new("other-1")).unwrap();
    memcore.retain(&RetainRequest::session("leak-1")).unwrap();

    let refused = memcore.purge(&PurgeRequest::session("leak-1", "leaked a password")).unwrap_err();
    assert_eq!(refused.category(), Category::Conflict, "{refused}");
    assert!(refused.to_string().contains("pinned"), "{refused}");
    assert!(
        memcore.tiers().unwrap().audit().records().unwrap().0.is_empty(),
        "a refusal purges nothing"
    );

    let mut forced = PurgeRequest::session("leak-1", "leaked a password");
    forced.force = true;
    let record = memcore.purge(&forced).unwrap();
    assert!(record.forced);
    assert_eq!((record.cold, record.timeline), (2, 1));
    assert_eq!(record.warm.len(), 1);
    assert_eq!(memcore.get("sessions/leak-1").unwrap_err().category(), Category::NotFound);
    assert!(!cold_holds(&memcore, SECRET) && !searchable(&memcore, SECRET));
    assert_eq!(files_holding(dir.path(), SECRET), Vec::<PathBuf>::new());
    let timeline = memcore.timeline(&TimelineRequest::default()).unwrap().entries;
    assert_eq!(timeline.len(), 1);
    assert_eq!(timeline[0].session_id.as_deref(), Some("other-1"));
    memcore.get("sessions/other-1").unwrap();
}

#[test]
fn a_live_session_is_purged_only_when_forced() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    memcore.session_start(&SessionStartRequest::new("live-1")).unwrap();
    memcore
        .session_turn(&SessionTurnRequest::new("live-1", "user", format!("oops {SECRET}")))
        .unwrap();
    let err = memcore.purge(&PurgeRequest::session("live-1", "oops")).unwrap_err();
    assert_eq!(err.category(), Category::Conflict);
    memcore.session_live("live-1").unwrap();
    let mut forced = PurgeRequest::session("live-1", "oops");
    forced.force = true;
    memcore.purge(&forced).unwrap();
    assert_eq!(memcore.session_live("live-1").unwrap_err().category(), Category::NotFound);
    assert_eq!(files_holding(dir.path(), SECRET), Vec::<PathBuf>::new());
}

#[test]
fn bad_purge_requests_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    memcore.put(NewMemory::new("keep me").collection("notes").id("keep")).unwrap();
    let mut both = PurgeRequest::memory("notes/keep".parse().unwrap(), "x");
    both.session = Some("s".into());
    let cases = [
        PurgeRequest::memory("notes/keep".parse().unwrap(), "  "),
        PurgeRequest::default(),
        both,
        PurgeRequest::session("../etc", "x"),
    ];
    for request in cases {
        let err = memcore.purge(&request).unwrap_err();
        assert_eq!(err.category(), Category::Validation, "{request:?}: {err}");
    }
    memcore.get("notes/keep").unwrap();
    assert!(memcore.tiers().unwrap().audit().records().unwrap().0.is_empty());
}

#[test]
fn a_purge_leaves_no_vector_of_the_memory_on_disk() {
    let embedder = tiers::letters();
    let dir = tempfile::tempdir().unwrap();
    let config = Config { backend: Backend::Tiered, ..Config::default() };
    let open = || {
        let builder = Memcore::builder().path(dir.path()).config(config.clone());
        builder.embedder(embedder.clone()).open().unwrap()
    };
    let memcore = open();
    memcore.put(NewMemory::new("The vault combination.").id("vault-key")).unwrap();
    memcore.put(NewMemory::new("The lunch menu.").id("lunch")).unwrap();
    let in_vectors = |needle: &str| -> Vec<PathBuf> {
        files_holding(dir.path(), needle)
            .into_iter()
            .filter(|path| path.components().any(|c| c.as_os_str() == "vectors"))
            .collect()
    };
    assert!(!in_vectors("memory/vault-key").is_empty(), "the vector log names the memory");

    memcore.purge(&PurgeRequest::memory("memory/vault-key".parse().unwrap(), "test")).unwrap();
    assert_eq!(in_vectors("memory/vault-key"), Vec::<PathBuf>::new());
    drop(memcore);
    // The other vectors are still there, in a fresh process too.
    let reopened = open();
    let found = reopened.search(&Query::new("lunch menu").mode(SearchMode::Semantic)).unwrap();
    assert_eq!(found.hits[0].memory.id.as_str(), "lunch");
}
