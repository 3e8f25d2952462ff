"""memcore's git-notes backend against the reference implementation of seed 002, the PyPI
package `git-notes-memory` (issue 21): notes written by either tool are read by the other field
by field, with the same ids, and no memory goes missing.

The reference is used as its users use it: `CaptureService.capture` writes (through `git notes
append`), `SyncService.reindex` reads every note into its SQLite index, whose memories (and
`namespace:sha7:index` ids) are what its searches return. It runs without sentence-transformers
(not installed): its embedding service fails to load and it indexes without vectors, its own
graceful degradation. scripts/test-python installs it in a venv of its own.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from git_notes_memory.capture import CaptureService
from git_notes_memory.embedding import EmbeddingService
from git_notes_memory.git_ops import GitOps
from git_notes_memory.index import IndexService
from git_notes_memory.models import Memory as ReferenceMemory
from git_notes_memory.sync import SyncService

import memcore


def git(repo: Path, *args: str) -> str:
    """`git -C repo args...`, without the machine's own git settings."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, f"git {' '.join(args)} failed: {done.stderr}"
    return done.stdout.strip()


def commit(repo: Path, name: str) -> str:
    (repo / name).write_text(name + "\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", name)
    return git(repo, "rev-parse", "HEAD")


class Reference:
    """The reference implementation on one repository."""

    def __init__(self, repo: Path, data: Path) -> None:
        self.repo = repo
        self.data = data
        self.capture_service = CaptureService(git_ops=GitOps(repo), repo_path=repo)

    def capture(self, namespace: str, summary: str, content: str, **fields: object) -> str:
        result = self.capture_service.capture(namespace, summary, content, **fields)
        assert result.success and result.memory is not None
        return result.memory.id

    def read(self) -> dict[str, ReferenceMemory]:
        """Every memory as the reference's index holds it after a full reindex, by id."""
        index = IndexService(self.data / "index.db")
        index.initialize()
        sync = SyncService(
            repo_path=self.repo, index=index, git_ops=GitOps(self.repo), embedding_service=EmbeddingService()
        )
        sync.reindex(full=True)
        return {memory.id: memory for memory in index.get_all_memories()}

    def append_raw(self, namespace: str, text: str, rev: str = "HEAD") -> None:
        """What any tool following seed 002 does: `git notes append`."""
        git(self.repo, "notes", f"--ref=refs/notes/mem/{namespace}", "append", "-m", text, rev)


def short(memory_id: str) -> str:
    """The reference index's form of an id: the commit cut to 7 characters."""
    namespace, sha, index = memory_id.split(":")
    return f"{namespace}:{sha[:7]}:{index}"


def escaped(content: str) -> str:
    """The content as a note holds it: lines that are `---` (whitespace around allowed), after
    any backslashes, get one backslash more (memcore's documented escaping)."""
    lines = content.split("\n")
    return "\n".join("\\" + line if line.lstrip("\\").strip() == "---" else line for line in lines)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    if shutil.which("git") is None:
        pytest.fail("the interop tests need the `git` command on PATH", pytrace=False)
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Interop")
    git(path, "config", "user.email", "interop@example.com")
    commit(path, "README")
    monkeypatch.setenv("MEMORY_PLUGIN_DATA_DIR", str(tmp_path / "reference-data"))
    return path


@pytest.fixture
def reference(repo: Path, tmp_path: Path) -> Reference:
    return Reference(repo, tmp_path / "reference-data")


@pytest.fixture
def store(repo: Path) -> Iterator[memcore.Memcore]:
    with memcore.open(repo, backend="git-notes") as opened:
        yield opened


def fresh(repo: Path) -> memcore.Memcore:
    """A new handle, which reads the notes from git rather than from a writer's cache."""
    return memcore.open(repo, backend="git-notes")


