"""Persistent, searchable long-term memory for AI agents, inside the agent's own process.

Memories are markdown files with YAML frontmatter, one per memory, in a directory you can
read, edit and commit. No server, no network, no LLM needed.

    import memcore

    with memcore.open("./memories") as store:
        store.put("# GPU Patterns\\n\\nPrefer Metal on Apple silicon.",
                  collection="knowledge", tags=["gpu"], created_by="agent")
        store.update("gpu-patterns", tags=["perf"], merge_tags=True)
        memory = store.get("knowledge/gpu-patterns")
        print(memory.render("context"))
        for summary in store.list(filters=["tags=perf"]):
            print(summary.ref, summary.version)
        for hit in store.search("metal gpu", limit=3):
            print(hit.memory.ref, round(hit.score, 3))

Inside a git work tree ``versions``, ``get_version``, ``diff`` and ``restore_version`` use
git history (any revision: ``"HEAD~2"``, a tag, a commit id); ``open(path,
backend="git-notes")`` keeps memories as git notes, which ``hydrate`` shows with their commit
and files and ``sync`` indexes after a fetch.

Every method is one operation of the core, with keyword arguments that are the fields of
its request record; ``store.call(name, ...)`` runs any operation by name, and
``memcore.operations()`` lists them with their JSON Schemas. Results are immutable records
whose ``to_dict()`` gives every field.

``transition`` moves a memory through its lifecycle (active, resolved, archived, tombstone;
archiving compresses long content and moving back restores it exactly);
``process_lifecycle`` archives, tombstones and deletes memories by age and relevance
(``dry_run=True`` only plans); ``keepit_list``, ``keepit_set`` and ``keepit_preview`` read,
change and preview the ``##keepitX.XX##`` markers that say what must survive compression.

``search`` is hybrid by default (full-text and semantic, fused by rank); without the embedding
model it falls back to full text and says so in ``results.warnings``.

Every error is a :class:`MemcoreError` with ``.category`` and ``.recovery`` (what to do
next); :class:`ValidationError` is also a ``ValueError``, and :class:`RequestError`
(an unknown keyword or a value of the wrong type) also a ``TypeError``. Calls release the GIL, so one
handle can serve many threads.
"""

import os as _os

# ONNX Runtime 1.29 and later (the PyPI build memcore loads) sends Microsoft telemetry from
# Linux and macOS, and keeps a device id under ~/.cache/Microsoft, unless this variable is set
# before it loads. memcore promises no network: opt out, unless the program chose otherwise.
_os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

from ._memcore import (  # noqa: E402 (after the opt-out above)
    ChangedFile,
    CommitInfo,
    ConflictError,
    CorruptedError,
    DistanceThreshold,
    EmbeddingError,
    Hit,
    Hydrated,
    IndexCheck,
    IndexRebuild,
    IndexRepair,
    KeepitMarker,
    KeepitPreview,
    LinkEdge,
    LinkStats,
    TargetCount,
    MergeResult,
    CaptureDecision,
    CaptureSignal,
    SuggestedCapture,
    SkippedCapture,
    Novelty,
    SimilarMemory,
    Budget,
    ContextItem,
    ManifestEntry,
    ComposedContext,
    SkippedLine,
    SessionKeepit,
    KeepitStats,
    CompressionRecord,
    SessionRecord,
    SessionSummary,
    CompositionComponent,
    CompositionRecord,
    SessionListing,
    PruneResult,
    HotTurn,
    HotNote,
    HotSession,
    ArchiveCheck,
    ArchiveRepair,
    HotEvidence,
    HotRetrieval,
    RecallHit,
    RecallResults,
    TimelineEntry,
    SessionEndReport,
    TimelineListing,
    DigestStep,
    CompactionReport,
    RetainReport,
    AuditRecord,
    DocumentRecord,
    IngestedDocument,
    IngestReport,
    DocumentListing,
    DocumentHit,
    DocumentHits,
    DocumentPurged,
    FeedbackRecord,
    AgentProfile,
    AgentView,
    ProjectInfo,
    ProjectPolicy,
    Retrieval,
    RetrievedPassage,
    RenamedMemory,
    CallbackError,
    LifecycleReport,
    LifecycleStats,
    LifecycleStep,
    Listing,
    MarkerPreview,
    Memcore,
    MemcoreError,
    MemcoreIndexError,
    Memory,
    MemoryRecord,
    MemorySummary,
    MergeConflict,
    MovedMemory,
    NamespaceMerge,
    NotesMergeReport,
    NotFoundError,
    Record,
    RecordIterator,
    ReindexReport,
    RepairReport,
    RequestError,
    ScoreParts,
    SearchResults,
    SequenceRecord,
    Stats,
    StorageError,
    SyncReport,
    TrashEntry,
    UnsupportedError,
    ValidationError,
    VerifyReport,
    Version,
    __version__,
    open,
    operations,
)

__all__ = [
    "ChangedFile",
    "CommitInfo",
    "ConflictError",
    "CorruptedError",
    "DistanceThreshold",
    "EmbeddingError",
    "Hit",
    "Hydrated",
    "IndexCheck",
    "IndexRebuild",
    "IndexRepair",
    "KeepitMarker",
    "KeepitPreview",
    "LinkEdge",
    "LinkStats",
    "TargetCount",
    "MergeResult",
    "CaptureDecision",
    "CaptureSignal",
    "SuggestedCapture",
    "SkippedCapture",
    "Novelty",
    "SimilarMemory",
    "Budget",
    "ContextItem",
    "ManifestEntry",
    "ComposedContext",
    "SkippedLine",
    "SessionKeepit",
    "KeepitStats",
    "CompressionRecord",
    "SessionRecord",
    "SessionSummary",
    "CompositionComponent",
    "CompositionRecord",
    "SessionListing",
    "PruneResult",
    "HotTurn",
    "HotNote",
    "HotSession",
    "ArchiveCheck",
    "ArchiveRepair",
    "HotEvidence",
    "HotRetrieval",
    "RecallHit",
    "RecallResults",
    "TimelineEntry",
    "SessionEndReport",
    "TimelineListing",
    "DigestStep",
    "CompactionReport",
    "RetainReport",
    "AuditRecord",
    "DocumentRecord",
    "IngestedDocument",
    "IngestReport",
    "DocumentListing",
    "DocumentHit",
    "DocumentHits",
    "DocumentPurged",
    "FeedbackRecord",
    "AgentProfile",
    "AgentView",
    "ProjectInfo",
    "ProjectPolicy",
    "Retrieval",
    "RetrievedPassage",
    "RenamedMemory",
    "CallbackError",
    "LifecycleReport",
    "LifecycleStats",
    "LifecycleStep",
    "Listing",
    "MarkerPreview",
    "Memcore",
    "MemcoreError",
    "MemcoreIndexError",
    "Memory",
    "MemoryRecord",
    "MemorySummary",
    "MergeConflict",
    "MovedMemory",
    "NamespaceMerge",
    "NotesMergeReport",
    "NotFoundError",
    "Record",
    "RecordIterator",
    "ReindexReport",
    "RepairReport",
    "RequestError",
    "ScoreParts",
    "SearchResults",
    "SequenceRecord",
    "Stats",
    "StorageError",
    "SyncReport",
    "TrashEntry",
    "UnsupportedError",
    "ValidationError",
    "VerifyReport",
    "Version",
    "__version__",
    "open",
    "operations",
]
