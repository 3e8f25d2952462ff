"""Documents from Python: ingest (paths as text, `Path` objects or one path alone), the typed
records, search with places, feedback, rebuild, purge, and the errors of bad files."""

from pathlib import Path

import pytest

import memcore

GUIDE = """# Deploy Guide

How we ship the billing service.

## Rollback

Roll back with the previous image tag, then page the owner.
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text(GUIDE)
    return tmp_path


def test_documents_are_ingested_searched_and_purged(project: Path) -> None:
    with memcore.open(project / ".memcore") as store:
        report = store.docs_ingest(project / "docs" / "guide.md", tags=["ops"])
        assert isinstance(report, memcore.IngestReport) and len(report) == 1
        added = report[0]
        assert isinstance(added, memcore.IngestedDocument)
        assert added.outcome == "added"
        record = added.document
        assert isinstance(record, memcore.DocumentRecord)
        assert (record.id, record.source, record.title) == ("docs-guide.md", "docs/guide.md", "Deploy Guide")
        assert record.format == "markdown" and record.tags == ("ops",) and len(record.chunks) == 2
        assert store.get(record.chunks[1]).content.startswith("## Rollback")

        again = store.docs_ingest(["docs/guide.md"], tags=["ops"])
        assert again[0].outcome == "unchanged"
        listing = store.docs_list(tags=["ops"])
        assert isinstance(listing, memcore.DocumentListing) and [d.id for d in listing] == ["docs-guide.md"]
        assert len(store.docs_list(tags=["nope"])) == 0

        hits = store.docs_search("previous image tag", limit=3)
        assert isinstance(hits, memcore.DocumentHits) and hits.mode == "text"
        hit = hits[0]
        assert isinstance(hit, memcore.DocumentHit)
        assert hit.heading_path == ("Deploy Guide", "Rollback")
        assert (hit.position, hit.chunks, hit.ref) == (1, 2, record.chunks[1])

        rating = store.docs_feedback("docs-guide.md", 5, chunk=1, note="spot on", by="ann")
        assert isinstance(rating, memcore.FeedbackRecord)
        assert (rating.chunk, rating.rating, rating.by) == (1, 5, "ann")
        assert store.docs_search("previous image tag", feedback_prior=True)[0].ref == hit.ref

        rebuilt = store.docs_rebuild(chunk_size=60)
        assert rebuilt[0].outcome == "replaced" and len(rebuilt[0].document.chunks) > 2

        purged = store.docs_purge("docs-guide.md")
        assert isinstance(purged, memcore.DocumentPurged)
        assert (purged.chunks, purged.feedback) == (len(rebuilt[0].document.chunks), 1)
        assert len(store.docs_list()) == 0
        with pytest.raises(memcore.NotFoundError):
            store.docs_purge("docs-guide.md")


def test_bad_documents_raise_typed_errors_and_write_nothing(project: Path) -> None:
    (project / "scan.pdf").write_bytes(b"%PDF-1.7\n\x00binary")
    (project / "latin1.txt").write_bytes(b"caf\xe9")
    with memcore.open(project / ".memcore") as store:
        for bad in ("scan.pdf", "latin1.txt", "../elsewhere.md"):
            with pytest.raises(memcore.ValidationError) as raised:
                store.docs_ingest(["docs/guide.md", bad])
            assert raised.value.recovery
        with pytest.raises(memcore.NotFoundError):
            store.docs_ingest(["docs/guide.md", "missing.md"])
        with pytest.raises(memcore.ValidationError):
            store.docs_ingest("docs/guide.md", chunk_size=10)
        assert len(store.docs_list()) == 0
        store.docs_ingest("docs/guide.md")
        with pytest.raises(memcore.ValidationError):
            store.docs_feedback("docs-guide.md", 9)
        with pytest.raises(memcore.NotFoundError):
            store.docs_feedback("nope.md", 3)
        with pytest.raises(TypeError):
            store.docs_ingest(42)  # type: ignore[arg-type]
