"""Live sessions of a tiered store from Python: start, turns, notes and action items, the hot
state, the end (summary to the warm tier, turns to the cold tier, the timeline), and the errors
of ending twice, bad ids and a store that is not tiered."""

from pathlib import Path

import pytest

import memcore


@pytest.fixture
def tiered(tmp_path: Path):  # type: ignore[no-untyped-def]
    with memcore.open(tmp_path / "tiered", backend="tiered") as store:
        yield store


def test_a_live_session_moves_down_the_tiers(tiered: memcore.Memcore) -> None:
    started = tiered.session_start("design-1", title="Design review", agents=["ann", "bob"])
    assert isinstance(started, memcore.HotSession)
    assert started.agents == ("ann", "bob") and started.turn_count == 0
    for n in range(1, 16):
        tiered.session_turn("design-1", "ann" if n % 2 else "bob", f"Point {n}: the cache layer needs eviction.")
    tiered.session_note("design-1", "measure the hit rate", kind="action_item")
    live = tiered.session_note("design-1", "LRU or LFU?", agent="bob")
    assert live.turn_count == 15 and len(live.turns) == 12, "the default keeps 12 turns hot"
    assert live.turns[0].number == 4 and "eviction" in live.summary
    assert live.notes[0].agent == "bob"
    assert tiered.session_live("design-1") == live

    report = tiered.session_end("design-1", topics=["cache"], consensus="Use LRU")
    assert isinstance(report, memcore.SessionEndReport)
    assert (report.turns, report.archived) == (15, 15)
    assert report.memories == ("sessions/design-1", "sessions/design-1:bob")
    assert report.timeline.consensus == "Use LRU"
    summary = tiered.get("sessions/design-1")
    assert "- measure the hit rate" in summary.content and summary.tags == ("session", "cache")
    assert tiered.get("sessions/design-1:bob").created_by == "bob"

    timeline = tiered.timeline(agent="bob")
    assert isinstance(timeline, memcore.TimelineListing)
    assert [entry.session_id for entry in timeline] == ["design-1"]
    assert timeline[0].duration is not None and timeline.unreadable == 0
    assert len(tiered.timeline(since="2100-01-01T00:00:00Z")) == 0

    with pytest.raises(memcore.NotFoundError):
        tiered.session_end("design-1")
    with pytest.raises(memcore.ConflictError):
        tiered.session_start("design-1")


def test_bad_session_input_raises_typed_errors(tiered: memcore.Memcore) -> None:
    with pytest.raises(memcore.ValidationError):
        tiered.session_start("../escape")
    tiered.session_start("ok-1", agents=["ann"])
    with pytest.raises(memcore.ValidationError):
        tiered.session_turn("ok-1", "", "nobody said this")
    with pytest.raises(memcore.ValidationError):
        tiered.session_note("ok-1", "not an agent of the session", agent="carl")
    with pytest.raises(memcore.NotFoundError):
        tiered.session_turn("not-live", "user", "hello")
    assert tiered.session_live("ok-1").turn_count == 0


def test_a_file_store_has_no_live_sessions(store: memcore.Memcore) -> None:
    with pytest.raises(memcore.UnsupportedError, match="tiered"):
        store.session_start("s")
    with pytest.raises(memcore.UnsupportedError):
        store.timeline()


def test_compaction_folds_old_memories_into_digests(tiered: memcore.Memcore) -> None:
    tiered.put("Reads of a live session take nanoseconds.", collection="notes", id="hot", created_at="2025-01-10T00:00:00Z")
    tiered.put("Never skip the checksum.", collection="notes", id="checksum", created_at="2025-01-11T00:00:00Z")
    pinned = tiered.retain("notes/checksum")
    assert isinstance(pinned, memcore.RetainReport) and pinned.pinned == ("notes/checksum",)

    plan = tiered.compact(dry_run=True, now="2030-01-01T00:00:00Z")
    assert isinstance(plan, memcore.CompactionReport)
    assert plan.dry_run and plan.pinned == 1 and plan.demoted == 0
    assert [step.digest for step in plan] == ["notes/digest-2025-q1"]
    assert plan[0].originals == ("notes/hot",) and plan[0].folded == 1 and not plan[0].extends
    tiered.get("notes/hot")  # a dry run changes nothing

    report = tiered.compact(now="2030-01-01T00:00:00Z")
    assert report.demoted == 1
    with pytest.raises(memcore.NotFoundError):
        tiered.get("notes/hot")
    digest = tiered.get("notes/digest-2025-q1")
    assert "nanoseconds" in digest.content and digest.related_to == ("notes/hot",)
    assert tiered.get("notes/checksum").importance == 1.0

    with pytest.raises(memcore.ValidationError):
        tiered.retain()
    with pytest.raises(memcore.NotFoundError):
        tiered.retain(session="never-ran")


