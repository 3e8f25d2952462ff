"""In-conversation retrieval from Python: keywords or an agent's output with
<<retrieve: ...>> markers bring [Doc n]-labelled passages into a live session, recorded in
its retrieval history; its summary ends with `Sources: ...`."""

from pathlib import Path

import pytest

import memcore

RUNBOOK = "# Runbook\n\n## Rollback\n\nRoll back with the previous image tag.\n\n## Paging\n\nPage the service owner.\n"


def test_retrieval_labels_appends_and_records(tmp_path: Path) -> None:
    (tmp_path / "runbook.md").write_text(RUNBOOK)
    with memcore.open(tmp_path / ".memcore", backend="tiered") as store:
        store.docs_ingest(["runbook.md"])
        store.session_start("inc-1", agents=["ops"])
        found = store.retrieve("inc-1", "previous image tag", mode="text", limit=1)
        assert isinstance(found, memcore.Retrieval) and len(found) == 1
        passage = found[0]
        assert isinstance(passage, memcore.RetrievedPassage)
        assert (passage.label, passage.document, passage.tier) == ("Doc 1", "runbook.md", "warm")
        assert found.context.startswith("[Doc 1] Runbook")
        again = store.retrieve("inc-1", output="Checking. <<retrieve: rollback image>>", agent="ops", mode="text")
        assert again.queries == ("rollback image",) and again[0].label == "Doc 1"
        live = store.session_live("inc-1")
        assert [r.labels[0] for r in live.retrievals] == ["Doc 1", "Doc 1"]
        assert live.retrievals[0].sources == (passage.source,)
        assert "previous image tag" in live.evidence[0].text
        with pytest.raises(memcore.ValidationError):
            store.retrieve("inc-1", output="<<retrieve: >>")
        with pytest.raises(memcore.NotFoundError):
            store.retrieve("no-such", "x")
        store.session_end("inc-1")
        assert store.get("sessions/inc-1").content.rstrip().endswith("Sources: Doc 1")
