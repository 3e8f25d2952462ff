"""The capture engine through the Python API: decisions as typed records, markers stored with
`apply`, suggestions only when asked, duplicates skipped, explicit captures, bad markers and
namespaces raising `ValidationError` with nothing stored."""

from __future__ import annotations

from typing import Any

import pytest

import memcore

DECISION = "We decided to move the job queue from Redis to Postgres for durability."


def test_a_decision_is_a_typed_record(store: memcore.Memcore) -> None:
    decision = store.capture(DECISION)
    assert isinstance(decision, memcore.CaptureDecision)
    assert (decision.action, decision.reason, decision.stored) == ("suggest", "confidence 0.92", ())
    (signal,) = decision.signals
    assert isinstance(signal, memcore.CaptureSignal)
    assert (signal.type, signal.match, signal.confidence) == ("decision", "We decided to", 0.92)
    assert DECISION[signal.start_char : signal.end_char] == signal.match
    (capture,) = decision.captures
    assert isinstance(capture, memcore.SuggestedCapture)
    assert (capture.namespace, capture.tags, capture.action) == ("decisions", ("decision", "database"), "suggest")
    assert isinstance(capture.novelty, memcore.Novelty)
    assert capture.novelty.method == "text", "the suite runs without the model"
    assert "word overlap" in " ".join(decision.warnings)
    assert store.list().memories == ()


def test_offsets_index_the_python_str(store: memcore.Memcore) -> None:
    text = "Café notes ✓ — we decided to keep the old schema for now."
    (signal,) = store.capture(text, check_novelty=False).signals
    assert text[signal.start_char : signal.end_char] == "we decided to"
    assert text.encode()[signal.start : signal.end] == b"we decided to"


def test_apply_stores_auto_and_asked_suggestions(store: memcore.Memcore) -> None:
    assert store.capture(DECISION, apply=True).stored == ()
    (ref,) = store.capture(DECISION, apply=True, apply_suggested=True, created_by="agent").stored
    memory = store.get(ref)
    assert (memory.collection, memory.type, memory.created_by) == ("decisions", "decision", "agent")
    assert memory.metadata["capture"] == {"signal": "decision", "confidence": 0.92}
    again = store.capture(DECISION)
    assert again.action == "skip" and again.reason == "all signals are duplicates"
    (skipped,) = again.skipped
    assert isinstance(skipped, memcore.SkippedCapture)
    assert skipped.reason.startswith(f"duplicate of {ref}")
    assert skipped.novelty is not None
    assert isinstance(skipped.novelty.similar[0], memcore.SimilarMemory)
    assert skipped.novelty.similar[0].ref == ref


def test_markers_capture_explicitly(store: memcore.Memcore) -> None:
    text = "[remember:decisions] Use PostgreSQL. [remember] TIL the runners have two cores."
    decision = store.capture(text, apply=True, tags=["ops"])
    assert decision.action == "auto"
    assert [c.namespace for c in decision.captures] == ["decisions", "learnings"]
    assert [store.get(ref).content for ref in decision.stored] == [
        "Use PostgreSQL.",
        "TIL the runners have two cores.",
    ]
    assert all("ops" in c.tags for c in decision.captures)


def test_an_explicit_capture_takes_the_whole_text(store: memcore.Memcore) -> None:
    decision = store.capture("## Context\n\nWe need ACID.", namespace="decisions", summary="Use PostgreSQL", apply=True)
    memory = store.get(decision.stored[0])
    assert (memory.title, memory.summary, memory.content) == ("Use PostgreSQL", "Use PostgreSQL", "## Context\n\nWe need ACID.")


@pytest.mark.parametrize(
    ("text", "options", "message"),
    [
        ("[remember:] x", {}, "names no namespace"),
        ("[remember:../x] y", {}, "names unknown namespace `../x`"),
        ("[remember:UPPER] y", {}, "names unknown namespace `upper`"),
        ("TIL x", {"namespace": "nope"}, "invalid namespace: `nope`"),
        ("body", {"summary": "s"}, "needs a namespace"),
        ("body", {"namespace": "notes", "summary": "s" * 101}, "summary too long"),
    ],
)
def test_bad_input_raises_and_stores_nothing(store: memcore.Memcore, text: str, options: dict[str, Any], message: str) -> None:
    with pytest.raises(memcore.ValidationError, match=message) as raised:
        store.capture(text, apply=True, **options)
    assert raised.value.recovery
    assert store.list().memories == ()


def test_unknown_options_and_wrong_types_are_refused(store: memcore.Memcore) -> None:
    with pytest.raises(memcore.MemcoreError, match="unknown field `aply`"):
        store.capture("TIL x", aply=True)  # type: ignore[call-arg]
    with pytest.raises((memcore.MemcoreError, TypeError)):
        store.capture(42)  # type: ignore[arg-type]
