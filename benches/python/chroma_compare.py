#!/usr/bin/env python3
"""memcore (through its Python binding) side by side with ChromaDB, same model, same passages.

Both engines embed with all-MiniLM-L6-v2 int8, the ONNX files memcore uses
(``~/.cache/memcore/models/all-minilm-l6-v2-int8``: ``model.onnx``, ``tokenizer.json``, filled by
``scripts/fetch-models``). memcore runs them in-process through its own ONNX Runtime; Chroma gets
an embedding function that runs the same files with Python ``onnxruntime`` + ``tokenizers`` the
way memcore's embedder does (truncation at 256 tokens, mean pooling over the attention mask, L2
normalisation; groups of 256 texts sorted by length, each text run on its own, one
single-threaded session per core). Chroma is given the text memcore embeds for each memory
(the content: the memories have no title, context or summary of their own, and memcore leaves
out a title that only repeats the content), so both engines hold the same vectors, which the
report checks, and one exact brute-force search over them is the ground truth for both.

Data: N passages of the shared bench corpus (``../shared/bench/corpus.jsonl.gz``; never copied
into the repository): every passage that is evidence for one of the 104 questions of
``queries.jsonl``, filled up with the first lines of the corpus (for N >= 2,760 this is simply
the first N lines, since the LoCoMo turns come first). Ids ``p000000``... in corpus order
(memcore: ten collections ``c0``..``c9``, as ``binding_overhead.py`` builds them).

Measured, per engine: ingest with embeddings (batches of 1,000: memcore ``put_many``, Chroma
``collection.add``; the model loaded before the clock starts); query latency p50/p99 over the
104 questions, three rounds, on a warm handle, with the query embedding (memcore: each round
adds trailing spaces to the question, so its query-vector cache misses while the tokens and
the ranking stay the same; Chroma: ``query_texts``) and without it (memcore: the vector cached;
Chroma: ``query_embeddings``); memcore's hybrid and text modes; open + first query (model load
included); recall@10 of the dense search against exact cosine over the same vectors; and
retrieval quality against the questions' evidence ids (recall@5/@10, MRR over the top 10).

Run it in a throwaway venv outside the repository (this script is no test; nothing in the test
suite runs it); ``--queries-only`` measures the queries again on the stores of an earlier run::

    python3 -m venv /tmp/chroma-venv
    /tmp/chroma-venv/bin/pip install chromadb onnxruntime tokenizers numpy
    /tmp/chroma-venv/bin/pip install /tmp/bench-wheels/memcore-*.whl   # maturin build --release
    /tmp/chroma-venv/bin/python benches/python/chroma_compare.py --n 10000 --workdir /tmp/mc-vs-chroma

Each engine runs in its own subprocess (two ONNX Runtime libraries in one process are asking for
trouble): ``--engine memcore`` first (it writes the texts Chroma embeds), then ``--engine chroma``,
then ``--engine report``, which prints the tables; ``--engine all`` (the default) runs the three.
The memcore store stays in ``WORKDIR/memcore-store`` (``binding_overhead.py --store`` can reuse
it); every result is in ``WORKDIR/*.json``.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO.parent / "shared" / "bench"
MODEL_DIR = Path(
    os.environ.get("MEMCORE_MODEL_DIR", Path.home() / ".cache/memcore/models/all-minilm-l6-v2-int8")
)
BATCH = 1000
ROUNDS = 3
K = 10


def loadavg() -> str:
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[round((len(s) - 1) * p)]


def lat(values_ns: list[int]) -> dict[str, float]:
    ms = [v / 1e6 for v in values_ns]
    return {"p50_ms": pct(ms, 0.5), "p99_ms": pct(ms, 0.99), "samples": len(ms)}


def ingest_summary(count: int, started: float, batch_s: list[float], load_before: str) -> dict[str, Any]:
    """What an ingest of `count` items begun at `started` took: total, rate, batches, load."""
    total = time.perf_counter() - started
    return {"total_s": total, "per_s": count / total, "batch_s": batch_s, "load": [load_before, loadavg()]}


def load_subset(corpus: Path, queries_path: Path, n: int) -> tuple[list[dict[str, str]], list[dict[str, Any]]]:
    queries = [json.loads(line) for line in open(queries_path, encoding="utf-8")]
    evidence = {e for q in queries for e in q["evidence_ids"]}
    rows: list[dict[str, str]] = []
    with gzip.open(corpus, "rt", encoding="utf-8") as f:
        for line in f:
            rows.append(json.loads(line))
    chosen = [i for i, r in enumerate(rows) if r["id"] in evidence]
    if len(chosen) > n:
        sys.exit(f"--n {n} is smaller than the {len(chosen)} evidence passages")
    keep = set(chosen)
    for i in range(len(rows)):
        if len(keep) == n:
            break
        keep.add(i)
    return [rows[i] for i in sorted(keep)], queries


# ----------------------------------------------------------------------------------- memcore


def previous(path: Path, engine: str, args: argparse.Namespace) -> dict[str, Any]:
    """The results so far (for --queries-only), or a fresh record."""
    if args.queries_only:
        if not path.exists():
            sys.exit(f"--queries-only needs {path} from an earlier full run")
        return json.loads(path.read_text())
    return {"engine": engine, "query_runs": []}


def run_memcore(args: argparse.Namespace) -> None:
    import memcore

    passages, queries = load_subset(args.corpus, args.queries, args.n)
    questions = [q["question"] for q in queries]
    store = args.workdir / "memcore-store"
    result_file = args.workdir / "memcore.json"
    out = previous(result_file, "memcore", args)
    out.update(version=memcore.__version__, n=len(passages))

    if not args.queries_only:
        if store.exists():
            shutil.rmtree(store)
        # The model is loaded (by a first query on the empty store) before the clock starts.
        mc = memcore.open(store)
        warm = mc.search("load the model", mode="semantic", limit=1)
        assert warm.mode == "semantic", f"no embedding model: {warm.warnings}"
        before = loadavg()
        texts: list[str] = []
        batch_s: list[float] = []
        started = time.perf_counter()
        for start in range(0, len(passages), BATCH):
            t0 = time.perf_counter()
            stored = mc.put_many(
                {"content": p["text"], "id": f"p{start + i:06d}", "collection": f"c{(start + i) % 10}"}
                for i, p in enumerate(passages[start : start + BATCH])
            )
            batch_s.append(time.perf_counter() - t0)
            # What memcore embeds for a memory whose title is derived from its content (no title,
            # context or summary given): the content alone.
            texts.extend(m.content for m in stored)
            print(f"memcore: {start + len(stored)} stored, load {loadavg()}", file=sys.stderr)
        out["ingest"] = ingest_summary(len(passages), started, batch_s, before)
        mc.close()
        (args.workdir / "embed_texts.json").write_text(json.dumps(texts))
        (args.workdir / "subset_ids.json").write_text(json.dumps([p["id"] for p in passages]))

    def ranked(results: Any) -> list[str]:
        return [h.memory.id for h in results]

    run: dict[str, Any] = {"load": [loadavg()]}
    # Open + first query (loads the model, the text index and the vectors).
    t0 = time.perf_counter()
    mc = memcore.open(store)
    mc.search(questions[0], mode="hybrid")
    run["open_first_query_ms"] = (time.perf_counter() - t0) * 1e3
    mc.close()

    clock = time.perf_counter_ns
    latency: dict[str, list[int]] = {}
    runs: dict[str, list[list[str]]] = {}
    sims: list[list[float]] = []
    with memcore.open(store) as mc:
        # Warm: every question in every mode (loads the model, fills the store's memory cache);
        # these results are the ones scored.
        for mode in ("text", "semantic", "hybrid"):
            for q in questions:
                res = mc.search(q, mode=mode, limit=K)
                runs.setdefault(mode, []).append(ranked(res))
                if mode == "semantic":
                    sims.append([h.parts.vector_similarity for h in res])
        # With the query embedding: each round asks each question with trailing spaces added, a
        # text the query-vector cache has not seen that tokenises (and ranks) the same.
        for m, mode in enumerate(("semantic", "hybrid")):
            samples = []
            for r in range(ROUNDS):
                for q in questions:
                    q = q + " " * (1 + m * ROUNDS + r)
                    t0 = clock()
                    mc.search(q, mode=mode, limit=K)
                    samples.append(clock() - t0)
            latency[f"{mode}+embed"] = samples
        # Without it: text mode, and semantic/hybrid with the query vectors cached (the cache
        # holds 100 entries, so the first 100 questions, embedded again just before).
        for mode in ("text", "semantic", "hybrid"):
            qs = questions if mode == "text" else questions[:100]
            for q in qs:
                mc.search(q, mode=mode, limit=K)
            samples = []
            for r in range(ROUNDS):
                for q in qs:
                    t0 = clock()
                    mc.search(q, mode=mode, limit=K)
                    samples.append(clock() - t0)
            latency[mode if mode == "text" else f"{mode} (vector cached)"] = samples
    run["load"].append(loadavg())
    run["latency"] = {k: lat(v) for k, v in latency.items()}
    out["query_runs"].append(run)
    out["runs"] = runs
    out["semantic_similarities"] = sims
    result_file.write_text(json.dumps(out, indent=1))
    print(f"memcore: {json.dumps(out.get('ingest', {}).get('per_s'))}/s; {json.dumps(run)}", file=sys.stderr)


# ------------------------------------------------------------------------------------ Chroma


class MiniLM:
    """all-MiniLM-L6-v2 int8 from memcore's model files, run the way memcore's embedder runs it.

    sentence-transformers' pipeline (truncation at 256 tokens, mean pooling over the attention
    mask, L2 normalisation) with memcore's scheduling: texts in groups of 256 (what memcore's
    indexing hands its embedder per call), sorted by token length within a group (memcore
    hands the longest out first, to whichever session is free), each text run on its own (dynamic int8 quantisation would make a batched text's vector depend on its
    neighbours), spread over one ONNX session per core (at most 4), each session on one intra-op
    thread without spinning.
    """

    GROUP = 256
    CHUNK = 1

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
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        opts.add_session_config_entry("session.inter_op.allow_spinning", "0")
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

    def _run(self, session: Any, encs: list[Any]) -> Any:
        np = self.np
        width = max(len(e.ids) for e in encs)
        ids = np.zeros((len(encs), width), dtype=np.int64)
        mask = np.zeros((len(encs), width), dtype=np.int64)
        for row, e in enumerate(encs):
            ids[row, : len(e.ids)] = e.ids
            mask[row, : len(e.ids)] = e.attention_mask
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(["last_hidden_state"], feed)[0]
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return pooled.astype(np.float32)

    def embed(self, texts: list[str]) -> Any:
        np = self.np
        out = np.zeros((len(texts), 384), dtype=np.float32)
        for g in range(0, len(texts), self.GROUP):
            encs = [self.tokenizer.encode(t) for t in texts[g : g + self.GROUP]]
            order = sorted(range(len(encs)), key=lambda i: len(encs[i].ids))
            chunks = [order[i : i + self.CHUNK] for i in range(0, len(order), self.CHUNK)]
            workers = min(len(self.sessions), len(chunks))

            def work(w: int) -> None:
                for chunk in chunks[w::workers]:
                    out[[g + i for i in chunk]] = self._run(self.sessions[w], [encs[i] for i in chunk])

            if workers == 1:
                work(0)
            else:
                list(self.pool.map(work, range(workers)))
        return out


def run_chroma(args: argparse.Namespace) -> None:
    import chromadb
    import numpy as np
    from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
    from chromadb.config import Settings

    texts = json.loads((args.workdir / "embed_texts.json").read_text())
    _, queries = load_subset(args.corpus, args.queries, args.n)
    questions = [q["question"] for q in queries]
    ids = [f"p{i:06d}" for i in range(len(texts))]
    model = MiniLM(MODEL_DIR)

    class MemcoreMiniLM(EmbeddingFunction[Documents]):
        def __init__(self, model: MiniLM | None = None) -> None:
            self.model = model or MiniLM(MODEL_DIR)

        def __call__(self, input: Documents) -> Embeddings:
            return list(self.model.embed(list(input)))

        @staticmethod
        def name() -> str:
            return "memcore-minilm-int8"

        def get_config(self) -> dict[str, Any]:
            return {}

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> "MemcoreMiniLM":
            return MemcoreMiniLM()

        def default_space(self) -> Any:
            return "cosine"

    path = args.workdir / "chroma"
    result_file = args.workdir / "chroma.json"
    out = previous(result_file, "chroma", args)
    out.update(version=chromadb.__version__, n=len(texts))
    settings = Settings(anonymized_telemetry=False)
    ef = MemcoreMiniLM(model)
    if not args.queries_only:
        if path.exists():
            shutil.rmtree(path)
        client = chromadb.PersistentClient(path=str(path), settings=settings)
        col = client.create_collection("bench", embedding_function=ef, configuration={"hnsw": {"space": "cosine"}})
        ef(["load the model"])  # warm, as memcore's first query
        before = loadavg()
        batch_s = []
        started = time.perf_counter()
        for start in range(0, len(texts), BATCH):
            t0 = time.perf_counter()
            col.add(ids=ids[start : start + BATCH], documents=texts[start : start + BATCH])
            batch_s.append(time.perf_counter() - t0)
            print(f"chroma: {min(start + BATCH, len(texts))} stored, load {loadavg()}", file=sys.stderr)
        out["ingest"] = ingest_summary(len(texts), started, batch_s, before)
        got = col.get(ids=ids, include=["embeddings"])
        order = {i: k for k, i in enumerate(got["ids"])}
        vecs = np.asarray(got["embeddings"], dtype=np.float32)[[order[i] for i in ids]]
        np.save(args.workdir / "vectors.npy", vecs)
        np.save(args.workdir / "query_vectors.npy", model.embed(questions))
        del col, client

    run: dict[str, Any] = {"load": [loadavg()]}
    # Open + first query in a new client, loading the model as memcore's first query does.
    t0 = time.perf_counter()
    client = chromadb.PersistentClient(path=str(path), settings=settings)
    col = client.get_collection("bench", embedding_function=MemcoreMiniLM())
    col.query(query_texts=[questions[0]], n_results=K)
    run["open_first_query_ms"] = (time.perf_counter() - t0) * 1e3
    col = client.get_collection("bench", embedding_function=ef)

    qvecs = np.load(args.workdir / "query_vectors.npy")
    clock = time.perf_counter_ns
    latency: dict[str, list[int]] = {"dense+embed": [], "dense (vector given)": []}
    runs: dict[str, list[list[str]]] = {"dense": []}
    for q in questions[:10]:
        col.query(query_texts=[q], n_results=K)
    for r in range(ROUNDS):
        for q in questions:
            t0 = clock()
            res = col.query(query_texts=[q], n_results=K)
            latency["dense+embed"].append(clock() - t0)
            if r == 0:
                runs["dense"].append(res["ids"][0])
    for r in range(ROUNDS):
        for qv in qvecs:
            t0 = clock()
            col.query(query_embeddings=[qv], n_results=K)
            latency["dense (vector given)"].append(clock() - t0)
    run["load"].append(loadavg())
    run["latency"] = {k: lat(v) for k, v in latency.items()}
    out["query_runs"].append(run)
    out["runs"] = runs
    result_file.write_text(json.dumps(out, indent=1))
    print(f"chroma: {json.dumps(out.get('ingest', {}).get('per_s'))}/s; {json.dumps(run)}", file=sys.stderr)


# ------------------------------------------------------------------------------------ report


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

    mc = json.loads((args.workdir / "memcore.json").read_text())
    ch = json.loads((args.workdir / "chroma.json").read_text())
    ids = json.loads((args.workdir / "subset_ids.json").read_text())
    queries = [json.loads(line) for line in open(args.queries, encoding="utf-8")]
    vecs = np.load(args.workdir / "vectors.npy")
    qvecs = np.load(args.workdir / "query_vectors.npy")
    scores = qvecs @ vecs.T
    exact = np.argsort(-scores, axis=1)[:, :K]

    def recall(runs: list[list[str]]) -> float:
        return float(np.mean([len({int(r[1:]) for r in got} & set(e.tolist())) / K for got, e in zip(runs, exact)]))

    # memcore's reported similarities against the exact ones for the same ids: same vectors?
    diffs = [
        abs(s - float(scores[qi, int(r[1:])]))
        for qi, (got, sim) in enumerate(zip(mc["runs"]["semantic"], mc["semantic_similarities"]))
        for r, s in zip(got, sim)
    ]
    def latency(engine: dict[str, Any], key: str) -> tuple[float, float, list[float]]:
        p50s = [r["latency"][key]["p50_ms"] for r in engine["query_runs"]]
        p99s = [r["latency"][key]["p99_ms"] for r in engine["query_runs"]]
        return statistics.median(p50s), statistics.median(p99s), p50s

    def batch_median(ingest: dict[str, Any]) -> float:
        full = ingest["batch_s"][:-1] or ingest["batch_s"]  # the last batch may be short
        return statistics.median(BATCH / s for s in full)

    print(f"data: {mc['n']} passages; {len(queries)} questions; memcore {mc['version']}, chromadb {ch['version']}")
    print(f"memcore similarity vs exact cosine on Chroma's stored vectors: max |diff| {max(diffs):.2e}")
    if max(diffs) > 1e-4:
        print("WARNING: the engines hold different vectors: memcore no longer embeds the content alone?")
    print(f"ingest load average (before, after): memcore {mc['ingest']['load']}, Chroma {ch['ingest']['load']}")
    for e in (mc, ch):
        print(f"{e['engine']} query runs, load average (before, after): {[r['load'] for r in e['query_runs']]}")
    print(f"latency: median over {len(mc['query_runs'])} / {len(ch['query_runs'])} runs of each run's p50 and p99\n")
    m_in, c_in = mc["ingest"], ch["ingest"]
    print("| measurement | memcore | Chroma | memcore / Chroma |")
    print("| --- | --- | --- | --- |")
    print(
        f"| ingest with embeddings, {mc['n']} passages | {m_in['per_s']:.0f} /s ({m_in['total_s']:.0f} s) "
        f"| {c_in['per_s']:.0f} /s ({c_in['total_s']:.0f} s) | {m_in['per_s'] / c_in['per_s']:.2f} |"
    )
    print(
        f"| ingest, median batch of {BATCH} | {batch_median(m_in):.0f} /s | {batch_median(c_in):.0f} /s "
        f"| {batch_median(m_in) / batch_median(c_in):.2f} |"
    )
    pairs = [
        ("dense query incl. query embedding", "semantic+embed", "dense+embed"),
        ("dense query, query vector cached/given", "semantic (vector cached)", "dense (vector given)"),
        ("hybrid query incl. query embedding", "hybrid+embed", None),
        ("hybrid query, query vector cached", "hybrid (vector cached)", None),
        ("text (BM25) query", "text", None),
    ]
    for label, mk, ck in pairs:
        m50, m99, mruns = latency(mc, mk)
        cell = f"{m50:.2f} / {m99:.2f} ms"
        if ck:
            c50, c99, cruns = latency(ch, ck)
            print(f"| {label}, p50 / p99 | {cell} | {c50:.2f} / {c99:.2f} ms | {m50 / c50:.2f} / {m99 / c99:.2f} |")
            print(f"|   p50 per run | {', '.join(f'{x:.2f}' for x in mruns)} | {', '.join(f'{x:.2f}' for x in cruns)} | |")
        else:
            print(f"| {label}, p50 / p99 | {cell} | n/a | |")
            print(f"|   p50 per run | {', '.join(f'{x:.2f}' for x in mruns)} | | |")
    rm, rc = recall(mc["runs"]["semantic"]), recall(ch["runs"]["dense"])
    print(f"| dense recall@10 vs exact cosine | {rm:.3f} | {rc:.3f} | {rm / rc:.3f} |")
    mo = statistics.median(r["open_first_query_ms"] for r in mc["query_runs"])
    co = statistics.median(r["open_first_query_ms"] for r in ch["query_runs"])
    print(f"| open + first query (loads the model) | {mo:.0f} ms (hybrid) | {co:.0f} ms (dense) | {mo / co:.2f} |")
    print("\nretrieval quality against the evidence ids (top 10):\n")
    print("| engine, mode | R@5 | R@10 | MRR@10 |")
    print("| --- | --- | --- | --- |")
    for label, runs in (
        ("memcore text (BM25)", mc["runs"]["text"]),
        ("memcore semantic", mc["runs"]["semantic"]),
        ("memcore hybrid", mc["runs"]["hybrid"]),
        ("Chroma dense", ch["runs"]["dense"]),
    ):
        qm = quality(runs, queries, ids)
        print(f"| {label} | {qm['R@5']:.3f} | {qm['R@10']:.3f} | {qm['MRR@10']:.3f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--workdir", type=Path, required=True, help="outside the repository")
    ap.add_argument("--engine", choices=("all", "memcore", "chroma", "report"), default="all")
    ap.add_argument(
        "--queries-only", action="store_true", help="measure queries again on the stores of an earlier run"
    )
    ap.add_argument("--corpus", type=Path, default=BENCH / "corpus.jsonl.gz")
    ap.add_argument("--queries", type=Path, default=BENCH / "queries.jsonl")
    args = ap.parse_args()
    args.workdir = args.workdir.resolve()
    if REPO in args.workdir.parents or args.workdir == REPO:
        sys.exit("--workdir must be outside the repository")
    args.workdir.mkdir(parents=True, exist_ok=True)
    if args.engine == "all":
        for engine in ("memcore", "chroma", "report"):
            cmd = [sys.executable, __file__, "--engine", engine, "--n", str(args.n), "--workdir", str(args.workdir),
                   "--corpus", str(args.corpus), "--queries", str(args.queries)]
            cmd += ["--queries-only"] if args.queries_only else []
            subprocess.run(cmd, check=True)
        return
    {"memcore": run_memcore, "chroma": run_chroma, "report": report}[args.engine](args)


if __name__ == "__main__":
    main()
