#!/usr/bin/env python3
"""memcore side by side with ChromaDB, SQLite (FTS5 + sqlite-vec) and LanceDB: same passages,
same vectors, one run.

Every engine is given the same all-MiniLM-L6-v2 int8 vectors: the passage vectors memcore's
own embedder made (the Rust search bench's cache, ``target/bench-cache/<model>-96878.f32``,
raw little-endian f32 rows in corpus order; computed here with Python onnxruntime when
missing), and the 104 questions' vectors made by ``MiniLM`` below (the same model files run
the way memcore runs them). memcore takes them through the embedder it is given
(``memcore.open(path, embedder=...)``, a table lookup under the built-in model's id, so the
store is the one the built-in model would have made); the peers take them as arrays. Exact
cosine over the same vectors is the ground truth of every engine's dense recall.

Data: N passages of the shared bench corpus (``../shared/bench/corpus.jsonl.gz``; never copied
into the repository): every passage that is evidence for one of the 104 questions of
``queries.jsonl`` (the LoCoMo development turns, which come first), filled up with the first
lines of the corpus. ``--n 2760`` is LoCoMo alone; ``--n 96878`` the whole corpus.

Measured, per engine, each in its own processes:

- **ingest**: batches of 1,000 with vectors given, until searchable (LanceDB's full-text and
  vector indexes are built after the last batch, and counted); memcore's background graph
  build is timed apart (queries do not wait for it);
- **one add** on top of the store, p50/p99 over 50 adds;
- **queries**, p50/p99 over three rounds of the 104 questions on a warm handle: text (BM25),
  dense with the query vector given, dense including the query embedding (memcore: its own
  model, each round a text its query cache has not seen; peers: ``MiniLM`` then the vector
  query), hybrid with the vector given (memcore: its rank fusion; SQLite: FTS5 and sqlite-vec
  fused by reciprocal rank here; LanceDB: its hybrid query and default RRF reranker);
- **cold**: a new process (three of them, the median): import, open + first text query, and
  the first dense query after it; memcore also open + first hybrid query with its own model;
- **memory**: peak resident set of the ingest process and of the query process (which also
  holds the question vectors and, for the peers, the Python model); **disk** after ingest;
- **quality**: recall@5/@10 and MRR@10 against the questions' evidence ids, and dense
  recall@10 against exact cosine.

Run it in a throwaway venv outside the repository (no test runs it); the memcore wheel comes
from ``scripts/build-python --profile release``::

    python3 -m venv /tmp/peers-venv
    /tmp/peers-venv/bin/pip install chromadb lancedb sqlite-vec pysqlite3-binary onnxruntime \\
        tokenizers numpy pyarrow /tmp/wheels/memcore-*.whl
    /tmp/peers-venv/bin/python benches/python/peers_compare.py --n 96878 --workdir /tmp/peers-100k

``--engine`` runs one engine (``memcore``, ``chroma``, ``sqlite``, ``lancedb``) or ``report``;
``all`` (the default) prepares the vectors, runs every engine, then the report.
``--queries-only`` measures queries and cold starts again on the stores of an earlier run.
Results are in ``WORKDIR/<engine>.json``; the report prints Markdown tables.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO.parent / "shared" / "bench"
MODEL_DIR = Path(
    os.environ.get("MEMCORE_MODEL_DIR", Path.home() / ".cache/memcore/models/all-minilm-l6-v2-int8")
)
MODEL_ID = "all-MiniLM-L6-v2-dynamic-int8"
VECTOR_CACHE = REPO / "target" / "bench-cache" / f"{MODEL_ID}-96878.f32"
DIM = 384
BATCH = 1000
ADDS = 50
ROUNDS = 3
COLD_RUNS = 3
K = 10
#: memcore's vector index searches a graph from this many rows (`VectorOptions::hnsw_threshold`).
GRAPH_FROM = 20_000
ENGINES = ("memcore", "chroma", "sqlite", "lancedb")
clock = time.perf_counter_ns


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[round((len(s) - 1) * p)]


def lat(values_ns: list[int]) -> dict[str, float]:
    ms = [v / 1e6 for v in values_ns]
    return {"p50_ms": pct(ms, 0.5), "p99_ms": pct(ms, 0.99), "samples": len(ms)}


def du_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


def fts_or_query(text: str) -> str:
    """A question as an FTS5 query: its words, each quoted, joined by OR (BM25 ranks them)."""
    return " OR ".join(f'"{w}"' for w in re.findall(r"\w+", text.lower()))


# ------------------------------------------------------------------------------------- data


def load_subset(corpus: Path, queries_path: Path, n: int) -> tuple[list[int], list[dict[str, str]], list[dict[str, Any]]]:
    """The corpus line numbers of the N passages, the passages, and the questions."""
    queries = [json.loads(line) for line in open(queries_path, encoding="utf-8")]
    evidence = {e for q in queries for e in q["evidence_ids"]}
    with gzip.open(corpus, "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    keep = {i for i, r in enumerate(rows) if r["id"] in evidence}
    if len(keep) > n:
        sys.exit(f"--n {n} is smaller than the {len(keep)} evidence passages")
    for i in range(len(rows)):
        if len(keep) == n:
            break
        keep.add(i)
    lines = sorted(keep)
    return lines, [rows[i] for i in lines], queries


class MiniLM:
    """all-MiniLM-L6-v2 int8 from memcore's model files, run the way memcore's embedder runs it:
    truncation at 256 tokens, mean pooling over the attention mask, L2 normalisation, each
    text on its own (dynamic int8 quantisation would make a batched text's vector depend on
    its neighbours), one single-threaded session per core."""

    def __init__(self, model_dir: Path) -> None:
        # ONNX Runtime sends Microsoft telemetry unless this is set before it loads.
        os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
        import numpy as np
        import onnxruntime as ort
        from concurrent.futures import ThreadPoolExecutor
        from tokenizers import Tokenizer

        self.np = np
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        opts.inter_op_num_threads = 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        workers = max(1, min(os.cpu_count() or 1, 4))
        self.sessions = [
            ort.InferenceSession(str(model_dir / "model.onnx"), opts, providers=["CPUExecutionProvider"])
            for _ in range(workers)
        ]
        self.pool = ThreadPoolExecutor(workers)
        self.inputs = {i.name for i in self.sessions[0].get_inputs()}
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=256)

    def _one(self, session: Any, text: str) -> Any:
        np = self.np
        e = self.tokenizer.encode(text)
        ids = np.asarray([e.ids], dtype=np.int64)
        mask = np.asarray([e.attention_mask], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(["last_hidden_state"], feed)[0][0]
        pooled = hidden.mean(axis=0)
        return (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).astype(np.float32)

    def embed(self, texts: list[str]) -> Any:
        if len(texts) == 1:
            return self.np.stack([self._one(self.sessions[0], texts[0])])
        n = len(self.sessions)
        parts = list(self.pool.map(lambda w: [self._one(self.sessions[w], t) for t in texts[w::n]], range(n)))
        out = self.np.zeros((len(texts), DIM), dtype=self.np.float32)
        for w, rows in enumerate(parts):
            out[w::n] = rows
        return out


def prepare(args: argparse.Namespace) -> None:
    """Writes the passages, their vectors and the question vectors into the workdir."""
    import numpy as np

    lines, passages, queries = load_subset(args.corpus, args.queries, args.n)
    model = MiniLM(MODEL_DIR)
    if VECTOR_CACHE.exists():
        all_vecs = np.fromfile(VECTOR_CACHE, dtype="<f4").reshape(-1, DIM)
        vecs = all_vecs[lines]
        source = str(VECTOR_CACHE)
    else:
        print(f"embedding {len(passages)} passages (no {VECTOR_CACHE})", file=sys.stderr)
        vecs = model.embed([p["text"] for p in passages])
        source = "Python onnxruntime"
    np.save(args.workdir / "vectors.npy", vecs.astype(np.float32))
    np.save(args.workdir / "query_vectors.npy", model.embed([q["question"] for q in queries]))
    # The cached vectors must be the passages' (same order, same model): spot-check a few.
    sample = list(range(0, len(passages), max(1, len(passages) // 8)))
    fresh = model.embed([passages[i]["text"] for i in sample])
    drift = float(np.max(np.abs(fresh - vecs[sample])))
    if drift > 1e-3:
        sys.exit(f"the cached vectors are not this model's vectors of these passages (max |diff| {drift})")
    subset = {"ids": [p["id"] for p in passages], "texts": [p["text"] for p in passages], "vectors": source}
    (args.workdir / "subset.json").write_text(json.dumps(subset))


# ---------------------------------------------------------------------------------- engines


class Engine:
    """One engine behind the harness: ids are `p000000`... in subset order."""

    name = ""
    version = ""

    def __init__(self, path: Path) -> None:
        self.path = path
        #: Whether queries embed with the engine's own model (memcore) rather than being given
        #: vectors; the peers embed with `MiniLM` either way.
        self.own_model = False

    def create(self) -> None: ...
    def open(self) -> None: ...
    def close(self) -> None: ...
    def ingest(self, ids: list[str], texts: list[str], vecs: Any) -> None: ...
    def finish_ingest(self) -> dict[str, float]:
        """Work after the last batch before the store answers as it will (seconds by name)."""
        return {}
    def add_one(self, id: str, text: str, vec: Any) -> None: ...
    def text(self, q: str) -> list[str] | None:
        return None
    def dense(self, qvec: Any) -> list[str]: ...
    def hybrid(self, q: str, qvec: Any) -> list[str] | None:
        return None
    def dense_embed(self, q: str, salt: int) -> list[str]:
        """A dense query including the query embedding; `salt` makes each round a new text."""
        return self.dense(self.model().embed([q])[0])
    def hybrid_embed(self, q: str, salt: int) -> list[str] | None:
        return None
    def model(self) -> MiniLM:
        if not hasattr(self, "_model"):
            self._model = MiniLM(MODEL_DIR)
        return self._model


class Lookup:
    """memcore's embedder in this bench: the given vectors of known texts, under the built-in
    model's id. A text it does not know is an error (counted, so the run can fail loudly)."""

    model_id = MODEL_ID
    dimension = DIM

    def __init__(self, texts: list[str], vecs: Any) -> None:
        self.rows = {t: i for i, t in enumerate(texts)}
        self.vecs = vecs
        self.added: dict[str, Any] = {}
        self.misses = 0

    def add(self, text: str, vec: Any) -> None:
        self.added[text] = vec

    def embed(self, texts: list[str]) -> Any:
        try:
            if len(texts) == 1 and texts[0] in self.added:
                return self.added[texts[0]][None, :]
            return self.vecs[[self.rows[t] for t in texts]]
        except KeyError:
            self.misses += 1
            raise


