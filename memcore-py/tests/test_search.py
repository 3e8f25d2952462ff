"""`Memcore.search`: full-text search without the model (the suite's default), semantic and
hybrid search with the real model, every filter, the fallback warning, the result types and
bad arguments."""

from __future__ import annotations

import datetime as dt
import struct
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import memcore
from conftest import restore_real_model

UTC = dt.timezone.utc
NOW = dt.datetime.now(UTC).replace(microsecond=0)

#: A small corpus: (put keyword arguments, ...). Ids come from the headings.
CORPUS: list[dict[str, Any]] = [
    {
        "content": "# Metal on Apple silicon\n\nThe renderer reaches the GPU through Metal.",
        "collection": "learnings",
        "type": "learning",
        "tags": ["gpu", "macos"],
        "priority": "high",
        "created_at": NOW - dt.timedelta(days=400),
    },
    {
        "content": "# Retry policy\n\nRetry idempotent HTTP calls three times with jittered backoff.",
        "collection": "decisions",
        "type": "decision",
        "tags": ["http", "resilience"],
        "created_at": NOW - dt.timedelta(days=10),
    },
    {
        "content": "# Vulkan drivers in CI\n\nThe Linux runners need a software Vulkan driver for GPU tests.",
        "collection": "blockers",
        "type": "blocker",
        "tags": ["ci", "gpu"],
        "status": "archived",
        "created_at": NOW - dt.timedelta(days=5),
    },
    {
        "content": "# GPU budget\n\nThe GPU rendering cluster budget is reviewed every quarter.",
        "collection": "decisions",
        "type": "decision",
        "tags": ["gpu", "budget"],
        "status": "resolved",
        "metadata": {"owner": "finance"},
        "created_at": NOW - dt.timedelta(days=1),
    },
    {
        "content": "# Weekly sync\n\nShipped the importer; the exporter slips a week.",
        "collection": "meetings",
        "created_at": NOW - dt.timedelta(days=2),
    },
]


def refs(results: memcore.SearchResults) -> list[str]:
    return [hit.memory.ref for hit in results]


@pytest.fixture
def corpus(store: memcore.Memcore) -> memcore.Memcore:
    store.put_many(CORPUS)
    return store


# --- full text, the model missing (the suite's default environment) -------------------------


def test_text_search_ranks_by_bm25_and_explains_the_score(corpus: memcore.Memcore) -> None:
    results = corpus.search("idempotent retry", mode="text")
    assert results.mode == "text"
    assert results.warnings == ()
    assert refs(results) == ["decisions/retry-policy"]
    hit = results[0]
    assert isinstance(hit, memcore.Hit)
    assert isinstance(hit.memory, memcore.MemorySummary)
    assert hit.memory == next(s for s in corpus.list() if s.ref == "decisions/retry-policy")
    parts = hit.parts
    assert (parts.text_rank, parts.vector_rank, parts.vector_similarity) == (1, None, None)
    assert parts.text_score is not None and parts.text_score > 0
    assert parts.base == pytest.approx(parts.text_score)
    assert parts.recency == 1.0
    assert hit.score == parts.base * parts.recency


def test_without_the_model_semantic_and_hybrid_fall_back_to_text_with_a_warning(
    corpus: memcore.Memcore,
) -> None:
    for mode in ("hybrid", "semantic"):
        results = corpus.search("GPU", mode=mode)
        assert results.mode == "text", mode
        assert len(results.warnings) == 1
        warning = results.warnings[0]
        assert "semantic search is unavailable" in warning
        assert "fetch-models" in warning
        assert set(refs(results)) == {"learnings/metal-on-apple-silicon", "decisions/gpu-budget"}
    assert corpus.search("GPU").mode == "text", "hybrid is the default"
    assert corpus.search("GPU", mode="text").warnings == (), "no fallback, no warning"


def test_default_statuses_are_active_and_resolved(corpus: memcore.Memcore) -> None:
    assert "blockers/vulkan-drivers-in-ci" not in refs(corpus.search("vulkan GPU", mode="text"))
    archived = corpus.search("vulkan", mode="text", statuses=["archived"])
    assert refs(archived) == ["blockers/vulkan-drivers-in-ci"]
    any_status = corpus.search("GPU", mode="text", statuses=())
    assert len(any_status) == 3
    resolved = corpus.search("GPU", mode="text", statuses=("resolved",))
    assert refs(resolved) == ["decisions/gpu-budget"]


