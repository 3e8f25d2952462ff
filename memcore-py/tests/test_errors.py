"""The exception hierarchy, the mapping from core errors, and bad input of every kind."""

from __future__ import annotations

import builtins
import datetime as dt
import fcntl
import pickle
import sys
from pathlib import Path
from typing import Any

import pytest

import memcore
from conftest import write_file

SUBCLASSES = {
    memcore.NotFoundError: "NOT_FOUND",
    memcore.ValidationError: "VALIDATION",
    memcore.ConflictError: "CONFLICT",
    memcore.StorageError: "STORAGE",
    memcore.CorruptedError: "PARSE",
    memcore.MemcoreIndexError: "INDEX",
    memcore.EmbeddingError: "EMBEDDING",
    memcore.UnsupportedError: "UNSUPPORTED",
}


class TestHierarchy:
    def test_every_class_is_a_memcore_error_with_its_category(self) -> None:
        assert issubclass(memcore.MemcoreError, Exception)
        for cls, category in SUBCLASSES.items():
            assert issubclass(cls, memcore.MemcoreError), cls
            assert cls.category == category
            assert cls.__module__ == "memcore"
            assert cls.__doc__

    def test_validation_error_is_also_a_value_error(self) -> None:
        assert issubclass(memcore.ValidationError, ValueError)
        others = set(SUBCLASSES) - {memcore.ValidationError}
        assert not any(issubclass(cls, ValueError) for cls in others)

    def test_the_builtin_index_error_is_not_shadowed(self) -> None:
        assert "IndexError" not in memcore.__all__
        assert not hasattr(memcore, "IndexError")
        assert not issubclass(memcore.MemcoreIndexError, builtins.IndexError)
        namespace: dict[str, Any] = {}
        exec("from memcore import *", namespace)
        assert "IndexError" not in namespace

    def test_errors_can_be_raised_and_caught_from_python(self) -> None:
        with pytest.raises(memcore.MemcoreError) as caught:
            raise memcore.NotFoundError("made by hand")
        assert caught.value.category == "NOT_FOUND"
        assert caught.value.recovery == ""


