//! The link graph through the public API on real stores: ghost nodes and memory edges,
//! reverse lookup after update and delete, the graph across reopening, verify and repair of a
//! stale graph, linked search with anchors, graph expansion, append, merge and its refusals,
//! and link statistics.

// Test helpers outside #[test] functions unwrap too; a failure there is a test failure.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use memcore::links::MergeRequest;
use memcore::{
    Category, Config, EmbeddingConfig, ListOptions, Memcore, MemoryUpdate, NewMemory, Query,
    SearchMode,
};

fn config() -> Config {
    Config {
        embedding: EmbeddingConfig { enabled: false, ..EmbeddingConfig::default() },
        ..Config::default()
    }
}

fn open(dir: &Path) -> Memcore {
    Memcore::builder().path(dir).config(config()).open().unwrap()
}

/// A small bank: a plan linking a file and a memory, a journal linking the same file.
fn bank(dir: &Path) -> Memcore {
    let memcore = open(dir);
    memcore
        .put(
            NewMemory::new("# GPU notes\n\nPrefer Metal on Apple silicon.").collection("knowledge"),
        )
        .unwrap();
    memcore
        .put(
            NewMemory::new(
                "We will refactor [[src/server.py]] before the release; see [[gpu-notes|GPU]].",
            )
            .id("plan"),
        )
        .unwrap();
    memcore
        .put(
            NewMemory::new("Fixed a bug in [[./src/server.py]] where requests hung.").id("journal"),
        )
        .unwrap();
    memcore
}

fn sources(edges: &[memcore::links::LinkEdge]) -> Vec<String> {
    edges.iter().map(|e| e.source.to_string()).collect()
}

#[test]
fn links_reach_memories_and_ghost_nodes_with_types_and_anchors() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = bank(dir.path());
    let links = memcore.links("plan").unwrap();
    assert_eq!(links.len(), 2);
    assert_eq!((links[0].node.as_str(), links[0].ghost), ("ghost:src/server.py", true));
    assert_eq!(links[0].edge_type, "refactors");
    assert!(links[0].anchor.contains("We will refactor [[src/server.py]]"));
    assert_eq!((links[1].node.as_str(), links[1].ghost), ("knowledge/gpu-notes", false));
    assert_eq!(links[1].label.as_deref(), Some("GPU"));

    let back = memcore.backlinks("ghost:src/server.py").unwrap();
    assert_eq!(sources(&back), ["memory/journal", "memory/plan"]);
    assert_eq!(back[0].edge_type, "debugs");
    assert_eq!(memcore.backlinks("src/server.py").unwrap(), back, "with or without ghost:");
    // A memory's backlinks count links by id and by collection/id.
    assert_eq!(sources(&memcore.backlinks("knowledge/gpu-notes").unwrap()), ["memory/plan"]);
    assert_eq!(sources(&memcore.backlinks("gpu-notes").unwrap()), ["memory/plan"]);
    assert!(memcore.backlinks("nothing/links/here").unwrap().is_empty());
    assert!(memcore.backlinks("../escape").unwrap().is_empty());
}

#[test]
fn reverse_lookup_follows_updates_deletes_and_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = bank(dir.path());
    memcore.update("journal", MemoryUpdate::new().content("No links any more.")).unwrap();
    assert_eq!(sources(&memcore.backlinks("src/server.py").unwrap()), ["memory/plan"]);
    memcore.delete("plan").unwrap();
    assert!(memcore.backlinks("src/server.py").unwrap().is_empty());
    memcore.restore("plan").unwrap();
    drop(memcore);
    let reopened = open(dir.path());
    assert_eq!(sources(&reopened.backlinks("src/server.py").unwrap()), ["memory/plan"]);
}

#[test]
fn verify_finds_a_stale_graph_and_repair_fixes_it() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = bank(dir.path());
    // An edit behind memcore's back adds a link the index does not know.
    let path = dir.path().join("memory/journal.md");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("where requests hung.", "see [[docs/ops.md]].")).unwrap();
    assert!(memcore.backlinks("docs/ops.md").unwrap().is_empty());
    assert!(!memcore.verify().unwrap().consistent);
    memcore.repair().unwrap();
    assert!(memcore.verify().unwrap().consistent);
    assert_eq!(sources(&memcore.backlinks("docs/ops.md").unwrap()), ["memory/journal"]);
}

#[test]
fn linked_search_is_restricted_and_carries_anchors() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = bank(dir.path());
    memcore.put(NewMemory::new("Requests to the server hung again today.").id("other")).unwrap();
    let query = Query::new("server requests").mode(SearchMode::Text).linked_to("src/server.py");
    let results = memcore.search(&query).unwrap();
    let found: Vec<String> = results.hits.iter().map(|h| h.memory.reference.to_string()).collect();
    assert!(found.contains(&"memory/journal".to_owned()), "{found:?}");
    assert!(!found.contains(&"memory/other".to_owned()), "only memories linking to the target");
    for hit in &results.hits {
        assert!(!hit.links.is_empty() && hit.links.iter().all(|l| l.target == "src/server.py"));
    }
    let none = Query::new("server").mode(SearchMode::Text).linked_to("ghost:nowhere");
    assert!(memcore.search(&none).unwrap().hits.is_empty());
}

