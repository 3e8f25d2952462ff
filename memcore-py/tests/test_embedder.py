"""`memcore.open(path, embedder=...)`: a model of the caller's own behind semantic and hybrid
search. The embedders here are tiny deterministic models written in Python (bags of words),
so every ranking is known in advance; the built-in ONNX model is tested in test_model.py."""

from __future__ import annotations

import faulthandler
import math
import re
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import memcore

WORDS = ["gpu", "metal", "retry", "http", "budget", "vulkan", "driver", "backoff"]


class BagOfWords:
    """One dimension per word of WORDS (plus one that is never zero); records every call."""

    dimension = len(WORDS) + 1

    def __init__(self, model_id: str = "bag-of-words-v1") -> None:
        self.model_id = model_id
        self.calls: list[list[str]] = []
        self.threads: set[int] = set()

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        self.threads.add(threading.get_ident())
        vectors = []
        for text in texts:
            words = re.findall(r"[a-z]+", text.lower())
            vectors.append([float(words.count(w)) for w in WORDS] + [0.1])
        return vectors

    def embedded(self) -> list[str]:
        return [t for call in self.calls for t in call]


MEMORIES = {
    "gpu": "# GPU\n\nThe renderer reaches the gpu through metal, metal everywhere.",
    "retry": "# Retry\n\nRetry http calls with backoff; http retry budget of three.",
    "drivers": "# Drivers\n\nThe vulkan driver for the CI runners.",
}


def fill(store: memcore.Memcore) -> None:
    for id, content in MEMORIES.items():
        store.put(content, id=id)


def test_semantic_search_ranks_by_the_given_model(tmp_path: Path) -> None:
    model = BagOfWords()
    with memcore.open(tmp_path / "s", embedder=model) as store:
        fill(store)
        # Each memory was embedded by the model (its content, which holds the title).
        assert {t for t in model.embedded()} >= set(MEMORIES.values())
        results = store.search("metal", mode="semantic", limit=3)
        assert results.mode == "semantic" and not results.warnings
        assert [h.memory.id for h in results][0] == "gpu"
        assert store.search("http backoff", mode="semantic").hits[0].memory.id == "retry"
        assert store.search("vulkan driver", mode="hybrid").hits[0].memory.id == "drivers"
        # The query went through the model too.
        assert "vulkan driver" in model.embedded()
        # Scored by the cosine of the model's vectors of the content and the query.
        similarity = store.search("metal", mode="semantic", limit=1).hits[0].parts.vector_similarity
        (content, query) = BagOfWords().embed([MEMORIES["gpu"], "metal"])
        cosine = sum(a * b for a, b in zip(content, query)) / math.hypot(*content) / math.hypot(*query)
        assert similarity == pytest.approx(cosine, abs=1e-5)


def test_reopening_with_the_same_model_keeps_the_vectors(tmp_path: Path) -> None:
    with memcore.open(tmp_path / "s", embedder=BagOfWords()) as store:
        fill(store)
    again = BagOfWords()
    with memcore.open(tmp_path / "s", embedder=again) as store:
        assert store.search("metal", mode="semantic").hits[0].memory.id == "gpu"
    assert again.embedded() == ["metal"]  # the query alone


def test_another_model_id_embeds_the_store_again(tmp_path: Path) -> None:
    with memcore.open(tmp_path / "s", embedder=BagOfWords("bag-v1")) as store:
        fill(store)
    other = BagOfWords("bag-v2")
    with memcore.open(tmp_path / "s", embedder=other) as store:
        assert store.search("metal", mode="semantic").hits[0].memory.id == "gpu"
    assert set(MEMORIES.values()) <= set(other.embedded())


class ArrayLike:
    """What a NumPy array offers memcore: `tolist()`."""

    def __init__(self, rows: list[list[float]]) -> None:
        self.rows = rows

    def tolist(self) -> list[list[float]]:
        return self.rows


def test_an_array_with_tolist_is_accepted(tmp_path: Path) -> None:
    class ArrayModel(BagOfWords):
        def embed(self, texts: list[str]) -> Any:
            return ArrayLike(super().embed(texts))

    with memcore.open(tmp_path / "s", embedder=ArrayModel()) as store:
        fill(store)
        assert store.search("retry", mode="semantic").hits[0].memory.id == "retry"


class Float32:
    """A NumPy dtype as memcore reads it: its kind."""

    kind = "f"


class Vector:
    """A NumPy vector as memcore sees it: a numeric `dtype`, and `tolist()` gives the floats."""

    dtype = Float32()

    def __init__(self, values: list[float]) -> None:
        self.values = values

    def tolist(self) -> list[float]:
        return self.values


class Datetime64:
    """NumPy's datetime64 dtype, as memcore reads it."""

    kind = "M"


def test_only_numeric_arrays_are_taken_as_their_tolist(tmp_path: Path) -> None:
    class Dates:
        dtype = Datetime64()

        def __init__(self, values: list[float]) -> None:
            self.values = values

        def tolist(self) -> list[float]:
            return self.values

    with memcore.open(tmp_path / "s") as store:
        stored = store.put("x", metadata={"scores": Vector([0.5, 2.0])})
        assert stored.metadata["scores"] == [0.5, 2.0]
        with pytest.raises(memcore.RequestError, match="Dates"):
            store.put("y", metadata={"when": Dates([1.0])})