class TestMapping:
    def test_not_found(self, store: memcore.Memcore) -> None:
        with pytest.raises(memcore.NotFoundError) as caught:
            store.get("missing")
        err = caught.value
        assert str(err) == "memory 'missing' not found"
        assert err.category == "NOT_FOUND"
        assert "list" in err.recovery
        assert err.__notes__ == [f"hint: {err.recovery}"]

    def test_validation(self, store: memcore.Memcore) -> None:
        with pytest.raises(memcore.ValidationError) as caught:
            store.put("x", id="../escape")
        assert caught.value.category == "VALIDATION"
        assert caught.value.recovery

    def test_conflict_for_an_ambiguous_id(self, store: memcore.Memcore) -> None:
        store.put("a", id="twin", collection="decisions")
        store.put("b", id="twin", collection="progress")
        with pytest.raises(memcore.ConflictError) as caught:
            store.get("twin")
        assert "collection" in caught.value.recovery
        assert store.get("twin", collection="progress").content == "b"

    def test_storage(self, tmp_path: Path) -> None:
        blocker = tmp_path / "a-file"
        blocker.write_text("not a directory")
        with pytest.raises(memcore.StorageError) as caught:
            memcore.open(blocker / "store")
        assert caught.value.category == "STORAGE"
        assert str(blocker) in str(caught.value)

    def test_a_file_where_the_store_should_be_is_a_validation_error(self, tmp_path: Path) -> None:
        blocker = tmp_path / "a-file"
        blocker.write_text("x")
        with pytest.raises(memcore.ValidationError, match="not a directory"):
            memcore.open(blocker)

    def test_corrupted_names_file_and_line(self, store: memcore.Memcore) -> None:
        broken = write_file(
            store.path / "notes" / "broken.md",
            "---\ntitle: fine\ntags: [unclosed\n---\nbody\n",
        )
        with pytest.raises(memcore.CorruptedError) as caught:
            store.get("notes/broken")
        err = caught.value
        assert err.category == "PARSE"
        assert err.path == str(broken)
        assert isinstance(err.line, int) and err.line >= 2
        assert str(broken) in str(err)

    def test_unsupported_without_history(self, store_path: Path) -> None:
        write_file(store_path / "config.yaml", "versioning: off\n")
        with memcore.open(store_path) as handle:
            handle.put("x", id="nohist")
            with pytest.raises(memcore.UnsupportedError) as caught:
                handle.versions("nohist")
        assert caught.value.category == "UNSUPPORTED"

    def test_lock_timeout_is_a_conflict(self, store_path: Path) -> None:
        write_file(store_path / "config.yaml", "lock_timeout_ms: 200\n")
        with memcore.open(store_path) as handle:
            lock = store_path / ".memcore" / "lock"
            with open(lock, "a") as held:
                fcntl.flock(held, fcntl.LOCK_EX)
                with pytest.raises(memcore.ConflictError, match="store lock"):
                    handle.put("x", id="blocked")
            assert handle.put("x", id="free").version == 1

    def test_errors_pickle_with_their_attributes(self, store: memcore.Memcore) -> None:
        with pytest.raises(memcore.NotFoundError) as caught:
            store.get("missing")
        again = pickle.loads(pickle.dumps(caught.value))
        assert type(again) is memcore.NotFoundError
        assert (str(again), again.category, again.recovery) == (
            str(caught.value),
            "NOT_FOUND",
            caught.value.recovery,
        )

    def test_a_panic_becomes_a_memcore_error(self, store: memcore.Memcore) -> None:
        with pytest.raises(memcore.MemcoreError) as caught:
            memcore._memcore._panic_for_tests("boom")
        err = caught.value
        assert type(err) is memcore.MemcoreError
        assert err.category == "INTERNAL"
        assert "boom" in str(err)
        assert "bug" in err.recovery
        store.put("still works", id="after-panic")
        assert store.get("after-panic").content == "still works"


BAD_TYPES: list[tuple[str, dict[str, Any], str]] = [
    ("content int", {"content": 123}, "content"),
    ("tags as one str", {"tags": "gpu"}, "single str"),
    ("tags item", {"tags": ["ok", 1]}, "item 1 is int"),
    ("tags not iterable", {"tags": 5}, "tags"),
    ("related_to str", {"related_to": "x"}, "related_to"),
    ("metadata list", {"metadata": [1]}, "metadata must be a dict"),
    ("metadata key", {"metadata": {1: "x"}}, "keys must be str"),
    ("metadata set", {"metadata": {"k": {1, 2}}}, "metadata['k'] has type set"),
    ("metadata nested object", {"metadata": {"k": [object()]}}, "metadata['k'][0]"),
    ("importance str", {"importance": "high"}, "importance"),
    ("created_at str", {"created_at": "2024-01-01"}, "datetime"),
    ("status int", {"status": 1}, "status"),
    ("create_only str", {"create_only": "yes"}, "create_only"),
    ("id int", {"id": 7}, "id"),
]


@pytest.mark.parametrize(("kwargs", "message"), [(k, m) for _, k, m in BAD_TYPES], ids=[n for n, _, _ in BAD_TYPES])
def test_wrong_types_are_type_errors(store: memcore.Memcore, kwargs: dict[str, Any], message: str) -> None:
    named = message in kwargs
    kwargs = {"content": "x", **kwargs}
    content = kwargs.pop("content")
    with pytest.raises(TypeError) as caught:
        store.put(content, **kwargs)
    # pyo3 names the argument in a note ("while processing 'tags'") shown under the message;
    # notes exist from Python 3.11 on, so before that only our own messages are checked.
    shown = "\n".join([str(caught.value), *getattr(caught.value, "__notes__", [])])
    if sys.version_info >= (3, 11) or not named:
        assert message in shown
    assert len(store.list()) == 0


