"""The Python install path as a new user meets it (issue 27).

`scripts/test-python` builds the sdist, builds a wheel from it, installs that wheel with its
`embeddings` extra from the package registry into a fresh virtual environment, and runs this
script with a cleared environment: no MEMCORE_MODEL_DIR, an empty HOME, so no model cache.
Semantic search must then work from the module, `python -m memcore` and the `memcore` script,
with the model the wheel carries and the runtime of the extra, and nothing fetched at run time.
With `--without-extra` (after `onnxruntime` is uninstalled) search must fall back to full text
and say which install line brings the model.

Standard library only: the environment holds memcore and what its extra brings, nothing else.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import memcore

MEMORIES = {
    "coffee": "# Coffee\n\nThe user drinks espresso every morning.",
    "deploy": "# Deploy\n\nProduction deploys run on Fridays after the review.",
}
QUESTION = "what hot drink does the user like?"


def check(condition: bool, message: str) -> None:
    if not condition:
        sys.exit(f"check_wheel: FAILED: {message}")


def cli(*args: str, script: bool = False) -> dict[str, object]:
    """Runs the command (`python -m memcore`, or the `memcore` script) with --json."""
    command = [str(Path(sys.executable).with_name("memcore"))] if script else [
        sys.executable,
        "-m",
        "memcore",
    ]
    done = subprocess.run(
        [*command, "--json", *args], capture_output=True, text=True, timeout=300, check=False
    )
    check(done.returncode == 0, f"{' '.join(args)} exited {done.returncode}: {done.stderr}")
    result: dict[str, object] = json.loads(done.stdout)
    return result


def default_cache() -> Path:
    return Path.home() / ".cache" / "memcore"


def with_extra(store: Path) -> None:
    package = Path(memcore.__file__).resolve().parent
    with memcore.open(store) as opened:
        for text in MEMORIES.values():
            opened.put(text)
        results = opened.search(QUESTION, mode="semantic", limit=1)
        check(results.mode == "semantic", f"mode {results.mode}, warnings {results.warnings}")
        check(not results.warnings, f"warnings: {results.warnings}")
        check(results.hits[0].memory.id == "coffee", f"top hit {results.hits[0].memory.id}")

    model = cli("model")
    check(model["model_id"] == "all-MiniLM-L6-v2-dynamic-int8", f"model: {model}")
    check(Path(str(model["model"])).parent == package / "model", f"model from {model['model']}")
    runtime = Path(str(model["runtime"]))
    check(runtime.parent.parent.name == "onnxruntime", f"runtime from {runtime}")

    found = cli("--store", str(store), "search", QUESTION, "--mode", "semantic", script=True)
    check(found["mode"] == "semantic" and not found["warnings"], f"memcore search: {found}")
    hits = found["hits"]
    check(isinstance(hits, list) and hits[0]["memory"]["id"] == "coffee", f"hits: {hits}")
    check(not default_cache().exists(), f"{default_cache()} was created: something was fetched")
    print("check_wheel: semantic search from the installed wheel and its extra: ok")


def without_extra(store: Path) -> None:
    with memcore.open(store) as opened:
        for text in MEMORIES.values():
            opened.put(text)
        results = opened.search("espresso", mode="semantic", limit=1)
        check(results.mode == "text", f"mode {results.mode} without onnxruntime")
        check(
            any("[embeddings] extra" in warning for warning in results.warnings),
            f"the warning does not name the install line: {results.warnings}",
        )
        check(results.hits[0].memory.id == "coffee", f"top hit {results.hits[0].memory.id}")
    print("check_wheel: without the extra, full text and a hint naming it: ok")


def main() -> None:
    check("MEMCORE_MODEL_DIR" not in os.environ, "run with a cleared environment")
    check(not default_cache().exists(), f"{default_cache()} exists: use an empty HOME")
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "store"
        if sys.argv[1:] == ["--without-extra"]:
            without_extra(store)
        else:
            with_extra(store)


if __name__ == "__main__":
    main()