def test_filters_restrict_the_hits(corpus: memcore.Memcore) -> None:
    def found(**kwargs: Any) -> set[str]:
        return set(refs(corpus.search("GPU budget retry metal", mode="text", statuses=(), **kwargs)))

    everything = found()
    assert len(everything) == 4
    assert found(collections=["decisions"]) == {"decisions/retry-policy", "decisions/gpu-budget"}
    assert found(collections=("decisions", "learnings")) == everything - {"blockers/vulkan-drivers-in-ci"}
    assert found(tags_any=["macos", "http"]) == {"learnings/metal-on-apple-silicon", "decisions/retry-policy"}
    assert found(tags_all=["gpu", "budget"]) == {"decisions/gpu-budget"}
    assert found(types=["decision"]) == {"decisions/retry-policy", "decisions/gpu-budget"}
    assert found(created_after=NOW - dt.timedelta(days=7)) == {
        "blockers/vulkan-drivers-in-ci",
        "decisions/gpu-budget",
    }
    assert found(created_before=NOW - dt.timedelta(days=7)) == {
        "learnings/metal-on-apple-silicon",
        "decisions/retry-policy",
    }
    # `*_after` is inclusive, `*_before` exclusive; any timezone works.
    budget_created = NOW - dt.timedelta(days=1)
    plus_two = dt.timezone(dt.timedelta(hours=2))
    assert found(updated_after=budget_created.astimezone(plus_two)) == {"decisions/gpu-budget"}
    assert found(updated_before=budget_created, updated_after=NOW - dt.timedelta(days=6)) == {
        "blockers/vulkan-drivers-in-ci"
    }
    # Bounds may be ISO 8601 text with an offset too.
    week_ago = NOW - dt.timedelta(days=7)
    assert found(created_after=week_ago.isoformat()) == found(created_after=week_ago)
    assert found(created_before=week_ago.astimezone(plus_two).isoformat()) == found(created_before=week_ago)
    assert found(
        updated_after=(NOW - dt.timedelta(days=6)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        updated_before=budget_created.isoformat(),
    ) == {"blockers/vulkan-drivers-in-ci"}
    assert found(filters="priority=high") == {"learnings/metal-on-apple-silicon"}
    assert found(filters={"tags": ["http", "budget"]}) == {"decisions/retry-policy", "decisions/gpu-budget"}
    assert found(filters=["type=decision", "status=resolved"]) == {"decisions/gpu-budget"}
    assert found(collections=["meetings"]) == set()


def test_a_filter_on_extra_frontmatter_matches_and_warns(corpus: memcore.Memcore) -> None:
    results = corpus.search("GPU", mode="text", filters={"owner": "finance"})
    assert refs(results) == ["decisions/gpu-budget"]
    assert any("owner" in w and "not a built-in field" in w for w in results.warnings)


def test_limit_and_the_recency_boost(corpus: memcore.Memcore) -> None:
    assert len(corpus.search("GPU", mode="text", statuses=(), limit=1)) == 1
    # The old Metal note outranks the fresh budget note on words alone ...
    plain = corpus.search("Metal GPU renderer", mode="text")
    assert refs(plain)[0] == "learnings/metal-on-apple-silicon"
    assert all(hit.parts.recency == 1.0 for hit in plain)
    # ... but a strong recency boost with a short half-life puts the fresh one first.
    boosted = corpus.search("Metal GPU renderer", mode="text", recency={"weight": 1.0, "half_life_days": 7})
    assert refs(boosted)[0] == "decisions/gpu-budget"
    by_ref = {hit.memory.ref: hit for hit in boosted}
    old = by_ref["learnings/metal-on-apple-silicon"]
    assert old.parts.recency < 0.001
    assert old.score == pytest.approx(old.parts.base * old.parts.recency)
    assert 0.85 < by_ref["decisions/gpu-budget"].parts.recency < 1.0  # one day at 7-day half-life
    # The half-life defaults to 30 days: the same weight boosts less.
    default_half_life = corpus.search("Metal GPU renderer", mode="text", recency={"weight": 1.0})
    fresh = {hit.memory.ref: hit.parts.recency for hit in default_half_life}["decisions/gpu-budget"]
    assert by_ref["decisions/gpu-budget"].parts.recency < fresh < 1.0


def test_results_are_an_immutable_sequence_with_dicts_and_reprs(corpus: memcore.Memcore) -> None:
    results = corpus.search("GPU", mode="text", statuses=())
    assert isinstance(results, memcore.SearchResults)
    assert len(results) == 3 and bool(results)
    hits = list(results)
    assert [h.memory.ref for h in hits] == refs(results)
    assert results.hits == tuple(hits)
    assert results.maintenance == ()
    assert results[0] == hits[0] and results[-1] == hits[-1] and results[2] == hits[2]
    assert results[0] == results[0], "an item is made when it is read; equal each time"
    assert results[1:] == hits[1:] and isinstance(results[:2], list)
    assert results[::-1] == hits[::-1]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    with pytest.raises(IndexError, match="SearchResults index out of range"):
        results[3]
    with pytest.raises(IndexError):
        results[-4]
    with pytest.raises(TypeError, match="integers or slices, not str"):
        results["0"]  # type: ignore[call-overload]
    with pytest.raises(AttributeError):
        results.mode = "semantic"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        hits[0].score = 1.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        hash(hits[0])
    assert not corpus.search("nothing like this at all", mode="text")

    assert repr(results).startswith("SearchResults(mode='text', len=3, refs=['")
    assert repr(results).endswith(", warnings=0, maintenance=0)")
    top = hits[0]
    assert repr(top) == f"Hit(ref={top.memory.ref!r}, title={top.memory.title!r}, score={top.score!r})"
    assert repr(top.parts).startswith("ScoreParts(text_rank=1, text_score=")
    assert "vector_rank=None, vector_similarity=None" in repr(top.parts)
    assert top.parts == corpus.search("GPU", mode="text", statuses=())[0].parts

    data = results.to_dict()
    assert set(data) == {"hits", "mode", "warnings", "maintenance"}
    assert data["mode"] == "text" and data["warnings"] == [] and data["maintenance"] == []
    assert [h["memory"]["id"] for h in data["hits"]] == [h.memory.id for h in hits]
    first = data["hits"][0]
    assert first["score"] == top.score
    assert first["memory"] == top.memory.to_dict()
    assert first["parts"] == top.parts.to_dict()
    assert set(first["parts"]) == {
        "text_rank",
        "text_score",
        "vector_rank",
        "vector_similarity",
        "base",
        "recency",
        "link",
        "neighbours",
        "question_share",
        "author_factor",
        "date_factor",
    }
    assert top.to_dict() == first


def significant_digits(x: float) -> int:
    mantissa = repr(abs(x)).split("e")[0].replace(".", "").lstrip("0")
    return len(mantissa.rstrip("0")) or 1


def test_f32_scores_read_back_as_short_floats(corpus: memcore.Memcore) -> None:
    """The core's BM25 scores and similarities are f32; the binding gives the shortest float
    that is the same f32 (`3.6666481`, not `3.6666481494903564`), losing nothing."""
    for hit in corpus.search("GPU", mode="text", statuses=()):
        score = hit.parts.text_score
        assert score is not None
        assert significant_digits(score) <= 9, repr(score)
        assert score == pytest.approx(hit.parts.base, rel=1e-7)
        assert struct.pack("<f", score) == struct.pack("<f", hit.parts.base), "the same f32"


#: (name, search keyword arguments, the exact exception class, a stable part of its message):
#: `RequestError` where the argument has no place in the query record (an unknown keyword, a
#: wrong type), `ValidationError` where the field does not take the value or it breaks a rule.
BAD_SEARCHES: list[tuple[str, dict[str, Any], type[Exception], str]] = [
    ("empty text", {"text": ""}, memcore.ValidationError, "empty"),
    ("blank text", {"text": "  \n"}, memcore.ValidationError, "empty"),
    ("limit 0", {"limit": 0}, memcore.ValidationError, "limit 0 is outside 1..=1000"),
    ("limit too big", {"limit": 1001}, memcore.ValidationError, "limit 1001 is outside 1..=1000"),
    ("negative limit", {"limit": -1}, memcore.ValidationError, "at `limit`"),
    ("limit as str", {"limit": "3"}, memcore.RequestError, "at `limit`"),
    ("unknown mode", {"mode": "fuzzy"}, memcore.ValidationError, "at `mode`: unknown variant `fuzzy`"),
    ("mode not a str", {"mode": 3}, memcore.RequestError, "at `mode`"),
    ("text not a str", {"text": 3}, memcore.RequestError, "at `text`"),
    ("text None", {"text": None}, memcore.RequestError, "missing field `text`"),
    ("unknown status", {"statuses": ["done"]}, memcore.ValidationError, "at `statuses[0]`: unknown variant `done`"),
    ("statuses as one str", {"statuses": "active"}, memcore.RequestError, "at `statuses`"),
    ("collections as one str", {"collections": "decisions"}, memcore.RequestError, "at `collections`"),
    ("bad collection", {"collections": ["../up"]}, memcore.ValidationError, "collection"),
    ("tags not str", {"tags_any": [1]}, memcore.RequestError, "at `tags_any[0]`"),
    ("bad filter", {"filters": "priority"}, memcore.ValidationError, "invalid filter"),
    ("similarity above 1", {"min_similarity": 1.5}, memcore.ValidationError, "min_similarity"),
    ("similarity NaN", {"min_similarity": float("nan")}, memcore.ValidationError, "min_similarity"),
    ("weight above 1", {"recency": {"half_life_days": 30.0, "weight": 1.1}}, memcore.ValidationError, "recency"),
    ("zero half-life", {"recency": {"half_life_days": 0.0, "weight": 0.5}}, memcore.ValidationError, "half-life: 0 days"),
    ("by_type not a bool", {"recency": {"weight": 0.5, "by_type": "yes"}}, memcore.RequestError, "at `recency.by_type`"),
    ("unknown recency field", {"recency": {"weight": 0.5, "halflife": 3}}, memcore.RequestError, "at `recency.halflife`"),
    ("the old recency keyword", {"recency_weight": 0.5}, memcore.RequestError, "unknown field `recency_weight`"),
    ("unknown keyword", {"colour": "red"}, memcore.RequestError, "unknown field `colour`"),
    ("naive datetime", {"created_after": dt.datetime(2024, 1, 1)}, memcore.ValidationError, "timezone"),
    ("date without a time", {"updated_before": "2024-01-01"}, memcore.ValidationError, "at `updated_before`"),
    ("time without an offset", {"created_after": "2024-01-01T00:00:00"}, memcore.ValidationError, "at `created_after`"),
    (
        "empty range",
        {"created_after": NOW, "created_before": NOW - dt.timedelta(days=1)},
        memcore.ValidationError,
        "empty created range",
    ),
]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [(k, e, m) for _, k, e, m in BAD_SEARCHES],
    ids=[name for name, _, _, _ in BAD_SEARCHES],
)
def test_bad_arguments(corpus: memcore.Memcore, kwargs: dict[str, Any], error: type[Exception], message: str) -> None:
    kwargs = {"text": "GPU", **kwargs}
    text = kwargs.pop("text")
    with pytest.raises(error) as caught:
        corpus.search(text, **kwargs)
    err = caught.value
    assert type(err) is error
    assert isinstance(err, memcore.ValidationError) and isinstance(err, ValueError)
    assert message in str(err)
    assert err.recovery