BAD_VALUES: list[tuple[str, dict[str, Any], str]] = [
    ("empty content", {"content": "  \n"}, "content is empty"),
    ("huge content", {"content": "x" * (100 * 1024 + 1)}, "content too large"),
    ("bad id", {"id": "Not An Id"}, "id"),
    ("bad collection", {"collection": ".trash"}, "collection"),
    ("long summary", {"summary": "s" * 101}, "summary too long"),
    ("importance range", {"importance": 1.5}, "importance"),
    ("importance nan", {"importance": float("nan")}, "importance"),
    ("unknown status", {"status": "done"}, "unknown status"),
    ("reserved metadata key", {"metadata": {"version": "x"}}, "memory field"),
    ("nan metadata", {"metadata": {"k": float("inf")}}, "cannot be stored"),
    ("huge int metadata", {"metadata": {"k": 2**70}}, "64-bit"),
    ("naive datetime", {"created_at": dt.datetime(2024, 1, 1)}, "no timezone"),
]


@pytest.mark.parametrize(("kwargs", "message"), [(k, m) for _, k, m in BAD_VALUES], ids=[n for n, _, _ in BAD_VALUES])
def test_wrong_values_are_validation_errors(store: memcore.Memcore, kwargs: dict[str, Any], message: str) -> None:
    kwargs = {"content": "x", **kwargs}
    content = kwargs.pop("content")
    with pytest.raises(memcore.ValidationError) as caught:
        store.put(content, **kwargs)
    assert isinstance(caught.value, ValueError)
    assert message in str(caught.value)
    assert caught.value.recovery
    assert len(store.list()) == 0, "nothing may be written"


def test_other_bad_arguments(store: memcore.Memcore, tmp_path: Path) -> None:
    store.put("x", id="there")
    with pytest.raises(TypeError):
        store.get(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        store.get("there", "memory")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword"):
        store.get("there", colection="memory")  # type: ignore[call-arg]
    with pytest.raises(memcore.ValidationError):
        store.get("../etc/passwd")
    with pytest.raises(memcore.ValidationError, match="id"):
        store.get("a/b", collection="memory")
    with pytest.raises(memcore.ValidationError, match="collection"):
        store.get("there", collection="Bad Name")
    with pytest.raises(memcore.ValidationError, match="unknown format"):
        store.get("there").render("xml")  # type: ignore[arg-type]
    with pytest.raises(memcore.ValidationError, match="limit must be 0 or more"):
        store.list(limit=-1)
    with pytest.raises(memcore.ValidationError, match="offset"):
        store.list(offset=-5)
    with pytest.raises(TypeError):
        store.list(limit="3")  # type: ignore[arg-type]
    with pytest.raises(memcore.ValidationError, match="invalid filter"):
        store.list(filters="tags")
    with pytest.raises(memcore.ValidationError, match="invalid filter"):
        store.list(filters={"tags": []})
    with pytest.raises(TypeError, match="item 0 is int"):
        store.list(filters=[1])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="expected a list of str, not int"):
        store.list(filters=42)  # type: ignore[arg-type]
    with pytest.raises(memcore.ValidationError, match="collection"):
        store.list(collection="../up")
    with pytest.raises(TypeError, match="rev"):
        store.get_version("there", True)
    with pytest.raises(TypeError, match="rev"):
        store.get_version("there", 1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="single str"):
        store.update("there", tags="solo")
    with pytest.raises(memcore.ValidationError, match="memory field"):
        store.update("there", metadata={"tags": ["x"]})
    with pytest.raises(memcore.ValidationError, match="unknown scope"):
        memcore.open(scope="nowhere")  # type: ignore[arg-type]
    with pytest.raises(memcore.ValidationError, match="not both"):
        memcore.open(tmp_path, scope="global")
    with pytest.raises(TypeError):
        memcore.open(42)  # type: ignore[arg-type]
    assert store.get("there").version == 1, "no failed call changed anything"
