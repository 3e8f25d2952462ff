"""Index maintenance: `reindex` with a Python progress callback, `verify` and `repair` after
memory files were changed by hand (which the indexes cannot see on their own)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

import memcore
from conftest import write_file


@pytest.fixture
def notes(store: memcore.Memcore) -> memcore.Memcore:
    store.put_many(
        [
            {"content": "# Alpha\n\nfirst note about kettles", "collection": "notes"},
            {"content": "# Beta\n\nsecond note about kettles", "collection": "notes"},
            {"content": "# Gamma\n\nthird note about teapots", "collection": "notes"},
        ]
    )
    return store


def found(store: memcore.Memcore, text: str) -> list[str]:
    return sorted(hit.memory.ref for hit in store.search(text, mode="text", statuses=()))


def is_clean(check: memcore.IndexCheck) -> bool:
    """Whether an index holds exactly what the store holds."""
    return check.missing == check.orphaned == check.mismatched == ()


# --- reindex ----------------------------------------------------------------------------------


def test_reindex_reports_progress_on_the_calling_thread(notes: memcore.Memcore) -> None:
    calls: list[tuple[int, int, int]] = []
    report = notes.reindex(lambda done, total: calls.append((done, total, threading.get_ident())))
    assert isinstance(report, memcore.ReindexReport)
    assert report.memories == 3
    assert calls[0][:2] == (0, 3)
    assert calls[-1][:2] == (3, 3)
    assert [c[0] for c in calls] == sorted(c[0] for c in calls)
    assert {c[2] for c in calls} == {threading.get_ident()}
    assert found(notes, "kettles") == ["notes/alpha", "notes/beta"]


def test_reindex_says_what_it_did_index_by_index(notes: memcore.Memcore, tmp_path: Path) -> None:
    report = notes.reindex()
    assert (report.memories, report.unreadable) == (3, ())
    assert set(report.indexes) == {"text", "vector"}
    text, vector = report.indexes["text"], report.indexes["vector"]
    assert isinstance(text, memcore.IndexRebuild)
    assert (text.indexed, text.unavailable) == (3, None)
    assert vector.indexed == 0, "the suite runs without the embedding model"
    assert vector.unavailable is not None and "fetch-models" in vector.unavailable
    assert repr(report) == "ReindexReport(memories=3, indexes=['text', 'vector'], unreadable=0)"
    assert repr(text) == "IndexRebuild(indexed=3, unavailable=None)"
    data = report.to_dict()
    assert data["indexes"]["text"] == {"indexed": 3, "unavailable": None}
    assert (data["memories"], data["unreadable"]) == (3, [])
    assert notes.reindex(None) == notes.reindex(progress=None) == report
    with memcore.open(tmp_path / "empty") as empty:
        calls: list[tuple[int, int]] = []
        assert empty.reindex(lambda d, t: calls.append((d, t))).memories == 0
        assert calls == [(0, 0)]


def test_reindex_names_the_files_it_could_not_read(notes: memcore.Memcore) -> None:
    broken = write_file(notes.path / "notes" / "broken.md", "---\ntags: [oops\n---\nx\n")
    report = notes.reindex()
    assert report.memories == 3
    assert len(report.unreadable) == 1
    err = report.unreadable[0]
    assert isinstance(err, memcore.CorruptedError) and err.path == str(broken)
    assert report.to_dict()["unreadable"][0]["path"] == str(broken)


def test_the_callback_may_read_the_store(notes: memcore.Memcore) -> None:
    seen: list[int] = []
    notes.reindex(lambda done, total: seen.append(len(notes.list())))
    assert seen and set(seen) == {3}


def test_an_exception_in_the_callback_is_raised_after_the_rebuild_completes(notes: memcore.Memcore) -> None:
    """The rebuild cannot be stopped half-way without leaving the index half-empty, so it
    completes, the callback is not called again, and its exception is raised afterwards."""
    calls: list[tuple[int, int]] = []

    def failing(done: int, total: int) -> None:
        calls.append((done, total))
        raise RuntimeError(f"stop at {done}/{total}")

    with pytest.raises(RuntimeError, match="stop at 0/3") as caught:
        notes.reindex(failing)
    assert calls == [(0, 3)]
    assert caught.value.__traceback__ is not None
    assert found(notes, "kettles teapots") == ["notes/alpha", "notes/beta", "notes/gamma"]
    assert notes.verify().consistent


def test_keyboard_interrupt_in_the_callback_is_deferred_too(notes: memcore.Memcore) -> None:
    def interrupted(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        notes.reindex(interrupted)
    assert notes.verify().consistent
    assert len(found(notes, "note")) == 3


def test_a_bad_callback_is_refused_before_anything_happens(notes: memcore.Memcore) -> None:
    with pytest.raises(TypeError, match="progress must be a callable taking \\(done, total\\), not int"):
        notes.reindex(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="takes 1 positional argument"):
        notes.reindex(lambda done: None)  # type: ignore[arg-type,misc]
    assert notes.verify().consistent


def test_reindex_on_a_closed_handle(store_path: Path) -> None:
    handle = memcore.open(store_path)
    handle.close()
    for call in (handle.reindex, handle.verify, handle.repair):
        with pytest.raises(memcore.ValidationError, match="closed"):
            call()


# --- verify and repair ------------------------------------------------------------------------


def test_verify_and_repair_after_files_were_changed_by_hand(notes: memcore.Memcore) -> None:
    clean = notes.verify()
    assert isinstance(clean, memcore.VerifyReport)
    assert clean.consistent is True
    assert clean.store_count == 3
    assert set(clean.indexes) == {"text", "vector"}
    text = clean.indexes["text"]
    assert isinstance(text, memcore.IndexCheck)
    assert is_clean(text) and (text.unavailable, text.built_with) == (None, None)
    vector = clean.indexes["vector"]
    assert vector.unavailable is not None, "the suite runs without the embedding model"
    assert "fetch-models" in vector.unavailable
    assert vector.built_with is None
    assert clean.unreadable == ()

    # An editor changes one note, adds one, deletes one, and breaks another's frontmatter.
    alpha = notes.path / "notes" / "alpha.md"
    alpha.write_text(alpha.read_text(encoding="utf-8").replace("kettles", "samovars"), encoding="utf-8")
    write_file(notes.path / "notes" / "delta.md", "# Delta\n\na note about samovars, written by hand\n")
    (notes.path / "notes" / "beta.md").unlink()
    broken = write_file(notes.path / "notes" / "gamma.md", "---\ntags: [oops\n---\nteapots\n")

    assert found(notes, "samovars") == [], "the index does not see hand edits by itself"
    report = notes.verify()
    assert not report.consistent
    assert report.store_count == 2
    text = report.indexes["text"]
    assert (text.missing, text.mismatched) == (("notes/delta",), ("notes/alpha",))
    assert text.orphaned == ("notes/beta", "notes/gamma")
    assert not is_clean(text)
    assert is_clean(report.indexes["vector"]), "an index that was not checked finds nothing"
    assert len(report.unreadable) == 1
    unreadable = report.unreadable[0]
    assert isinstance(unreadable, memcore.CorruptedError)
    assert unreadable.path == str(broken)

    repaired = notes.repair()
    assert isinstance(repaired, memcore.RepairReport)
    assert (repaired.reindexed, repaired.removed) == (2, 2)
    assert set(repaired.indexes) == {"text"}, "only the indexes repaired"
    text_repair = repaired.indexes["text"]
    assert isinstance(text_repair, memcore.IndexRepair)
    assert (text_repair.reindexed, text_repair.removed) == (2, 2)
    after = notes.verify()
    assert after.consistent and is_clean(after.indexes["text"])
    assert len(after.unreadable) == 1, "a broken file stays unreadable until mended"
    assert found(notes, "samovars") == ["notes/alpha", "notes/delta"]
    assert found(notes, "kettles teapots") == []
    again = notes.repair()
    assert (again.reindexed, again.removed) == (0, 0)

    broken.write_text("---\ntags: [mended]\n---\nteapots again\n", encoding="utf-8")
    assert notes.verify().indexes["text"].missing == ("notes/gamma",)
    assert notes.repair().reindexed == 1
    assert found(notes, "teapots") == ["notes/gamma"]


def test_report_reprs_and_dicts(notes: memcore.Memcore) -> None:
    (notes.path / "notes" / "beta.md").unlink()
    write_file(notes.path / "notes" / "bad.md", "---\ntags: [oops\n---\nx\n")
    report = notes.verify()
    assert repr(report) == "VerifyReport(store_count=2, consistent=False, indexes=['text', 'vector'], unreadable=1)"
    assert repr(report.indexes["text"]) == "IndexCheck(missing=0, orphaned=1, mismatched=0, unavailable=None)"
    assert repr(report.indexes["vector"]).startswith(
        "IndexCheck(missing=0, orphaned=0, mismatched=0, unavailable='[EMBEDDING] embedding model files missing"
    )
    data = report.to_dict()
    assert set(data) == {"store_count", "consistent", "indexes", "unreadable", "warnings", "cold"}
    assert data["cold"] is None, "a file store has no cold archive"
    assert data["warnings"] == []
    assert (data["store_count"], data["consistent"]) == (2, False)
    assert data["indexes"]["text"] == {
        "missing": [],
        "orphaned": ["notes/beta"],
        "mismatched": [],
        "unavailable": None,
        "built_with": None,
    }
    assert "fetch-models" in data["indexes"]["vector"]["unavailable"]
    assert len(data["unreadable"]) == 1
    unreadable = data["unreadable"][0]
    assert unreadable["category"] == "PARSE" and unreadable["path"].endswith("bad.md")
    assert report.indexes["text"] == notes.verify().indexes["text"], "IndexCheck compares by value"
    with pytest.raises(AttributeError):
        report.store_count = 3  # type: ignore[misc]
    with pytest.raises(AttributeError):
        report.consistent = True  # type: ignore[misc]

    repaired = notes.repair()
    assert repr(repaired) == "RepairReport(reindexed=0, removed=1)"
    assert repaired.to_dict() == {
        "reindexed": 0, "removed": 1, "leftovers": 0, "indexes": {"text": {"reindexed": 0, "removed": 1}},
        "cold": None,
    }
    assert repr(repaired.indexes["text"]) == "IndexRepair(reindexed=0, removed=1)"
    assert repaired != notes.repair()
    assert notes.repair() == notes.repair()

    many = [f"n{i}" for i in range(5)]
    notes.put_many([{"content": "x", "id": i, "collection": "more"} for i in many])
    for i in many:
        (notes.path / "more" / f"{i}.md").unlink()
    check = notes.verify().indexes["text"]
    assert check.orphaned == tuple(f"more/{i}" for i in many)
    assert repr(check) == "IndexCheck(missing=0, orphaned=5, mismatched=0, unavailable=None)"


@pytest.mark.usefixtures("real_model")
def test_with_the_model_verify_checks_the_vectors_and_repair_embeds(store_path: Path) -> None:
    with memcore.open(store_path) as store:
        store.put_many(
            [
                "# Kettles\n\nA kettle boils water for tea.",
                "# Bicycles\n\nA bicycle has two wheels and pedals.",
            ]
        )
        clean = store.verify()
        assert clean.consistent
        vector = clean.indexes["vector"]
        assert is_clean(vector) and vector.unavailable is None
        assert vector.built_with is not None and "MiniLM" in vector.built_with

        path = store.path / "memory" / "bicycles.md"
        path.write_text(
            path.read_text(encoding="utf-8").replace("A bicycle has two wheels and pedals.", "A samovar heats water."),
            encoding="utf-8",
        )
        stale = store.verify()
        assert stale.indexes["vector"].mismatched == ("memory/bicycles",)
        assert stale.indexes["text"].mismatched == ("memory/bicycles",)
        repaired = store.repair()
        assert repaired.reindexed == 1
        assert {name: r.reindexed for name, r in repaired.indexes.items()} == {"text": 1, "vector": 1}
        assert store.verify().consistent
        top = store.search("hot drinks", mode="semantic", limit=2)
        assert top.mode == "semantic" and len(top) == 2

        calls: list[tuple[int, int]] = []
        rebuilt = store.reindex(lambda done, total: calls.append((done, total)))
        assert rebuilt.memories == 2
        assert {name: (i.indexed, i.unavailable) for name, i in rebuilt.indexes.items()} == {
            "text": (2, None),
            "vector": (2, None),
        }
        assert calls[0] == (0, 2) and calls[-1] == (2, 2)
        assert store.verify().consistent


def test_a_damaged_index_is_rebuilt_on_open_with_a_warning(store_path: Path) -> None:
    with memcore.open(store_path) as store:
        store.put("Prefer Metal on Apple silicon.", id="gpu")
    (store_path / ".memcore" / "index" / "text" / "meta.json").write_text("garbage")
    with pytest.warns(RuntimeWarning, match="damaged and was rebuilt"):
        reopened = memcore.open(store_path)
    with reopened:
        assert reopened.opened_with() == [{"kind": "rebuilt", "memories": 1, "damaged": True}]
        assert found(reopened, "metal") == ["memory/gpu"]
        assert is_clean(reopened.verify().indexes["text"])