def test_conversation_turns_are_searched_with_their_neighbours(store: memcore.Memcore) -> None:
    turns = [
        ("Ana", "Did you ever make it to the glacier?"),
        ("Ben", "Yes, last week, it was stunning."),
        ("Ana", "Lucky you, was the glacier cave open?"),
    ]
    store.put_many(
        [
            {"content": text, "id": f"t{n}", "created_by": who, "metadata": {"session": "trip", "turn": n}}
            for n, (who, text) in enumerate(turns, start=1)
        ]
    )
    hits = store.search("glacier", mode="text").hits
    assert {hit.memory.id for hit in hits} == {"t1", "t2", "t3"}
    reply = next(hit for hit in hits if hit.memory.id == "t2")
    assert reply.parts.text_rank is not None, "found by the words of the turn it answers"
    assert reply.parts.neighbours is not None and reply.parts.neighbours > 0
    assert reply.parts.question_share is None, "a reply that tells"
    question = next(hit for hit in hits if hit.memory.id == "t1")
    assert question.parts.question_share == 1.0, "a turn that only asks keeps only what it is lent"


def test_a_date_the_query_names_is_preferred(store: memcore.Memcore) -> None:
    for day, text in [
        (3, "We fixed the flaky deploy script."),
        (20, "Deploy script news: the deploy script was rewritten."),
    ]:
        store.put(text, created_at=dt.datetime(2024, 3, day, 12, tzinfo=UTC))
    hits = store.search("deploy script on 3 March 2024", mode="text").hits
    assert "flaky" in store.get(hits[0].memory.id).content
    assert hits[0].parts.date_factor == 2.0 and hits[1].parts.date_factor is None