def test_reference_notes_are_read_by_memcore_field_by_field(repo: Path, reference: Reference) -> None:
    first = commit(repo, "second-commit")
    ids = [
        reference.capture(
            "decisions",
            "Use PostgreSQL für Persistenz ✓",
            "## Context\n\nACID — we need ünïcode too.\n\n## Decision\n\nPostgreSQL.",
            tags=["database", "архитектура"],
            spec="atlas",
            phase="planning",
            relates_to=["blockers:abc1234:0"],
        ),
        reference.capture("decisions", "Second in the same note", "Short body.", status="resolved"),
        reference.capture("learnings", "On the first commit", "Lifetimes.", commit="HEAD~1"),
    ]
    assert ids[0] == f"decisions:{first}:0" and ids[1] == f"decisions:{first}:1"
    theirs = reference.read()
    with fresh(repo) as store:
        listing = store.list()
        assert not listing.skipped
        assert sorted(summary.id for summary in listing) == sorted(ids)
        for memory_id in ids:
            ours = store.get(memory_id)
            them = theirs[short(memory_id)]
            assert ours.summary == them.summary
            assert ours.title == them.summary, "no title in the note: the summary is the title"
            assert ours.content == them.content.strip("\n")
            assert ours.tags == them.tags
            assert ours.related_to == them.relates_to
            assert ours.status == them.status
            assert ours.created_at == them.timestamp
            assert {k: ours.metadata[k] for k in ("spec", "phase") if k in ours.metadata} == {
                k: v for k, v in (("spec", them.spec), ("phase", them.phase)) if v is not None
            }
        hits = store.search("ünïcode PostgreSQL", mode="text")
        assert [hit.memory.id for hit in hits][:1] == [ids[0]]
        # The summary is searchable on its own.
        assert [hit.memory.id for hit in store.search("Persistenz", mode="text")] == [ids[0]]


def test_memcore_notes_are_read_by_the_reference_field_by_field(repo: Path, reference: Reference) -> None:
    contents = [
        "# Rollout\n\nFirst the canary.\n\n---\n\ntype: not a new memory\n---\nThen everyone.",
        "A line of backslashes then a rule:\n\\---\n  ---  \nkept as written.",
        "ünïcode ✓ — Привет, 世界.",
    ]
    with fresh(repo) as store:
        stored = [
            store.put(
                contents[0],
                collection="decisions",
                id="rollout",
                summary="Canary first",
                tags=["deploy"],
                status="resolved",
                related_to=["decisions:abc1234:0"],
            ),
            store.put(contents[1], collection="decisions", summary="Backslashes"),
            store.put(contents[2], collection="learnings", summary="Unicode ✓"),
        ]
    theirs = reference.read()
    assert sorted(theirs) == sorted(short(memory.id) for memory in stored)
    for memory, content in zip(stored, contents):
        them = theirs[short(memory.id)]
        assert them.namespace == memory.collection
        assert them.summary == memory.summary
        assert them.content.strip("\n") == escaped(content), "whole, not cut at a rule"
        assert them.tags == memory.tags
        assert them.status == memory.status
        assert them.relates_to == memory.related_to
        assert them.timestamp == memory.created_at
    with fresh(repo) as again:
        for memory, content in zip(stored, contents):
            assert again.get(memory.id).content == content, "read back exactly"


def test_a_one_megabyte_note_round_trips(repo: Path, reference: Reference) -> None:
    block = "Ünïcode and a rule\n\n---\n\n" + "lorem ipsum dolor sit amet " * 3500
    with fresh(repo) as store:
        stored = [
            store.put(f"{n}: {block}", collection="research", summary=f"Part {n}") for n in range(11)
        ]
    note = git(repo, "notes", "--ref=refs/notes/mem/research", "show", "HEAD")
    assert len(note.encode()) > 1_000_000
    added = reference.capture("research", "Appended by the reference", "The twelfth.")
    assert added == stored[0].id.rsplit(":", 1)[0] + ":11"
    theirs = reference.read()
    assert len(theirs) == 12
    with fresh(repo) as store:
        assert len(store.list(limit=100)) == 12
        for memory in stored:
            assert theirs[short(memory.id)].summary == memory.summary
            assert store.get(memory.id).content == memory.content
        assert store.get(added).content == "The twelfth."


def test_blocks_with_other_key_orders_and_comments(repo: Path, reference: Reference) -> None:
    reference.capture("patterns", "Written by the reference", "First.")
    reference.append_raw("patterns", "---\nsummary: Summary first\ntype: patterns\ntimestamp: 2024-01-15T10:30:00Z\n---\n\nSecond.")
    reference.append_raw("patterns", "---\n# a YAML comment first\ntype: patterns\ntimestamp: 2024-01-15T11:00:00Z\nsummary: After a comment\n---\n\nThird.")
    theirs = reference.read()
    with fresh(repo) as store:
        ours = {short(s.id): store.get(s.id) for s in store.list()}
        assert sorted(ours) == sorted(theirs)
        for memory_id, them in theirs.items():
            assert (ours[memory_id].summary, ours[memory_id].content) == (them.summary, them.content.strip("\n"))
        summaries = [ours[k].summary for k in sorted(ours)]
        assert summaries == ["Written by the reference", "Summary first", "After a comment"]


