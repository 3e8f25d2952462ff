"""The composition engine from Python: a token-budgeted context with its manifest, the session
registry, and Python callables as summarisers (used, raising, returning garbage)."""

import json
from pathlib import Path
from typing import Any

import pytest

import memcore


def _transcript(path: Path, turns: int = 12) -> Path:
    lines = []
    for turn in range(turns):
        note = " ##keepit1.00## Never drop the write-ahead log." if turn == 3 else ""
        lines.append(
            json.dumps(
                {
                    "role": "user" if turn % 2 == 0 else "assistant",
                    "content": f"Turn {turn}: the parser step {turn} is slow; we batch lines and raise timeouts.{note}",
                    "timestamp": f"2026-01-15T10:{turn:02d}:00Z",
                }
            )
        )
    lines.insert(2, "not json")
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def test_compose_returns_a_labelled_context_within_budget(store: memcore.Memcore) -> None:
    store.put("We use Postgres for the main database.", collection="decisions", id="postgres")
    store.put("Blocked by the expired staging certificate.", collection="blockers", id="cert")
    store.put("Backups run nightly to the cold bucket.", collection="notes", id="backups")
    context = store.compose("database backups", budget=400, search_mode="text")
    assert isinstance(context, memcore.ComposedContext)
    assert context.tokens <= 400 and context.budget.total == 400
    assert context.text.startswith("<memory_context>")
    labels = [item.label for item in context.items]
    assert labels == [f"M{n}" for n in range(1, len(labels) + 1)]
    sources = {entry.ref: entry.source for entry in context.manifest}
    assert sources["blockers/cert"] == "blocker"
    assert any(entry.outcome == "duplicate" for entry in context.manifest)
    markdown = store.compose("database", tier="simple", format="markdown", tokenizer="cl100k")
    assert markdown.text.startswith("# Memory context") and markdown.budget.tier == "simple"
    with pytest.raises(memcore.ValidationError, match="smaller than one item"):
        store.compose("database", budget=5)
    with pytest.raises(memcore.RequestError):
        store.compose("database", budget="lots")  # type: ignore[arg-type]


def test_sessions_register_compress_compose_and_prune(store: memcore.Memcore, tmp_path: Path) -> None:
    session = store.session_add(_transcript(tmp_path / "chat.jsonl"), session_id="chat")
    assert isinstance(session, memcore.SessionRecord)
    assert (session.original_messages, session.skipped_count) == (12, 1)
    assert session.keepit_markers[0].weight == 1.0
    version = store.session_compress("chat", settings={"compaction_ratio": 4}, summarizer="extractive")
    assert isinstance(version, memcore.CompressionRecord)
    read = store.session_version("chat", "v001")
    assert read.version == version and read.content.startswith("# Session chat, v001")
    assert store.session_version("chat", "original").version is None
    assert version.version_id == "v001" and version.keepit_stats.preserved == 1
    composition = store.session_compose("ctx", "chat", budget=10_000)
    assert composition.components[0].version_id == "original"
    composed = store.composition_show("ctx")
    assert isinstance(composed, memcore.CompositionContext)
    assert composed.composition == composition and "## Session chat" in composed.context
    listing = store.session_list()
    assert [s.session_id for s in listing.sessions] == ["chat"]
    pruned = store.session_prune("chat", keep_latest=0)
    assert pruned.deleted == ("v001",)
    assert store.composition_delete("ctx").name == "ctx"
    with pytest.raises(memcore.NotFoundError):
        store.composition_show("ctx")
    with pytest.raises(memcore.NotFoundError):
        store.session_show("nope")


def test_a_python_callable_summarises_and_its_failures_write_nothing(store: memcore.Memcore, tmp_path: Path) -> None:
    store.session_add(_transcript(tmp_path / "chat.jsonl"), session_id="chat")
    asked: list[dict[str, Any]] = []

    def summarize(request: dict[str, Any]) -> str:
        asked.append(request)
        return "The parser was slow; batching and longer timeouts fixed it."

    version = store.session_compress("chat", settings={"compaction_ratio": 4}, summarizer=summarize)
    assert version.settings["model"] == "summarize"
    assert asked[0]["target_tokens"] > 0 and asked[0]["messages"][0]["role"] == "user"

    def broken(request: dict[str, Any]) -> str:
        raise RuntimeError("rate limited")

    with pytest.raises(memcore.CallbackError, match="rate limited") as raised:
        store.session_compress("chat", settings={"compaction_ratio": 4}, summarizer=broken)
    assert isinstance(raised.value.__cause__, RuntimeError)

    def garbage(request: dict[str, Any]) -> Any:
        return 42

    with pytest.raises(memcore.CallbackError, match="not str"):
        store.session_compress("chat", settings={"compaction_ratio": 4}, summarizer=garbage)
    assert [v.version_id for v in store.session_show("chat").compressions] == ["v001"]

    store.set_summarizer(summarize, name="llm")
    assert store.session_compress("chat").settings["model"] == "llm"
    store.set_summarizer(broken)
    with pytest.raises(memcore.CallbackError) as raised:
        store.session_compress("chat")
    assert isinstance(raised.value.__cause__, RuntimeError), "the handle's summariser too"

    def interrupted(request: dict[str, Any]) -> str:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        store.session_compress("chat", summarizer=interrupted)
    store.set_summarizer(None)
    assert store.session_compress("chat").settings["model"] == "extractive"
    with pytest.raises(memcore.ValidationError, match="none is set"):
        store.session_compress("chat", summarizer="callback")
    with pytest.raises(TypeError):
        store.set_summarizer(42)  # type: ignore[arg-type]