def test_search_on_a_closed_handle(store_path: Path) -> None:
    handle = memcore.open(store_path)
    handle.close()
    with pytest.raises(memcore.ValidationError, match="closed"):
        handle.search("anything")


def test_threads_search_while_another_writes(store: memcore.Memcore) -> None:
    store.put_many([f"# Note {n}\n\nshared words about caching" for n in range(20)])
    errors: list[BaseException] = []
    done = threading.Event()

    def writer() -> None:
        try:
            for batch in range(5):
                store.put_many([f"# Later {batch}-{n}\n\nmore about caching" for n in range(5)])
        except BaseException as err:  # pragma: no cover - only on failure
            errors.append(err)
        finally:
            done.set()

    def reader() -> None:
        try:
            while not done.is_set():
                assert len(store.search("caching", mode="text", limit=50)) >= 20
        except BaseException as err:  # pragma: no cover - only on failure
            errors.append(err)

    threads = [threading.Thread(target=writer)] + [threading.Thread(target=reader) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    assert len(store.search("caching", mode="text", limit=100)) == 45


# --- with the real embedding model ------------------------------------------------------------


@pytest.fixture(scope="module")
def model_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[memcore.Memcore]:
    """One store with the real model for the read-only tests below (loading ONNX Runtime and
    embedding the corpus once)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        restore_real_model(monkeypatch)
        with memcore.open(tmp_path_factory.mktemp("model-store")) as store:
            store.put_many(CORPUS)
            yield store


def test_semantic_search_finds_by_meaning(model_store: memcore.Memcore) -> None:
    query = "graphics card acceleration on a Mac"
    assert len(model_store.search(query, mode="text")) == 0, "no word in common"
    results = model_store.search(query, mode="semantic")
    assert results.mode == "semantic"
    assert results.warnings == ()
    assert refs(results)[0] == "learnings/metal-on-apple-silicon"
    assert "blockers/vulkan-drivers-in-ci" not in refs(results), "archived stays hidden"
    top = results[0]
    assert (top.parts.text_rank, top.parts.text_score, top.parts.vector_rank) == (None, None, 1)
    similarities = [hit.parts.vector_similarity for hit in results]
    assert all(s is not None and -1.0 <= s <= 1.0 for s in similarities)
    assert similarities == sorted(similarities, reverse=True)  # type: ignore[type-var]
    assert top.score == top.parts.base == pytest.approx(top.parts.vector_similarity, rel=1e-6)


def test_semantic_search_with_min_similarity_and_filters(model_store: memcore.Memcore) -> None:
    query = "what happens when a network request fails"
    results = model_store.search(query, mode="semantic")
    assert refs(results)[0] == "decisions/retry-policy"
    best = results[0].parts.vector_similarity
    assert best is not None
    strict = model_store.search(query, mode="semantic", min_similarity=best - 1e-6)
    assert refs(strict) == ["decisions/retry-policy"]
    assert len(model_store.search(query, mode="semantic", min_similarity=min(1.0, best + 0.01))) == 0
    only_meetings = model_store.search(query, mode="semantic", collections=["meetings"])
    assert refs(only_meetings) == ["meetings/weekly-sync"]


def test_hybrid_search_fuses_text_and_vector_ranks(model_store: memcore.Memcore) -> None:
    results = model_store.search("GPU renderer for Apple laptops")
    assert results.mode == "hybrid"
    assert results.warnings == ()
    top = results[0]
    assert top.memory.ref == "learnings/metal-on-apple-silicon"
    assert (top.parts.text_rank, top.parts.vector_rank) == (1, 1), "both agree"
    # Weighted reciprocal rank fusion: 1/(5 + text rank) + 0.7/(5 + vector rank).
    for hit in results:
        text = 1 / (5 + hit.parts.text_rank) if hit.parts.text_rank else 0.0
        vector = 0.7 / (5 + hit.parts.vector_rank) if hit.parts.vector_rank else 0.0
        assert hit.parts.base == pytest.approx(text + vector)
        assert hit.score == hit.parts.base
    # Memories only the vectors found come last, without a text part.
    vector_only = [h for h in results if h.parts.text_rank is None]
    assert [h.memory.ref for h in vector_only] == refs(results)[2:]
    assert all(h.parts.text_score is None and h.parts.vector_rank for h in vector_only)
    assert repr(results).startswith("SearchResults(mode='hybrid', len=")


def test_hybrid_search_balances_text_and_meaning(model_store: memcore.Memcore) -> None:
    """Words favour the GPU budget note, meaning the Metal note: fused, words count a little more."""
    query = "GPU rendering on a Mac"
    assert refs(model_store.search(query, mode="text"))[0] == "decisions/gpu-budget"
    assert refs(model_store.search(query, mode="semantic"))[0] == "learnings/metal-on-apple-silicon"
    first, second = model_store.search(query)[:2]
    assert [first.memory.ref, second.memory.ref] == ["decisions/gpu-budget", "learnings/metal-on-apple-silicon"]
    assert (first.parts.text_rank, first.parts.vector_rank) == (1, 2)
    assert (second.parts.text_rank, second.parts.vector_rank) == (2, 1)
    assert first.score > second.score
