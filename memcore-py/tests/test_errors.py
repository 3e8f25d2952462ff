"""The exception hierarchy, the mapping from core errors, and bad input of every kind."""

from __future__ import annotations

import builtins
import datetime as dt
import fcntl
import pickle
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
    memcore.CallbackError: "CALLBACK",
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

    def test_request_error_is_a_validation_error_and_a_type_error(self) -> None:
        assert issubclass(memcore.RequestError, memcore.ValidationError)
        assert issubclass(memcore.RequestError, TypeError)
        assert issubclass(memcore.RequestError, ValueError)
        assert memcore.RequestError.category == "VALIDATION"
        assert memcore.RequestError.__module__ == "memcore" and memcore.RequestError.__doc__
        assert not issubclass(memcore.ValidationError, TypeError)

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
        with pytest.raises(memcore.RequestError) as request:
            store.put("x", colour="red")  # type: ignore[call-arg]
        copy = pickle.loads(pickle.dumps(request.value))
        assert type(copy) is memcore.RequestError
        assert (str(copy), copy.category, copy.recovery) == (
            str(request.value),
            "VALIDATION",
            request.value.recovery,
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


#: Arguments that do not fit the `put` request record: (kwargs, a stable part of the message,
#: which names the field). The core checks most; the binding those JSON has no place for.
BAD_TYPES: list[tuple[str, dict[str, Any], str]] = [
    ("content int", {"content": 123}, "`memories[0].content`"),
    ("tags as one str", {"tags": "gpu"}, "`memories[0].tags`: invalid type: string"),
    ("tags item", {"tags": ["ok", 1]}, "`memories[0].tags[1]`"),
    ("tags not iterable", {"tags": 5}, "`memories[0].tags`"),
    ("related_to str", {"related_to": "x"}, "`memories[0].related_to`"),
    ("metadata list", {"metadata": [1]}, "`memories[0].metadata`"),
    ("metadata key", {"metadata": {1: "x"}}, "keys must be str"),
    ("metadata bytes", {"metadata": {"k": b"raw"}}, "metadata['k'] has type bytes"),
    ("metadata nested object", {"metadata": {"k": [object()]}}, "metadata['k'][0] has type object"),
    ("importance str", {"importance": "high"}, "`memories[0].importance`"),
    ("status int", {"status": 1}, "`memories[0].status`"),
    ("id int", {"id": 7}, "`memories[0].id`"),
    ("unknown keyword", {"colour": "red"}, "`memories[0].colour`: unknown field `colour`"),
]


@pytest.mark.parametrize(("kwargs", "message"), [(k, m) for _, k, m in BAD_TYPES], ids=[n for n, _, _ in BAD_TYPES])
def test_arguments_that_do_not_fit_the_request_are_request_errors(
    store: memcore.Memcore, kwargs: dict[str, Any], message: str
) -> None:
    kwargs = {"content": "x", **kwargs}
    content = kwargs.pop("content")
    with pytest.raises(memcore.RequestError) as caught:
        store.put(content, **kwargs)
    err = caught.value
    assert isinstance(err, TypeError) and isinstance(err, memcore.ValidationError)
    assert err.category == "VALIDATION"
    assert message in str(err)
    assert err.recovery
    assert len(store.list()) == 0


#: Values of the right type that the field does not take (an unknown status, a date that is not
#: a date) or that break a rule: a plain `ValidationError`.
BAD_VALUES: list[tuple[str, dict[str, Any], str]] = [
    ("empty content", {"content": "  \n"}, "content is empty"),
    ("huge content", {"content": "x" * (100 * 1024 + 1)}, "content too large"),
    ("bad id", {"id": "Not An Id"}, "id"),
    ("bad collection", {"collection": ".trash"}, "collection"),
    ("long summary", {"summary": "s" * 101}, "summary too long"),
    ("importance range", {"importance": 1.5}, "importance"),
    ("importance nan", {"importance": float("nan")}, "importance"),
    ("reserved metadata key", {"metadata": {"version": "x"}}, "memory field"),
    ("nan metadata", {"metadata": {"k": float("inf")}}, "cannot be stored"),
    ("huge int metadata", {"metadata": {"k": 2**70}}, "64-bit"),
    ("naive datetime", {"created_at": dt.datetime(2024, 1, 1)}, "created_at is a datetime without a timezone"),
    ("created_at without a time", {"created_at": "2024-01-01"}, '`memories[0].created_at`: "2024-01-01" is not a time'),
    ("created_at not a date", {"created_at": "yesterday"}, '`memories[0].created_at`: "yesterday" is not a time'),
    ("unknown status", {"status": "done"}, "unknown variant `done`"),
]


@pytest.mark.parametrize(("kwargs", "message"), [(k, m) for _, k, m in BAD_VALUES], ids=[n for n, _, _ in BAD_VALUES])
def test_wrong_values_are_validation_errors(store: memcore.Memcore, kwargs: dict[str, Any], message: str) -> None:
    kwargs = {"content": "x", **kwargs}
    content = kwargs.pop("content")
    with pytest.raises(memcore.ValidationError) as caught:
        store.put(content, **kwargs)
    assert type(caught.value) is memcore.ValidationError, "not a RequestError: the value fits"
    assert isinstance(caught.value, ValueError)
    assert message in str(caught.value)
    assert caught.value.recovery
    assert len(store.list()) == 0, "nothing may be written"


def test_unknown_keywords_are_request_errors(store: memcore.Memcore) -> None:
    """Keyword arguments are fields of the request record: a misspelt one is refused by name,
    with the fields there are, and nothing is done."""
    store.put("x", id="there")
    with pytest.raises(memcore.RequestError, match="`memories\\[0\\].colour`: unknown field `colour`") as put:
        store.put("y", id="other", colour="red")  # type: ignore[call-arg]
    assert "`tags`" in str(put.value) and "memcore operations put" in put.value.recovery
    with pytest.raises(memcore.RequestError, match="`change.colour`: unknown field `colour`"):
        store.update("there", colour="red")  # type: ignore[call-arg]
    with pytest.raises(memcore.RequestError, match="at `limmit`: unknown field `limmit`") as search:
        store.search("x", limmit=3)  # type: ignore[call-arg]
    assert "`limit`" in str(search.value)
    with pytest.raises(memcore.RequestError, match="at `colection`: unknown field `colection`"):
        store.list(colection="memory")  # type: ignore[call-arg]
    for err in (put.value, search.value):
        assert isinstance(err, TypeError) and isinstance(err, ValueError)
        assert isinstance(err, memcore.ValidationError) and err.category == "VALIDATION"
    assert [s.ref for s in store.list()] == ["memory/there"]
    assert store.get("there").version == 1


def test_other_bad_arguments(store: memcore.Memcore, tmp_path: Path) -> None:
    store.put("x", id="there")
    # The methods' own parameters are checked by Python's argument handling: TypeError.
    with pytest.raises(TypeError):
        store.get(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        store.get("there", "memory")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword"):
        store.get("there", colection="memory")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        store.put("x", create_only="yes")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="rev"):
        store.get_version("there", True)
    with pytest.raises(TypeError, match="rev"):
        store.get_version("there", 1.5)  # type: ignore[arg-type]
    # Bad references and names are values that break a rule.
    with pytest.raises(memcore.ValidationError):
        store.get("../etc/passwd")
    with pytest.raises(memcore.ValidationError, match="id"):
        store.get("a/b", collection="memory")
    with pytest.raises(memcore.ValidationError, match="collection"):
        store.get("there", collection="Bad Name")
    with pytest.raises(memcore.ValidationError, match="unknown format"):
        store.get("there").render("xml")  # type: ignore[arg-type]
    # `list` options are fields of its request record.
    with pytest.raises(memcore.ValidationError, match="at `limit`"):
        store.list(limit=-1)
    with pytest.raises(memcore.ValidationError, match="at `offset`"):
        store.list(offset=-5)
    with pytest.raises(memcore.RequestError, match="at `limit`"):
        store.list(limit="3")  # type: ignore[arg-type]
    with pytest.raises(memcore.ValidationError, match="invalid filter"):
        store.list(filters="tags")
    with pytest.raises(memcore.ValidationError, match="invalid filter"):
        store.list(filters={"tags": []})
    with pytest.raises(memcore.RequestError, match="at `filters`"):
        store.list(filters=[1])  # type: ignore[list-item]
    with pytest.raises(memcore.RequestError, match="at `filters`"):
        store.list(filters=42)  # type: ignore[arg-type]
    with pytest.raises(memcore.ValidationError, match="collection"):
        store.list(collection="../up")
    # `update` keywords are fields of the change.
    with pytest.raises(memcore.RequestError, match="at `change.tags`"):
        store.update("there", tags="solo")
    with pytest.raises(memcore.ValidationError, match="unknown variant `done`"):
        store.update("there", status="done")  # type: ignore[arg-type]
    with pytest.raises(memcore.ValidationError, match="memory field"):
        store.update("there", metadata={"tags": ["x"]})
    with pytest.raises(memcore.ValidationError, match="unknown scope"):
        memcore.open(scope="nowhere")  # type: ignore[arg-type]
    with pytest.raises(memcore.ValidationError, match="not both"):
        memcore.open(tmp_path, scope="global")
    with pytest.raises(TypeError):
        memcore.open(42)  # type: ignore[arg-type]
    assert store.get("there").version == 1, "no failed call changed anything"
