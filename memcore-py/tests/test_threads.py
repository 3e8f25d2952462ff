"""One handle shared by several Python threads: nothing lost, and the GIL released while the
core works."""

from __future__ import annotations

import fcntl
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import memcore
from conftest import write_file

THREADS = 4
ROUNDS = 8
READERS = 6


def test_threads_sharing_one_handle_lose_nothing(store: memcore.Memcore) -> None:
    store.put("shared counter", id="shared", collection="counters")
    barrier = threading.Barrier(THREADS)

    def work(t: int) -> int:
        barrier.wait()
        for n in range(ROUNDS):
            store.put(f"thread {t} note {n}", id=f"t{t}-n{n}", tags=[f"t{t}"], create_only=True)
            store.update("counters/shared", tags=[f"t{t}-{n}"], merge_tags=True)
            assert store.get(f"t{t}-n{n}").content == f"thread {t} note {n}"
            if n % 5 == 0:
                assert len(store.list(filters=f"tags=t{t}")) == n + 1
        return t

    with ThreadPoolExecutor(THREADS) as pool:
        assert sorted(pool.map(work, range(THREADS))) == list(range(THREADS))

    shared = store.get("counters/shared")
    assert shared.version == 1 + THREADS * ROUNDS
    assert set(shared.tags) == {f"t{t}-{n}" for t in range(THREADS) for n in range(ROUNDS)}
    assert len(store.list(collection="memory")) == THREADS * ROUNDS


def test_the_gil_is_released_while_a_call_waits(store_path: Path) -> None:
    """While a put waits for the store lock (held here with flock, as another process
    would), this thread keeps running Python code. Were the GIL held, it could not."""
    write_file(store_path / "config.yaml", "lock_timeout_ms: 10000\n")
    with memcore.open(store_path) as handle:
        outcome: list[object] = []

        def writer() -> None:
            try:
                outcome.append(handle.put("waited for the lock", id="waiter"))
            except memcore.MemcoreError as err:  # pragma: no cover - only on failure
                outcome.append(err)

        with open(store_path / ".memcore" / "lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            thread = threading.Thread(target=writer)
            thread.start()
            spins = 0
            deadline = time.monotonic() + 0.3
            while time.monotonic() < deadline:
                spins += 1
            assert thread.is_alive(), "the put should still be waiting for the lock"
            assert spins > 10_000, f"this thread barely ran ({spins} spins): GIL held?"
            fcntl.flock(lock, fcntl.LOCK_UN)
        thread.join(timeout=10)
        assert not thread.is_alive()
        assert isinstance(outcome[0], memcore.Memory), outcome
        assert handle.get("waiter").content == "waited for the lock"


def test_close_while_other_threads_use_the_handle(store: memcore.Memcore) -> None:
    store.put("x", id="busy")
    started = threading.Barrier(READERS + 1)
    results: list[str] = []
    lock = threading.Lock()

    def reader() -> None:
        started.wait()
        calls = 0
        while True:
            try:
                store.get("busy")
                store.list()
                calls += 1
            except memcore.ValidationError as err:
                assert "closed" in str(err)
                with lock:
                    results.append("closed")
                return
            except Exception as err:  # pragma: no cover - only on failure
                with lock:
                    results.append(repr(err))
                return

    threads = [threading.Thread(target=reader) for _ in range(READERS)]
    for thread in threads:
        thread.start()
    started.wait()
    time.sleep(0.1)
    store.close()
    for thread in threads:
        thread.join(timeout=10)
    assert results == ["closed"] * READERS


@pytest.mark.parametrize("workers", [4])
def test_listing_iterators_in_threads(store: memcore.Memcore, workers: int) -> None:
    for n in range(12):
        store.put(f"note {n}", id=f"n{n:02}")
    listing = store.list()

    def walk(_: int) -> list[str]:
        return [s.id for s in listing]

    with ThreadPoolExecutor(workers) as pool:
        walks = list(pool.map(walk, range(workers * 4)))
    assert all(w == [f"n{n:02}" for n in range(12)] for w in walks)
