#!/usr/bin/env python3
"""Where the time of one ``Memcore.get`` / ``Memcore.search`` call goes, inside one process.

``binding_overhead.py`` compares a Python process with a Rust process; for calls of a few
milliseconds the difference between two *processes* (memory layout, caches; its ``--control``
run shows it between two Rust processes) is larger than the binding's cost. This script
measures the binding inside the Python process instead: uprobes on the extension module's
``PyMemcore::__pymethod_search__`` / ``__pymethod_get__`` (the whole native call: argument
extraction, GIL release and re-acquisition, result conversion) and on the core's
``memcore::Memcore::search`` / ``Memcore::get`` they wrap, recorded with ``perf``; per call,
binding time = method duration - core duration. Each probe hit costs about a microsecond, so
the figures are upper bounds (compare ``get`` with ``binding_overhead.py``).

Needs root, ``perf`` and tracefs mounted at ``/sys/kernel/tracing`` (``mount -t tracefs nodev
/sys/kernel/tracing``), and a wheel built with symbols (the release profile keeps line tables).
Not a test; nothing in the test suite runs it. The probes are removed on exit::

    /tmp/bench-venv/bin/python benches/python/binding_split.py --store /tmp/bench-store

The store is any memcore store, e.g. the one ``binding_overhead.py --store`` or
``peers_compare.py`` built.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TRACEFS = Path("/sys/kernel/tracing")
GROUP = "memcore_split"
QUERIES = Path(__file__).resolve().parents[3] / "shared" / "bench" / "queries.jsonl"
SYMBOLS = {
    "py_search": "_memcore::handle::PyMemcore::__pymethod_search__",
    "core_search": "memcore::memcore::Memcore::search",
    "py_get": "_memcore::handle::PyMemcore::__pymethod_get__",
    "core_get": "memcore::memcore::Memcore::get",
}


def tracefs_command(line: str) -> None:
    """Appends one probe definition (or removal) to uprobe_events; a raw write, as Python's
    buffered append mode seeks, which tracefs refuses."""
    fd = os.open(TRACEFS / "uprobe_events", os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)


def child(store: str, op: str, queries: Path) -> None:
    """Warms up, says so on stdout, then calls `op` until killed."""
    import memcore

    mc = memcore.open(store)
    refs = [s.ref for s in mc.list()]
    qs = [json.loads(line)["question"] for line in open(queries, encoding="utf-8")][:100]
    for ref in refs:
        mc.get(ref)
    mode = op.removeprefix("search:")
    if op != "get":
        for q in qs:
            mc.search(q, mode=mode)
    print("ready", flush=True)
    i = 0
    while True:
        i += 1
        if op == "get":
            mc.get(refs[(i * 7919) % len(refs)])
        else:
            mc.search(qs[i % len(qs)], mode=mode)


def file_offsets(so: Path) -> dict[str, int]:
    """File offsets of the probed functions (uprobes take offsets, not addresses)."""
    names = subprocess.run(["nm", "-C", str(so)], check=True, capture_output=True, text=True).stdout
    addr = {}
    for line in names.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in "tT":
            for key, symbol in SYMBOLS.items():
                if parts[2] == symbol:
                    addr[key] = int(parts[0], 16)
    missing = set(SYMBOLS) - set(addr)
    if missing:
        sys.exit(f"symbols not found in {so}: {[SYMBOLS[m] for m in missing]}")
    segments = subprocess.run(["readelf", "-lW", str(so)], check=True, capture_output=True, text=True).stdout
    loads = [l.split() for l in segments.splitlines() if l.strip().startswith("LOAD")]
    out = {}
    for key, a in addr.items():
        for seg in loads:
            offset, vaddr, size = int(seg[1], 16), int(seg[2], 16), int(seg[5], 16)
            if vaddr <= a < vaddr + size:
                out[key] = a - vaddr + offset
    return out


def split(trace: str, kind: str) -> dict[str, float]:
    events = re.findall(rf"\s(\d+\.\d+):\s+{GROUP}:(\w+):", trace)
    method, core, binding = [], [], []
    start = core_start = None
    core_time = None
    for t, name in events:
        t = float(t)
        if name == f"py_{kind}":
            start, core_time = t, None
        elif name == f"core_{kind}":
            core_start = t
        elif name == f"core_{kind}_ret" and core_start is not None:
            core_time, core_start = t - core_start, None
        elif name == f"py_{kind}_ret" and start is not None and core_time is not None:
            method.append(t - start)
            core.append(core_time)
            binding.append(t - start - core_time)
            start = None
    if not binding:
        return {"calls": 0}
    b = sorted(binding)
    us = 1e6
    return {
        "calls": len(b),
        "method_us": statistics.median(method) * us,
        "core_us": statistics.median(core) * us,
        "binding_us": statistics.median(b) * us,
        "binding_p10_us": b[len(b) // 10] * us,
        "binding_p90_us": b[9 * len(b) // 10] * us,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", required=True)
    ap.add_argument("--ops", default="get,search:text,search:semantic,search:hybrid")
    ap.add_argument("--seconds", type=float, default=2.0, help="recording time per operation")
    ap.add_argument("--queries", type=Path, default=QUERIES)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.store, args.child, args.queries)
        return

    import memcore

    if not (TRACEFS / "uprobe_events").exists():
        sys.exit(f"tracefs is not mounted at {TRACEFS}: mount -t tracefs nodev {TRACEFS} (as root)")
    so = Path(memcore._memcore.__file__).resolve()
    offsets = file_offsets(so)
    defs = []
    for key, off in offsets.items():
        defs += [f"p:{GROUP}/{key} {so}:{off:#x}", f"r:{GROUP}/{key}_ret {so}:{off:#x}"]
    for definition in defs:
        tracefs_command(definition)
    print(f"{memcore.__version__} {so}; load {open('/proc/loadavg').read().split()[:3]}", file=sys.stderr)
    try:
        with tempfile.TemporaryDirectory(prefix="memcore-split-") as tmp:
            for op in args.ops.split(","):
                proc = subprocess.Popen(
                    [sys.executable, __file__, "--store", args.store, "--queries", str(args.queries), "--child", op],
                    stdout=subprocess.PIPE,
                    text=True,
                )
                assert proc.stdout
                proc.stdout.readline()
                time.sleep(0.3)
                data = os.path.join(tmp, "perf.data")
                subprocess.run(
                    ["perf", "record", "-q", "-e", f"{GROUP}:*", "-p", str(proc.pid), "-o", data, "--", "sleep", str(args.seconds)],
                    check=True,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                trace = subprocess.run(
                    ["perf", "script", "--ns", "-i", data], check=True, capture_output=True, text=True
                ).stdout
                r = split(trace, "get" if op == "get" else "search")
                if not r["calls"]:
                    print(f"{op}: no complete calls recorded")
                    continue
                print(
                    f"{op:16} calls {r['calls']:6}  native method {r['method_us']:9.2f} us  core {r['core_us']:9.2f} us  "
                    f"binding {r['binding_us']:6.2f} us (p10 {r['binding_p10_us']:.2f}, p90 {r['binding_p90_us']:.2f})"
                )
    finally:
        for key in offsets:
            for name in (key, f"{key}_ret"):
                try:
                    tracefs_command(f"-:{GROUP}/{name}")
                except OSError:
                    pass  # not added


if __name__ == "__main__":
    main()
