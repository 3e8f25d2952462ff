//! Search across tiers (`recall`): the warm tier first and the cold archive as fallback or
//! on request, labelled hits with their tier and provenance, a live session's retrieval
//! history, and per-agent views of search; `verify` and `repair` of the cold archive the
//! hits come from.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

mod tiers;

use memcore::session::{
    SessionEndRequest, SessionNoteRequest, SessionStartRequest, SessionTurnRequest,
};
use memcore::{
    Backend, CompactRequest, Config, Error, Memcore, NewMemory, Query, RecallRequest, SearchMode,
    Tier, TierScope,
};
use tiers::{at, open};

/// A text recall of `text` in `tier`.
fn recall(memcore: &Memcore, text: &str, tier: TierScope) -> memcore::RecallResults {
    let request = RecallRequest::new(text).tier(tier).mode(SearchMode::Text);
    memcore.recall(&request).unwrap()
}

/// Ends a session `id` whose turns talk about the deploy key.
fn ended_session(memcore: &Memcore, id: &str) {
    let start = SessionStartRequest::new(id).agents(["ann"]);
    memcore.session_start(&start).unwrap();
    for content in [
        "The deploy key expires on Friday.",
        "Then the deploy key must be rotated before the release.",
        "Lunch is at noon.",
    ] {
        memcore.session_turn(&SessionTurnRequest::new(id, "ann", content)).unwrap();
    }
    memcore.session_end(&SessionEndRequest::new(id)).unwrap();
}

#[test]
fn auto_searches_the_warm_tier_first_and_fills_up_from_the_cold_one() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    memcore.put(NewMemory::new("Rotate the deploy key every month.").id("rotation")).unwrap();
    ended_session(&memcore, "ops-1");

    let found = recall(&memcore, "deploy key", TierScope::Auto);
    let tiers: Vec<Tier> = found.hits.iter().map(|hit| hit.tier).collect();
    let warm = tiers.iter().take_while(|t| **t == Tier::Warm).count();
    assert!(warm >= 1, "{found:#?}");
    assert!(tiers[warm..].iter().all(|t| *t == Tier::Cold), "warm first: {tiers:?}");
    let mut cold: Vec<&str> =
        found.hits.iter().filter(|h| h.tier == Tier::Cold).map(|h| h.source.as_str()).collect();
    cold.sort_unstable();
    assert_eq!(cold, ["turn/ops-1/1", "turn/ops-1/2"], "the turns about the key, not lunch");
    let labels: Vec<&str> = found.hits.iter().map(|hit| hit.label.as_str()).collect();
    let expected: Vec<String> = (1..=found.hits.len()).map(|n| format!("M{n}")).collect();
    assert_eq!(labels, expected);

    let turn = found.hits.iter().find(|hit| hit.source == "turn/ops-1/1").unwrap();
    assert_eq!(turn.title, "ops-1 turn 1");
    assert_eq!(turn.session.as_deref(), Some("ops-1"));
    assert_eq!(turn.agent, None, "a transcript is the whole session's");
    assert!(turn.excerpt.starts_with("ann: The deploy key expires"), "{}", turn.excerpt);
    let summary = found.hits.iter().find(|hit| hit.source == "sessions/ops-1").unwrap();
    assert_eq!(summary.session.as_deref(), Some("ops-1"), "a session's summary names it");

    // Enough warm hits leave the cold archive out.
    let one = memcore.recall(&RecallRequest::new("deploy key").limit(1)).unwrap();
    assert_eq!(one.hits.len(), 1);
    assert_eq!(one.hits[0].tier, Tier::Warm);
}

#[test]
fn each_scope_searches_its_tiers() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    memcore.put(NewMemory::new("Rotate the deploy key every month.").id("rotation")).unwrap();
    ended_session(&memcore, "ops-1");

    let warm = recall(&memcore, "deploy key", TierScope::Warm);
    assert!(warm.hits.iter().all(|hit| hit.tier == Tier::Warm), "{warm:#?}");
    let cold = recall(&memcore, "deploy key", TierScope::Cold);
    assert_eq!(cold.hits.len(), 2);
    assert!(cold.hits.iter().all(|hit| hit.tier == Tier::Cold), "{cold:#?}");
    assert_eq!(cold.hits[0].label, "M1");

    // Both tiers, interleaved by rank: the best of each come first.
    let all = recall(&memcore, "deploy key", TierScope::All);
    let tiers: Vec<Tier> = all.hits.iter().map(|hit| hit.tier).collect();
    assert_eq!(tiers[..2], [Tier::Warm, Tier::Cold]);
    assert_eq!(all.hits.len(), warm.hits.len() + cold.hits.len());
    assert_eq!(all.hits[1].source, cold.hits[0].source);
}