#[test]
fn graph_expansion_brings_in_linked_memories() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = bank(dir.path());
    let plain = Query::new("refactor release").mode(SearchMode::Text);
    let refs = |q: &Query| -> Vec<String> {
        memcore.search(q).unwrap().hits.iter().map(|h| h.memory.reference.to_string()).collect()
    };
    assert_eq!(refs(&plain), ["memory/plan"]);
    let expanded = refs(&plain.clone().expand_links(true));
    assert_eq!(expanded[0], "memory/plan");
    assert!(expanded.contains(&"knowledge/gpu-notes".to_owned()), "{expanded:?}");
    let hit = memcore.search(&plain.expand_links(true)).unwrap().hits.pop().unwrap();
    assert!(hit.parts.link.is_some());
}

#[test]
fn append_adds_a_version_and_its_links() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = bank(dir.path());
    let appended = memcore.append("journal", "Follow-up in [[docs/ops.md]].").unwrap();
    assert_eq!(appended.version, 2);
    assert!(appended.content.ends_with("where requests hung.\n\nFollow-up in [[docs/ops.md]].\n"));
    assert_eq!(sources(&memcore.backlinks("docs/ops.md").unwrap()), ["memory/journal"]);
    let err = memcore.append("journal", "  ").unwrap_err();
    assert_eq!(err.category(), Category::Validation);
}

#[test]
fn merge_unites_repoints_and_trashes() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = bank(dir.path());
    memcore.put(NewMemory::new("Uses [[plan]] and [[memory/journal|J]].").id("index")).unwrap();
    let request: MergeRequest = serde_json::from_value(serde_json::json!(
        {"refs": ["plan", "journal"], "into": "server-work", "summary": "All about the server."}
    ))
    .unwrap();
    let merged = memcore.merge(&request).unwrap();
    let memory = &merged.memory.memory;
    assert_eq!(merged.memory.reference.to_string(), "memory/server-work");
    assert!(memory.content.starts_with("All about the server.\n\n## We will refactor"));
    assert_eq!(merged.trashed.len(), 2);
    assert_eq!(
        merged.repointed.iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["memory/index"]
    );
    assert_eq!(
        memcore.get("index").unwrap().content,
        "Uses [[memory/server-work]] and [[memory/server-work|J]]."
    );
    assert_eq!(
        sources(&memcore.backlinks("src/server.py").unwrap()),
        ["memory/server-work", "memory/server-work"]
    );
    let ids: Vec<String> = memcore
        .list(&ListOptions::new())
        .unwrap()
        .memories
        .iter()
        .map(|m| m.id.to_string())
        .collect();
    assert_eq!(ids, ["gpu-notes", "index", "server-work"]);
}

#[test]
fn bad_merges_are_refused_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = bank(dir.path());
    let listed = |m: &Memcore| -> Vec<(String, u64)> {
        m.list(&ListOptions::new())
            .unwrap()
            .memories
            .iter()
            .map(|s| (s.reference.to_string(), s.version))
            .collect()
    };
    let before = listed(&memcore);
    for (request, category) in [
        (serde_json::json!({"refs": ["plan"], "into": "plan"}), Category::Validation),
        (serde_json::json!({"refs": ["plan", "plan"], "into": "x"}), Category::Validation),
        (serde_json::json!({"refs": [], "into": "x"}), Category::Validation),
        (serde_json::json!({"refs": ["plan", "nope"], "into": "x"}), Category::NotFound),
        (serde_json::json!({"refs": ["plan"], "into": "journal"}), Category::Conflict),
    ] {
        let request: MergeRequest = serde_json::from_value(request.clone()).unwrap();
        let err = memcore.merge(&request).unwrap_err();
        assert_eq!(err.category(), category, "{request:?}: {err}");
    }
    assert_eq!(listed(&memcore), before);
}

#[test]
fn stats_count_links_types_ghosts_and_top_targets() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = bank(dir.path());
    let links = memcore.stats().unwrap().links;
    assert_eq!((links.links, links.linking_memories, links.targets, links.ghosts), (3, 2, 2, 1));
    assert_eq!(links.edge_types["refactors"], 2, "{links:?}");
    assert_eq!(links.edge_types["debugs"], 1);
    assert_eq!(
        (links.top_targets[0].node.as_str(), links.top_targets[0].links),
        ("ghost:src/server.py", 2)
    );
}

#[test]
fn a_bare_id_held_by_two_collections_names_the_first_only() {
    let dir = tempfile::tempdir().unwrap();
    let memcore = open(dir.path());
    memcore.put(NewMemory::new("First.").id("x").collection("a")).unwrap();
    memcore.put(NewMemory::new("Second.").id("x").collection("b")).unwrap();
    memcore.put(NewMemory::new("See [[x]].").id("m")).unwrap();
    assert_eq!(memcore.links("m").unwrap()[0].node, "a/x");
    assert_eq!(sources(&memcore.backlinks("a/x").unwrap()), ["memory/m"]);
    assert!(memcore.backlinks("b/x").unwrap().is_empty(), "[[x]] is a/x, not b/x");
    assert_eq!(memcore.stats().unwrap().links.top_targets[0].node, "a/x");
}
