//! Agent profiles through the public API: set, show with the agent's newest memories,
//! remember within the limit, the agent's view of a search, and bad input.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use memcore::agent::{AgentProfile, AgentRememberRequest, AgentRequest};
use memcore::{Category, Config, EmbeddingConfig, Memcore, NewMemory, Query, SearchMode};

fn open(dir: &std::path::Path) -> Memcore {
    let config = Config {
        embedding: EmbeddingConfig { enabled: false, ..EmbeddingConfig::default() },
        ..Config::default()
    };
    Memcore::builder().path(dir).config(config).open().unwrap()
}

#[test]
fn an_agent_has_a_profile_and_memories_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    let mut profile = AgentProfile::new("loom").persona("A patient weaver.").max_memories(3);
    profile.recent_limit = Some(2);
    profile.fields.insert("voice".into(), "warm".into());
    assert_eq!(memcore.agent_set(&profile).unwrap(), profile);

    for text in ["Prefers wool.", "Knits on Sundays.", "Hates acrylic yarn."] {
        memcore.agent_remember(&AgentRememberRequest::new("loom", text)).unwrap();
    }
    memcore.put(NewMemory::new("Everyone likes the circle's tea.")).unwrap();
    let too_many =
        memcore.agent_remember(&AgentRememberRequest::new("loom", "One more.")).unwrap_err();
    assert_eq!(too_many.category(), Category::Conflict, "{too_many}");

    let view = memcore.agent_profile(&AgentRequest::new("loom")).unwrap();
    assert_eq!(view.profile, profile);
    assert_eq!((view.total, view.memories.len()), (3, 2), "the profile's recent_limit");
    let mut all = AgentRequest::new("loom");
    all.limit = Some(10);
    assert_eq!(memcore.agent_profile(&all).unwrap().memories.len(), 3);

    // The agent's memories are its own in searches: other agents' views leave them out.
    let mut mine = Query::new("acrylic").mode(SearchMode::Text);
    mine.agent = Some("loom".into());
    assert_eq!(memcore.search(&mine).unwrap().hits.len(), 1);
    mine.agent = Some("patch".into());
    assert!(memcore.search(&mine).unwrap().hits.is_empty());

    // A profile is not aged away by the lifecycle.
    let later = memcore::parse_timestamp("2999-01-01T00:00:00Z").unwrap();
    let plan = memcore
        .process_lifecycle(&memcore::decay::LifecycleOptions::new().now(later).dry_run(true))
        .unwrap();
    let profile_ref: memcore::MemoryRef = "agents/loom".parse().unwrap();
    assert!(plan.steps.iter().all(|step| step.reference != profile_ref));
}

#[test]
fn the_same_text_remembered_by_two_agents_is_two_memories() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    for agent in ["loom", "patch"] {
        memcore.agent_set(&AgentProfile::new(agent)).unwrap();
    }
    let first = memcore.agent_remember(&AgentRememberRequest::new("loom", "Tea at four.")).unwrap();
    let second =
        memcore.agent_remember(&AgentRememberRequest::new("patch", "Tea at four.")).unwrap();
    assert_ne!(first.reference(), second.reference());
    assert_eq!(memcore.agent_profile(&AgentRequest::new("loom")).unwrap().total, 1);
    let mut reserved = AgentRememberRequest::new("loom", "# loom\n\nTaken over?");
    reserved.collection = Some("agents".into());
    let err = memcore.agent_remember(&reserved).unwrap_err();
    assert_eq!(err.category(), Category::Validation, "{err}");
}

#[test]
fn unknown_agents_and_bad_ids_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    let unknown = memcore.agent_profile(&AgentRequest::new("nobody")).unwrap_err();
    assert_eq!(unknown.category(), Category::NotFound);
    assert!(unknown.recovery().contains("agent_set"), "{}", unknown.recovery());
    let remember = memcore.agent_remember(&AgentRememberRequest::new("nobody", "x")).unwrap_err();
    assert_eq!(remember.category(), Category::NotFound);
    let bad = memcore.agent_set(&AgentProfile::new("Not An Id")).unwrap_err();
    assert_eq!(bad.category(), Category::Validation);
    assert!(memcore.list(&memcore::ListOptions::new()).unwrap().memories.is_empty());
}
