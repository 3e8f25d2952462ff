#!/usr/bin/env python3
"""An agent loop with memory: for each user turn of a scripted conversation, compose the
memory context for the prompt within a token budget, let the model answer from it (citing the
`[M1]`-labelled memories it used), then capture what the turn said worth keeping.

    python examples/python/agent_loop.py [STORE_DIR]

The model is a deterministic stand-in (`stand_in_model`) so the loop runs offline and the same
every time: it answers with the labelled memory of the context that shares the most words with
the question. Put a real model call in its place. The conversation is
`examples/conversation.txt`, the one the Rust and C loops read too.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import memcore

BUDGET = 300
"""The token budget of the memory context in each prompt."""

CONVERSATION = Path(__file__).resolve().parents[1] / "conversation.txt"
"""The scripted conversation, shared with the Rust and C loops."""


def run(store: memcore.Memcore, conversation: str) -> None:
    """Plays `conversation` (one user turn per line) against `store`, printing the exchange."""
    turns = [line.strip() for line in conversation.splitlines()]
    for turn in (t for t in turns if t and not t.startswith("#")):
        # 1. The prompt's memory context: working memory and what the turn is about.
        context = store.compose(turn, budget=BUDGET)
        # 2. The model answers from it, citing labels.
        reply = stand_in_model(context.text, turn)
        # 3. What the user said worth keeping is stored for the next turns.
        captured = store.capture(turn, created_by="user", apply=True, apply_suggested=True)
        print(f"user: {turn}")
        print(f"  context: {len(context.items)} memories, {context.tokens}/{BUDGET} tokens")
        print(f"  agent: {reply}")
        for ref in captured.stored:
            print(f"  remembered: {ref}")


def stand_in_model(context: str, question: str) -> str:
    """A deterministic stand-in for a language model: the first line of the labelled memory
    in `context` sharing the most words (five letters or more) with `question`, cited by its
    label; at least two words must match."""
    asked = words(question)
    best: tuple[int, str, str] | None = None
    lines = iter(context.splitlines())
    for line in lines:
        opening = re.match(r'<memory label="([^"]*)"', line)
        if opening is None:
            continue
        content = []
        for inner in lines:
            if inner == "</memory>":
                break
            content.append(inner)
        shared = len(words(" ".join(content)) & asked)
        if shared >= 2 and (best is None or shared > best[0]):
            best = (shared, opening.group(1), content[0] if content else "")
    if best is None:
        return "I have nothing on that yet."
    return f"{best[2]} [{best[1]}]"


def words(text: str) -> set[str]:
    """The distinct lower-case words of five letters or more in `text`."""
    return {w.lower() for w in re.split(r"[^A-Za-z0-9]+", text) if len(w) >= 5}


def main(argv: list[str]) -> int:
    """Plays the conversation on the store in `argv[1]`, or in a temporary directory."""
    if len(argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(argv[1]) if len(argv) == 2 else Path(scratch) / "memories"
        with memcore.open(path) as store:
            run(store, CONVERSATION.read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
