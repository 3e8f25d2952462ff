"""`Memcore.put_many`: one batch, items as str or as mappings of `put`'s keyword arguments,
checked exactly as `put` checks them."""

from __future__ import annotations

import datetime as dt
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import memcore

UTC = dt.timezone.utc


def test_items_are_str_or_mappings_and_come_back_in_order(store: memcore.Memcore) -> None:
    when = dt.datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)
    stored = store.put_many(
        [
            "# Plain Content\n\nonly a str",
            {"content": "full", "id": "full", "collection": "notes", "title": "Full", "type": "fact",
             "status": "resolved", "tags": ["a", "b"], "category": "c", "context": "ctx",
             "related_to": ["plain-content"], "project": "p", "priority": "high", "created_by": "me",
             "importance": 0.5, "metadata": {"k": [1, 2]}, "created_at": when, "summary": "s"},
            types.MappingProxyType({"content": "read-only mapping", "id": "proxy"}),
        ]
    )
    assert [m.ref for m in stored] == ["memory/plain-content", "notes/full", "memory/proxy"]
    assert all(isinstance(m, memcore.Memory) and m.version == 1 for m in stored)
    full = stored[1]
    assert (full.title, full.type, full.status, full.tags, full.related_to) == (
        "Full", "fact", "resolved", ("a", "b"), ("plain-content",)
    )
    assert (full.category, full.context, full.project, full.priority, full.created_by) == (
        "c", "ctx", "p", "high", "me"
    )
    assert (full.importance, full.metadata, full.created_at, full.summary) == (0.5, {"k": [1, 2]}, when, "s")
    assert store.get("notes/full") == full
    # One batch, indexed like single puts.
    assert [h.memory.ref for h in store.search("mapping", mode="text")] == ["memory/proxy"]


def test_put_many_is_put_for_each_item(store: memcore.Memcore) -> None:
    kwargs: dict[str, Any] = {"collection": "k", "tags": ["t"], "importance": 0.25, "metadata": {"x": 1}}
    single = store.put("# Same\n\nbody", **kwargs)
    again = store.put_many([{"content": "# Same\n\nbody", **kwargs}])[0]
    assert again.version == 2, "an existing memory is replaced"
    assert (again.ref, again.tags, again.importance, again.metadata) == (
        single.ref, single.tags, single.importance, single.metadata
    )


def test_any_iterable_and_an_empty_one(store: memcore.Memcore) -> None:
    def items() -> Iterator[str]:
        for n in range(3):
            yield f"note {n}"

    assert len(store.put_many(items())) == 3
    assert len(store.put_many(("a", "b"))) == 2
    assert store.put_many([]) == []
    assert len(store.list()) == 5


BAD_ITEMS: list[tuple[str, Any, type[Exception], str]] = [
    ("one str", "just text", memcore.RequestError, "not a single str"),
    ("one mapping", {"content": "x"}, memcore.RequestError, "not a single dict"),
    ("not iterable", 42, memcore.RequestError, "iterable of str or mappings, not int"),
    ("item not str", ["ok", 7], memcore.RequestError, "put_many item 1: expected a str (the content) or a mapping"),
    ("no content", [{"title": "x"}], memcore.RequestError, "`memories[0]`: missing field `content`"),
    ("unknown key", [{"content": "x", "colour": "red"}], memcore.RequestError, "`memories[0].colour`: unknown field `colour`"),
    ("tags as one str", ["ok", {"content": "x", "tags": "solo"}], memcore.RequestError, "`memories[1].tags`"),
    ("content not str", [{"content": 3}], memcore.RequestError, "`memories[0].content`"),
    ("naive datetime", [{"content": "x", "created_at": dt.datetime(2024, 1, 1)}], memcore.ValidationError, "item 0['created_at'] is a datetime without a timezone"),
    ("bad status", ["ok", "ok too", {"content": "x", "status": "done"}], memcore.ValidationError, "`memories[2].status`: unknown variant `done`"),
    ("reserved metadata", [{"content": "x", "metadata": {"tags": []}}], memcore.ValidationError, "memory field"),
    ("create_only in an item", [{"content": "x", "create_only": True}], memcore.RequestError, "`memories[0].create_only`: unknown field"),
    ("bad id", ["ok", {"content": "x", "id": "../escape"}], memcore.ValidationError, ""),
    ("too long id", ["ok", {"content": "x", "id": "a" * 500}], memcore.ValidationError, ""),
]


@pytest.mark.parametrize(
    ("items", "error", "message"),
    [(i, e, m) for _, i, e, m in BAD_ITEMS],
    ids=[name for name, _, _, _ in BAD_ITEMS],
)
def test_bad_items_write_nothing(store: memcore.Memcore, items: Any, error: type[Exception], message: str) -> None:
    """Every item is checked, by the binding and then by the core, before anything is written."""
    with pytest.raises(error) as caught:
        store.put_many(items)
    err = caught.value
    assert type(err) is error
    assert isinstance(err, memcore.ValidationError)
    assert message in str(err)
    assert err.recovery
    assert len(store.list()) == 0


def test_a_failure_while_storing_is_a_storage_error_and_the_batch_can_be_retried(
    store: memcore.Memcore,
) -> None:
    """A failure found while storing (not while checking arguments): a directory squats on
    the second memory's file. Fixing the cause and retrying stores the whole batch (put_many
    replaces, so items stored before the failure are simply stored again)."""
    squatter = store.path / "notes" / "second.md"
    squatter.mkdir(parents=True)
    batch: list[dict[str, Any]] = [
        {"content": f"{name} of the batch", "id": name, "collection": "notes"}
        for name in ("first", "second", "third")
    ]
    with pytest.raises(memcore.StorageError) as caught:
        store.put_many(batch)
    assert "second.md" in str(caught.value) and caught.value.recovery
    squatter.rmdir()
    assert [m.ref for m in store.put_many(batch)] == ["notes/first", "notes/second", "notes/third"]
    assert sorted(h.memory.ref for h in store.search("batch", mode="text")) == [
        "notes/first",
        "notes/second",
        "notes/third",
    ]
    assert store.verify().consistent


def test_create_only_refuses_the_whole_batch_if_one_exists(store: memcore.Memcore) -> None:
    """With `create_only`, every item is checked for a conflict before anything is written."""
    store.put("already here", id="taken", collection="notes")
    batch: list[dict[str, Any]] = [
        {"content": "new", "id": "fresh", "collection": "notes"},
        {"content": "clash", "id": "taken", "collection": "notes"},
    ]
    with pytest.raises(memcore.ConflictError) as caught:
        store.put_many(batch, create_only=True)
    assert "taken" in str(caught.value) and caught.value.recovery
    assert [s.ref for s in store.list()] == ["notes/taken"], "nothing written"
    assert store.get("notes/taken").content == "already here"
    stored = store.put_many([batch[0], {"content": "also new", "id": "fresher"}], create_only=True)
    assert [(m.ref, m.version) for m in stored] == [("notes/fresh", 1), ("memory/fresher", 1)]
    assert store.put_many(batch)[1].version == 2, "without create_only it replaces"


def test_put_many_on_a_closed_handle(store_path: Path) -> None:
    handle = memcore.open(store_path)
    handle.close()
    with pytest.raises(memcore.ValidationError, match="closed"):
        handle.put_many(["never"])
