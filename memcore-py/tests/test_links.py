"""The link graph through the Python API: links and backlinks as typed records, ghost nodes,
linked search with anchors, append, merge (and its refusals), link statistics."""

from __future__ import annotations

import pytest

import memcore


@pytest.fixture
def bank(store: memcore.Memcore) -> memcore.Memcore:
    store.put("# GPU notes\n\nPrefer Metal on Apple silicon.", collection="knowledge")
    store.put("We will refactor [[src/server.py]] soon; see [[gpu-notes|GPU]].", id="plan")
    store.put("Fixed a bug in [[./src/server.py]] where requests hung.", id="journal")
    return store


def test_links_and_backlinks_are_typed_records(bank: memcore.Memcore) -> None:
    ghost, memory = bank.links("plan")
    assert isinstance(ghost, memcore.LinkEdge)
    assert (ghost.node, ghost.ghost, ghost.type) == ("ghost:src/server.py", True, "refactors")
    assert (memory.node, memory.ghost, memory.label) == ("knowledge/gpu-notes", False, "GPU")
    content = bank.get("plan").content
    assert content[ghost.start_char : ghost.end_char] == "[[src/server.py]]"
    back = bank.backlinks("ghost:src/server.py")
    assert [e.source for e in back] == ["memory/journal", "memory/plan"]
    assert back[0].type == "debugs" and "Fixed a bug" in back[0].anchor
    assert bank.backlinks("nowhere") == []


def test_linked_search_carries_anchors(bank: memcore.Memcore) -> None:
    bank.put("Requests to the server hung again.", id="other")
    results = bank.search("requests hung", mode="text", linked_to="src/server.py")
    assert [hit.memory.ref for hit in results] == ["memory/journal"], "not memory/other"
    (link,) = results[0].links
    assert link.target == "src/server.py"
    expanded = bank.search("refactor soon", mode="text", expand_links=True)
    assert [hit.memory.ref for hit in expanded] == ["memory/plan", "knowledge/gpu-notes"]
    assert expanded[1].parts.link is not None


def test_append_and_merge(bank: memcore.Memcore) -> None:
    appended = bank.append("journal", "See also [[docs/ops.md]].")
    assert appended.version == 2 and appended.content.endswith("See also [[docs/ops.md]].\n")
    bank.put("Index: [[plan]], [[journal]].", id="index")
    merged = bank.merge(["plan", "journal"], into="server-work", summary="The server.")
    assert isinstance(merged, memcore.MergeResult)
    assert merged.memory.ref == "memory/server-work"
    assert [entry.ref for entry in merged.trashed] == ["memory/plan", "memory/journal"]
    assert merged.repointed == ("memory/index",)
    assert bank.get("index").content == "Index: [[memory/server-work]], [[memory/server-work]]."
    with pytest.raises(memcore.ValidationError, match="into itself"):
        bank.merge(["index"], into="index")
    with pytest.raises(memcore.NotFoundError):
        bank.merge(["plan"], into="again")
    with pytest.raises(memcore.ValidationError):
        bank.append("index", "   ")


def test_stats_count_the_graph(bank: memcore.Memcore) -> None:
    links = bank.stats().links
    assert isinstance(links, memcore.LinkStats)
    assert (links.links, links.linking_memories, links.targets, links.ghosts) == (3, 2, 2, 1)
    top = links.top_targets[0]
    assert isinstance(top, memcore.TargetCount)
    assert (top.node, top.links) == ("ghost:src/server.py", 2)
    assert links.edge_types["debugs"] == 1
