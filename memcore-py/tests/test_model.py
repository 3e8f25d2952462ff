"""With the embedding model present, a store loads ONNX Runtime into this Python process and
embeds every write. The binding must keep working, and keep the GIL released, while it does.
Fails when no model is installed (`scripts/fetch-models`; `scripts/test-all` fetches it)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import memcore
from conftest import real_model_dir


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


RUNTIME_TELEMETRY_PROBE = """
import os, sys
import memcore
assert os.environ["ORT_DISABLE_TELEMETRY"] == "1", os.environ["ORT_DISABLE_TELEMETRY"]
with memcore.open(sys.argv[1]) as store:
    store.put("# Metal on Apple silicon\\n\\nThe renderer reaches the GPU through Metal.")
    results = store.search("graphics on a Mac", mode="semantic")
    assert results.mode == "semantic" and results.warnings == (), results.warnings
"""


@pytest.mark.usefixtures("real_model")
def test_onnx_runtime_telemetry_is_off(tmp_path: Path) -> None:
    """ONNX Runtime would keep a device id under ~/.cache/Microsoft (and send telemetry)."""
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if k not in ("ORT_DISABLE_TELEMETRY", "XDG_CACHE_HOME")}
    env.update(HOME=str(home), MEMCORE_MODEL_DIR=str(real_model_dir()))
    probe = [sys.executable, "-c", RUNTIME_TELEMETRY_PROBE, str(tmp_path / "store")]
    done = subprocess.run(probe, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert not (home / ".cache").exists(), "ONNX Runtime wrote to the user's cache: telemetry is on"


def test_a_telemetry_choice_of_the_program_is_kept() -> None:
    """`import memcore` only sets ORT_DISABLE_TELEMETRY when the program has not."""
    probe = "import os, memcore; print(os.environ['ORT_DISABLE_TELEMETRY'])"
    env = {**os.environ, "ORT_DISABLE_TELEMETRY": "0"}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"