class Memcore(Engine):
    name = "memcore"

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        import memcore

        self.mc = memcore
        self.version = memcore.__version__
        self.lookup: Lookup | None = None
        self.questions_by_vector: dict[bytes, str] = {}
        self.rows = 0

    def given(self, texts: list[str], vecs: Any) -> None:
        self.lookup = Lookup(texts, vecs)

    def create(self) -> None:
        self.store = self.mc.open(self.path, embedder=self.lookup)

    def open(self) -> None:
        if not self.own_model:
            self.create()
            return
        # With its own model, warmed like the other handle: every question once (its index
        # loaded, its graph started; the timed rounds ask texts the query cache has not seen).
        self.store = self.mc.open(self.path)
        for question in self.questions_by_vector.values():
            self.store.search(question, mode="semantic", limit=K)

    def close(self) -> None:
        self.store.close()

    def ingest(self, ids: list[str], texts: list[str], vecs: Any) -> None:
        self.rows += len(ids)
        self.store.put_many({"content": t, "id": i, "collection": f"c{int(i[1:]) % 10}"} for i, t in zip(ids, texts))

    def finish_ingest(self) -> dict[str, float]:
        assert self.lookup is not None and self.lookup.misses == 0, "memcore embedded a text it was not given"
        # From GRAPH_FROM rows the graph is built in the background, from the second search;
        # queries do not wait for it, the steady state measured here does.
        if self.rows < GRAPH_FROM:
            return {}
        t0 = time.perf_counter()
        question = next(iter(self.questions_by_vector.values()))
        for _ in range(2):
            self.store.search(question, mode="semantic", limit=1)
        graphs = list(self.path.rglob("hnsw"))
        while not any(any(g.iterdir()) for g in graphs if g.is_dir()):
            time.sleep(1)
            graphs = list(self.path.rglob("hnsw"))
            if time.perf_counter() - t0 > 1800:
                sys.exit("no graph dump after 30 minutes")
        return {"graph_build_s (background, not counted)": time.perf_counter() - t0}

    def add_one(self, id: str, text: str, vec: Any) -> None:
        assert self.lookup is not None
        self.lookup.add(text, vec)
        self.store.put(text, id=id, collection="c0")

    def text(self, q: str) -> list[str]:
        return [h.memory.id for h in self.store.search(q, mode="text", limit=K)]

    def dense(self, qvec: Any) -> list[str]:
        return [h.memory.id for h in self.store.search(self.question_of(qvec), mode="semantic", limit=K)]

    def hybrid(self, q: str, qvec: Any) -> list[str]:
        return [h.memory.id for h in self.store.search(q, mode="hybrid", limit=K)]

    def question_of(self, qvec: Any) -> str:
        """The question whose vector `qvec` is (memcore takes text; the lookup gives the vector)."""
        return self.questions_by_vector[qvec.tobytes()]

    def dense_embed(self, q: str, salt: int) -> list[str]:
        # Trailing spaces: a text the query-vector cache has not seen, same tokens and ranking.
        res = self.store.search(q + " " * salt, mode="semantic", limit=K)
        assert res.mode == "semantic", res.warnings
        return [h.memory.id for h in res]

    def hybrid_embed(self, q: str, salt: int) -> list[str]:
        return [h.memory.id for h in self.store.search(q + " " * salt, mode="hybrid", limit=K)]


