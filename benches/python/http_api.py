#!/usr/bin/env python3
"""Requests per second and latency of ``memcore serve`` for ``get``, ``search`` and single puts.

Fills a store with the first N passages of the shared bench corpus
(``../shared/bench/corpus.jsonl.gz``; never copied into the repository) through the API
itself (``POST /api/memories`` in batches of 500), then, from one client on 127.0.0.1 over a
kept-alive connection (bounded loops: ``--requests`` gets and searches, ``--puts`` puts), times:

- ``GET /api/memories/{collection}/{id}``, stride 7919 through the ids;
- ``POST /api/search`` (``mode`` as given; ``text`` by default) for the LoCoMo questions of
  ``queries.jsonl``;
- ``POST /api/memories`` with one new memory (``--puts`` of them): a single durable put,
  searchable when it returns.

and prints the median, p99 and requests per second of each. Standard library only.

Run (a release build; not part of any test suite)::

    cargo build --release -p memcore-cli
    python3 benches/python/http_api.py --binary target/release/memcore --n 10000
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[2] / "shared" / "bench"


def passages(n: int) -> list[str]:
    texts = []
    with gzip.open(os.environ.get("MEMCORE_BENCH_CORPUS", SHARED / "corpus.jsonl.gz"), "rt") as corpus:
        for line in corpus:
            texts.append(json.loads(line)["text"])
            if len(texts) == n:
                break
    return texts


def questions() -> list[str]:
    with open(SHARED / "queries.jsonl") as lines:
        return [json.loads(line)["question"] for line in lines]


class Client:
    """One kept-alive connection; each call returns (status, body, seconds)."""

    def __init__(self, addr: str) -> None:
        host, port = addr.rsplit(":", 1)
        self.host = addr
        self.conn = http.client.HTTPConnection(host, int(port))

    def call(self, method: str, path: str, body: object | None = None) -> tuple[int, bytes, float]:
        headers = {"Host": self.host}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        start = time.perf_counter()
        self.conn.request(method, path, body=data, headers=headers)
        reply = self.conn.getresponse()
        payload = reply.read()
        return reply.status, payload, time.perf_counter() - start


def report(name: str, seconds: list[float]) -> None:
    seconds = sorted(seconds)
    p50 = statistics.median(seconds) * 1000
    p99 = seconds[min(len(seconds) - 1, int(len(seconds) * 0.99))] * 1000
    rate = len(seconds) / sum(seconds)
    print(f"{name:<28} n={len(seconds):>5}  p50 {p50:7.3f} ms  p99 {p99:7.3f} ms  {rate:8.0f} req/s")


def start(binary: str, tmp: str, text_only: bool) -> tuple[subprocess.Popen[str], str]:
    """`memcore serve` on a store in `tmp` (without the model when `text_only`); the process
    and the address it serves."""
    env = dict(os.environ, MEMCORE_HOME=f"{tmp}/home")
    if text_only:
        env["MEMCORE_MODEL_DIR"] = f"{tmp}/no-model"
    server = subprocess.Popen(
        [binary, "--store", f"{tmp}/store", "serve", "--addr", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True,
    )
    assert server.stdout is not None
    return server, server.stdout.readline().split("http://")[1].split("/")[0]


def fill(client: Client, n: int) -> list[str]:
    """Puts the first `n` corpus passages through the API, in ten collections; them."""
    texts = passages(n)
    started = time.perf_counter()
    for at in range(0, len(texts), 500):
        batch = [
            {"content": text, "id": f"p{at + i:06d}", "collection": f"c{(at + i) % 10}"}
            for i, text in enumerate(texts[at : at + 500])
        ]
        status, body, _ = client.call("POST", "/api/memories", {"memories": batch, "mode": "upsert"})
        assert status == 200, body[:300]
    print(f"filled {len(texts)} memories through the API in {time.perf_counter() - started:.1f} s")
    return texts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default="target/release/memcore")
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=2_000)
    parser.add_argument("--mode", default="text")
    parser.add_argument("--puts", type=int, default=200, help="single puts timed after the searches")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server, addr = start(args.binary, tmp, text_only=args.mode == "text")
        try:
            client = Client(addr)
            texts = fill(client, args.n)
            gets = []
            for k in range(args.requests):
                i = (k * 7919) % len(texts)
                status, body, took = client.call("GET", f"/api/memories/c{i % 10}/p{i:06d}")
                assert status == 200, body[:300]
                gets.append(took)
            report("GET /api/memories/{c}/{id}", gets)
            asked = questions()
            searches = []
            for k in range(args.requests):
                query = {"text": asked[k % len(asked)], "mode": args.mode, "limit": 10}
                status, body, took = client.call("POST", "/api/search", query)
                assert status == 200, body[:300]
                searches.append(took)
            report(f"POST /api/search ({args.mode})", searches)
            puts = []
            for k in range(args.puts):
                one = {"memories": [{"content": f"A single put, number {k}, on top of the store."}]}
                status, body, took = client.call("POST", "/api/memories", one)
                assert status == 200, body[:300]
                puts.append(took)
            report("POST /api/memories (one)", puts)
        finally:
            server.kill()
            server.wait()


if __name__ == "__main__":
    main()