def test_a_malformed_block_leaves_the_numbering_of_both_tools_alike(repo: Path, reference: Reference) -> None:
    reference.capture("blockers", "Before the damage", "One.")
    broken = "---\ntype: blockers\nsummary: [unclosed\n---\n\nBroken YAML."
    no_type = "---\nsummary: No namespace\ntimestamp: 2024-01-15T10:30:00Z\n---\n\nNo type."
    reference.append_raw("blockers", broken)
    reference.append_raw("blockers", no_type)
    captured = reference.capture("blockers", "After the damage", "Four.")
    theirs = reference.read()
    assert sorted(m.summary for m in theirs.values()) == ["After the damage", "Before the damage"]
    # The reference's reader (its index after any reindex, what its searches return) counts
    # only blocks that parse; its capture counts `---` lines and returned index 3. memcore
    # follows the reader.
    (after_short,) = [k for k, m in theirs.items() if m.summary == "After the damage"]
    assert after_short.endswith(":1") and captured.endswith(":3")
    after = captured.rsplit(":", 1)[0] + ":1"
    with fresh(repo) as store:
        listing = store.list()
        assert sorted(short(s.id) for s in listing) == sorted(theirs)
        assert len(listing.skipped) == 2, "the damaged blocks are reported, not lost"
        assert store.get(after).content == "Four."
        store.update(after, content="Four, changed by memcore.")
    note = git(repo, "notes", "--ref=refs/notes/mem/blockers", "show", "HEAD")
    assert broken in note and no_type in note, "memcore writes damaged blocks back untouched"
    assert reference.read()[short(after)].content.strip() == "Four, changed by memcore."


def test_rules_in_reference_content_split_alike(repo: Path, reference: Reference) -> None:
    memory_id = reference.capture("research", "A rule inside", "Before.\n\n---\n\nAfter the rule.")
    theirs = reference.read()
    with fresh(repo) as store:
        ours = store.get(memory_id)
        assert ours.content == theirs[short(memory_id)].content.strip("\n") == "Before."
        assert len(store.list().skipped) == 1, "the tail the reference drops is kept and reported"
        # That tail's frontmatter was never closed: a memory appended after it still reads
        # back, in both tools, under the id memcore gave it.
        appended = store.put("Appended by memcore.", collection="research", summary="Appended")
        assert appended.id == memory_id.rsplit(":", 1)[0] + ":1"
    with fresh(repo) as store:
        assert store.get(appended.id).content == "Appended by memcore."
    assert reference.read()[short(appended.id)].summary == "Appended"


def test_deletes_are_tombstones_the_reference_understands(repo: Path, reference: Reference) -> None:
    with fresh(repo) as store:
        kept = store.put("Stays.", collection="progress", summary="Kept")
        gone = store.put("Goes.", collection="progress", summary="Gone", status="resolved")
        store.delete(gone.id)
        theirs = reference.read()
        assert theirs[short(gone.id)].status == "tombstone"
        assert theirs[short(kept.id)].status == "active"
        assert [s.id for s in store.list()] == [kept.id]
        store.restore(gone.id)
        assert store.get(gone.id).status == "resolved"
    assert reference.read()[short(gone.id)].status == "resolved"


def test_concurrent_appends_of_both_tools_lose_nothing(repo: Path, reference: Reference) -> None:
    rounds = 12
    errors: list[BaseException] = []

    def by_reference() -> None:
        try:
            for n in range(rounds):
                reference.capture("progress", f"Reference {n}", f"Reference wrote {n}.")
        except BaseException as e:  # reported below
            errors.append(e)

    def by_memcore() -> None:
        try:
            with fresh(repo) as store:
                for n in range(rounds):
                    store.put(f"memcore wrote {n}.", collection="progress", summary=f"memcore {n}")
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=by_reference), threading.Thread(target=by_memcore)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors, errors
    expected = sorted([f"Reference {n}" for n in range(rounds)] + [f"memcore {n}" for n in range(rounds)])
    with fresh(repo) as store:
        assert sorted(store.get(s.id).summary or "" for s in store.list(limit=1000)) == expected
    assert sorted(m.summary for m in reference.read().values()) == expected

