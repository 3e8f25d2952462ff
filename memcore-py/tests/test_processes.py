"""Two processes writing one store at the same time: the store's lock file serialises them
and nothing is lost."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import memcore

ROUNDS = 8

WRITER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    import memcore

    store, name, rounds, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4])
    while not go.exists():
        time.sleep(0.005)
    with memcore.open(store) as handle:
        for n in range(rounds):
            handle.put(f"{name} wrote {n}", id=f"{name}-{n}", collection=name, create_only=True)
            handle.update("shared/counter", tags=[f"{name}-{n}"], merge_tags=True)
    print(f"{name} done")
    """
)


def test_two_processes_write_one_store(store_path: Path, tmp_path: Path) -> None:
    with memcore.open(store_path) as handle:
        handle.put("counter", id="counter", collection="shared")
    go = tmp_path / "go"
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(store_path), name, str(ROUNDS), str(go)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("alpha", "beta")
    ]
    time.sleep(0.2)  # let both start and wait at the line
    go.touch()
    for name, writer in zip(("alpha", "beta"), writers):
        out, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
        assert out.strip() == f"{name} done"

    with memcore.open(store_path) as handle:
        counter = handle.get("shared/counter")
        expected = {f"{name}-{n}" for name in ("alpha", "beta") for n in range(ROUNDS)}
        assert set(counter.tags) == expected
        assert counter.version == 1 + 2 * ROUNDS
        assert handle.collections() == ["alpha", "beta", "shared"]
        for name in ("alpha", "beta"):
            assert [s.id for s in handle.list(collection=name)] == sorted(
                f"{name}-{n}" for n in range(ROUNDS)
            )


def test_a_second_process_sees_changes_at_once(store_path: Path) -> None:
    reader = textwrap.dedent(
        """
        import sys, memcore
        with memcore.open(sys.argv[1]) as handle:
            print(handle.get("news").content)
        """
    )
    with memcore.open(store_path) as handle:
        for text in ("first", "second"):
            handle.put(text, id="news")
            seen = subprocess.run(
                [sys.executable, "-c", reader, str(store_path)],
                capture_output=True,
                text=True,
                check=True,
            )
            assert seen.stdout.strip() == text
        # And this process sees another process's write without reopening.
        subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys, memcore; memcore.open(sys.argv[1]).update('news', content='third')",
                str(store_path),
            ],
            check=True,
        )
        assert handle.get("news").content == "third"
        assert handle.get("news").version == 3


CRASH_WRITER = textwrap.dedent(
    """
    import sys
    import memcore

    store, name = sys.argv[1], sys.argv[2]
    with memcore.open(store) as handle:
        n = 0
        while True:
            memory = handle.put(f"{name} wrote {n} " + "payload " * 20, id=f"{name}-{n}", collection="crash")
            print(f"ACK {memory.ref} {name} {n}", flush=True)
            n += 1
    """
)


def test_killed_python_writers_lose_no_acknowledged_write(tmp_path: Path) -> None:
    """Issue 14: Python writer processes SIGKILLed at random moments (about 4 s): every
    write a writer printed as acknowledged is there afterwards, and the indexes agree."""
    import random
    import threading

    store = tmp_path / "store"
    store.mkdir()
    (store / "config.yaml").write_text("embedding:\n  enabled: false\n", encoding="utf-8")
    memcore.open(store).close()
    acked: list[tuple[str, str]] = []
    lock = threading.Lock()

    def spawn(name: str) -> tuple[subprocess.Popen[str], threading.Thread]:
        writer = subprocess.Popen(
            [sys.executable, "-c", CRASH_WRITER, str(store), name],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

        def read() -> None:
            assert writer.stdout is not None
            for line in writer.stdout:
                parts = line.split()
                if len(parts) == 4 and parts[0] == "ACK":
                    with lock:
                        acked.append((parts[1], f"{parts[2]} wrote {parts[3]}"))

        reader = threading.Thread(target=read)
        reader.start()
        return writer, reader

    rng = random.Random(14)
    writers = [spawn(f"w{n}") for n in range(3)]
    spawned, kills = 3, 0
    deadline = time.monotonic() + 4
    while time.monotonic() < deadline:
        time.sleep(0.1 + rng.random() * 0.4)
        writer, reader = writers.pop(rng.randrange(len(writers)))
        writer.kill()  # SIGKILL
        writer.wait()
        reader.join()
        kills += 1
        spawned += 1
        writers.append(spawn(f"w{spawned}"))
    for writer, reader in writers:
        writer.kill()
        writer.wait()
        reader.join()

    assert kills >= 5 and len(acked) >= 10, (kills, len(acked))
    with memcore.open(store) as handle:
        for ref, start in acked:
            assert handle.get(ref).content.startswith(start), ref
        assert handle.verify().consistent
