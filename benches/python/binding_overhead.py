#!/usr/bin/env python3
"""Overhead of the Python binding over Rust for ``Memcore.get`` and ``Memcore.search``.

Opens (building it first if needed) a store of the first N passages of the shared bench
corpus (``../shared/bench/corpus.jsonl.gz``; never copied into the repository), ids
``p000000``... in ten collections ``c0``..``c9``, and times single calls with
``time.perf_counter_ns``:

- ``get(ref)``, warm (every memory read once first), stride 7919 through the refs;
- ``get`` of a ref that does not exist (the error path: ``NotFoundError`` raised and caught);
- ``search(q, mode=m)`` for the first 100 LoCoMo questions of ``queries.jsonl``, mode ``text``
  always, ``semantic`` and ``hybrid`` when the embedding model is installed (query vectors
  cached by a warm-up pass, so the model is not in the timed calls: the core caches 100);
- ``search`` in text mode for words no memory contains: little work in the core, so the
  binding's fixed cost per search stands out.

The Rust example ``examples/binding_overhead.rs``, started as a subprocess on the same store,
makes exactly the same calls (same refs, queries, order). The script interleaves short blocks
of Python calls and Rust calls (in random order within each pair of blocks) so that load from
other processes on a shared machine hits both alike, and reports the medians of all calls per
side and the median over pairs of (Python block median - Rust block median): the binding's
cost per call. ``--control`` puts a second Rust process in place of the Python calls: what
the harness shows between two processes running identical code (for calls of milliseconds
that spread exceeds the binding's cost; ``binding_split.py`` measures inside one process).

Run (release builds of both sides; not part of any test suite)::

    python3 -m venv /tmp/bench-venv && /tmp/bench-venv/bin/pip install maturin==1.16.0
    /tmp/bench-venv/bin/maturin build --release --locked \\
        --manifest-path memcore-py/Cargo.toml --out /tmp/bench-wheels
    /tmp/bench-venv/bin/pip install /tmp/bench-wheels/memcore-*.whl
    cargo build --release --example binding_overhead
    /tmp/bench-venv/bin/python benches/python/binding_overhead.py \\
        --n 10000 --store /tmp/bench-store

``--store DIR`` keeps the store (built on the first run; building 10k passages with the
model takes a few minutes on two cores, without it seconds). Without ``--store`` a
temporary directory is used and removed. Any existing memcore store works with ``--store``
(its memories are listed for the refs).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import memcore

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO.parent / "shared" / "bench"
QUERIES_CACHED = 100  # the core's query-vector cache holds 100 entries


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def corpus(path: Path, n: int) -> list[dict[str, str]]:
    out = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if len(out) == n:
                break
            out.append(json.loads(line))
    return out


def build_store(store: Path, passages: list[dict[str, str]]) -> None:
    started = time.perf_counter()
    with memcore.open(store) as mc:
        for start in range(0, len(passages), 1000):
            mc.put_many(
                {"content": p["text"], "id": f"p{start + i:06d}", "collection": f"c{(start + i) % 10}"}
                for i, p in enumerate(passages[start : start + 1000])
            )
    print(
        f"built {len(passages)} memories in {time.perf_counter() - started:.1f} s -> {store}",
        file=sys.stderr,
    )


NO_HIT = "qzxvw jjkkq"  # no word of it is in the corpus (as in the Rust example)
MISSING = "c0/no-such-memory"
STRIDE = 7919

# (operation, calls per block, pairs of blocks); the search blocks are short so that Python
# and Rust blocks sit close together in time.
OPS = [
    ("get", 2000, 15),
    ("get_missing", 500, 15),
    ("search_nohit:text", 100, 15),
    ("search:text", 20, 25),
    ("search:semantic", 20, 25),
    ("search:hybrid", 20, 25),
]


def python_warm(mc: memcore.Memcore, refs: list[str], queries: list[str], modes: list[str]) -> None:
    for ref in refs:
        mc.get(ref)
    for mode in modes:
        for q in queries:
            mc.search(q, mode=mode)


def python_block(mc: memcore.Memcore, op: str, start: int, count: int, refs: list[str], queries: list[str]) -> list[int]:
    """The same calls as `OP START COUNT` in examples/binding_overhead.rs."""
    clock = time.perf_counter_ns
    kind, _, mode = op.partition(":")
    mode = mode or "text"
    get, search = mc.get, mc.search
    samples = []
    if kind == "get":
        n = len(refs)
        for p in range(start, start + count):
            ref = refs[(p * STRIDE) % n]
            t0 = clock()
            memory = get(ref)
            t1 = clock()
            samples.append(t1 - t0)
            del memory
    elif kind == "get_missing":
        for _ in range(count):
            t0 = clock()
            try:
                get(MISSING)
            except memcore.NotFoundError:
                t1 = clock()
            else:
                raise AssertionError(f"{MISSING} exists")
            samples.append(t1 - t0)
    elif kind in ("search", "search_nohit"):
        nq = len(queries)
        for p in range(start, start + count):
            q = queries[p % nq] if kind == "search" else NO_HIT
            t0 = clock()
            results = search(q, mode=mode)
            t1 = clock()
            samples.append(t1 - t0)
            del results
    else:
        raise ValueError(op)
    return samples


class RustSide:
    def __init__(self, binary: Path, plan: Path) -> None:
        self.proc = subprocess.Popen([str(binary), str(plan)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def call(self, command: str) -> list[int]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the Rust side exited (status {self.proc.wait()})")
        return json.loads(line)

    def close(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.close()
        self.proc.wait()


def quantile(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[round((len(s) - 1) * p)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000, help="passages in the store (first N lines)")
    ap.add_argument("--store", type=Path, help="store directory (kept; built if empty)")
    ap.add_argument("--corpus", type=Path, default=BENCH / "corpus.jsonl.gz")
    ap.add_argument("--queries", type=Path, default=BENCH / "queries.jsonl")
    ap.add_argument(
        "--rust-bin", type=Path, default=REPO / "target" / "release" / "examples" / "binding_overhead"
    )
    ap.add_argument("--pairs", type=float, default=1.0, help="scale the number of block pairs")
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--json", type=Path, help="also write every block's figures here")
    ap.add_argument(
        "--control",
        action="store_true",
        help="a second Rust process in place of the Python calls: what the harness shows with no binding",
    )
    args = ap.parse_args()

    if not args.rust_bin.exists():
        sys.exit(f"{args.rust_bin} is missing: cargo build --release --example binding_overhead")

    tmp = None
    store = args.store
    if store is None:
        tmp = tempfile.TemporaryDirectory(prefix="memcore-overhead-")
        store = Path(tmp.name) / "store"
    if not (store.exists() and any(p.is_dir() and not p.name.startswith(".") for p in store.iterdir())):
        build_store(store, corpus(args.corpus, args.n))

    with open(args.queries, encoding="utf-8") as f:
        queries = [json.loads(line)["question"] for line in f][:QUERIES_CACHED]

    mc = memcore.open(store)
    refs = [s.ref for s in mc.list()]
    probe = mc.search("probe", mode="hybrid", limit=1)
    modes = ["text"] + (["semantic", "hybrid"] if probe.mode == "hybrid" else [])
    if probe.mode != "hybrid":
        print(f"no embedding model: text mode only ({'; '.join(probe.warnings)})", file=sys.stderr)
    ops = [o for o in OPS if o[0].partition(":")[2] in ("", *modes)]

    plan_dir = tempfile.TemporaryDirectory(prefix="memcore-overhead-plan-")
    plan = Path(plan_dir.name) / "plan.json"
    plan.write_text(json.dumps({"store": str(store), "refs": refs, "queries": queries}))
    rust = RustSide(args.rust_bin, plan)
    control = RustSide(args.rust_bin, plan) if args.control else None

    print(
        f"store {store}: {len(refs)} memories; {len(queries)} queries; modes {modes}; "
        f"memcore {memcore.__version__}; Python {sys.version.split()[0]}; {os.cpu_count()} CPUs; "
        f"load {loadavg()}",
        file=sys.stderr,
    )
    rng = random.Random(args.seed)
    python_warm(mc, refs, queries, modes)
    rust.call("warm " + " ".join(modes))
    if control:
        control.call("warm " + " ".join(modes))
    results = {}
    for op, count, pairs in ops:
        mode = op.partition(":")[2]
        if op.startswith("search:") and mode != "text":
            # Query vectors are cached for 5 minutes: fill the caches again on both sides.
            python_warm(mc, [], queries, [mode])
            rust.call(f"warm {mode}")
            if control:
                control.call(f"warm {mode}")
        before = loadavg()
        blocks = []
        for j in range(max(1, round(pairs * args.pairs))):
            block = {}
            for side in rng.sample(["python", "rust"], 2):
                if side == "rust":
                    block[side] = rust.call(f"{op} {j * count} {count}")
                elif control:
                    block[side] = control.call(f"{op} {j * count} {count}")
                else:
                    block[side] = python_block(mc, op, j * count, count, refs, queries)
            blocks.append(block)
        py_all = [x for b in blocks for x in b["python"]]
        rs_all = [x for b in blocks for x in b["rust"]]
        diffs = [statistics.median(b["python"]) - statistics.median(b["rust"]) for b in blocks]
        results[op] = {
            "rust_median_ns": statistics.median(rs_all),
            "python_median_ns": statistics.median(py_all),
            "overhead_median_ns": statistics.median(diffs),
            "overhead_q25_ns": quantile(diffs, 0.25),
            "overhead_q75_ns": quantile(diffs, 0.75),
            "pairs": len(blocks),
            "calls_per_block": count,
            "loadavg_before": before,
            "loadavg_after": loadavg(),
        }
        r = results[op]
        print(
            f"{op}: Rust {r['rust_median_ns'] / 1e3:.2f} us, Python {r['python_median_ns'] / 1e3:.2f} us, "
            f"paired overhead {r['overhead_median_ns'] / 1e3:.2f} us; load {before} -> {r['loadavg_after']}",
            file=sys.stderr,
        )
        if args.json:
            r["blocks"] = blocks
    rust.close()
    if control:
        control.close()
        print("control run: the Python column is a second Rust process", file=sys.stderr)
    mc.close()

    print(f"\n{'operation':18} {'Rust':>11} {'Python':>11} {'overhead':>10} {'IQR of paired diffs':>24}")
    for op, r in results.items():
        print(
            f"{op:18} {r['rust_median_ns'] / 1e3:9.2f}us {r['python_median_ns'] / 1e3:9.2f}us "
            f"{r['overhead_median_ns'] / 1e3:8.2f}us {r['overhead_q25_ns'] / 1e3:10.2f} .. {r['overhead_q75_ns'] / 1e3:.2f}us"
        )
    if args.json:
        args.json.write_text(json.dumps(results))
    plan_dir.cleanup()
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
