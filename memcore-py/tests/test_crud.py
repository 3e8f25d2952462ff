"""Create, read, update, delete, restore, list and history through the Python API."""

from __future__ import annotations

import ast
import datetime as dt
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import memcore

UTC = dt.timezone.utc


def test_put_derives_id_and_title_and_returns_the_stored_memory(store: memcore.Memcore) -> None:
    memory = store.put(
        "# GPU Acceleration Patterns\n\nPrefer Metal on Apple silicon.",
        collection="knowledge",
        tags=["gpu", "performance", "gpu", " "],
        created_by="claude",
        context="research for arcaneum-183",
        category="research",
        type="learning",
        priority="high",
        project="renderer",
        related_to=("arcaneum-183",),
        importance=0.75,
        summary="Metal beats CUDA on macOS",
        metadata={"source": "web", "scores": [1, 2.5], "nested": {"ok": True, "none": None}},
    )
    assert memory.id == "gpu-acceleration-patterns"
    assert memory.collection == "knowledge"
    assert memory.ref == "knowledge/gpu-acceleration-patterns"
    assert memory.title == "GPU Acceleration Patterns"
    assert memory.tags == ("gpu", "performance")
    assert memory.related_to == ("arcaneum-183",)
    assert (memory.type, memory.category, memory.priority, memory.project) == (
        "learning",
        "research",
        "high",
        "renderer",
    )
    assert memory.summary == "Metal beats CUDA on macOS"
    assert memory.importance == 0.75
    assert memory.status == "active"
    assert memory.version == 1
    assert memory.metadata == {"source": "web", "scores": [1, 2.5], "nested": {"ok": True, "none": None}}
    assert memory.created_at.tzinfo is not None
    assert memory.created_at == memory.updated_at
    assert store.get("gpu-acceleration-patterns") == memory
    assert store.get("knowledge/gpu-acceleration-patterns") == memory
    assert store.get("gpu-acceleration-patterns", collection="knowledge") == memory


def test_ids_come_from_id_title_heading_or_hash(store: memcore.Memcore) -> None:
    assert store.put("body", id="explicit-id").id == "explicit-id"
    assert store.put("body", title="From The Title").id == "from-the-title"
    hashed = store.put("no heading, no title")
    assert len(hashed.id) == 12 and all(c in "0123456789abcdef" for c in hashed.id)
    assert hashed.collection == "memory"  # the default collection


def test_put_replaces_or_refuses_with_create_only(store: memcore.Memcore) -> None:
    first = store.put("first", id="same")
    second = store.put("second", id="same")
    assert (second.version, second.content, second.created_at) == (2, "second", first.created_at)
    with pytest.raises(memcore.ConflictError) as caught:
        store.put("third", id="same", create_only=True)
    assert caught.value.category == "CONFLICT"
    assert store.get("same").content == "second"


def test_put_keeps_an_imported_creation_time(store: memcore.Memcore) -> None:
    when = dt.datetime(2024, 5, 17, 9, 30, 15, 999, tzinfo=UTC)
    memory = store.put("imported note", id="imported", created_at=when)
    assert memory.created_at == when.replace(microsecond=0)
    offset = dt.timezone(dt.timedelta(hours=2))
    other = store.put("other", id="other", created_at=dt.datetime(2024, 5, 17, 11, 0, tzinfo=offset))
    assert other.created_at == dt.datetime(2024, 5, 17, 9, 0, tzinfo=UTC)


def test_created_at_may_be_iso_8601_text_with_an_offset(store: memcore.Memcore) -> None:
    nine_utc = dt.datetime(2024, 5, 17, 9, 0, tzinfo=UTC)
    for n, text in enumerate(["2024-05-17T09:00:00Z", "2024-05-17T11:00:00+02:00", "2024-05-17T09:00:00.250+00:00"]):
        memory = store.put("imported", id=f"iso-{n}", created_at=text)
        assert memory.created_at == nine_utc, text
        assert memory.created_at.utcoffset() == dt.timedelta(0)
    with pytest.raises(memcore.ValidationError, match="`memories\\[0\\].created_at`"):
        store.put("no offset", id="naive", created_at="2024-05-17T09:00:00")
    assert [s.id for s in store.list()] == ["iso-0", "iso-1", "iso-2"]