#[test]
fn a_live_session_keeps_its_labels_and_its_retrieval_history() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    memcore.put(NewMemory::new("Rotate the deploy key every month.").id("rotation")).unwrap();
    memcore.put(NewMemory::new("The release train leaves on Thursdays.").id("train")).unwrap();
    memcore.session_start(&SessionStartRequest::new("plan")).unwrap();

    let ask = |text: &str| {
        let request = RecallRequest::new(text).mode(SearchMode::Text).session("plan");
        memcore.recall(&request).unwrap()
    };
    let first = ask("release train");
    assert_eq!(first.hits[0].source, "memory/train");
    assert_eq!(first.hits[0].label, "M1");
    let second = ask("deploy key rotation");
    assert_eq!(second.hits[0].source, "memory/rotation");
    assert_eq!(second.hits[0].label, "M2", "a new source takes the next label");
    let third = ask("release train");
    assert_eq!(third.hits[0].label, "M1", "a source keeps its label in the session");

    let live = memcore.session_live("plan").unwrap();
    let queries: Vec<&str> = live.retrievals.iter().map(|r| r.query.as_str()).collect();
    assert_eq!(queries, ["release train", "deploy key rotation", "release train"]);
    assert_eq!(live.retrievals[1].labels[0], "M2");
    let sources: Vec<(&str, &str)> =
        live.evidence.iter().map(|e| (e.label.as_str(), e.source.as_str())).collect();
    assert_eq!(sources[..2], [("M1", "memory/train"), ("M2", "memory/rotation")]);

    // The session's summary lists its sources and its retrieval history.
    memcore.session_turn(&SessionTurnRequest::new("plan", "user", "Ship on Thursday.")).unwrap();
    memcore.session_end(&SessionEndRequest::new("plan")).unwrap();
    let summary = memcore.get("sessions/plan").unwrap();
    assert!(summary.content.contains("## Sources"), "{}", summary.content);
    assert!(summary.content.contains("- [M1] "), "{}", summary.content);
    assert!(summary.content.contains("(memory/train)"), "{}", summary.content);
    assert!(summary.content.contains("## Retrieval history"), "{}", summary.content);
    assert!(summary.content.contains("\"deploy key rotation\" -> M2"), "{}", summary.content);

    // A session that is not live takes no recall.
    let ended = RecallRequest::new("release").session("plan");
    assert!(matches!(memcore.recall(&ended), Err(Error::NotFound { .. })));
}

#[test]
fn a_search_can_ask_for_one_agents_view_or_the_shared_one() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    let put = |id: &str, agent: Option<&str>| {
        let mut memory = NewMemory::new(format!("The budget review: {id}'s take.")).id(id);
        if let Some(agent) = agent {
            memory = memory.meta(memcore::AGENT_KEY, agent);
        }
        memcore.put(memory).unwrap();
    };
    put("shared", None);
    put("alices", Some("alice"));
    put("bobs", Some("bob"));
    let ids = |query: Query| {
        let mut ids: Vec<String> = memcore
            .search(&query.mode(SearchMode::Text))
            .unwrap()
            .hits
            .into_iter()
            .map(|hit| hit.memory.id.to_string())
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(ids(Query::new("budget review")), ["alices", "bobs", "shared"]);
    assert_eq!(ids(Query::new("budget review").agent("alice")), ["alices", "shared"]);
    assert_eq!(ids(Query::new("budget review").shared(true)), ["shared"]);
    let both = Query::new("budget review").agent("alice").shared(true);
    assert!(matches!(memcore.search(&both), Err(Error::Validation { .. })));
    let bad = Query::new("budget review").agent(" ");
    assert!(matches!(memcore.search(&bad), Err(Error::Validation { .. })));

    // A session's agent notes belong to their agent; its summary is shared.
    let start = SessionStartRequest::new("review").agents(["alice", "bob"]);
    memcore.session_start(&start).unwrap();
    let note = SessionNoteRequest::note("review", "Cut the travel budget.").agent("alice");
    memcore.session_note(&note).unwrap();
    memcore.session_turn(&SessionTurnRequest::new("review", "bob", "Travel budget?")).unwrap();
    memcore.session_end(&SessionEndRequest::new("review")).unwrap();
    let notes = memcore.get("sessions/review:alice").unwrap();
    assert_eq!(notes.agent(), Some("alice"));
    let seen_by = |agent: &str| {
        let request =
            RecallRequest::new("travel budget").mode(SearchMode::Text).agent(agent).limit(20);
        memcore.recall(&request).unwrap().hits.into_iter().map(|h| h.source).collect::<Vec<_>>()
    };
    assert!(seen_by("alice").contains(&"sessions/review:alice".to_owned()));
    assert!(!seen_by("bob").contains(&"sessions/review:alice".to_owned()));
    assert!(seen_by("bob").contains(&"turn/review/1".to_owned()), "transcripts are shared");
}

