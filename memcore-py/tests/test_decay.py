"""The decay engine through the Python API: status transitions with lossless archive
compression, the automatic lifecycle (dry run and real), keepit markers (list, set,
preview), search's recency by type, optimistic updates, and the records they return."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import math
from pathlib import Path
from typing import Any

import pytest

import memcore
from conftest import README, readme_examples

UTC = dt.timezone.utc
NOW = dt.datetime.now(UTC).replace(microsecond=0)
#: Far enough ahead that every memory written by a test is old by the seed's thresholds.
LATER = NOW + dt.timedelta(days=1000)

#: Long enough for archiving to compress it; non-ASCII so exact bytes matter.
LONG = "# Cache warmup\n\n" + "The cache is warmed at boot, naïvely but reliably ✓. " * 40
SUMMARY = "Warming strategy for the kumquat cache"


@pytest.fixture
def warmup(store: memcore.Memcore) -> memcore.Memory:
    """A memory whose content archiving compresses."""
    return store.put(LONG, summary=SUMMARY)


def refs(results: memcore.SearchResults) -> list[str]:
    return [hit.memory.ref for hit in results]


# Transitions


def test_transition_moves_a_memory_through_the_lifecycle(store: memcore.Memcore) -> None:
    store.put("A short note about owls.", id="owls", collection="notes")
    resolved = store.transition("owls", "resolved", collection="notes")
    assert isinstance(resolved, memcore.Memory)
    assert (resolved.ref, resolved.status, resolved.version) == ("notes/owls", "resolved", 2)
    assert store.get("notes/owls") == resolved
    archived = store.transition("notes/owls", "archived")
    # Too short to be worth compressing: the content stays as it was.
    assert (archived.status, archived.content, archived.metadata) == ("archived", "A short note about owls.", {})
    tombstone = store.transition("notes/owls", "tombstone")
    assert (tombstone.status, tombstone.version) == ("tombstone", 4)
    back = store.transition("notes/owls", "active")
    assert (back.status, back.version, back.content) == ("active", 5, "A short note about owls.")
    assert [v.version for v in store.versions("notes/owls")] == [1, 2, 3, 4, 5]


def test_an_invalid_move_names_the_allowed_targets(store: memcore.Memcore) -> None:
    store.put("Ship v2: cut the release branch.", id="ship")
    store.transition("ship", "resolved")
    with pytest.raises(memcore.ValidationError) as caught:
        store.transition("ship", "active")
    err = caught.value
    assert not isinstance(err, memcore.RequestError)
    assert str(err) == "a memory cannot go from status resolved to active"
    assert err.category == "VALIDATION"
    assert err.recovery == "from resolved it can go to: archived, tombstone"
    assert err.__notes__ == [f"hint: {err.recovery}"]
    # `update(status=...)` follows the same table.
    with pytest.raises(memcore.ValidationError, match="from resolved it can go to"):
        store.update("ship", status="active")
    store.transition("ship", "archived")
    with pytest.raises(memcore.ValidationError) as from_archived:
        store.transition("ship", "resolved")
    assert from_archived.value.recovery == "from archived it can go to: active, tombstone"
    ship = store.get("ship")
    assert (ship.status, ship.version) == ("archived", 3), "the refused moves wrote nothing"


def test_a_status_that_is_not_one_is_refused(store: memcore.Memcore) -> None:
    store.put("note", id="note")
    # A string the field does not take: a plain ValidationError listing the statuses.
    with pytest.raises(memcore.ValidationError, match="unknown variant `done`") as unknown:
        store.transition("note", "done")  # type: ignore[arg-type]
    assert not isinstance(unknown.value, memcore.RequestError)
    assert "`active`, `resolved`, `archived`, `tombstone`" in str(unknown.value)
    # A value of the wrong type: a RequestError (also a TypeError).
    with pytest.raises(memcore.RequestError, match="at `status`: invalid type: integer `3`") as wrong:
        store.transition("note", 3)  # type: ignore[arg-type]
    assert isinstance(wrong.value, TypeError)
    with pytest.raises(memcore.NotFoundError):
        store.transition("no-such-note", "resolved")
    assert store.get("note").version == 1


def test_archiving_compresses_and_restoring_gives_the_original_back(
    store: memcore.Memcore, warmup: memcore.Memory
) -> None:
    archived = store.transition(warmup.id, "archived")
    assert archived.status == "archived"
    assert archived.content.startswith("[ARCHIVED] [Compressed: ")
    assert archived.content.endswith(f"Original summary: {SUMMARY}")
    assert len(archived.content) < len(LONG) // 10
    assert set(archived.metadata) == {"archived_original"}
    kept = archived.metadata["archived_original"]
    assert (kept["encoding"], kept["bytes"]) == ("zlib+base64", len(LONG.encode()))
    # Archiving twice changes nothing more; then archived -> active restores exactly.
    assert store.transition(warmup.id, "archived").content == archived.content
    restored = store.transition(warmup.id, "active")
    assert restored.content == LONG
    assert restored.metadata == {}
    assert (restored.summary, restored.title) == (SUMMARY, "Cache warmup")
    # Through the tombstone too: archived -> tombstone keeps the stub, -> active restores.
    store.transition(warmup.id, "archived")
    tombstone = store.transition(warmup.id, "tombstone")
    assert tombstone.content == archived.content
    assert store.transition(warmup.id, "active").content == LONG


def test_archiving_through_update_compresses_too(store: memcore.Memcore, warmup: memcore.Memory) -> None:
    archived = store.update(warmup.id, status="archived", tags=["cache"])
    assert archived.content.startswith("[ARCHIVED]") and archived.tags == ("cache",)
    assert store.update(warmup.id, status="active").content == LONG


def test_archived_memories_are_hidden_from_default_search(
    store: memcore.Memcore, warmup: memcore.Memory
) -> None:
    assert refs(store.search("kumquat warming", mode="text")) == [warmup.ref]
    store.transition(warmup.id, "archived")
    assert refs(store.search("kumquat warming", mode="text")) == []
    found = store.search("kumquat warming", mode="text", statuses=["archived"])
    assert refs(found) == [warmup.ref]
    assert found[0].memory.status == "archived"
    store.transition(warmup.id, "active")
    assert refs(store.search("kumquat warming", mode="text")) == [warmup.ref]
    assert store.verify().consistent


# The lifecycle


@pytest.fixture
def aging(store: memcore.Memcore) -> memcore.Memcore:
    """Four memories written now: two that age, two pinned."""
    store.put(LONG, id="warmup", summary=SUMMARY, collection="notes")
    store.put("Plain old note about the printer.", id="printer", collection="notes")
    store.put("The WAL must never be dropped.", id="wal", collection="rules", importance=1.0)
    store.put("Notes. ##keepit1.00## Keep the on-call rota in the README.", id="rota", collection="rules")
    return store


def test_a_dry_run_plans_exactly_what_the_real_run_does(aging: memcore.Memcore) -> None:
    before = aging.list()
    plan = aging.process_lifecycle(dry_run=True, now=LATER)
    assert isinstance(plan, memcore.LifecycleReport)
    assert plan.dry_run is True
    assert plan.now == LATER
    assert plan.errors == ()
    stats = plan.stats
    assert isinstance(stats, memcore.LifecycleStats)
    assert (stats.scanned, stats.archived, stats.tombstoned, stats.deleted, stats.skipped, stats.failed) == (
        4, 2, 0, 0, 2, 0,
    )
    assert [step.ref for step in plan.steps] == ["notes/printer", "notes/warmup"]
    step = plan.steps[0]
    assert isinstance(step, memcore.LifecycleStep)
    assert (step.action, step.from_, step.to, step.version) == ("archive", "active", "archived", 1)
    assert step.reason == "unchanged for 1000 days (archived after 90 days)"
    assert step.age_days == pytest.approx(1000, abs=0.1)
    assert 0.0 <= step.relevance < 1e-9
    assert aging.list() == before, "a dry run changes nothing"

    done = aging.process_lifecycle(now=LATER.isoformat())  # ISO text works as a datetime does
    assert done.dry_run is False
    assert done.steps == plan.steps
    assert done.stats == plan.stats
    assert done.now == plan.now
    warmup = aging.get("notes/warmup")
    assert (warmup.status, warmup.version) == ("archived", 2)
    assert warmup.content.startswith("[ARCHIVED]")
    assert aging.get("notes/printer").status == "archived"
    assert {aging.get(ref).status for ref in ("rules/wal", "rules/rota")} == {"active"}

    again = aging.process_lifecycle(now=LATER)
    assert (again.stats.scanned, again.stats.archived, again.stats.skipped) == (4, 0, 4)
    assert again.steps == ()
    assert aging.get("notes/warmup").version == 2, "a second run writes nothing"
    assert aging.verify().consistent


def test_the_lifecycle_tombstones_then_deletes(aging: memcore.Memcore) -> None:
    aging.process_lifecycle(now=LATER, collections=["notes"])
    tombstoned = aging.process_lifecycle(now=LATER + dt.timedelta(days=181))
    assert tombstoned.stats.tombstoned == 2 and tombstoned.stats.archived == 0
    assert {(s.action, s.from_, s.to) for s in tombstoned.steps} == {("tombstone", "archived", "tombstone")}
    assert "tombstoned after 180 days" in tombstoned.steps[0].reason
    deleted = aging.process_lifecycle(now=LATER + dt.timedelta(days=181 + 366))
    assert deleted.stats.deleted == 2
    assert {(s.action, s.from_, s.to) for s in deleted.steps} == {("delete", "tombstone", None)}
    assert [s.ref for s in aging.list()] == ["rules/rota", "rules/wal"]
    # Deleted means moved to the trash: restore brings it back, and back to active the original.
    assert aging.restore("notes/warmup").status == "tombstone"
    assert aging.transition("notes/warmup", "active").content == LONG


def test_pinned_memories_are_never_archived(store: memcore.Memcore) -> None:
    old = NOW - dt.timedelta(days=400)
    store.put("Pinned by importance.", id="by-importance", importance=1.0, created_at=old)
    store.put("Almost pinned.", id="almost", importance=0.99, created_at=old)
    store.put("Ops. ##keepit1.00## Never drop the WAL.", id="by-marker", created_at=old)
    store.put("Ops. ##keepit0.90## Rotate the keys.", id="critical", created_at=old)
    store.put("Docs: write `##keepit1.00##` to pin.", id="in-code", created_at=old)
    report = store.process_lifecycle(archive_after_days=0, min_relevance=1.0)
    assert sorted(s.ref for s in report.steps) == ["memory/almost", "memory/critical", "memory/in-code"]
    assert report.stats.skipped == 2
    assert {store.get(ref).status for ref in ("by-importance", "by-marker")} == {"active"}
    # Setting a marker's weight to 1.00 pins a memory from then on.
    store.transition("critical", "active")
    store.keepit_set("critical", 0, 1.0)
    assert store.process_lifecycle(archive_after_days=0).steps == ()


def test_lifecycle_options_narrow_and_override(store: memcore.Memcore) -> None:
    store.put(LONG, id="warmup", summary=SUMMARY, collection="notes")
    store.put("A note in another collection.", id="other", collection="journal")
    soon = NOW + dt.timedelta(days=3)
    # Three days are not 90 ...
    assert store.process_lifecycle(dry_run=True, now=soon).steps == ()
    # ... but are more than two, and the minimum relevance is met at 3 days of a 30-day half-life.
    plan = store.process_lifecycle(dry_run=True, now=soon, archive_after_days=2, collections=["notes"])
    assert [s.ref for s in plan.steps] == ["notes/warmup"]
    assert plan.stats.scanned == 1
    assert "archived after 2 days" in plan.steps[0].reason
    by_relevance = store.process_lifecycle(dry_run=True, now=soon, min_relevance=0.95, collections=("notes",))
    assert by_relevance.steps[0].reason.startswith("relevance 0.933 is below 0.95")
    # Without compression the archived content stays as it was.
    done = store.process_lifecycle(now=soon, archive_after_days=2, compress=False)
    assert done.stats.archived == 2
    kept = store.get("notes/warmup")
    assert (kept.status, kept.content, kept.metadata) == ("archived", LONG, {})
    # Options passed as None count as left out.
    assert store.process_lifecycle(dry_run=None, now=None, collections=None).dry_run is False  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"now": "yesterday"}, memcore.ValidationError, "at `now`"),
        ({"now": "2030-01-01T00:00:00"}, memcore.ValidationError, "at `now`"),
        ({"now": dt.datetime(2030, 1, 1)}, memcore.ValidationError, "now is a datetime without a timezone"),
        ({"now": 5}, memcore.RequestError, "at `now`: invalid type: integer `5`"),
        ({"min_relevance": 2}, memcore.ValidationError, "invalid lifecycle threshold min_relevance: 2"),
        ({"tombstone_after_days": -1}, memcore.ValidationError, "tombstone_after_days: -1"),
        ({"archive_after_days": math.nan}, memcore.ValidationError, "archive_after_days is NaN, which cannot be stored"),
        ({"collections": ["../x"]}, memcore.ValidationError, "collection"),
        ({"dry_run": "yes"}, memcore.RequestError, "at `dry_run`"),
        ({"dryrun": True}, memcore.RequestError, "unknown field `dryrun`"),
    ],
)
def test_bad_lifecycle_options_raise_typed_errors(
    store: memcore.Memcore, options: dict[str, Any], error: type[memcore.MemcoreError], message: str
) -> None:
    store.put("note", id="note", created_at=NOW - dt.timedelta(days=400))
    with pytest.raises(error, match=message) as caught:
        store.process_lifecycle(**options)
    if error is memcore.ValidationError:
        assert not isinstance(caught.value, memcore.RequestError)
    assert caught.value.recovery
    assert store.get("note").status == "active", "nothing was done"


# Keepit markers

#: Non-ASCII before and between the markers, so byte and character offsets differ.
MARKED = "Héllo ✓ notes. ##keepit0.50## naïve café plan ##KEEPIT0.95## 日本語 deadline"


def test_keepit_list_reads_a_text_or_a_memory(store: memcore.Memcore) -> None:
    markers = store.keepit_list(text=MARKED)
    assert [type(m) for m in markers] == [memcore.KeepitMarker, memcore.KeepitMarker]
    first, second = markers
    assert (first.index, first.weight, first.level, first.content) == (0, 0.5, "notable", "naïve café plan")
    assert (second.index, second.weight, second.level, second.content) == (1, 0.95, "critical", "日本語 deadline")
    # The character offsets slice the Python str; the byte offsets its UTF-8 encoding.
    assert MARKED[first.start_char:first.end_char] == "##keepit0.50## naïve café plan "
    assert MARKED[second.start_char:second.end_char] == "##KEEPIT0.95## 日本語 deadline"
    assert second.end_char == len(MARKED)
    encoded = MARKED.encode()
    assert encoded[first.start:first.end].decode() == MARKED[first.start_char:first.end_char]
    assert second.end == len(encoded)
    assert first.start > first.start_char, "the offsets differ in non-ASCII text"

    stored = store.put(MARKED, id="plan", collection="notes")
    assert store.keepit_list("plan") == markers
    assert store.keepit_list("plan", collection="notes") == markers
    assert store.keepit_list(stored.ref) == markers
    assert store.call("keepit_list", ref="notes/plan") == {"markers": tuple(markers)}
    assert store.keepit_list(text="No markers here.") == []
    assert store.keepit_list(text="") == []


def test_keepit_markers_in_code_are_text(store: memcore.Memcore) -> None:
    text = "Write `##keepit0.80##` to mark.\n\n```\n##keepit.5## in a fence\n```\n\n##keepit0.25## real"
    (only,) = store.keepit_list(text=text)
    assert (only.content, only.weight, only.level, only.index) == ("real", 0.25, "minor", 0)
    (low,) = store.keepit_list(text="##keepit0.05## barely")
    assert low.level is None
    (clamped,) = store.keepit_list(text="##keepit1.50## over the top")
    assert (clamped.weight, clamped.level) == (1.0, "pinned")


def test_keepit_list_refuses_malformed_markers_and_bad_sources(store: memcore.Memcore) -> None:
    with pytest.raises(memcore.ValidationError, match="malformed keepit marker `##keepit.5##` at character 8") as bad:
        store.keepit_list(text="Ça va ✓ ##keepit.5## half")
    assert "##keepit0.50##" in bad.value.recovery
    for text in ("a ##keepit1.5## b", "a ##keepit0.805## b", "a ##keepit## b"):
        with pytest.raises(memcore.ValidationError, match="malformed keepit marker"):
            store.keepit_list(text=text)
    store.put("note", id="note")
    for kwargs in ({}, {"id": "note", "text": "x"}):
        with pytest.raises(memcore.ValidationError, match="either a memory \\(ref\\) or a text") as which:
            store.keepit_list(**kwargs)
        assert which.value.recovery
    with pytest.raises(memcore.ValidationError, match="collection was given without the id"):
        store.keepit_list(collection="memory")
    with pytest.raises(memcore.NotFoundError):
        store.keepit_list("missing")
    with pytest.raises(memcore.RequestError, match="at `text`"):
        store.keepit_list(text=5)  # type: ignore[arg-type]


def test_keepit_set_changes_one_weight_in_place(store: memcore.Memcore) -> None:
    store.put(MARKED, id="plan", tags=["ops"])
    changed = store.keepit_set("plan", 1, 0.333)
    assert isinstance(changed, memcore.Memory)
    assert changed.content == MARKED.replace("##KEEPIT0.95##", "##KEEPIT0.33##")
    assert (changed.version, changed.tags) == (2, ("ops",))
    assert [m.weight for m in store.keepit_list("plan")] == [0.5, 0.33]
    assert store.keepit_set("plan", 0, 7).content.startswith("Héllo ✓ notes. ##keepit1.00##")
    assert store.keepit_set("plan", 0, -0.2).content.startswith("Héllo ✓ notes. ##keepit0.00##")
    with pytest.raises(memcore.ValidationError, match="no keepit marker 2: the text has 2") as missing:
        store.keepit_set("plan", 2, 0.5)
    assert "numbered from 0" in missing.value.recovery
    with pytest.raises(memcore.ValidationError, match="weight is NaN"):
        store.keepit_set("plan", 0, math.nan)
    with pytest.raises(memcore.ValidationError, match="at `index`: invalid value: integer `-1`"):
        store.keepit_set("plan", -1, 0.5)
    with pytest.raises(memcore.RequestError, match="at `weight`"):
        store.keepit_set("plan", 0, "high")  # type: ignore[arg-type]
    store.put("Ops ##keepit.5## half", id="broken")
    with pytest.raises(memcore.ValidationError, match="malformed keepit marker"):
        store.keepit_set("broken", 0, 0.5)
    assert store.get("plan").version == 4 and store.get("broken").version == 1


def test_keepit_preview_shows_survival_at_each_distance(store: memcore.Memcore) -> None:
    text = "##keepit1.00## pin ##keepit0.80## api ##keepit0.25## hunch"
    preview = store.keepit_preview(text=text, ratio=30)
    assert isinstance(preview, memcore.KeepitPreview)
    assert (preview.ratio, preview.aggressiveness, preview.max_distance) == (30.0, "aggressive", 10)
    assert [t.distance for t in preview.thresholds] == list(range(1, 11))
    fifth = preview.thresholds[4]
    assert isinstance(fifth, memcore.DistanceThreshold)
    assert fifth.threshold == pytest.approx(0.65)
    assert fifth.surviving == 2
    assert [m.survives_through for m in preview.markers] == [10, 10, 0]
    hunch = preview.markers[2]
    assert isinstance(hunch, memcore.MarkerPreview)
    assert (hunch.index, hunch.weight, hunch.level, hunch.content) == (2, 0.25, "minor", "hunch")
    assert hunch.survives == (False,) * 10
    assert text[hunch.start_char:hunch.end_char] == "##keepit0.25## hunch"
    assert preview.markers[0].survives == (True,) * 10

    light = store.keepit_preview(text=text, ratio=15, aggressiveness="light", max_distance=4)
    assert (light.aggressiveness, light.max_distance, len(light.thresholds)) == ("light", 4, 4)
    assert [t.threshold for t in light.thresholds] == pytest.approx([0.1375, 0.175, 0.2125, 0.25])
    assert [m.survives_through for m in light.markers] == [4, 4, 4]
    assert store.keepit_preview(text=text, ratio=15).aggressiveness == "moderate"
    assert store.keepit_preview(text=text, ratio=5).aggressiveness == "light"

    store.put(text, id="marked")
    assert store.keepit_preview("marked", ratio=30) == preview
    assert store.call("keepit_preview", ref="marked", ratio=30) == preview
    assert store.keepit_preview(text=text, ratio=30, max_distance=None) == preview  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"ratio": math.nan}, memcore.ValidationError, "ratio is NaN, which cannot be stored"),
        ({"ratio": math.inf}, memcore.ValidationError, "ratio is inf"),
        ({"ratio": 0.5}, memcore.ValidationError, "invalid compression ratio 0.5"),
        ({"ratio": 30, "max_distance": 0}, memcore.ValidationError, "max_distance 0 is outside 1..=1000"),
        ({"ratio": 30, "max_distance": 1001}, memcore.ValidationError, "max_distance 1001"),
        ({"ratio": 30, "aggressiveness": "extreme"}, memcore.ValidationError, "unknown variant `extreme`"),
        ({"ratio": "30"}, memcore.RequestError, "at `ratio`: invalid type: string"),
        ({"ratio": 30, "max_distance": 2.5}, memcore.RequestError, "at `max_distance`"),
    ],
)
def test_bad_preview_settings_raise_typed_errors(
    store: memcore.Memcore, kwargs: dict[str, Any], error: type[memcore.MemcoreError], message: str
) -> None:
    with pytest.raises(error, match=message) as caught:
        store.keepit_preview(text="##keepit0.50## x", **kwargs)
    if error is memcore.ValidationError:
        assert not isinstance(caught.value, memcore.RequestError)
    assert caught.value.recovery


def test_keepit_preview_needs_a_ratio_and_a_well_formed_text(store: memcore.Memcore) -> None:
    with pytest.raises(TypeError, match="ratio"):
        store.keepit_preview(text="x")  # type: ignore[call-arg]
    with pytest.raises(memcore.ValidationError, match="malformed keepit marker `##keepit.5##`"):
        store.keepit_preview(text="##keepit.5## x", ratio=30)
    with pytest.raises(memcore.ValidationError, match="either a memory"):
        store.keepit_preview(ratio=30)


# Updates and search


def test_update_with_expected_version_refuses_a_stale_write(store: memcore.Memcore) -> None:
    store.put("first", id="note")
    assert store.update("note", content="second", expected_version=1).version == 2
    with pytest.raises(memcore.ConflictError, match="at version 2, not 1") as stale:
        store.update("note", content="third", expected_version=1)
    assert stale.value.recovery
    with pytest.raises(memcore.ConflictError):
        store.update("note", status="resolved", expected_version=1)
    assert store.get("note").content == "second"
    assert store.update("note", status="resolved", expected_version=2).status == "resolved"


def test_search_recency_decays_by_type(store: memcore.Memcore) -> None:
    old = NOW - dt.timedelta(days=400)
    store.put("Kumquat harvest log.", id="diary", type="journal", created_at=old)
    store.put("Kumquat trees need acid soil.", id="soil", type="fact", created_at=old)
    store.put("Kumquat marmalade recipe.", id="recipe", created_at=old)

    def recency(**boost: Any) -> dict[str, float]:
        results = store.search("kumquat", mode="text", recency={"weight": 1.0, **boost})
        return {hit.memory.id: hit.parts.recency for hit in results}

    by_type = recency()
    # Types with a rate keep their floor; others follow the 30-day half-life.
    assert by_type["diary"] == pytest.approx(0.1)
    assert by_type["soil"] == pytest.approx(0.2)
    assert by_type["recipe"] < 1e-3
    assert recency(by_type=True, half_life_days=None) == by_type
    flat = recency(by_type=False)
    assert all(value < 1e-3 for value in flat.values())
    assert recency(by_type=False, half_life_days=10_000)["diary"] > 0.9
    with pytest.raises(memcore.ValidationError, match="half-life"):
        recency(half_life_days=0)
    with pytest.raises(memcore.RequestError, match="at `recency.by_type`"):
        recency(by_type="no")


# The records


def test_records_show_themselves_and_convert_to_dicts(aging: memcore.Memcore) -> None:
    report = aging.process_lifecycle(dry_run=True, now=LATER)
    assert repr(report) == (
        "LifecycleReport(dry_run=True, archived=2, tombstoned=0, deleted=0, steps=2, errors=0)"
    )
    assert repr(report.stats) == (
        "LifecycleStats(scanned=4, archived=2, tombstoned=0, deleted=0, skipped=2, failed=0)"
    )
    step = report.steps[0]
    assert repr(step) == "LifecycleStep(ref='notes/printer', action='archive', from='active', to='archived')"
    as_dict = report.to_dict()
    assert set(as_dict) == {"dry_run", "now", "stats", "steps", "errors"}
    assert as_dict["now"] == LATER and as_dict["errors"] == []
    assert as_dict["stats"] == {
        "scanned": 4, "archived": 2, "tombstoned": 0, "deleted": 0, "skipped": 2, "failed": 0,
    }
    assert as_dict["steps"][0] == step.to_dict()
    assert step.to_dict() == {
        "ref": "notes/printer",
        "action": "archive",
        "from": "active",
        "to": "archived",
        "reason": "unchanged for 1000 days (archived after 90 days)",
        "age_days": step.age_days,
        "relevance": step.relevance,
        "version": 1,
    }
    assert step.from_ == "active" and not hasattr(step, "from")
    assert report == aging.process_lifecycle(dry_run=True, now=LATER), "equal by value"
    assert report != aging.process_lifecycle(dry_run=True, now=LATER + dt.timedelta(seconds=1))

    (marker, _) = aging.keepit_list(text=MARKED)
    assert repr(marker) == "KeepitMarker(index=0, weight=0.5, level='notable', start_char=15, end_char=46)"
    assert marker.to_dict() == {
        "index": 0, "weight": 0.5, "level": "notable", "content": "naïve café plan",
        "start": marker.start, "end": marker.end, "start_char": 15, "end_char": 46,
    }
    (plain,) = aging.keepit_list(text="##keepit0.05## faint")
    assert plain.to_dict()["level"] is None
    assert "level=None" in repr(plain)

    preview = aging.keepit_preview(text=MARKED, ratio=30, max_distance=2)
    assert repr(preview) == "KeepitPreview(ratio=30.0, aggressiveness='aggressive', max_distance=2, markers=2)"
    assert repr(preview.thresholds[0]) == "DistanceThreshold(distance=1, threshold=0.65, surviving=1)"
    assert repr(preview.markers[1]) == "MarkerPreview(index=1, weight=0.95, level='critical', survives_through=2)"
    shown = preview.to_dict()
    assert shown["markers"][0] == {**marker.to_dict(), "survives": [False, False], "survives_through": 0}
    assert shown["thresholds"] == [t.to_dict() for t in preview.thresholds]
    assert shown["thresholds"][1] == {"distance": 2, "threshold": pytest.approx(0.8), "surviving": 1}
    records: tuple[memcore.Record, ...] = (
        report, report.stats, step, marker, preview, preview.markers[0], preview.thresholds[0],
    )
    for record in records:
        assert isinstance(record, memcore.Record)
        assert type(record).__module__ == "memcore"
        with pytest.raises(AttributeError):
            record.extra = 1  # type: ignore[attr-defined]


def test_the_readme_example_runs(in_tmp_cwd: Path) -> None:
    (block,) = readme_examples("Lifecycle and keepit markers")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, str(README), "exec"), {"__name__": "readme"})
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("[KeepitMarker(index=0, weight=0.8, level='important'")
    assert lines[1:] == [
        "10",
        "memory/standup active -> archived unchanged for 120 days (archived after 90 days)",
    ]
    with memcore.open(in_tmp_cwd / "memories") as store:
        assert store.get("rollout").content.endswith("##keepit1.00## Roll back within 5 minutes.")
        assert {s.status for s in store.list()} == {"active"}, "a dry run"