def test_python_containers_are_taken_as_lists(store: memcore.Memcore) -> None:
    """Any iterable that is not a str, bytes or mapping is a list: tuples, sets, generators."""
    memory = store.put(
        "containers",
        id="containers",
        tags=(t for t in ["a", "b"]),
        related_to={"only-one"},
        metadata={"pair": (1, "two"), "nested": {"deep": (True, None)}},
    )
    assert (memory.tags, memory.related_to) == (("a", "b"), ("only-one",))
    assert memory.metadata == {"pair": [1, "two"], "nested": {"deep": [True, None]}}


def test_update_merges_replaces_and_clears(store: memcore.Memcore) -> None:
    store.put(
        "# Notes\n\nv1",
        tags=["a", "b"],
        category="cat",
        metadata={"keep": 1, "drop": 2},
    )
    merged = store.update("notes", tags=["b", "c"], merge_tags=True)
    assert merged.tags == ("a", "b", "c")
    assert merged.version == 2
    replaced = store.update("notes", tags=["z"], metadata={"drop": None, "new": "x"})
    assert replaced.tags == ("z",)
    assert replaced.metadata == {"keep": 1, "new": "x"}
    cleared = store.update("notes", category="", content="# Notes\n\nv4", title="Renamed")
    assert cleared.category is None
    assert cleared.content == "# Notes\n\nv4"
    assert cleared.title == "Renamed"
    assert cleared.id == "notes"
    unchanged = store.update("notes")
    assert (unchanged.tags, unchanged.version) == (("z",), 5)
    assert unchanged.updated_at >= unchanged.created_at


def test_status_follows_the_lifecycle(store: memcore.Memcore) -> None:
    store.put("task", id="task")
    assert store.update("task", status="resolved").status == "resolved"
    with pytest.raises(memcore.ValidationError) as caught:
        store.update("task", status="active")
    assert "resolved" in str(caught.value)
    assert "archived" in caught.value.recovery
    assert store.update("task", status="archived").status == "archived"
    assert store.update("task", status="active").status == "active"
    assert store.put("new", id="born-archived", status="archived").status == "archived"


def test_delete_and_restore(store: memcore.Memcore) -> None:
    store.put("keep me", id="gone", collection="notes")
    entry = store.delete("gone")
    assert (entry.id, entry.collection, entry.ref) == ("gone", "notes", "notes/gone")
    assert isinstance(entry.path, str) and Path(entry.path).is_file()
    assert Path(entry.path).parent == store.path / ".trash" / "notes"
    assert entry.deleted_at.tzinfo is not None
    with pytest.raises(memcore.NotFoundError):
        store.get("gone")
    restored = store.restore(entry.ref)
    assert restored.content == "keep me"
    assert store.get("notes/gone") == restored
    with pytest.raises(memcore.NotFoundError):
        store.restore("never-deleted")


def test_collections_are_sorted(store: memcore.Memcore) -> None:
    for collection in ["progress", "decisions", "learnings"]:
        store.put(f"in {collection}", id="x", collection=collection)
    assert store.collections() == ["decisions", "learnings", "progress"]


def test_versions_and_get_version(store: memcore.Memcore) -> None:
    store.put("v1 text", id="hist")
    store.update("hist", content="v2 text")
    store.update("hist", content="v3 text")
    versions = store.versions("hist")
    assert [v.version for v in versions] == [1, 2, 3]
    assert [v.current for v in versions] == [False, False, True]
    assert all(isinstance(v.rev, str) and v.timestamp.tzinfo is not None for v in versions)
    assert store.get_version("hist", versions[0].rev).content == "v1 text"
    assert store.get_version("hist", 2).content == "v2 text"  # an int rev is taken as text
    assert store.get_version("hist", versions[-1].rev, collection="memory").content == "v3 text"
    with pytest.raises((memcore.NotFoundError, memcore.ValidationError)):
        store.get_version("hist", "999")