#[test]
fn an_agents_own_evidence_stays_out_of_the_shared_summary() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    let private = NewMemory::new("Alice's salary notes: ask for a raise.").id("salary");
    memcore.put(private.meta(memcore::AGENT_KEY, "alice")).unwrap();
    memcore.put(NewMemory::new("The salary bands are public.").id("bands")).unwrap();
    memcore.session_start(&SessionStartRequest::new("one-on-one").agents(["alice"])).unwrap();
    let ask = RecallRequest::new("salary").mode(SearchMode::Text).session("one-on-one");
    let found = memcore.recall(&ask.clone().agent("alice")).unwrap();
    assert_eq!(found.hits.len(), 2, "{found:#?}");
    let owned = found.hits.iter().find(|hit| hit.source == "memory/salary").unwrap();
    assert_eq!(owned.agent.as_deref(), Some("alice"));
    // An agent outside the session has no view in it.
    let stranger = ask.clone().agent("mallory");
    assert!(matches!(memcore.recall(&stranger), Err(Error::Validation { .. })));

    memcore.session_end(&SessionEndRequest::new("one-on-one")).unwrap();
    let shared = memcore.get("sessions/one-on-one").unwrap().content;
    assert!(!shared.contains("memory/salary") && !shared.contains("raise"), "{shared}");
    assert!(!shared.contains("Retrieval history"), "alice's query is hers: {shared}");
    let hers = memcore.get("sessions/one-on-one:alice").unwrap();
    assert_eq!(hers.agent(), Some("alice"));
    assert!(hers.content.contains("(memory/salary)"), "{}", hers.content);
    assert!(!hers.content.contains("(memory/bands)"), "shared sources go to the summary");
    assert!(shared.contains("(memory/bands)"), "{shared}");
    assert!(hers.content.contains("\"salary\" -> "), "{}", hers.content);

    // A session without named agents lists what a recall in everyone's view delivered,
    // whoever owns it: no agent of the session keeps notes of it.
    memcore.session_start(&SessionStartRequest::new("all-hands")).unwrap();
    let open_view = RecallRequest::new("salary").mode(SearchMode::Text).session("all-hands");
    memcore.recall(&open_view).unwrap();
    let in_view = open_view.clone().agent("alice");
    assert!(matches!(memcore.recall(&in_view), Err(Error::Validation { .. })));
    memcore.session_end(&SessionEndRequest::new("all-hands")).unwrap();
    let summary = memcore.get("sessions/all-hands").unwrap().content;
    assert!(summary.contains("(memory/salary)") && summary.contains("(memory/bands)"), "{summary}");
}

#[test]
fn a_session_end_lists_at_most_fifty_sources() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    let many: Vec<NewMemory> = (0..60)
        .map(|n| {
            NewMemory::new(format!("Runbook step {n} of [[the outage]].")).id(format!("step-{n}"))
        })
        .collect();
    memcore.put_many(many).unwrap();
    memcore.session_start(&SessionStartRequest::new("outage")).unwrap();
    let ask = RecallRequest::new("runbook step [[the outage]]")
        .mode(SearchMode::Text)
        .limit(60)
        .session("outage");
    assert_eq!(memcore.recall(&ask).unwrap().hits.len(), 60);
    memcore.session_end(&SessionEndRequest::new("outage")).unwrap();
    let summary = memcore.get("sessions/outage").unwrap().content;
    assert_eq!(summary.matches("- [M").count(), 50, "{summary}");
    assert!(summary.contains("- ... and 10 more"), "{summary}");
    assert!(!summary.contains("[["), "titles and queries are listed without links: {summary}");
}

