"""The core's operations as data: `memcore.operations()` lists them with the JSON Schemas of
their request and result records, `Memcore.call` runs any of them by name, and `stats()`,
the one without a method of old."""

from __future__ import annotations

from pathlib import Path

import pytest

import memcore
from conftest import write_file

#: The operations every method of `Memcore` stands on.
METHODS = {
    "put", "get", "update", "delete", "restore", "search", "list", "collections", "versions",
    "diff", "hydrate", "stats", "verify", "repair", "reindex", "sync", "transition", "lifecycle",
    "keepit_list", "keepit_set", "keepit_preview", "opened", "capture",
    "links", "backlinks", "append", "merge", "compose", "session_add", "session_list",
    "session_show", "session_compress", "session_compose", "session_prune",
    "session_start", "session_turn", "session_note", "session_live", "session_end", "timeline",
    "compact", "retain", "purge", "recall",
}


def test_operations_list_each_operation_with_its_schemas() -> None:
    operations = memcore.operations()
    names = [op["name"] for op in operations]
    assert len(names) == len(set(names))
    assert METHODS <= set(names)
    for op in operations:
        assert set(op) == {"name", "summary", "access", "request", "result"}, op["name"]
        assert op["access"] in {"reads", "writes"}, op["name"]
        assert isinstance(op["summary"], str) and op["summary"]
        assert op["request"]["type"] == "object", op["name"]
        assert isinstance(op["result"], dict) and op["result"], op["name"]
    by_name = {op["name"]: op for op in operations}
    assert by_name["search"]["access"] == "reads"
    assert by_name["put"]["access"] == "writes"
    search = by_name["search"]["request"]
    assert search["required"] == ["text"]
    assert {"text", "mode", "limit", "recency", "created_after"} <= set(search["properties"])
    assert search["additionalProperties"] is False, "unknown fields are refused"
    assert by_name["put"]["request"]["required"] == ["memories"]
    assert by_name["verify"]["request"].get("properties", {}) == {}
    assert by_name["verify"]["result"]["title"] == "VerifyReport"
    assert by_name["search"]["result"]["title"] == "SearchResults"
    assert memcore.operations() == operations, "the same list on every call"


@pytest.fixture
def kettles(store: memcore.Memcore) -> memcore.Memory:
    """A memory stored through `call`, with two versions."""
    stored = store.call("put", memories=[{"content": "# Kettles\n\nA kettle boils water.", "tags": ["tea"]}])
    assert set(stored) == {"memories"}
    (memory,) = stored["memories"]
    assert isinstance(memory, memcore.Memory)
    changed = store.call("update", ref=memory.ref, change={"tags": ["kitchen"], "merge_tags": True})
    assert isinstance(changed, memcore.Memory)
    return changed


def test_call_returns_the_records_the_methods_return(store: memcore.Memcore, kettles: memcore.Memory) -> None:
    assert (kettles.ref, kettles.version, kettles.tags) == ("memory/kettles", 2, ("tea", "kitchen"))
    assert store.call("get", {"ref": "kettles"}) == kettles == store.get("kettles")
    assert store.call("get", ref="kettles", version="1") == store.get_version("kettles", 1)
    assert store.call("get", ref="kettles", version=None) == kettles, "None counts as left out"
    assert store.call("collections") == {"collections": ("memory",)}
    assert store.call("versions", ref="kettles") == {"versions": tuple(store.versions("kettles"))}
    assert store.call("stats") == store.stats()
    assert store.call("verify") == store.verify()
    listing = store.call("list", filters={"tags": "kitchen"})
    assert isinstance(listing, memcore.Listing) and [s.ref for s in listing] == ["memory/kettles"]
    rebuilt = store.call("reindex")
    assert isinstance(rebuilt, memcore.ReindexReport) and rebuilt.memories == 1


def test_call_takes_a_request_mapping_and_keywords_together(
    store: memcore.Memcore, kettles: memcore.Memory
) -> None:
    """A mapping holds fields that are not Python names (`from`); keywords are added to it and
    win over the same field in it."""
    diff = store.call("diff", {"ref": kettles.ref, "from": "1"}, to="2")
    assert diff == {"diff": store.diff("kettles", 1, 2)}
    assert "+- kitchen" in diff["diff"]
    results = store.call("search", {"text": "kettle boils", "mode": "hybrid"}, mode="text", limit=5)
    assert isinstance(results, memcore.SearchResults)
    assert results.mode == "text" and results.warnings == ()
    assert [hit.memory.ref for hit in results] == ["memory/kettles"]
    assert results == store.search("kettle boils", mode="text", limit=5)
    trashed = store.call("delete", {"ref": "kettles"})
    assert isinstance(trashed, memcore.TrashEntry) and trashed.ref == kettles.ref
    assert store.call("restore", {"ref": "kettles"}) == kettles


def test_call_refuses_what_does_not_fit(store: memcore.Memcore, kettles: memcore.Memory) -> None:
    with pytest.raises(memcore.RequestError, match='unknown operation "fetch"') as unknown:
        store.call("fetch", ref="kettles")
    assert "put, get" in unknown.value.recovery
    with pytest.raises(memcore.RequestError, match="missing field `ref`"):
        store.call("get")
    with pytest.raises(memcore.RequestError, match="at `limmit`: unknown field `limmit`"):
        store.call("search", {"text": "kettle"}, limmit=3)
    with pytest.raises(memcore.RequestError, match="at `memories\\[0\\].tags`"):
        store.call("put", memories=[{"content": "x", "tags": "solo"}])
    with pytest.raises(memcore.RequestError, match="the request must be a mapping, not list") as shape:
        store.call("get", ["kettles"])  # type: ignore[arg-type]
    assert isinstance(shape.value, TypeError)
    with pytest.raises(memcore.ValidationError, match="empty"):
        store.call("search", text=" ")
    assert store.stats().memories == 1 and store.get("kettles") == kettles, "nothing written"


def test_call_on_a_closed_handle(store_path: Path) -> None:
    handle = memcore.open(store_path)
    handle.close()
    with pytest.raises(memcore.ValidationError, match="closed"):
        handle.call("stats")


def test_stats_count_by_collection_and_status(store: memcore.Memcore) -> None:
    empty = store.stats()
    assert isinstance(empty, memcore.Stats)
    assert (empty.memories, empty.collections, empty.statuses, empty.unreadable) == (0, {}, {}, 0)

    store.put_many(
        [
            {"content": "one", "id": "one", "collection": "decisions"},
            {"content": "two", "id": "two", "collection": "decisions", "status": "resolved"},
            {"content": "three", "id": "three", "collection": "notes"},
        ]
    )
    write_file(store.path / "notes" / "broken.md", "---\ntags: [oops\n---\nx\n")
    stats = store.stats()
    assert stats.memories == 3
    assert stats.collections == {"decisions": 2, "notes": 1}
    assert stats.statuses == {"active": 2, "resolved": 1}
    assert stats.unreadable == 1
    assert repr(stats) == (
        "Stats(memories=3, collections={'decisions': 2, 'notes': 1}, "
        "statuses={'active': 2, 'resolved': 1}, unreadable=1)"
    )
    data = stats.to_dict()
    assert data.pop("links")["links"] == 0
    assert data == {
        "memories": 3,
        "collections": {"decisions": 2, "notes": 1},
        "statuses": {"active": 2, "resolved": 1},
        "unreadable": 1,
    }
    assert stats == store.stats() and stats != empty