@pytest.fixture(scope="class")
def filled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[memcore.Memcore]:
    """One store for the class: these tests only read."""
    store = memcore.open(tmp_path_factory.mktemp("listing") / "store")
    for collection in ["decisions", "learnings"]:
        for n in range(5):
            store.put(
                f"memory {n} of {collection}",
                id=f"m{n}",
                collection=collection,
                tags=["even" if n % 2 == 0 else "odd", f"n{n}"],
                priority="high" if n == 0 else None,
                metadata={"team": "core" if n < 2 else "infra"},
            )
    with store:
        yield store


class TestList:
    def test_everything_sorted_by_collection_then_id(self, filled: memcore.Memcore) -> None:
        listing = filled.list()
        assert len(listing) == 10
        assert [s.ref for s in listing][:3] == ["decisions/m0", "decisions/m1", "decisions/m2"]
        assert listing.memories == tuple(listing)
        assert listing.skipped == ()
        assert set(listing.to_dict()) == {"memories", "skipped"}

    def test_filters_as_string_list_or_dict(self, filled: memcore.Memcore) -> None:
        assert len(filled.list(filters="tags=even")) == 6
        assert len(filled.list(filters=["tags=even", "team=core"])) == 2
        assert len(filled.list(filters=("tags=n1,n2",))) == 4
        assert len(filled.list(filters={"tags": ["n1", "n2"], "team": "core"})) == 2
        assert len(filled.list(filters={"priority": "high"}, collection="learnings")) == 1
        assert len(filled.list(filters=[])) == 10
        assert len(filled.list(filters=(f for f in ["tags=odd"]))) == 4

    def test_limit_offset_and_collection(self, filled: memcore.Memcore) -> None:
        page = filled.list(collection="learnings", limit=2, offset=1)
        assert [s.ref for s in page] == ["learnings/m1", "learnings/m2"]
        assert len(filled.list(limit=0)) == 0
        assert len(filled.list(offset=100)) == 0

    def test_listing_is_a_read_only_sequence(self, filled: memcore.Memcore) -> None:
        listing = filled.list(collection="decisions")
        assert listing[0].ref == "decisions/m0"
        assert listing[-1].ref == "decisions/m4"
        assert [s.id for s in listing[1:4:2]] == ["m1", "m3"]
        assert [s.id for s in listing[::-1]] == ["m4", "m3", "m2", "m1", "m0"]
        assert listing[10:] == []
        with pytest.raises(IndexError):
            listing[5]
        with pytest.raises(IndexError):
            listing[-6]
        with pytest.raises(TypeError):
            listing["0"]  # type: ignore[call-overload]
        assert bool(listing) and not bool(filled.list(collection="nothing-here"))
        iterator = iter(listing)
        assert iter(iterator) is iterator
        assert [s.id for s in iterator] == ["m0", "m1", "m2", "m3", "m4"]
        assert list(iterator) == []
        assert "len=5" in repr(listing)

    def test_summary_fields(self, filled: memcore.Memcore) -> None:
        summary = filled.list(filters="priority=high", collection="decisions")[0]
        memory = filled.get(summary.ref)
        assert (summary.id, summary.collection, summary.title, summary.version) == (
            memory.id,
            memory.collection,
            memory.title,
            memory.version,
        )
        assert summary.tags == memory.tags
        assert summary.created_at == memory.created_at
        assert summary.to_dict()["tags"] == ["even", "n0"]
        assert repr(summary).startswith("MemorySummary(ref='decisions/m0'")