#[test]
fn auto_puts_cold_matches_before_warm_hits_by_meaning_alone() {
    let dir = tempfile::tempdir().unwrap();
    let config = Config { backend: Backend::Tiered, ..Config::default() };
    let memcore = Memcore::builder()
        .path(dir.path())
        .config(config)
        .embedder(tiers::letters())
        .open()
        .unwrap();
    memcore.put(NewMemory::new("Quarterly figures look solid.").id("figures")).unwrap();
    ended_session(&memcore, "ops-1");

    let found = memcore.recall(&RecallRequest::new("deploy key").limit(4)).unwrap();
    let order: Vec<(&str, Tier)> =
        found.hits.iter().map(|hit| (hit.source.as_str(), hit.tier)).collect();
    let turn = order.iter().position(|(s, _)| *s == "turn/ops-1/1").unwrap();
    let figures = order.iter().position(|(s, _)| *s == "memory/figures").unwrap();
    assert!(turn < figures, "matching words first, meaning alone after: {order:?}");
}

#[test]
fn cold_hits_keep_the_statuses_and_collections_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    let old = |id: &str, collection: &str| {
        NewMemory::new(format!("The flaky cache test ({id})."))
            .id(id)
            .collection(collection)
            .created_at(at("2025-05-02T10:00:00Z"))
    };
    memcore
        .put_many(vec![old("kept", "notes"), old("gone", "notes"), old("other", "journal")])
        .unwrap();
    memcore.transition("notes/gone", memcore::Status::Archived).unwrap();
    memcore.compact(&CompactRequest::default()).unwrap();
    // Turns about the cache crowd the archive.
    ended_session(&memcore, "ops-1");
    for n in 0..30 {
        let id = format!("chat-{n}");
        memcore.session_start(&SessionStartRequest::new(&id)).unwrap();
        memcore
            .session_turn(&SessionTurnRequest::new(&id, "ann", "The flaky cache test again."))
            .unwrap();
        memcore.session_end(&SessionEndRequest::new(&id)).unwrap();
    }
    let cold = |request: RecallRequest| {
        let request = request.tier(TierScope::Cold).mode(SearchMode::Text).limit(3);
        let mut sources: Vec<String> = memcore
            .recall(&request)
            .unwrap()
            .hits
            .into_iter()
            .map(|hit| hit.source.split('@').next().unwrap().to_owned())
            .collect();
        sources.sort();
        sources
    };
    assert_eq!(cold(RecallRequest::new("flaky cache test").collection("notes")), ["notes/kept"]);
    assert_eq!(
        cold(RecallRequest::new("flaky cache test").collection("journal")),
        ["journal/other"]
    );
}

#[test]
fn digests_and_demoted_memories_carry_their_originals() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    for (id, content) in [("a", "The cache warms at boot."), ("b", "The cache is flushed nightly.")]
    {
        let memory = NewMemory::new(content).id(id).created_at(at("2025-05-02T10:00:00Z"));
        memcore.put(memory).unwrap();
    }
    memcore.compact(&CompactRequest::default()).unwrap();

    let warm = recall(&memcore, "cache", TierScope::Warm);
    let digest = &warm.hits[0];
    assert!(digest.source.starts_with("memory/digest-2025-q2"), "{digest:#?}");
    assert_eq!(digest.origins.len(), 2, "{digest:#?}");
    assert!(
        digest.origins.iter().all(|o| o.starts_with("memory/a@") || o.starts_with("memory/b@"))
    );

    let cold = recall(&memcore, "flushed nightly", TierScope::Cold);
    let demoted = &cold.hits[0];
    assert!(demoted.source.starts_with("memory/b@"), "{demoted:#?}");
    assert_eq!(demoted.origins, ["memory/b"]);
    assert_eq!(demoted.title, "The cache is flushed nightly.");
    // Reading a demoted memory says where it went.
    let gone = memcore.get("memory/b").unwrap_err();
    assert!(matches!(gone, Error::NotFound { .. }), "{gone}");
    assert!(gone.to_string().contains("moved it to the cold tier"), "{gone}");
    assert!(gone.recovery().contains(&demoted.source), "{}", gone.recovery());
    let record = memcore.tiers().unwrap().cold().get(&demoted.source).unwrap();
    assert_eq!(record.memory.unwrap().content, "The cache is flushed nightly.");
    let in_collection = |collection: &str| {
        let request = RecallRequest::new("flushed nightly")
            .tier(TierScope::Cold)
            .mode(SearchMode::Text)
            .collection(collection);
        memcore.recall(&request).unwrap().hits.len()
    };
    assert_eq!(in_collection("memory"), 1);
    assert_eq!(in_collection("elsewhere"), 0);
}

