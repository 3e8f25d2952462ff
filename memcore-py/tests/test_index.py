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


# --- reindex ----------------------------------------------------------------------------------


def test_reindex_reports_progress_on_the_calling_thread(notes: memcore.Memcore) -> None:
    calls: list[tuple[int, int, int]] = []
    count = notes.reindex(lambda done, total: calls.append((done, total, threading.get_ident())))
    assert count == 3
    assert calls[0][:2] == (0, 3)
    assert calls[-1][:2] == (3, 3)
    assert [c[0] for c in calls] == sorted(c[0] for c in calls)
    assert {c[2] for c in calls} == {threading.get_ident()}
    assert found(notes, "kettles") == ["notes/alpha", "notes/beta"]


def test_reindex_without_a_callback(notes: memcore.Memcore, tmp_path: Path) -> None:
    assert notes.reindex() == 3
    assert notes.reindex(None) == 3
    assert notes.reindex(progress=None) == 3
    with memcore.open(tmp_path / "empty") as empty:
        calls: list[tuple[int, int]] = []
        assert empty.reindex(lambda d, t: calls.append((d, t))) == 0
        assert calls == [(0, 0)]


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
    assert notes.verify().is_consistent()


def test_keyboard_interrupt_in_the_callback_is_deferred_too(notes: memcore.Memcore) -> None:
    def interrupted(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        notes.reindex(interrupted)
    assert notes.verify().is_consistent()
    assert len(found(notes, "note")) == 3


def test_a_bad_callback_is_refused_before_anything_happens(notes: memcore.Memcore) -> None:
    with pytest.raises(TypeError, match="progress must be a callable taking \\(done, total\\), not int"):
        notes.reindex(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="takes 1 positional argument"):
        notes.reindex(lambda done: None)  # type: ignore[arg-type,misc]
    assert notes.verify().is_consistent()


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
    assert clean.is_consistent()
    assert clean.store_count == 3
    assert clean.text.is_clean()
    assert clean.vectors is None, "the suite runs without the embedding model"
    assert clean.vectors_unavailable is not None and "fetch-models" in clean.vectors_unavailable
    assert clean.unreadable == ()

    # An editor changes one note, adds one, deletes one, and breaks another's frontmatter.
    alpha = notes.path / "notes" / "alpha.md"
    alpha.write_text(alpha.read_text(encoding="utf-8").replace("kettles", "samovars"), encoding="utf-8")
    write_file(notes.path / "notes" / "delta.md", "# Delta\n\na note about samovars, written by hand\n")
    (notes.path / "notes" / "beta.md").unlink()
    broken = write_file(notes.path / "notes" / "gamma.md", "---\ntags: [oops\n---\nteapots\n")

    assert found(notes, "samovars") == [], "the index does not see hand edits by itself"
    report = notes.verify()
    assert not report.is_consistent()
    assert report.store_count == 2
    text = report.text
    assert isinstance(text, memcore.IndexDiff)
    assert (text.missing, text.mismatched) == (("notes/delta",), ("notes/alpha",))
    assert text.orphaned == ("notes/beta", "notes/gamma")
    assert not text.is_clean()
    assert len(report.unreadable) == 1
    unreadable = report.unreadable[0]
    assert isinstance(unreadable, memcore.CorruptedError)
    assert unreadable.path == str(broken)

    repaired = notes.repair()
    assert isinstance(repaired, memcore.RepairReport)
    assert (repaired.reindexed, repaired.removed) == (2, 2)
    after = notes.verify()
    assert after.is_consistent() and after.text.is_clean()
    assert len(after.unreadable) == 1, "a broken file stays unreadable until mended"
    assert found(notes, "samovars") == ["notes/alpha", "notes/delta"]
    assert found(notes, "kettles teapots") == []
    again = notes.repair()
    assert (again.reindexed, again.removed) == (0, 0)

    broken.write_text("---\ntags: [mended]\n---\nteapots again\n", encoding="utf-8")
    assert notes.verify().text.missing == ("notes/gamma",)
    assert notes.repair().reindexed == 1
    assert found(notes, "teapots") == ["notes/gamma"]


def test_report_reprs_and_dicts(notes: memcore.Memcore) -> None:
    (notes.path / "notes" / "beta.md").unlink()
    write_file(notes.path / "notes" / "bad.md", "---\ntags: [oops\n---\nx\n")
    report = notes.verify()
    assert repr(report).startswith(
        "VerifyReport(store_count=2, consistent=False, "
        "text=IndexDiff(missing=[], orphaned=['notes/beta'], mismatched=[]), vectors=None, "
        "vectors_unavailable='[EMBEDDING] embedding model files missing"
    )
    assert repr(report).endswith(", unreadable=1)")
    data = report.to_dict()
    assert data["store_count"] == 2
    assert data["text"] == {"missing": [], "orphaned": ["notes/beta"], "mismatched": []}
    assert data["vectors"] is None
    assert "fetch-models" in data["vectors_unavailable"]
    assert len(data["unreadable"]) == 1 and "bad.md" in data["unreadable"][0]
    assert report.text == notes.verify().text, "IndexDiff compares by value"
    with pytest.raises(AttributeError):
        report.store_count = 3  # type: ignore[misc]

    repaired = notes.repair()
    assert repr(repaired) == "RepairReport(reindexed=0, removed=1)"
    assert repaired.to_dict() == {"reindexed": 0, "removed": 1}
    assert repaired != notes.repair()
    assert notes.repair() == notes.repair()

    many = [f"n{i}" for i in range(5)]
    notes.put_many([{"content": "x", "id": i, "collection": "more"} for i in many])
    for i in many:
        (notes.path / "more" / f"{i}.md").unlink()
    assert repr(notes.verify().text) == (
        "IndexDiff(missing=[], orphaned=['more/n0', 'more/n1', 'more/n2', ...], mismatched=[])"
    )


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
        assert clean.is_consistent()
        assert clean.vectors is not None and clean.vectors.is_clean()
        assert clean.vectors_unavailable is None

        path = store.path / "memory" / "bicycles.md"
        path.write_text(
            path.read_text(encoding="utf-8").replace("A bicycle has two wheels and pedals.", "A samovar heats water."),
            encoding="utf-8",
        )
        stale = store.verify()
        assert stale.vectors is not None
        assert stale.vectors.mismatched == ("memory/bicycles",)
        assert stale.text.mismatched == ("memory/bicycles",)
        assert store.repair().reindexed == 1
        assert store.verify().is_consistent()
        top = store.search("hot drinks", mode="semantic", limit=2)
        assert top.mode == "semantic" and len(top) == 2

        calls: list[tuple[int, int]] = []
        assert store.reindex(lambda done, total: calls.append((done, total))) == 2
        assert calls[0] == (0, 2) and calls[-1] == (2, 2)
        assert store.verify().is_consistent()