class Chroma(Engine):
    name = "chroma"

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        import chromadb
        from chromadb.config import Settings

        self.chromadb = chromadb
        self.settings = Settings(anonymized_telemetry=False)
        self.version = chromadb.__version__

    def create(self) -> None:
        self.client = self.chromadb.PersistentClient(path=str(self.path), settings=self.settings)
        self.col = self.client.create_collection(
            "bench", embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
        )

    def open(self) -> None:
        self.client = self.chromadb.PersistentClient(path=str(self.path), settings=self.settings)
        self.col = self.client.get_collection("bench", embedding_function=None)

    def close(self) -> None:
        del self.col, self.client

    def ingest(self, ids: list[str], texts: list[str], vecs: Any) -> None:
        self.col.add(ids=ids, documents=texts, embeddings=vecs)

    def add_one(self, id: str, text: str, vec: Any) -> None:
        self.col.add(ids=[id], documents=[text], embeddings=vec[None, :])

    def dense(self, qvec: Any) -> list[str]:
        return self.col.query(query_embeddings=qvec[None, :], n_results=K, include=[])["ids"][0]


class Sqlite(Engine):
    """FTS5 (BM25) and a sqlite-vec `vec0` table (exact cosine KNN) in one database file."""

    name = "sqlite"
    FETCH = 50  # candidates per side for the hybrid's rank fusion

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        import pysqlite3 as sqlite3
        import sqlite_vec

        self.sqlite3, self.sqlite_vec = sqlite3, sqlite_vec
        self.version = f"SQLite {sqlite3.sqlite_version}, sqlite-vec {sqlite_vec.__version__}"

    def open(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        self.db = self.sqlite3.connect(self.path / "bench.db", isolation_level=None)
        self.db.enable_load_extension(True)
        self.sqlite_vec.load(self.db)
        self.db.execute("pragma journal_mode=wal")
        self.db.execute("pragma synchronous=normal")

    def create(self) -> None:
        self.open()
        self.db.execute("create virtual table fts using fts5(text)")
        self.db.execute(f"create virtual table vec using vec0(embedding float[{DIM}] distance_metric=cosine)")

    def close(self) -> None:
        self.db.close()

    def ingest(self, ids: list[str], texts: list[str], vecs: Any) -> None:
        rows = [int(i[1:]) for i in ids]
        with self.db:
            self.db.execute("begin")
            self.db.executemany("insert into fts(rowid, text) values (?, ?)", zip(rows, texts))
            self.db.executemany("insert into vec(rowid, embedding) values (?, ?)", zip(rows, (v.tobytes() for v in vecs)))

    def add_one(self, id: str, text: str, vec: Any) -> None:
        self.ingest([id], [text], vec[None, :])

    def text(self, q: str, k: int = K) -> list[str]:
        sql = "select rowid from fts where fts match ? order by bm25(fts) limit ?"
        return [f"p{r:06d}" for (r,) in self.db.execute(sql, (fts_or_query(q), k))]

    def dense(self, qvec: Any, k: int = K) -> list[str]:
        sql = "select rowid from vec where embedding match ? and k = ? order by distance"
        return [f"p{r:06d}" for (r,) in self.db.execute(sql, (qvec.tobytes(), k))]

    def hybrid(self, q: str, qvec: Any) -> list[str]:
        return rrf([self.text(q, self.FETCH), self.dense(qvec, self.FETCH)])


def rrf(rankings: list[list[str]], k: int = 60) -> list[str]:
    """Reciprocal rank fusion of rankings, top K."""
    score: dict[str, float] = {}
    for ranking in rankings:
        for rank, id in enumerate(ranking):
            score[id] = score.get(id, 0.0) + 1 / (k + rank + 1)
    return sorted(score, key=lambda id: -score[id])[:K]


class Lance(Engine):
    """LanceDB: one table; a full-text index (its native FTS) and an IVF_HNSW_SQ cosine index
    on the vectors, built after the last batch (new rows are searched unindexed until then)."""

    name = "lancedb"

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        # Its Rust core warns on every query that selects columns without the score.
        os.environ.setdefault("LANCEDB_LOG", "error")
        import lancedb

        self.lancedb = lancedb
        self.version = lancedb.__version__

    def open(self) -> None:
        self.db = self.lancedb.connect(self.path)
        self.table = self.db.open_table("bench")

    def create(self) -> None:
        self.db = self.lancedb.connect(self.path)
        self.table = None

    def close(self) -> None:
        del self.table, self.db

    def batch(self, ids: list[str], texts: list[str], vecs: Any) -> Any:
        import pyarrow as pa

        flat = pa.array(vecs.astype("float32").ravel())
        return pa.table({"id": ids, "text": texts, "vector": pa.FixedSizeListArray.from_arrays(flat, DIM)})

    def ingest(self, ids: list[str], texts: list[str], vecs: Any) -> None:
        if self.table is None:
            self.table = self.db.create_table("bench", data=self.batch(ids, texts, vecs))
        else:
            self.table.add(self.batch(ids, texts, vecs))

    def finish_ingest(self) -> dict[str, float]:
        from lancedb.index import FTS, IvfHnswSq

        t0 = time.perf_counter()
        self.table.create_index("text", config=FTS())
        t1 = time.perf_counter()
        self.table.create_index("vector", config=IvfHnswSq(distance_type="cosine"))
        t2 = time.perf_counter()
        return {"fts_index_s": t1 - t0, "vector_index_s": t2 - t1}

    def add_one(self, id: str, text: str, vec: Any) -> None:
        self.table.add(self.batch([id], [text], vec[None, :]))

    def ids(self, query: Any) -> list[str]:
        return query.limit(K).select(["id"]).to_arrow()["id"].to_pylist()

    def text(self, q: str) -> list[str]:
        return self.ids(self.table.search(q, query_type="fts"))

    def dense(self, qvec: Any) -> list[str]:
        return self.ids(self.table.search(qvec, query_type="vector").distance_type("cosine"))

    def hybrid(self, q: str, qvec: Any) -> list[str]:
        return self.ids(self.table.search(query_type="hybrid").vector(qvec).text(q))


ENGINE_CLASSES: dict[str, type[Engine]] = {"memcore": Memcore, "chroma": Chroma, "sqlite": Sqlite, "lancedb": Lance}


# ---------------------------------------------------------------------------------- harness


def make_engine(args: argparse.Namespace, name: str, texts: list[str], vecs: Any) -> Engine:
    """The engine; memcore's embedder is given `texts` with `vecs`, and the questions."""
    import numpy as np

    qvecs = np.load(args.workdir / "query_vectors.npy")
    engine = ENGINE_CLASSES[name](args.workdir / f"{name}-store")
    if isinstance(engine, Memcore):
        questions = [json.loads(line)["question"] for line in open(args.queries, encoding="utf-8")]
        engine.given(texts + questions, np.vstack([vecs, qvecs]))
        engine.questions_by_vector = {v.tobytes(): q for q, v in zip(questions, qvecs)}
    return engine


def run_ingest(engine: Engine, subset: dict[str, Any], vecs: Any) -> dict[str, Any]:
    if engine.path.exists():
        shutil.rmtree(engine.path)
    texts = subset["texts"]
    ids = [f"p{i:06d}" for i in range(len(texts))]
    engine.create()
    before = loadavg()
    batch_s = []
    started = time.perf_counter()
    for start in range(0, len(texts), BATCH):
        t0 = time.perf_counter()
        engine.ingest(ids[start : start + BATCH], texts[start : start + BATCH], vecs[start : start + BATCH])
        batch_s.append(time.perf_counter() - t0)
    finishing = engine.finish_ingest()
    counted = sum(v for k, v in finishing.items() if "not counted" not in k)
    total = time.perf_counter() - started - sum(v for k, v in finishing.items() if "not counted" in k)
    out = {"total_s": total, "per_s": len(texts) / total, "batch_s": batch_s, "finish": finishing,
           "finish_counted_s": counted, "load": [before, loadavg()]}
    engine.close()
    out["peak_rss_mb"] = peak_rss_mb()
    out["disk_mb"] = du_mb(engine.path)
    # One add at a time on top, on a copy (the store measured next stays as ingested): new
    # ids, the texts (with a suffix) and vectors of existing passages.
    original = engine.path
    engine.path = original.with_name(original.name + "-adds")
    shutil.copytree(original, engine.path)
    engine.open()
    adds = []
    for i in range(ADDS):
        j = (i * 7919) % len(texts)
        t0 = clock()
        engine.add_one(f"p{len(texts) + i:06d}", f"{texts[j]} (again {i})", vecs[j])
        adds.append(clock() - t0)
    out["one_add"] = lat(adds)
    engine.close()
    shutil.rmtree(engine.path)
    engine.path = original
    return out


def run_queries(engine: Engine, queries: list[dict[str, Any]], qvecs: Any, embed: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """Query latencies on a warm handle: with the query vectors given (and the rankings
    scored), or (`embed`) including the query embedding."""
    questions = [q["question"] for q in queries]
    engine.own_model = embed
    engine.open()
    run: dict[str, Any] = {"load": [loadavg()]}
    runs: dict[str, list[list[str]]] = {}
    kinds: dict[str, Callable[[int, int], Any]]
    if embed:
        kinds = {
            "dense+embed": lambda i, r: engine.dense_embed(questions[i], 1 + r),
            "hybrid+embed": lambda i, r: engine.hybrid_embed(questions[i], 1 + ROUNDS + r),
        }
    else:
        # Warm: every question in every mode once; these rankings are the ones scored.
        for mode, ask in (
            ("text", lambda i: engine.text(questions[i])),
            ("dense", lambda i: engine.dense(qvecs[i])),
            ("hybrid", lambda i: engine.hybrid(questions[i], qvecs[i])),
        ):
            got = [ask(i) for i in range(len(questions))]
            if got[0] is not None:
                runs[mode] = got
        kinds = {
            "text": lambda i, r: engine.text(questions[i]),
            "dense (vector given)": lambda i, r: engine.dense(qvecs[i]),
            "hybrid (vector given)": lambda i, r: engine.hybrid(questions[i], qvecs[i]),
        }
    latency = {}
    for kind, ask in kinds.items():
        if ask(0, -1) is None:
            continue
        samples = []
        for r in range(ROUNDS):
            for i in range(len(questions)):
                t0 = clock()
                ask(i, r)
                samples.append(clock() - t0)
        latency[kind] = lat(samples)
    engine.close()
    run["load"].append(loadavg())
    run["latency"] = latency
    run["peak_rss_mb"] = peak_rss_mb()
    return run, runs


def run_cold(args: argparse.Namespace, name: str, hybrid_embed: bool) -> dict[str, float]:
    """In this new process: import, open + first text query, then the first dense query;
    or (`hybrid_embed`, memcore) open + first hybrid query with its own model."""
    import numpy as np

    qvecs = np.load(args.workdir / "query_vectors.npy")
    question = json.loads(open(args.queries, encoding="utf-8").readline())["question"]
    t_import = time.perf_counter()
    engine = ENGINE_CLASSES[name](args.workdir / f"{name}-store")
    if isinstance(engine, Memcore):
        engine.given([question], qvecs[:1])
        engine.questions_by_vector = {qvecs[0].tobytes(): question}
    out = {"import_ms": (time.perf_counter() - t_import) * 1e3}
    t1 = time.perf_counter()
    if hybrid_embed:
        assert isinstance(engine, Memcore)
        res = engine.mc.open(engine.path).search(question, mode="hybrid", limit=K)
        assert res.mode == "hybrid", res.warnings
        out["open_first_hybrid_embed_ms"] = (time.perf_counter() - t1) * 1e3
        return out
    engine.open()
    first = engine.text(question)
    t2 = time.perf_counter()
    engine.dense(qvecs[0])
    t3 = time.perf_counter()
    if first is None:
        out["open_first_dense_ms"] = (t3 - t1) * 1e3
    else:
        out["open_first_text_ms"] = (t2 - t1) * 1e3
        out["then_first_dense_ms"] = (t3 - t2) * 1e3
    return out


def run_engine(args: argparse.Namespace, name: str) -> None:
    """One phase of one engine in this process: ingest (a new store), queries (on the store
    an ingest made, in a process that never held the passages), or one cold start."""
    import numpy as np

    if args.cold is not None:
        print(json.dumps(run_cold(args, name, args.cold == "hybrid-embed")))
        return
    result_file = args.workdir / f"{name}.json"
    if args.phase == "ingest":
        subset = json.loads((args.workdir / "subset.json").read_text())
        vecs = np.load(args.workdir / "vectors.npy")
        engine = make_engine(args, name, subset["texts"], vecs)
        out = {"engine": name, "version": engine.version, "n": len(subset["texts"]), "query_runs": [], "cold": []}
        out["ingest"] = run_ingest(engine, subset, vecs)
        result_file.write_text(json.dumps(out, indent=1))
        print(f"{name}: ingest {out['ingest']['per_s']:.0f}/s, load {loadavg()}", file=sys.stderr)
        return
    out = json.loads(result_file.read_text())
    engine = make_engine(args, name, [], np.zeros((0, DIM), dtype=np.float32))
    queries = [json.loads(line) for line in open(args.queries, encoding="utf-8")]
    qvecs = np.load(args.workdir / "query_vectors.npy")
    if args.phase == "queries-embed":
        run, _ = run_queries(engine, queries, qvecs, embed=True)
        out.setdefault("embed_runs", []).append(run)
        result_file.write_text(json.dumps(out, indent=1))
        print(f"{name}: {json.dumps(run['latency'])}", file=sys.stderr)
        return
    run, out["runs"] = run_queries(engine, queries, qvecs, embed=False)
    out["query_runs"].append(run)
    kinds = ["plain"] + (["hybrid-embed"] if name == "memcore" else [])
    for kind in kinds:
        for _ in range(COLD_RUNS):
            cmd = [sys.executable, __file__, "--engine", name, "--cold", kind, *common_args(args)]
            cold = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
            out["cold"].append(cold)
    result_file.write_text(json.dumps(out, indent=1))
    print(f"{name}: {json.dumps(run['latency'])}", file=sys.stderr)


# ----------------------------------------------------------------------------------- report


def quality(runs: list[list[str]], queries: list[dict[str, Any]], ids: list[str]) -> dict[str, float]:
    rows = []
    for ranked, q in zip(runs, queries):
        got = [ids[int(r[1:])] for r in ranked]
        ev = set(q["evidence_ids"])
        mrr = next((1 / (i + 1) for i, g in enumerate(got) if g in ev), 0.0)
        rows.append((len(ev & set(got[:5])) / len(ev), len(ev & set(got[:10])) / len(ev), mrr))
    return {name: sum(r[i] for r in rows) / len(rows) for i, name in enumerate(("R@5", "R@10", "MRR@10"))}


def report(args: argparse.Namespace) -> None:
    import numpy as np

    results = {e: json.loads((args.workdir / f"{e}.json").read_text()) for e in ENGINES if (args.workdir / f"{e}.json").exists()}
    subset = json.loads((args.workdir / "subset.json").read_text())
    queries = [json.loads(line) for line in open(args.queries, encoding="utf-8")]
    vecs = np.load(args.workdir / "vectors.npy")
    qvecs = np.load(args.workdir / "query_vectors.npy")
    exact = np.argsort(-(qvecs @ vecs.T), axis=1)[:, :K]
    names = list(results)
    mc = results.get("memcore")

    def row(label: str, cells: list[str], values: list[float | None]) -> None:
        """A table row: each engine's cell, then each peer's value over memcore's."""
        base = values[0] if names[0] == "memcore" else None
        ratios = ", ".join(f"{n} {v / base:.2f}" for n, v in zip(names[1:], values[1:]) if v and base)
        print(f"| {label} | " + " | ".join(cells) + f" | {ratios} |")

    print(f"data: {results[names[0]]['n']} passages, {len(queries)} questions; vectors from {subset['vectors']}")
    print("versions: " + "; ".join(f"{n} {r['version']}" for n, r in results.items()))
    for n, r in results.items():
        loads = [q["load"] for q in r["query_runs"] + r.get("embed_runs", [])]
        print(f"{n}: ingest load {r['ingest']['load']}; query runs' load {loads}")
    print(f"latency: median over each engine's query runs of each run's p50 / p99 ({ROUNDS} rounds of the questions)\n")
    print("| measurement | " + " | ".join(names) + " | peer / memcore |")
    print("| --- |" + " --- |" * (len(names) + 1))

    def ingest_cell(r: dict[str, Any]) -> tuple[str, float]:
        i = r["ingest"]
        extra = f", {i['finish_counted_s']:.0f} s of it indexing" if i["finish_counted_s"] >= 1 else ""
        return f"{i['per_s']:,.0f} /s ({i['total_s']:.1f} s{extra})", i["per_s"]

    cells = [ingest_cell(results[n]) for n in names]
    row(f"ingest, vectors given, batches of {BATCH}", [c[0] for c in cells], [c[1] for c in cells])
    for key in ("one_add",):
        vals = [results[n]["ingest"][key] for n in names]
        row("one add on top, p50 / p99", [f"{v['p50_ms']:.2f} / {v['p99_ms']:.2f} ms" for v in vals], [v["p50_ms"] for v in vals])
    for kind in ("text", "dense (vector given)", "dense+embed", "hybrid (vector given)", "hybrid+embed"):
        cells_, p50s = [], []
        for n in names:
            runs = [q["latency"].get(kind) for q in results[n]["query_runs"] + results[n].get("embed_runs", [])]
            runs = [r for r in runs if r is not None]
            if not runs:
                cells_.append("n/a")
                p50s.append(None)
                continue
            p50, p99 = statistics.median(x["p50_ms"] for x in runs), statistics.median(x["p99_ms"] for x in runs)
            cells_.append(f"{p50:.2f} / {p99:.2f} ms")
            p50s.append(p50)
        row(f"{kind} query, p50 / p99", cells_, p50s)

    def cold(n: str, key: str) -> float | None:
        vals = [c[key] for c in results[n]["cold"] if key in c]
        return statistics.median(vals) if vals else None

    for key, label in (
        ("import_ms", "import the package"),
        ("open_first_text_ms", "new process: open + first text query"),
        ("then_first_dense_ms", "then its first dense query (vector given)"),
        ("open_first_dense_ms", "new process: open + first dense query (no text search)"),
        ("open_first_hybrid_embed_ms", "new process: open + first hybrid query, model load included"),
    ):
        vals = [cold(n, key) for n in names]
        if any(v is not None for v in vals):
            row(label, [f"{v:.0f} ms" if v is not None else "n/a" for v in vals], vals)
    vals = [results[n]["ingest"]["peak_rss_mb"] for n in names]
    row("peak resident memory, ingest process", [f"{v:.0f} MB" for v in vals], vals)
    vals = [max(q["peak_rss_mb"] for q in results[n]["query_runs"]) for n in names]
    row("peak resident memory, query process, vectors given", [f"{v:.0f} MB" for v in vals], vals)
    vals = [max(q["peak_rss_mb"] for q in results[n]["embed_runs"]) for n in names]
    row("peak resident memory, query process with the model", [f"{v:.0f} MB" for v in vals], vals)
    vals = [results[n]["ingest"]["disk_mb"] for n in names]
    row("disk after ingest", [f"{v:.0f} MB" for v in vals], vals)
    recalls = []
    for n in names:
        got = results[n]["runs"]["dense"]
        recalls.append(float(np.mean([len({int(r[1:]) for r in g} & set(e.tolist())) / K for g, e in zip(got, exact)])))
    row("dense recall@10 against exact cosine", [f"{v:.3f}" for v in recalls], recalls)
    for n in names:
        extra = results[n]["ingest"]["finish"]
        if extra:
            print(f"\n{n} after the last batch: " + ", ".join(f"{k} {v:.1f}" for k, v in extra.items()))

    print("\nretrieval quality against the evidence ids (top 10):\n")
    print("| engine, mode | R@5 | R@10 | MRR@10 |")
    print("| --- | --- | --- | --- |")
    for n in names:
        for mode in ("text", "dense", "hybrid"):
            if mode in results[n]["runs"]:
                q = quality(results[n]["runs"][mode], queries, subset["ids"])
                print(f"| {n} {mode} | {q['R@5']:.3f} | {q['R@10']:.3f} | {q['MRR@10']:.3f} |")


# -------------------------------------------------------------------------------------- main


def common_args(args: argparse.Namespace) -> list[str]:
    return ["--n", str(args.n), "--workdir", str(args.workdir), "--corpus", str(args.corpus), "--queries", str(args.queries)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--workdir", type=Path, required=True, help="outside the repository")
    ap.add_argument("--engine", choices=("all", "prepare", *ENGINES, "report"), default="all")
    ap.add_argument("--queries-only", action="store_true", help="measure queries again on the stores of an earlier run")
    ap.add_argument("--phase", choices=("ingest", "queries", "queries-embed"), default="queries", help="of one --engine")
    ap.add_argument("--cold", choices=("plain", "hybrid-embed"), help=argparse.SUPPRESS)
    ap.add_argument("--corpus", type=Path, default=BENCH / "corpus.jsonl.gz")
    ap.add_argument("--queries", type=Path, default=BENCH / "queries.jsonl")
    args = ap.parse_args()
    args.workdir = args.workdir.resolve()
    if REPO in args.workdir.parents or args.workdir == REPO:
        sys.exit("--workdir must be outside the repository")
    args.workdir.mkdir(parents=True, exist_ok=True)
    if args.engine == "all":
        steps = [] if args.queries_only else [("prepare", None)]
        for engine in ENGINES:
            steps += [] if args.queries_only else [(engine, "ingest")]
            steps += [(engine, "queries"), (engine, "queries-embed")]
        for step, phase in steps + [("report", None)]:
            cmd = [sys.executable, __file__, "--engine", step, *common_args(args)]
            cmd += ["--phase", phase] if phase else []
            subprocess.run(cmd, check=True)
        return
    if args.engine == "prepare":
        prepare(args)
    elif args.engine == "report":
        report(args)
    else:
        run_engine(args, args.engine)


if __name__ == "__main__":
    main()