def word_vector(word: str, weight: float = 1.0) -> list[float]:
    """The model's vector of a text holding `word` `weight` times."""
    vector = [0.0] * len(WORDS) + [0.1]
    vector[WORDS.index(word)] = weight
    return vector


def test_given_vectors_are_taken_instead_of_the_model(tmp_path: Path) -> None:
    model = BagOfWords()
    with memcore.open(tmp_path / "s", embedder=model) as store:
        fill(store)
        before = len(model.embedded())
        # The texts say nothing of drivers or budgets; their vectors do.
        store.put("Note 17.", id="note", vector=word_vector("driver", 3.0))
        stored = store.put_many(
            [
                {"content": "Note 18.", "id": "budget", "vector": Vector(word_vector("budget"))},
                {"content": "The gpu again.", "id": "plain"},
            ]
        )
        assert [m.id for m in stored] == ["budget", "plain"]
        assert model.embedded()[before:] == ["The gpu again."]
        # The query's words are about metal; its vector asks for drivers.
        before = len(model.embedded())
        hits = store.search("metal", mode="semantic", limit=1, vector=word_vector("driver")).hits
        assert [h.memory.id for h in hits] == ["note"]
        hybrid = store.search("metal", vector=Vector(word_vector("budget")), limit=10)
        parts = {h.memory.id: h.parts for h in hybrid}
        assert parts["budget"].vector_rank == 1 and parts["gpu"].text_rank == 1
        assert len(model.embedded()) == before, "no query was embedded"


@pytest.mark.parametrize(
    ("vector", "message"),
    [
        ([1.0, 2.0], "has 2 values; the embedder bag-of-words-v1 makes 9"),
        ([math.nan] + [1.0] * len(WORDS), r"(?i)\[0\] is nan, which cannot be stored"),
        ([0.0] * (len(WORDS) + 1), "length of zero"),
        ([1e30] * (len(WORDS) + 1), "too large to compute"),
    ],
)
def test_a_bad_vector_is_a_validation_error_and_writes_nothing(
    tmp_path: Path, vector: list[float], message: str
) -> None:
    with memcore.open(tmp_path / "s", embedder=BagOfWords()) as store:
        with pytest.raises(memcore.ValidationError, match=message):
            store.put_many([{"content": "fine", "id": "fine"}, {"content": "x", "id": "x", "vector": vector}])
        assert len(store.list()) == 0
        with pytest.raises(memcore.ValidationError, match=message):
            store.search("x", vector=vector)


def test_threads_share_a_store_with_a_python_embedder(tmp_path: Path) -> None:
    model = BagOfWords()
    errors: list[BaseException] = []
    with memcore.open(tmp_path / "s", embedder=model) as store:
        fill(store)

        def work(n: int) -> None:
            try:
                for i in range(10):
                    store.put(f"# Note {n} {i}\n\nmetal gpu note {n} {i}", id=f"n{n}-{i}")
                    assert store.search(f"metal {n} {i}", mode="hybrid").hits
            except BaseException as e:  # noqa: BLE001 (reported below)
                errors.append(e)

        threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
        # A deadlock with the GIL held would stop the joins from returning: dump every
        # thread's stack and exit instead of hanging the suite.
        faulthandler.dump_traceback_later(120, exit=True, file=sys.stderr)
        try:
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        finally:
            faulthandler.cancel_dump_traceback_later()
        assert not errors, errors
        assert store.stats().memories == len(MEMORIES) + 40


@pytest.mark.parametrize(
    ("embedder", "message"),
    [
        (object(), "has no `model_id`"),
        (type("M", (), {"model_id": 3, "dimension": 2, "embed": lambda s, t: []})(), "`model_id` is not a str"),
        (type("M", (), {"model_id": "m", "dimension": -1, "embed": lambda s, t: []})(), "`dimension` is not"),
        (type("M", (), {"model_id": "m", "dimension": 2, "embed": 5})(), "`embed` is not callable"),
    ],
)
def test_an_object_without_the_protocol_is_a_type_error(tmp_path: Path, embedder: Any, message: str) -> None:
    with pytest.raises(TypeError, match=re.escape(message)) as raised:
        memcore.open(tmp_path / "s", embedder=embedder)
    assert "model_id` (str), `dimension` (int)" in str(raised.value)


def test_an_empty_model_id_or_zero_dimension_is_a_validation_error(tmp_path: Path) -> None:
    for model_id, dimension in (("", 4), ("m", 0)):
        model = BagOfWords(model_id)
        model.dimension = dimension
        with pytest.raises(memcore.ValidationError):
            memcore.open(tmp_path / "s", embedder=model)