def test_purge_removes_a_memory_for_good_with_an_audit_record(tiered: memcore.Memcore) -> None:
    tiered.put("The vault code is qwzxplmkj.", collection="notes", id="vault")
    tiered.retain("notes/vault")
    with pytest.raises(memcore.ConflictError):
        tiered.purge("notes/vault", reason="erasure request")
    with pytest.raises(memcore.ValidationError):
        tiered.purge("notes/vault", reason=" ")
    record = tiered.purge("notes/vault", reason="erasure request", by="dpo", force=True)
    assert isinstance(record, memcore.AuditRecord)
    assert record.target == "memory notes/vault" and record.forced and record.by == "dpo"
    assert record.warm == ("notes/vault",)
    with pytest.raises(memcore.NotFoundError):
        tiered.get("notes/vault")
    assert len(tiered.search("qwzxplmkj", mode="text")) == 0


def test_recall_labels_evidence_across_tiers_and_keeps_a_session_history(
    tiered: memcore.Memcore,
) -> None:
    tiered.put("Rotate the deploy key every month.", id="rotation")
    tiered.session_start("ops-1", agents=["ann"])
    tiered.session_turn("ops-1", "ann", "The deploy key expires on Friday.")
    tiered.session_note("ops-1", "Ann keeps the key in the vault.", agent="ann")
    tiered.session_end("ops-1")

    found = tiered.recall("deploy key", tier="all", mode="text")
    assert isinstance(found, memcore.RecallResults)
    assert [hit.label for hit in found] == [f"M{n}" for n in range(1, len(found) + 1)]
    assert {hit.tier for hit in found} == {"warm", "cold"}
    turn = next(hit for hit in found if hit.tier == "cold")
    assert isinstance(turn, memcore.RecallHit)
    assert (turn.source, turn.session, turn.agent) == ("turn/ops-1/1", "ops-1", None)
    assert turn.excerpt.startswith("ann: The deploy key expires") and turn.origins == ()
    assert all(hit.tier == "cold" for hit in tiered.recall("deploy key", tier="cold"))

    # A live session labels what it is given and keeps the history.
    tiered.session_start("ops-2")
    first = tiered.recall("key rotation", mode="text", session="ops-2")
    again = tiered.recall("rotate the key", mode="text", session="ops-2")
    assert first[0].source == again[0].source == "memory/rotation"
    assert first[0].label == again[0].label == "M1"
    live = tiered.session_live("ops-2")
    assert [r.query for r in live.retrievals] == ["key rotation", "rotate the key"]
    assert isinstance(live.evidence[0], memcore.HotEvidence)
    assert live.evidence[0].source == "memory/rotation"

    # One agent's view: bob does not see ann's notes.
    def sources(agent: str) -> set[str]:
        return {hit.source for hit in tiered.recall("vault", mode="text", agent=agent)}

    assert "sessions/ops-1:ann" in sources("ann")
    assert "sessions/ops-1:ann" not in sources("bob")
    shared = tiered.search("vault", mode="text", shared=True)
    assert all(hit.memory.ref != "sessions/ops-1:ann" for hit in shared)
    with pytest.raises(memcore.ValidationError):
        tiered.recall("vault", agent="ann", shared=True)
    with pytest.raises(memcore.NotFoundError):
        tiered.recall("vault", session="not-live")


def test_a_file_store_recalls_its_warm_tier_only(tmp_path: Path) -> None:
    with memcore.open(tmp_path / "flat") as store:
        store.put("The deploy key rotates monthly.")
        assert [hit.tier for hit in store.recall("deploy key", mode="text")] == ["warm"]
        with pytest.raises(memcore.UnsupportedError):
            store.recall("deploy key", tier="cold")


def test_verify_and_repair_cover_the_cold_archive(tiered: memcore.Memcore) -> None:
    tiered.session_start("ops-1")
    tiered.session_turn("ops-1", "ann", "The heron nests by the weir.")
    tiered.session_end("ops-1")
    report = tiered.verify()
    assert isinstance(report.cold, memcore.ArchiveCheck)
    assert report.consistent and report.cold.records == 1 and report.cold.damaged == ()
    repaired = tiered.repair().cold
    assert isinstance(repaired, memcore.ArchiveRepair) and repaired.frames_set_aside == 0


def test_a_file_store_has_no_cold_archive_to_verify(tmp_path: Path) -> None:
    with memcore.open(tmp_path / "flat") as store:
        assert store.verify().cold is None and store.repair().cold is None
