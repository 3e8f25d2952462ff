"""Shared fixtures. The tests import the installed wheel (`scripts/test-python` builds it and
installs it into a fresh virtual environment), never the source tree."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import memcore


#: The embedding model directory the suite was started with (scripts/test-all sets one).
ORIGINAL_MODEL_DIR = os.environ.get("MEMCORE_MODEL_DIR")
ISOLATED = ("MEMCORE_HOME", "MEMCORE_MODEL_DIR")


@pytest.fixture(scope="session", autouse=True)
def _isolated_environment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No test touches the real global store, and stores run without the embedding model
    (which a store would otherwise load from the machine's cache on open): the API under test
    is the same, each open is fast and the results do not depend on the machine.
    `test_model.py` brings the model back."""
    saved = {name: os.environ.get(name) for name in ISOLATED}
    os.environ["MEMCORE_HOME"] = str(tmp_path_factory.mktemp("global-store"))
    os.environ["MEMCORE_MODEL_DIR"] = str(tmp_path_factory.mktemp("no-model"))
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def real_model_dir() -> Path:
    """Where the core finds the embedding model when MEMCORE_MODEL_DIR is as the suite found
    it: that variable, else the default cache directory `scripts/fetch-models` fills."""
    if ORIGINAL_MODEL_DIR:
        return Path(ORIGINAL_MODEL_DIR)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    cache = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    return cache / "memcore" / "models" / "all-minilm-l6-v2-int8"


def restore_real_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Points stores opened from now on at the real embedding model. Fails (never skips) when
    it is not installed: CI always has it, and a skipped semantic test would pass silently."""
    model_dir = real_model_dir()
    if not (model_dir / "model.onnx").is_file():
        pytest.fail(
            f"the embedding model is not installed in {model_dir}: run scripts/fetch-models "
            "(scripts/test-all does, and exports MEMCORE_MODEL_DIR)",
            pytrace=False,
        )
    if ORIGINAL_MODEL_DIR:
        monkeypatch.setenv("MEMCORE_MODEL_DIR", ORIGINAL_MODEL_DIR)
    else:
        monkeypatch.delenv("MEMCORE_MODEL_DIR")


@pytest.fixture
def real_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real embedding model for this test (see `restore_real_model`)."""
    restore_real_model(monkeypatch)


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def store(store_path: Path) -> Iterator[memcore.Memcore]:
    with memcore.open(store_path) as opened:
        yield opened


def write_file(path: Path, text: str) -> Path:
    """Writes a memory file by hand, as a person with an editor would."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def in_tmp_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


README = Path(__file__).resolve().parents[1] / "README.md"


def readme_examples(section: str) -> list[str]:
    """The ```python blocks of memcore-py/README.md's `## {section}`, which tests run."""
    text = README.read_text(encoding="utf-8")
    found = re.search(rf"^## {re.escape(section)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert found, f"README.md has no section {section!r}"
    return re.findall(r"```python\n(.*?)```", found.group(1), flags=re.S)


def pytest_report_header(config: pytest.Config) -> str:
    return f"memcore {memcore.__version__} from {os.path.dirname(memcore.__file__)}"
