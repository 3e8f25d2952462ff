"""The PostgreSQL backend from Python: store directories (one per machine's indexes) over one
namespace of a real cluster that `scripts/pg-cluster` starts, a writer in another process,
the URL from the environment, and the errors of a missing URL or a wrong password."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from itertools import count
from pathlib import Path

import pytest

import memcore

PG_CLUSTER = Path(__file__).resolve().parents[2] / "scripts" / "pg-cluster"
_namespaces = count()


@pytest.fixture(scope="module")
def database_url() -> Iterator[str]:
    """A throwaway cluster for this module, stopped at its end (in a directory of its own
    under /tmp, which the server's unprivileged user can enter)."""
    cluster = Path(tempfile.mkdtemp(prefix="memcore-pg"))
    started = subprocess.run(
        [str(PG_CLUSTER), "start", str(cluster), str(os.getpid())],
        check=True,
        capture_output=True,
        text=True,
    )
    yield started.stdout.strip().splitlines()[-1]
    subprocess.run([str(PG_CLUSTER), "stop", str(cluster)], check=False, capture_output=True)


def machine(directory: Path, url: str, namespace: str) -> memcore.Memcore:
    """A store directory whose settings name `namespace` of the database at `url`."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "config.yaml").write_text(
        f'backend: postgres\npostgres:\n  url: "{url}"\n  namespace: {namespace}\n'
    )
    return memcore.open(directory)


def ids(results: memcore.SearchResults) -> list[str]:
    return sorted(hit.memory.id for hit in results)


def test_two_machines_and_another_process_share_one_namespace(
    tmp_path: Path, database_url: str
) -> None:
    namespace = f"py-{next(_namespaces)}"
    a = machine(tmp_path / "a", database_url, namespace)
    b = machine(tmp_path / "b", database_url, namespace)
    a.put("Tide tables for the north harbour.", id="tides")
    b.put("The north harbour crane is out of service.", id="crane")
    writer = textwrap.dedent(
        """
        import sys, memcore
        store = memcore.open(sys.argv[1])
        store.put("North harbour ferries leave at dawn.", id="ferries")
        """
    )
    machine(tmp_path / "c", database_url, namespace).close()  # a third machine's directory
    subprocess.run([sys.executable, "-c", writer, str(tmp_path / "c")], check=True)
    for store in (a, b):
        store.sync()
        assert ids(store.search("north harbour", mode="text")) == ["crane", "ferries", "tides"]
    assert a.get("ferries").content == "North harbour ferries leave at dawn."
    b.delete("tides")
    assert a.sync().synced == 1
    assert ids(a.search("north harbour", mode="text")) == ["crane", "ferries"]


def test_backend_postgres_reads_the_url_from_the_environment(
    tmp_path: Path, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMCORE_DATABASE_URL", database_url)
    store = memcore.open(tmp_path / "env", backend="postgres")
    stored = store.put("Kept in the database, found by its words.", id="env")
    assert stored.version == 1
    assert ids(store.search("database words", mode="text")) == ["env"]


def test_a_missing_url_or_a_wrong_password_is_a_typed_error(
    tmp_path: Path, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMCORE_DATABASE_URL", raising=False)
    with pytest.raises(memcore.ValidationError) as missing:
        memcore.open(tmp_path / "none", backend="postgres")
    assert "MEMCORE_DATABASE_URL" in missing.value.recovery
    password = database_url.split("password=")[1].split()[0]
    wrong = database_url.replace(password, "wrong-password-123")
    with pytest.raises(memcore.StorageError) as refused:
        machine(tmp_path / "wrong", wrong, "x")
    shown = f"{refused.value} {refused.value.recovery}"
    assert "wrong-password-123" not in shown
    assert "password=***" in shown
