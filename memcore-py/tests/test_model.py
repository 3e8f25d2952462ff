"""With the embedding model present, a store loads ONNX Runtime into this Python process and
embeds every write. The binding must keep working, and keep the GIL released, while it does.
Fails when no model is installed (`scripts/fetch-models`; `scripts/test-all` fetches it)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

import memcore


@pytest.mark.usefixtures("real_model")
def test_writes_embed_with_the_gil_released(store_path: Path) -> None:
    texts = [
        "# Metal on Apple silicon\n\nThe renderer reaches the GPU through Metal.",
        "# Retry policy\n\nRetry idempotent HTTP calls three times with jittered backoff.",
        "# Weekly sync\n\nShipped the importer; the exporter slips a week.",
        "# Vulkan in CI\n\nThe Linux runners need a software Vulkan driver.",
    ]
    outcome: list[object] = []
    with memcore.open(store_path) as store:

        def writer() -> None:
            try:
                for text in texts * 2:
                    store.put(text)
                outcome.append("ok")
            except Exception as err:  # pragma: no cover - only on failure
                outcome.append(err)

        thread = threading.Thread(target=writer)
        started = time.monotonic()
        thread.start()
        spins = 0
        while thread.is_alive() and time.monotonic() - started < 60:
            spins += 1
        thread.join()
        assert outcome == ["ok"]
        elapsed = time.monotonic() - started
        assert spins > 1_000 * elapsed, f"{spins} spins in {elapsed:.2f}s: was the GIL held?"
        assert len(store.list()) == len(texts)
        assert store.get("retry-policy").version == 2
