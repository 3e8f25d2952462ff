#!/usr/bin/env python3
"""An agent that remembers: a small, runnable tour of memcore's Python API.

The "agent" works on a task over two sessions. In the first it imports meeting notes in one
batch and records what it learned, what it decided and what blocks it. In the second it
recalls what is relevant to a topic, builds the context block it would put into its prompt
(by hand, then composed by memcore within a token budget), searches its memories to answer a
question, resolves the blocker and revises a decision (the old version stays in the
history). Every memory is a markdown file you can open in an editor.

Search is hybrid (full-text and semantic) when the embedding model is installed (the wheel's
`[embeddings]` extra, or `memcore model fetch`); without it, memcore falls back to full-text
search and says so.

    python examples/python/agent.py [STORE_DIR]

Without STORE_DIR it works in a temporary directory. It needs the memcore wheel installed
(`scripts/test-python` builds one; see README.md). The Python tests run this program.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import memcore

AGENT = "example-agent"


MEETING_NOTES = [
    "# Kickoff\n\nPort the renderer to macOS this quarter.",
    "# Sprint review\n\nThe port cannot ship until CI runs the graphics tests.",
]


def first_session(store: memcore.Memcore) -> None:
    """Import the team's meeting notes, then record what was learned, decided and found
    blocking while porting a renderer."""
    imported = store.put_many(
        {"content": note, "collection": "meetings", "type": "meeting", "created_by": AGENT}
        for note in MEETING_NOTES
    )
    print(f"imported {len(imported)} meeting notes in one batch: {', '.join(m.ref for m in imported)}")
    learned = store.put(
        "# Metal on Apple silicon\n\nCUDA is not available on macOS; the renderer must "
        "reach the GPU through Metal.",
        collection="learnings",
        type="learning",
        tags=["gpu", "macos"],
        context="porting the renderer to macOS",
        created_by=AGENT,
    )
    store.put(
        "# Adopt wgpu\n\nOne GPU API over Metal, Vulkan and DirectX 12.",
        collection="decisions",
        type="decision",
        tags=["gpu", "architecture"],
        importance=0.9,
        related_to=[learned.id],
        created_by=AGENT,
    )
    store.put(
        "# CI lacks Vulkan drivers\n\nGPU tests fail on the Linux runners.",
        collection="blockers",
        type="blocker",
        tags=["ci", "gpu"],
        priority="high",
        metadata={"issue": 42},
        created_by=AGENT,
    )
    stats = store.stats()
    print(f"session 1: stored {stats.memories} memories in {', '.join(stats.collections)}")


def recall(store: memcore.Memcore, topic: str) -> list[memcore.Memory]:
    """The active memories tagged `topic`, most important first."""
    found = [store.get(s.ref) for s in store.list(filters={"tags": topic, "status": "active"})]
    return sorted(found, key=lambda m: -(m.importance or 0.0))


def prompt_context(memories: list[memcore.Memory]) -> str:
    """The block an agent would paste into its prompt, one rendered memory per section."""
    return "\n\n---\n\n".join(m.render("context") for m in memories)


def answer(store: memcore.Memcore, question: str) -> list[memcore.Memory]:
    """The memories an agent would read before answering `question`: the best search hits,
    recent ones slightly preferred (a 30-day half-life at 20% weight)."""
    results = store.search(question, limit=3, recency={"half_life_days": 30.0, "weight": 0.2})
    for warning in results.warnings:
        print(f"note: {warning.splitlines()[0]}")
    print(f"search ({results.mode}) for {question!r}:")
    for hit in results:
        print(f"  {hit.score:.4f}  {hit.memory.ref}  {hit.memory.title}")
    return [store.get(hit.memory.ref) for hit in results]


def second_session(store: memcore.Memcore) -> None:
    memories = recall(store, "gpu")
    print(f"session 2: {len(memories)} memories about 'gpu' for the prompt:")
    print(prompt_context(memories))
    print()

    # Or let memcore assemble the block within a token budget: working memory (blockers,
    # decisions) and what the task finds, labelled [M1].. for citation, with the reasons.
    context = store.compose("port the renderer to macOS", budget=600)
    print(f"composed context: {context.tokens} of {context.budget.total} tokens, {len(context.items)} memories")
    for entry in context.manifest:
        print(f"  {entry.label or '--':<3} {entry.ref:<34} {entry.source:<8} {entry.outcome}")
    print()

    relevant = answer(store, "Which GPU API should the renderer use?")
    decisions = [m.ref for m in relevant if m.type == "decision"]
    print(f"decisions found by search: {', '.join(decisions)}")

    blocker = store.update(
        "blockers/ci-lacks-vulkan-drivers",
        status="resolved",
        tags=["fixed"],
        merge_tags=True,
        metadata={"fixed_by": "lavapipe software driver"},
    )
    print(f"resolved {blocker.ref} (version {blocker.version}, tags {', '.join(blocker.tags)})")

    decision = store.update(
        "decisions/adopt-wgpu",
        content="# Adopt wgpu\n\nOne GPU API over Metal, Vulkan, DirectX 12 and WebGPU.",
        tags=["web"],
        merge_tags=True,
    )
    history = store.versions(decision.ref)
    first = store.get_version(decision.ref, history[0].rev)
    print(f"revised {decision.ref}: {len(history)} versions; the first said: {first.content.splitlines()[-1]}")

    try:
        store.get("adopt-vulkan")
    except memcore.NotFoundError as err:
        print(f"a wrong guess is a typed error: {err} [{err.category}] -> {err.recovery}")
    try:
        store.search("wgpu", limt=3)  # type: ignore[call-arg]  # a typo, on purpose
    except memcore.RequestError as err:
        print(f"so is a misspelt argument: {str(err).split(',')[0]}")

    open_blockers = store.list(collection="blockers", filters="status=active")
    print(f"open blockers: {len(open_blockers)}")

    fixed = store.search("GPU tests in CI", collections=["blockers"], statuses=["resolved"], limit=1)
    print(f"resolved blockers about CI: {', '.join(hit.memory.ref for hit in fixed)}")


def main(argv: list[str]) -> int:
    if len(argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(argv[1]) if len(argv) == 2 else Path(scratch) / "memories"
        with memcore.open(path) as store:
            first_session(store)
            second_session(store)
            files = sorted(p.relative_to(store.path).as_posix() for p in store.path.glob("*/*.md"))
            print(f"memory files under {store.path}: {', '.join(files)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
