"""The package as installed: exports, version, typing marker, and the example agent."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import memcore
from conftest import README, readme_examples

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "python" / "agent.py"
AGENT_LOOP = ROOT / "examples" / "python" / "agent_loop.py"

# What the example agent loop answers to the conversation's four questions, each from a
# memory a turn before captured and cited by its label.
LOOP_ANSWERS = [
    "We decided to use PostgreSQL 16 for the event store",
    "The staging database listens on port 5433",
    "Important: never run database migrations on a Friday afternoon.",
    "TIL the CI runners have no GPU",
]


def test_exports_and_version() -> None:
    assert sorted(memcore.__all__) == sorted(set(memcore.__all__))
    for name in memcore.__all__:
        assert hasattr(memcore, name), name
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", memcore.__version__)
    assert metadata.version("memcore") == memcore.__version__
    for cls in (memcore.Memcore, memcore.Memory, memcore.MemorySummary, memcore.Listing):
        assert cls.__module__ == "memcore"


def test_typing_files_are_installed() -> None:
    package = Path(memcore.__file__).parent
    assert (package / "py.typed").is_file()
    assert (package / "_memcore.pyi").is_file()
    assert "site-packages" in str(package), "tests must run against the installed wheel"


def test_the_example_agent_runs_and_can_run_again(tmp_path: Path) -> None:
    store = tmp_path / "agent-store"
    for run in (1, 2):
        done = subprocess.run(
            [sys.executable, str(EXAMPLE), str(store)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        out = done.stdout
        assert "imported 2 meeting notes in one batch: meetings/kickoff, meetings/sprint-review" in out
        assert "session 1: stored 5 memories in blockers, decisions, learnings, meetings" in out
        assert "session 2: 3 memories about 'gpu' for the prompt:" in out
        assert "ID: adopt-wgpu" in out
        assert "composed context: " in out and " of 600 tokens" in out
        assert re.search(r"M\d+\s+blockers/ci-lacks-vulkan-drivers\s+blocker\s+included", out), out
        assert "resolved blockers/ci-lacks-vulkan-drivers" in out
        assert "[NOT_FOUND]" in out
        assert "so is a misspelt argument: invalid `search` request at `limt`: unknown field `limt`" in out
        assert "open blockers: 0" in out
        # The suite runs without the embedding model: search falls back to text and says so.
        assert "note: semantic search is unavailable" in out
        assert "search (text) for 'Which GPU API should the renderer use?':" in out
        assert "decisions found by search: decisions/adopt-wgpu" in out
        assert "resolved blockers about CI: blockers/ci-lacks-vulkan-drivers" in out
    with memcore.open(store) as handle:
        decision = handle.get("decisions/adopt-wgpu")
        assert "WebGPU" in decision.content
        assert decision.version >= 4  # two runs, each a put and an update
        assert handle.get("blockers/ci-lacks-vulkan-drivers").status == "resolved"
        assert handle.get("meetings/kickoff").version == 2  # imported by both runs
        assert handle.verify().consistent


@pytest.mark.usefixtures("real_model")
def test_the_example_agent_searches_hybrid_with_the_model(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), str(tmp_path / "agent-store")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "note:" not in done.stdout
    assert "search (hybrid) for 'Which GPU API should the renderer use?':" in done.stdout
    assert "decisions found by search: decisions/adopt-wgpu" in done.stdout


@pytest.mark.parametrize("model", ["text only", "with the model"])
def test_the_example_agent_loop_cites_what_it_captured(model: str, request: pytest.FixtureRequest) -> None:
    if model == "with the model":
        request.getfixturevalue("real_model")
    done = subprocess.run([sys.executable, str(AGENT_LOOP)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.count("  remembered: ") == 4, out
    for answer in LOOP_ANSWERS:
        assert re.search(rf"^  agent: {re.escape(answer)}.* \[M\d+\]$", out, re.MULTILINE), out
    used = [int(n) for n in re.findall(r"^  context: \d+ memories, (\d+)/300 tokens$", out, re.MULTILINE)]
    assert len(used) == 8 and max(used) <= 300, out


def test_the_example_agent_without_arguments_uses_a_temporary_store() -> None:
    done = subprocess.run([sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "memory files under" in done.stdout


def test_the_readme_quick_start_runs(in_tmp_cwd: Path) -> None:
    blocks = readme_examples("Quick start")
    assert blocks, "the README has a Python quick start"
    for block in blocks:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, str(README), "exec"), {"__name__": "readme"})
        assert "ID: gpu-patterns" in out.getvalue()
        assert "knowledge/gpu-patterns 2" in out.getvalue()
    assert (in_tmp_cwd / "memories" / "knowledge" / "gpu-patterns.md").is_file()


def test_the_package_docstring_example_runs(in_tmp_cwd: Path) -> None:
    doc = memcore.__doc__ or ""
    example = "\n".join(
        line[4:] for line in doc.splitlines() if line.startswith("    ")
    )
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, "memcore.__doc__", "exec"), {"__name__": "doc"})
    assert "knowledge/gpu-patterns 2" in out.getvalue()