class Faulty(BagOfWords):
    def __init__(self, fault: str) -> None:
        super().__init__()
        self.fault = fault

    def embed(self, texts: list[str]) -> Any:
        if self.fault == "raise":
            raise ValueError("quota exceeded")
        if self.fault == "short":
            return [[1.0, 2.0]] * len(texts)
        if self.fault == "count":
            return []
        if self.fault == "nan":
            return [[math.nan] * self.dimension for _ in texts]
        if self.fault == "zero":
            return [[0.0] * self.dimension for _ in texts]
        return "not vectors"


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("raise", "it raised ValueError: quota exceeded"),
        ("short", "returned a vector of 2 numbers for text 0; its dimension is 9"),
        ("count", "returned 0 vectors for 1 texts"),
        ("nan", "returned NaN or infinity for text 0"),
        ("zero", "returned a vector of length zero for text 0"),
        ("text", "it returned a str, not one list of floats per text"),
    ],
)
def test_a_faulty_embedder_keeps_the_write_and_search_falls_back_to_text(
    tmp_path: Path, fault: str, message: str
) -> None:
    with memcore.open(tmp_path / "s", embedder=Faulty(fault)) as store:
        stored = store.put("# Kept\n\nThe memory is stored though its vector is not.", id="kept")
        assert stored.id == "kept"
        results = store.search("kept", mode="semantic")
        assert results.mode == "text" and [h.memory.id for h in results] == ["kept"]
        (warning,) = results.warnings
        assert message in warning and "one vector of its dimension per text" in warning
    # Fixed, the embedder catches the memory up.
    model = BagOfWords()
    with memcore.open(tmp_path / "s", embedder=model) as store:
        results = store.search("kept", mode="semantic")
        assert results.mode == "semantic" and not results.warnings
        assert results.hits[0].memory.id == "kept"


class FailsOn(BagOfWords):
    """Raises `error` when asked to embed `text` alone (a query)."""

    def __init__(self, text: str, error: BaseException) -> None:
        super().__init__()
        self.text, self.error = text, error

    def embed(self, texts: list[str]) -> list[list[float]]:
        if texts == [self.text]:
            raise self.error
        return super().embed(texts)


def test_a_query_the_embedder_fails_on_is_a_callback_error_caused_by_it(tmp_path: Path) -> None:
    with memcore.open(tmp_path / "s", embedder=FailsOn("the query", RuntimeError("rate limited"))) as store:
        fill(store)
        with pytest.raises(memcore.CallbackError, match="it raised RuntimeError: rate limited") as raised:
            store.search("the query", mode="hybrid")
        assert "one vector of its dimension per text" in raised.value.recovery
        assert isinstance(raised.value.__cause__, RuntimeError)
        # The next error has no stale cause.
        with pytest.raises(memcore.NotFoundError) as missing:
            store.get("nothing-here")
        assert missing.value.__cause__ is None


def test_ctrl_c_in_the_embedder_stops_the_call(tmp_path: Path) -> None:
    with memcore.open(tmp_path / "s", embedder=FailsOn("the query", KeyboardInterrupt())) as store:
        fill(store)
        with pytest.raises(KeyboardInterrupt):
            store.search("the query", mode="semantic")
        # Raised even by a write that went on without the vector (the memory is stored).
        with pytest.raises(KeyboardInterrupt):
            store.put("the query", id="interrupted")
        assert store.get("interrupted").content == "the query"


def test_a_handle_that_only_wrote_is_displaced_too_not_failed(tmp_path: Path) -> None:
    # Writing does not read the vectors; the first search reads them and finds the change.
    first = memcore.open(tmp_path / "s", embedder=BagOfWords("bag-v1"))
    fill(first)
    with memcore.open(tmp_path / "s", embedder=BagOfWords("bag-v2")) as second:
        assert second.search("metal", mode="semantic").mode == "semantic"
    for mode in ("semantic", "hybrid"):
        results = first.search("metal", mode=mode)
        assert results.mode == "text" and results.hits[0].memory.id == "gpu"
        (warning,) = results.warnings
        assert 'model "bag-v2 ' in warning and "same embedder in every process" in warning
    first.close()


def test_another_process_changing_the_model_turns_semantic_search_off_not_text(tmp_path: Path) -> None:
    first = memcore.open(tmp_path / "s", embedder=BagOfWords("bag-v1"))
    fill(first)
    assert first.search("metal", mode="semantic").mode == "semantic"
    # Another opener with another model embeds the store again with it.
    with memcore.open(tmp_path / "s", embedder=BagOfWords("bag-v2")) as second:
        assert second.search("metal", mode="semantic").mode == "semantic"
    results = first.search("metal", mode="semantic")
    assert results.mode == "text" and results.hits[0].memory.id == "gpu"
    (warning,) = results.warnings
    assert 'model "bag-v2 ' in warning and "same embedder in every process" in warning
    first.put("# Later\n\nmetal again", id="later")  # stored; no vector of bag-v1 mixed in
    first.close()
    with memcore.open(tmp_path / "s", embedder=BagOfWords("bag-v2")) as second:
        results = second.search("metal again", mode="semantic")
        assert results.mode == "semantic" and "later" in [h.memory.id for h in results]