#[test]
fn a_store_without_tiers_recalls_from_its_warm_tier_only() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = Memcore::builder()
        .path(dir.path())
        .config(memcore::Config {
            embedding: memcore::EmbeddingConfig {
                enabled: false,
                ..memcore::EmbeddingConfig::default()
            },
            ..memcore::Config::default()
        })
        .open()
        .unwrap();
    memcore.put(NewMemory::new("Rotate the deploy key every month.")).unwrap();
    let found = recall(&memcore, "deploy key", TierScope::Auto);
    assert_eq!(found.hits.len(), 1);
    assert_eq!(found.hits[0].tier, Tier::Warm);
    for tier in [TierScope::Cold, TierScope::All] {
        let request = RecallRequest::new("deploy key").tier(tier);
        assert!(matches!(memcore.recall(&request), Err(Error::Unsupported { .. })), "{tier:?}");
    }
    let in_session = RecallRequest::new("deploy key").session("plan");
    assert!(matches!(memcore.recall(&in_session), Err(Error::Unsupported { .. })));
    let blank = RecallRequest::new("  ");
    assert!(matches!(memcore.recall(&blank), Err(Error::Validation { .. })));
}

#[test]
fn verify_and_repair_cover_the_cold_archive() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    let segments = dir.path().join(".memcore/tiers/cold/segments");
    let segment = || {
        let mut files: Vec<_> =
            std::fs::read_dir(&segments).unwrap().map(|e| e.unwrap().path()).collect();
        assert_eq!(files.len(), 1, "one quarter: {files:?}");
        files.pop().unwrap()
    };
    ended_session(&memcore, "first");
    let first_len = std::fs::metadata(segment()).unwrap().len();
    let start = SessionStartRequest::new("second");
    memcore.session_start(&start).unwrap();
    memcore
        .session_turn(&SessionTurnRequest::new("second", "bob", "The heron nests by the weir."))
        .unwrap();
    memcore.session_end(&SessionEndRequest::new("second")).unwrap();
    assert!(memcore.verify().unwrap().cold.unwrap().consistent());

    // Damage the first session's frame.
    let path = segment();
    let mut bytes = std::fs::read(&path).unwrap();
    let middle = usize::try_from(first_len / 2).unwrap();
    for byte in &mut bytes[middle..middle + 8] {
        *byte ^= 0xff;
    }
    std::fs::write(&path, bytes).unwrap();

    let report = memcore.verify().unwrap();
    assert!(!report.is_consistent());
    let check = report.cold.unwrap();
    assert_eq!(check.damaged.len(), 1, "{check:?}");
    // The rest is still readable.
    assert_eq!(recall(&memcore, "heron weir", TierScope::Cold).hits[0].source, "turn/second/1");

    let repaired = memcore.repair().unwrap().cold.unwrap();
    assert_eq!(repaired.frames_set_aside, 1);
    let again = memcore.verify().unwrap();
    assert!(again.is_consistent(), "{:?}", again.cold);
    assert!(dir.path().join(".memcore/tiers/cold/damaged").read_dir().unwrap().next().is_some());
    assert_eq!(recall(&memcore, "heron weir", TierScope::Cold).hits.len(), 1);
    // A whole archive is left alone.
    assert_eq!(memcore.repair().unwrap().cold.unwrap(), memcore::ArchiveRepair::default());
}