class TestResults:
    def test_results_are_immutable(self, store: memcore.Memcore) -> None:
        memory = store.put("x", id="frozen", metadata={"k": [1]})
        with pytest.raises(AttributeError):
            memory.title = "changed"  # type: ignore[misc]
        with pytest.raises(AttributeError):
            memory.new_attribute = 1  # type: ignore[attr-defined]
        memory.metadata["k"].append(2)
        assert memory.metadata == {"k": [1]}  # a copy each time
        with pytest.raises(TypeError):
            memcore.Memory()  # type: ignore[call-arg]  # not constructible from Python

    def test_repr_to_dict_render_and_equality(self, store: memcore.Memcore) -> None:
        memory = store.put(
            "Use Metal for GPU work.",
            title="GPU Acceleration Patterns",
            created_by="Claude",
            context="Research for arcaneum-183",
            tags=["gpu", "performance"],
        )
        assert repr(memory) == (
            "Memory(ref='memory/gpu-acceleration-patterns', title='GPU Acceleration Patterns', "
            "version=1, status='active')"
        )
        data = memory.to_dict()
        assert set(data) == {
            "ref", "id", "collection", "title", "summary", "type", "status", "tags", "category",
            "context", "related_to", "project", "priority", "created_by", "importance",
            "metadata", "created_at", "updated_at", "version", "content",
        }, "every field, `ref` included"
        assert data["ref"] == memory.ref == "memory/gpu-acceleration-patterns"
        assert data["id"] == "gpu-acceleration-patterns"
        assert data["type"] is None
        assert data["tags"] == ["gpu", "performance"]
        assert data["created_at"] == memory.created_at
        assert (data["related_to"], data["metadata"], data["importance"]) == ([], {}, None)
        context = memory.render()
        assert context == memory.render("context")
        assert context.splitlines()[:2] == ["# GPU Acceleration Patterns", "ID: gpu-acceleration-patterns"]
        assert "Context: Research for arcaneum-183" in context
        assert context.endswith("\n\nUse Metal for GPU work.")
        as_json = json.loads(memory.render("json"))
        assert as_json["id"] == memory.id and as_json["metadata"]["tags"] == ["gpu", "performance"]
        assert memory.render("raw") == "Use Metal for GPU work."
        assert store.get(memory.id) == memory
        assert memory != store.update(memory.id, priority="low")
        assert memory != "not a memory"
        with pytest.raises(TypeError):
            hash(memory)

    def test_version_and_trash_entry_dicts(self, store: memcore.Memcore) -> None:
        store.put("x", id="v")
        version = store.versions("v")[0]
        assert version.to_dict() == {
            "rev": version.rev,
            "version": 1,
            "timestamp": version.timestamp,
            "author": None,
            "message": None,
            "current": True,
        }
        assert repr(version).startswith("Version(rev='1', version=1, timestamp='")
        entry = store.delete("v")
        assert entry.to_dict() == {
            "ref": "memory/v",
            "id": "v",
            "collection": "memory",
            "deleted_at": entry.deleted_at,
            "path": entry.path,
        }
        assert repr(entry).startswith("TrashEntry(ref='memory/v', deleted_at='")


