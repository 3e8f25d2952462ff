"""Round trips between the Python API and memory files written or edited by hand."""

from __future__ import annotations

import datetime as dt
import os
import stat
from pathlib import Path

import pytest

import memcore
from conftest import write_file

HAND_WRITTEN = """\
---
title: Retry Policy
type: decision
status: active
tags: [http, retries]
created_by: alice
created_at: 2025-01-02T03:04:05Z
reviewed_by: bob
links:
  ticket: OPS-12
  mirrors: [a, b]
---
# Retry Policy

Retry idempotent calls three times with jittered backoff.
"""


def test_a_hand_written_file_reads_back_with_its_unknown_keys(store: memcore.Memcore) -> None:
    write_file(store.path / "decisions" / "retry-policy.md", HAND_WRITTEN)
    memory = store.get("retry-policy")
    assert memory.ref == "decisions/retry-policy"
    assert (memory.title, memory.type, memory.created_by) == ("Retry Policy", "decision", "alice")
    assert memory.tags == ("http", "retries")
    assert memory.created_at == dt.datetime(2025, 1, 2, 3, 4, 5, tzinfo=dt.timezone.utc)
    assert memory.metadata == {"reviewed_by": "bob", "links": {"ticket": "OPS-12", "mirrors": ["a", "b"]}}
    assert memory.content.startswith("# Retry Policy\n\nRetry idempotent calls")
    assert [s.ref for s in store.list(filters="reviewed_by=bob")] == ["decisions/retry-policy"]


def test_an_update_keeps_hand_written_keys_and_body(store: memcore.Memcore) -> None:
    path = write_file(store.path / "decisions" / "retry-policy.md", HAND_WRITTEN)
    updated = store.update("retry-policy", tags=["resilience"], merge_tags=True, metadata={"approved": True})
    assert updated.version == 2
    text = path.read_text(encoding="utf-8")
    assert "reviewed_by: bob" in text
    assert "ticket: OPS-12" in text
    assert "approved: true" in text
    assert "- resilience" in text
    assert text.endswith("Retry idempotent calls three times with jittered backoff.\n")
    reread = store.get("decisions/retry-policy")
    assert reread.metadata == {**updated.metadata}
    assert reread.metadata["links"] == {"ticket": "OPS-12", "mirrors": ["a", "b"]}


def test_a_plain_markdown_file_without_frontmatter(store: memcore.Memcore) -> None:
    write_file(store.path / "notes" / "plain.md", "# Plain Note\n\nJust markdown, nothing else.\n")
    memory = store.get("notes/plain")
    assert memory.title == "Plain Note"
    assert memory.status == "active"
    assert memory.content == "# Plain Note\n\nJust markdown, nothing else.\n"
    assert store.update("notes/plain", tags=["found"]).tags == ("found",)
    assert (store.path / "notes" / "plain.md").read_text().startswith("---\n")


def test_edits_by_hand_are_seen_at_once(store: memcore.Memcore) -> None:
    stored = store.put("# Draft\n\nfirst body", collection="notes")
    path = store.path / "notes" / f"{stored.id}.md"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n") and "id: draft" in text
    edited = text.replace("first body", "second, longer body written in an editor").replace(
        "collection: notes", "collection: notes\npriority: high"
    )
    path.write_text(edited, encoding="utf-8")
    memory = store.get("draft")
    assert memory.content == "# Draft\n\nsecond, longer body written in an editor"
    assert memory.priority == "high"
    path.unlink()
    with pytest.raises(memcore.NotFoundError):
        store.get("draft")


def test_a_broken_file_is_skipped_by_list_and_mended_by_hand(store: memcore.Memcore) -> None:
    store.put("fine", id="good", collection="notes")
    broken = write_file(store.path / "notes" / "bad.md", "---\ntags: [oops\n---\nbody\n")
    listing = store.list()
    assert [s.ref for s in listing] == ["notes/good"]
    assert len(listing.skipped) == 1
    skipped = listing.skipped[0]
    assert isinstance(skipped, memcore.CorruptedError)
    assert skipped.path == str(broken)
    assert "Listing(len=1" in repr(listing) and "skipped=1" in repr(listing)
    with pytest.raises(memcore.CorruptedError):
        store.get("notes/bad")
    broken.write_text("---\ntags: [fixed]\n---\nbody mended by hand\n", encoding="utf-8")
    assert store.get("notes/bad").tags == ("fixed",)
    assert len(store.list()) == 2 and store.list().skipped == ()


def test_files_are_private_and_unicode_survives(store: memcore.Memcore) -> None:
    text = "# Überblick 概要 🚀\n\nZeilen mit Umlauten, 中文 und Emoji 🎉.\n"
    memory = store.put(text, collection="intl", tags=["日本語"], metadata={"note": "naïve café"})
    path = store.path / "intl" / f"{memory.id}.md"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    again = store.get(memory.ref)
    assert (again.content, again.tags, again.metadata) == (text, ("日本語",), {"note": "naïve café"})
    assert "🚀" in path.read_text(encoding="utf-8")


def test_import_a_markdown_file_with_put(store: memcore.Memcore, tmp_path: Path) -> None:
    """An agent importing a file: its body as content, its own date kept."""
    source = write_file(tmp_path / "meeting.md", "# Weekly Sync\n\n- shipped v1\n")
    when = dt.datetime.fromtimestamp(source.stat().st_mtime, tz=dt.timezone.utc)
    memory = store.put(source.read_text(encoding="utf-8"), collection="meetings", created_at=when)
    assert memory.ref == "meetings/weekly-sync"
    assert memory.created_at == when.replace(microsecond=0)
    assert (store.path / "meetings" / "weekly-sync.md").read_text().endswith("- shipped v1\n")