class TestOpen:
    def test_path_may_be_str_or_pathlike(self, store_path: Path) -> None:
        with memcore.open(store_path) as a:
            a.put("x", id="one")
            assert a.path == store_path
            assert a.config_file is None
        with memcore.open(str(store_path)) as b:
            assert b.get("one").content == "x"

    def test_close_and_context_manager(self, store_path: Path) -> None:
        handle = memcore.open(store_path)
        assert not handle.closed
        with handle as entered:
            assert entered is handle
        assert handle.closed
        assert "closed" in repr(handle)
        handle.close()  # idempotent
        with pytest.raises(memcore.ValidationError, match="closed") as caught:
            handle.get("x")
        assert isinstance(caught.value, ValueError)
        assert "memcore.open" in caught.value.recovery
        with pytest.raises(memcore.ValidationError, match="closed"):
            with handle:
                pass

    def test_exit_does_not_swallow_exceptions(self, store_path: Path) -> None:
        with pytest.raises(KeyError):
            with memcore.open(store_path) as handle:
                raise KeyError("boom")
        assert handle.closed

    def test_local_scope_finds_the_project_store(self, tmp_path: Path) -> None:
        project = tmp_path / "project"
        nested = project / "src" / "deep"
        nested.mkdir(parents=True)
        (project / ".memcore.yaml").write_text("path: .memories\n")
        with memcore.open(scope="local", start_dir=nested) as local:
            assert local.path == project / ".memories"
            assert local.config_file == project / ".memcore.yaml"
            local.put("project note", id="p")
        with memcore.open(scope="auto", start_dir=nested) as auto:
            assert auto.get("p").content == "project note"

    def test_local_scope_without_project_is_not_found(self, tmp_path: Path) -> None:
        with pytest.raises(memcore.NotFoundError) as caught:
            memcore.open(scope="local", start_dir=tmp_path)
        assert "memcore init" in caught.value.recovery

    def test_global_scope_uses_memcore_home(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        home = tmp_path / "home-store"
        monkeypatch.setenv("MEMCORE_HOME", str(home))
        with memcore.open(scope="global") as handle:
            assert handle.path == home
            handle.put("global note", id="g")
        assert (home / "memory" / "g.md").is_file()

    def test_auto_scope_defaults_to_the_working_directory(
        self, in_tmp_cwd: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        (in_tmp_cwd / ".memcore.yaml").write_text("")
        with memcore.open() as handle:
            assert handle.path == in_tmp_cwd / ".memcore"


def stub_keywords(method: str) -> dict[str, object]:
    """The keyword-only parameters of `Memcore.<method>` in the installed stubs, with their
    defaults (`...` where the default is not a literal)."""
    stub = Path(memcore.__file__).with_name("_memcore.pyi").read_text(encoding="utf-8")
    handle = next(
        node for node in ast.parse(stub).body if isinstance(node, ast.ClassDef) and node.name == "Memcore"
    )
    function = next(
        node for node in handle.body if isinstance(node, ast.FunctionDef) and node.name == method
    )
    keywords: dict[str, object] = {}
    for arg, default in zip(function.args.kwonlyargs, function.args.kw_defaults):
        try:
            keywords[arg.arg] = ast.literal_eval(default) if default is not None else ...
        except ValueError:
            keywords[arg.arg] = ...
    return keywords


def request_fields(operation: str, *path: str) -> set[str]:
    """The fields of `operation`'s request record, or of the record at `path` inside it."""
    schema = next(op["request"] for op in memcore.operations() if op["name"] == operation)
    node: dict[str, Any] = schema
    for step in path:
        node = node["properties"][step] if step != "[]" else node["items"]
        while "$ref" in node:
            node = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return set(node["properties"])


def test_the_stubs_name_exactly_the_request_fields() -> None:
    """Keyword arguments are request fields the stubs spell out (stubtest cannot check them:
    at runtime they are `**fields`). Every field is typed, and nothing else is."""
    assert set(stub_keywords("put")) == request_fields("put", "memories", "[]") - {"content"} | {
        "create_only",
        "commit",
    }
    assert set(stub_keywords("put_many")) == {"create_only", "commit"}
    assert set(stub_keywords("update")) == request_fields("update", "change") | {"collection"}
    assert set(stub_keywords("list")) == request_fields("list")
    assert set(stub_keywords("search")) == request_fields("search") - {"text"}
    assert set(stub_keywords("get")) == request_fields("get") - {"ref"} | {"collection"}


def test_the_stub_defaults_are_accepted(store: memcore.Memcore) -> None:
    """Every keyword the stubs show, passed with its shown default, is accepted at runtime."""
    store.put("x", id="there")
    calls: list[tuple[Callable[..., object], tuple[str, ...], str]] = [
        (store.put, ("content",), "put"),
        (store.update, ("there",), "update"),
        (store.list, (), "list"),
        (store.search, ("content",), "search"),
        (store.get, ("there",), "get"),
    ]
    for method, positional, name in calls:
        kwargs = {key: value for key, value in stub_keywords(name).items() if value is not ...}
        assert kwargs, name
        method(*positional, **kwargs)
