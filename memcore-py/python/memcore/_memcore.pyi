# Hand-written stubs of the native module memcore._memcore (memcore-py/src/*.rs).
# `scripts/test-python` checks them against the built module with mypy's stubtest.
import builtins
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar, Generic, Literal, Protocol, SupportsIndex, TypeVar, final, overload, type_check_only

from typing_extensions import Self, disjoint_base

_Status = Literal["active", "resolved", "archived", "tombstone"]
_Format = Literal["context", "json", "raw"]
_Scope = Literal["auto", "local", "global"]
_Mode = Literal["hybrid", "semantic", "text"]
_StoreTier = Literal["warm", "cold"]
_TierScope = Literal["auto", "warm", "cold", "all"]
_Backend = Literal["file", "git-notes", "postgres", "tiered"]
_NoteKind = Literal["note", "action_item"]
_TimelineKind = Literal["session", "event"]
_Level = Literal["summary", "full", "files"]
_LifecycleAction = Literal["archive", "tombstone", "delete"]
_KeepitLevel = Literal["pinned", "critical", "important", "notable", "minor", "hint"]
_Aggressiveness = Literal["light", "moderate", "aggressive"]
_SignalType = Literal["decision", "learning", "blocker", "resolution", "preference", "explicit"]
_CaptureAction = Literal["auto", "suggest", "skip"]
_NoveltyMethod = Literal["semantic", "text", "off"]
_Tier = Literal["simple", "medium", "complex", "full"]
_BudgetMode = Literal["adaptive", "fixed"]
_ContextFormat = Literal["xml", "markdown"]
_Tokenizer = Literal["estimate", "cl100k"]
_Section = Literal["working", "semantic"]
_CandidateSource = Literal["pinned", "blocker", "decision", "search"]
_Outcome = Literal["included", "truncated", "duplicate", "over_budget"]
_TranscriptFormat = Literal["auto", "claude_code", "generic"]
_SummarizerChoice = Literal["auto", "extractive", "callback"]
_Summarizer = _SummarizerChoice | Callable[[dict[str, Any]], str]

@type_check_only
class _Embedder(Protocol):
    """A model of your own for semantic search (`open(..., embedder=...)`)."""

    @property
    def model_id(self) -> str: ...
    @property
    def dimension(self) -> int: ...
    def embed(self, texts: builtins.list[str], /) -> Any:
        """One vector per text, in order: lists of floats, or a NumPy array."""
_CompositionOutput = Literal["both", "markdown", "jsonl"]
_StrPath = str | os.PathLike[str]
_Filters = str | Iterable[str] | Mapping[str, str | Iterable[str]]
_Time = datetime | str

@type_check_only
class _ArrayLike(Protocol):
    """A NumPy array, or anything else whose `tolist()` gives the values."""

    def tolist(self) -> Any: ...

_Vector = Iterable[float] | _ArrayLike
_Rev = str | int
_T = TypeVar("_T")

__all__ = [
    "__version__",
    "MemcoreError",
    "NotFoundError",
    "ValidationError",
    "RequestError",
    "ConflictError",
    "StorageError",
    "CorruptedError",
    "MemcoreIndexError",
    "EmbeddingError",
    "UnsupportedError",
    "CallbackError",
    "Record",
    "SequenceRecord",
    "MemoryRecord",
    "RecordIterator",
    "Memory",
    "MemorySummary",
    "Version",
    "TrashEntry",
    "Listing",
    "SearchResults",
    "Hit",
    "ScoreParts",
    "IndexCheck",
    "VerifyReport",
    "IndexRepair",
    "RepairReport",
    "IndexRebuild",
    "ReindexReport",
    "SyncReport",
    "NotesMergeReport",
    "NamespaceMerge",
    "MovedMemory",
    "RenamedMemory",
    "MergeConflict",
    "Hydrated",
    "CommitInfo",
    "ChangedFile",
    "Stats",
    "LifecycleReport",
    "LifecycleStats",
    "LifecycleStep",
    "KeepitMarker",
    "KeepitPreview",
    "MarkerPreview",
    "DistanceThreshold",
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
    "CompositionContext",
    "VersionContent",
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
    "Memcore",
    "open",
    "operations",
]

__version__: str

# Errors: every one has `.category` (e.g. "NOT_FOUND") and `.recovery` (what to do next).

class MemcoreError(Exception):
    """Base class of every memcore error."""

    category: str
    recovery: str

class NotFoundError(MemcoreError):
    """The memory, version or store asked for does not exist."""

class ValidationError(MemcoreError, ValueError):
    """The input breaks a rule; nothing was written. Also a ValueError."""

class RequestError(ValidationError, TypeError):
    """The arguments do not fit the operation's request record (an unknown keyword, a missing
    one, a value of the wrong type); nothing was done. Also a TypeError. A value of the right
    type that a field does not take (an unknown status) is a plain ValidationError."""

class ConflictError(MemcoreError):
    """The memory exists, the id is ambiguous, or another writer held the lock too long."""

class StorageError(MemcoreError):
    """Reading or writing the store failed: in the operating system or the git repository."""

class CorruptedError(MemcoreError):
    """A stored file could not be parsed; `path` and `line` say where."""

    path: str | None
    line: int | None

class MemcoreIndexError(MemcoreError):
    """A derived index failed; the store is intact and the index can be rebuilt."""

class EmbeddingError(MemcoreError):
    """The embedding model or its runtime is missing, damaged or failed."""

class UnsupportedError(MemcoreError):
    """The store's backend does not offer this operation."""

class CallbackError(MemcoreError):
    """A function given to memcore (a summariser) raised, or returned something that is not a
    usable summary; nothing was written. The exception it raised is the cause."""

# Results: records made from the core's result types; immutable, equal by value.

@type_check_only
@final
class _RecordData:
    """What the binding makes a record from; records are not constructed in Python."""

@disjoint_base
class Record:
    """Base of every result: `to_dict()` gives every field as plain Python data."""

    def __new__(cls, data: _RecordData) -> Self: ...
    def to_dict(self) -> dict[str, Any]: ...
    def __eq__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

class SequenceRecord(Record, Generic[_T]):
    """A result that is a read-only sequence of its items (len, indexing, slicing, iteration)."""

    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: SupportsIndex, /) -> _T: ...
    @overload
    def __getitem__(self, index: slice, /) -> builtins.list[_T]: ...
    def __iter__(self) -> RecordIterator[_T]: ...

@final
class RecordIterator(Iterator[_T]):
    def __iter__(self) -> RecordIterator[_T]: ...
    def __next__(self) -> _T: ...

class MemoryRecord(Record):
    """Base of `Memory`, which renders itself."""

    def render(self, format: _Format = "context") -> str:
        """`context`: a block for a prompt; `json`: one JSON object; `raw`: the content."""

@type_check_only
class _MemoryFields(Record):
    """The fields a memory and its summary share."""

    @property
    def ref(self) -> str:
        """`collection/id`: finds exactly this memory."""
    @property
    def id(self) -> str: ...
    @property
    def collection(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def type(self) -> str | None: ...
    @property
    def status(self) -> _Status: ...
    @property
    def tags(self) -> tuple[str, ...]: ...
    @property
    def category(self) -> str | None: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def updated_at(self) -> datetime: ...
    @property
    def version(self) -> int: ...

@final
class MemorySummary(_MemoryFields):
    """The listing form of a memory; fetch the whole memory with `Memcore.get(s.ref)`."""

@final
class Memory(MemoryRecord, _MemoryFields):
    """One memory: markdown content plus its metadata."""

    @property
    def summary(self) -> str | None: ...
    @property
    def context(self) -> str | None: ...
    @property
    def related_to(self) -> tuple[str, ...]: ...
    @property
    def project(self) -> str | None: ...
    @property
    def priority(self) -> str | None: ...
    @property
    def created_by(self) -> str | None: ...
    @property
    def importance(self) -> float | None: ...
    @property
    def metadata(self) -> dict[str, Any]:
        """Frontmatter keys memcore does not interpret (a new dict on every access)."""
    @property
    def content(self) -> str: ...

@final
class Version(Record):
    """One entry in the history of a memory."""

    @property
    def rev(self) -> str:
        """What to pass to `Memcore.get_version`."""
    @property
    def version(self) -> int | None: ...
    @property
    def timestamp(self) -> datetime: ...
    @property
    def author(self) -> str | None: ...
    @property
    def message(self) -> str | None: ...
    @property
    def current(self) -> bool: ...

@final
class TrashEntry(Record):
    """A memory moved to the trash; `Memcore.restore(entry.ref)` brings it back."""

    @property
    def ref(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def collection(self) -> str: ...
    @property
    def deleted_at(self) -> datetime: ...
    @property
    def path(self) -> str: ...

@final
class Listing(SequenceRecord[MemorySummary]):
    """What `Memcore.list` returns: a read-only sequence of `MemorySummary`."""

    @property
    def memories(self) -> tuple[MemorySummary, ...]: ...
    @property
    def skipped(self) -> tuple[MemcoreError, ...]:
        """One error per memory file that could not be read."""

@final
class ScoreParts(Record):
    """Why a hit ranks where it does."""

    @property
    def text_rank(self) -> int | None:
        """1-based rank in the full-text results, if it was there."""
    @property
    def text_score(self) -> float | None:
        """BM25 score, if it was in the full-text results."""
    @property
    def vector_rank(self) -> int | None:
        """1-based rank in the vector results, if it was there."""
    @property
    def vector_similarity(self) -> float | None:
        """Cosine similarity to the query, if it was in the vector results."""
    @property
    def base(self) -> float:
        """The score before the recency boost (RRF for hybrid, BM25 for text, cosine for semantic)."""
    @property
    def recency(self) -> float:
        """The recency factor multiplied in (1.0 without a boost)."""
    @property
    def link(self) -> float | None:
        """With `expand_links`: the score taken from the strong hit this memory is linked with."""
    @property
    def neighbours(self) -> float | None:
        """For a conversation turn (`session` and `turn` metadata): what the turns up to two before and after it, found by the same search, added to `base`."""
    @property
    def question_share(self) -> float | None:
        """For a conversation turn that asks: the share of its words in questions; its own score counts `1 - question_share` of itself in `base` (what its neighbours lent counts in full)."""
    @property
    def author_factor(self) -> float | None:
        """For a memory not by a person the search names, when it names an author of the store ("what did Ana say about ...?"): the factor its `base` was multiplied by (0.7)."""
    @property
    def date_factor(self) -> float | None:
        """For a memory created on a date the query names ("on 16 June, 2023", "in May 2022"): how many times its BM25 score counts."""

@final
class Hit(Record):
    """One search result; fetch the whole memory with `Memcore.get(hit.memory.ref)`."""

    @property
    def memory(self) -> MemorySummary: ...
    @property
    def score(self) -> float:
        """`parts.base * parts.recency`; higher is better."""
    @property
    def parts(self) -> ScoreParts: ...
    @property
    def links(self) -> tuple[LinkEdge, ...]:
        """With `linked_to`: the hit's links to the target, with their anchor context."""

@final
class SearchResults(SequenceRecord[Hit]):
    """What `Memcore.search` returns: a read-only sequence of `Hit`, best first."""

    @property
    def hits(self) -> tuple[Hit, ...]: ...
    @property
    def mode(self) -> _Mode:
        """The mode actually used (semantic and hybrid fall back to text without the model)."""
    @property
    def warnings(self) -> tuple[str, ...]: ...
    @property
    def maintenance(self) -> tuple[dict[str, Any], ...]:
        """Index work the search did first (a crashed writer's, a lagging index's)."""

@final
class IndexCheck(Record):
    """One index against the store, as `verify` found it (keys as `collection/id`)."""

    @property
    def missing(self) -> tuple[str, ...]:
        """In the store, not in the index."""
    @property
    def orphaned(self) -> tuple[str, ...]:
        """In the index, not in the store."""
    @property
    def mismatched(self) -> tuple[str, ...]:
        """In both, but the index holds another version."""
    @property
    def unavailable(self) -> str | None:
        """Why the index was not checked (the vector index without its model)."""
    @property
    def built_with(self) -> str | None:
        """What its entries were made with (the vector index's model)."""

@final
class VerifyReport(Record):
    """What `Memcore.verify` found."""

    @property
    def store_count(self) -> int: ...
    @property
    def indexes(self) -> dict[str, IndexCheck]:
        """Each index by name: `text`, `vector`."""
    @property
    def consistent(self) -> bool:
        """Whether every index that was checked matches the store."""
    @property
    def unreadable(self) -> tuple[MemcoreError, ...]:
        """One error (usually `CorruptedError`) per store file that could not be read."""
    @property
    def warnings(self) -> tuple[str, ...]:
        """Files whose frontmatter names another id or collection than their place."""
    @property
    def cold(self) -> ArchiveCheck | None:
        """A tiered store's cold archive, read whole and compared with its index."""

@final
class ArchiveCheck(Record):
    """What `verify` found in a tiered store's cold archive."""

    @property
    def segments(self) -> int: ...
    @property
    def records(self) -> int: ...
    @property
    def indexed(self) -> int: ...
    @property
    def damaged(self) -> tuple[str, ...]:
        """Frames that could not be read (`segment@offset: why`)."""
    @property
    def torn_bytes(self) -> int: ...
    @property
    def unindexed(self) -> int: ...
    @property
    def dangling(self) -> int: ...

@final
class ArchiveRepair(Record):
    """What `repair` did to a tiered store's cold archive."""

    @property
    def torn_bytes(self) -> int: ...
    @property
    def frames_set_aside(self) -> int:
        """Damaged frames moved to `damaged/` (their records are lost from the archive)."""
    @property
    def reindexed(self) -> int: ...

@final
class IndexRepair(Record):
    """What `repair` did to one index."""

    @property
    def reindexed(self) -> int: ...
    @property
    def removed(self) -> int: ...

@final
class RepairReport(Record):
    """What `Memcore.repair` did."""

    @property
    def reindexed(self) -> int: ...
    @property
    def removed(self) -> int: ...
    @property
    def indexes(self) -> dict[str, IndexRepair]: ...
    @property
    def leftovers(self) -> int:
        """Temp files interrupted writes left in the store, removed."""
    @property
    def cold(self) -> ArchiveRepair | None:
        """What repairing a tiered store's cold archive did."""

@final
class IndexRebuild(Record):
    """What `reindex` did to one index."""

    @property
    def indexed(self) -> int: ...
    @property
    def unavailable(self) -> str | None: ...

@final
class ReindexReport(Record):
    """What `Memcore.reindex` did."""

    @property
    def memories(self) -> int: ...
    @property
    def indexes(self) -> dict[str, IndexRebuild]: ...
    @property
    def unreadable(self) -> tuple[MemcoreError, ...]: ...

@final
class SyncReport(Record):
    """What `Memcore.sync` did."""

    @property
    def synced(self) -> int:
        """Memories whose index entries were brought level with the store."""
    @property
    def full(self) -> bool:
        """Whether the whole store was compared rather than only what changed."""

@final
class MovedMemory(Record):
    """A memory of the other clone whose id here differs from its id there."""

    @property
    def from_(self) -> str:
        """Its id on the other clone."""
    @property
    def to(self) -> str:
        """Its id here."""

@final
class RenamedMemory(Record):
    """A memory of the other clone whose own id was taken here, and the one it got."""

    @property
    def id(self) -> str:
        """The memory (its `namespace:commit:index` id here)."""
    @property
    def from_(self) -> str: ...
    @property
    def to(self) -> str: ...

@final
class MergeConflict(Record):
    """A memory both clones changed differently, and whose version was kept."""

    @property
    def id(self) -> str: ...
    @property
    def kept(self) -> Literal["ours", "theirs"]:
        """The more recently updated version."""

@final
class NamespaceMerge(Record):
    """What merging one namespace's notes did."""

    @property
    def namespace(self) -> str: ...
    @property
    def outcome(self) -> Literal["up-to-date", "fast-forward", "merged"]: ...
    @property
    def added(self) -> int:
        """Memories of the other clone that were new here."""
    @property
    def updated(self) -> int:
        """Memories only the other clone changed, whose change was taken."""
    @property
    def moved(self) -> tuple[MovedMemory, ...]: ...
    @property
    def renamed(self) -> tuple[RenamedMemory, ...]: ...
    @property
    def conflicts(self) -> tuple[MergeConflict, ...]: ...

@final
class NotesMergeReport(SequenceRecord[NamespaceMerge]):
    """What `Memcore.notes_merge` did: a sequence of `NamespaceMerge`."""

    @property
    def remote(self) -> str: ...
    @property
    def namespaces(self) -> tuple[NamespaceMerge, ...]: ...
    @property
    def indexed(self) -> int:
        """Memories the indexes took in after the merge."""

@final
class CommitInfo(Record):
    """The commit a hydrated memory's note is attached to."""

    @property
    def sha(self) -> str: ...
    @property
    def author(self) -> str: ...
    @property
    def email(self) -> str: ...
    @property
    def time(self) -> datetime: ...
    @property
    def message(self) -> str: ...

@final
class ChangedFile(Record):
    """A file changed by the commit of a hydrated memory."""

    @property
    def path(self) -> str: ...
    @property
    def size(self) -> int: ...
    @property
    def content(self) -> str | None:
        """`None` when deleted, binary or over 100 KiB."""

@final
class Hydrated(Record):
    """A memory with the git context its level asked for."""

    @property
    def memory(self) -> Memory: ...
    @property
    def level(self) -> _Level: ...
    @property
    def note(self) -> str | None:
        """The whole note holding the memory (level "full" and up)."""
    @property
    def commit(self) -> CommitInfo | None:
        """The commit the note is attached to (level "full" and up)."""
    @property
    def files(self) -> tuple[ChangedFile, ...]:
        """The files that commit changed, at most 20 (level "files")."""
    @property
    def files_omitted(self) -> int: ...

@final
class Stats(Record):
    """What a store holds, counted by collection and status."""

    @property
    def memories(self) -> int: ...
    @property
    def collections(self) -> dict[str, int]: ...
    @property
    def statuses(self) -> dict[str, int]: ...
    @property
    def unreadable(self) -> int: ...
    @property
    def links(self) -> LinkStats: ...

@final
class TargetCount(Record):
    """A node (`collection/id` or `ghost:<target>`) and how many links reach it."""

    @property
    def node(self) -> str: ...
    @property
    def links(self) -> int: ...

@final
class LinkStats(Record):
    """The link graph in numbers."""

    @property
    def links(self) -> int: ...
    @property
    def linking_memories(self) -> int: ...
    @property
    def targets(self) -> int: ...
    @property
    def ghosts(self) -> int:
        """Targets that are no memory (ghost nodes)."""
    @property
    def edge_types(self) -> dict[str, int]: ...
    @property
    def top_targets(self) -> tuple[TargetCount, ...]: ...

@final
class LinkEdge(Record):
    """A memory's `[[link]]` to a memory or a ghost node."""

    @property
    def source(self) -> str:
        """The memory holding the link."""
    @property
    def target(self) -> str:
        """The normalised target as written."""
    @property
    def node(self) -> str:
        """The memory's `collection/id` the target names, else `ghost:<target>`."""
    @property
    def ghost(self) -> bool: ...
    @property
    def label(self) -> str | None: ...
    @property
    def type(self) -> str:
        """`refactors`, `plans`, `debugs`, `mentions` or `related_to` (configurable)."""
    @property
    def anchor(self) -> str:
        """About 100 characters either side of the link, `...` where cut."""
    @property
    def start_char(self) -> int: ...
    @property
    def end_char(self) -> int: ...

@final
class MergeResult(Record):
    """What `Memcore.merge` did."""

    @property
    def memory(self) -> Memory:
        """The merged memory as stored."""
    @property
    def trashed(self) -> tuple[TrashEntry, ...]:
        """The sources, moved to the trash."""
    @property
    def repointed(self) -> tuple[str, ...]:
        """Memories whose links to a source now point to the merged memory."""

@final
class LifecycleStats(Record):
    """The counts of a lifecycle run."""

    @property
    def scanned(self) -> int:
        """Memories looked at."""
    @property
    def archived(self) -> int:
        """Archived (or, in a dry run, to be)."""
    @property
    def tombstoned(self) -> int:
        """Tombstoned (or to be)."""
    @property
    def deleted(self) -> int:
        """Deleted: moved to the trash (or to be)."""
    @property
    def skipped(self) -> int:
        """Left as they were (including pinned memories and ones changed during the run)."""
    @property
    def failed(self) -> int:
        """Memories that could not be read or changed (see `LifecycleReport.errors`)."""

@final
class LifecycleStep(Record):
    """One step of a lifecycle run: a memory, where it goes and why. The status it comes
    from is `from_` (`"from"` in `to_dict()`)."""

    @property
    def ref(self) -> str:
        """The memory, `collection/id`."""
    @property
    def action(self) -> _LifecycleAction: ...
    @property
    def from_(self) -> _Status:
        """Its status before the step."""
    @property
    def to(self) -> _Status | None:
        """Its status after the step; `None` when deleted."""
    @property
    def reason(self) -> str:
        """Why, in words: which threshold it passed."""
    @property
    def age_days(self) -> float:
        """Days since its last change."""
    @property
    def relevance(self) -> float:
        """Its relevance by the store's decay settings, 0.0 to 1.0."""
    @property
    def version(self) -> int:
        """The version the decision was made on; a real run skips a memory changed since."""

@final
class LifecycleReport(Record):
    """What `Memcore.process_lifecycle` did, or in a dry run would do."""

    @property
    def dry_run(self) -> bool:
        """Whether this was a dry run (nothing changed)."""
    @property
    def now(self) -> datetime:
        """The time ages were judged at."""
    @property
    def stats(self) -> LifecycleStats: ...
    @property
    def steps(self) -> tuple[LifecycleStep, ...]:
        """Each memory that changed (or would), in store order."""
    @property
    def errors(self) -> tuple[MemcoreError, ...]:
        """One error per memory that could not be read or changed; the run went on."""

@type_check_only
class _KeepitMarkerFields(Record):
    """The fields of a keepit marker, also those of its preview."""

    @property
    def index(self) -> int:
        """Its place among the text's markers, from 0 (what `Memcore.keepit_set` takes)."""
    @property
    def weight(self) -> float:
        """0.00 to 1.00; 1.00 pins the text."""
    @property
    def level(self) -> _KeepitLevel | None:
        """The strongest named level the weight reaches (`None` below 0.10)."""
    @property
    def content(self) -> str:
        """The marked text, trimmed: from after the tag to the next marker or the end."""
    @property
    def start(self) -> int:
        """Where the tag starts, in UTF-8 bytes."""
    @property
    def end(self) -> int:
        """Where the marked text ends (the next tag or the end), in UTF-8 bytes."""
    @property
    def start_char(self) -> int:
        """Where the tag starts, as an index into the Python str."""
    @property
    def end_char(self) -> int:
        """Where the marked text ends, as an index into the Python str."""

@final
class KeepitMarker(_KeepitMarkerFields):
    """A `##keepitX.XX##` marker: how long the text after it should survive compression."""

@final
class MarkerPreview(_KeepitMarkerFields):
    """A marker in a `KeepitPreview`, with the session distances it survives at."""

    @property
    def survives(self) -> tuple[bool, ...]:
        """Whether it survives at distance 1, 2, ... `max_distance` (index 0 is distance 1)."""
    @property
    def survives_through(self) -> int:
        """The farthest distance it survives at (0: not even one session back)."""

@final
class DistanceThreshold(Record):
    """The weight a marker needs to survive at one session distance."""

    @property
    def distance(self) -> int:
        """Sessions ago, from 1."""
    @property
    def threshold(self) -> float:
        """The weight needed to survive."""
    @property
    def surviving(self) -> int:
        """How many of the markers survive."""

@final
class KeepitPreview(Record):
    """Which keepit markers survive a compression, at each session distance."""

    @property
    def ratio(self) -> float:
        """The compression ratio (30 for 30:1)."""
    @property
    def aggressiveness(self) -> _Aggressiveness:
        """The aggressiveness used: given, or the ratio's level."""
    @property
    def max_distance(self) -> int:
        """The farthest distance previewed."""
    @property
    def thresholds(self) -> tuple[DistanceThreshold, ...]:
        """The threshold at each distance, 1 to `max_distance`."""
    @property
    def markers(self) -> tuple[MarkerPreview, ...]:
        """The markers, in text order."""

@final
class CaptureSignal(Record):
    """A phrase or marker saying a text holds something worth remembering."""

    @property
    def type(self) -> _SignalType:
        """What it signals."""
    @property
    def match(self) -> str:
        """The text the pattern matched (for a marker, the marker)."""
    @property
    def confidence(self) -> float:
        """How sure detection is, 0.0 to 1.0 (three decimals)."""
    @property
    def context(self) -> str:
        """The words around the match (a marker's: the text it marks), `...` where cut."""
    @property
    def namespace(self) -> str:
        """The namespace (collection) it suggests."""
    @property
    def start(self) -> int:
        """Where the match starts, in UTF-8 bytes."""
    @property
    def end(self) -> int:
        """Where the match ends, in UTF-8 bytes."""
    @property
    def start_char(self) -> int:
        """Where the match starts in the str: `text[s.start_char:s.end_char]`."""
    @property
    def end_char(self) -> int:
        """Where the match ends in the str."""

@final
class SimilarMemory(Record):
    """A stored memory like a capture, and how like (0.0 to 1.0)."""

    @property
    def ref(self) -> str: ...
    @property
    def similarity(self) -> float: ...

@final
class Novelty(Record):
    """How new a capture is: `1 - highest_similarity` to the stored memories of its namespace."""

    @property
    def score(self) -> float: ...
    @property
    def is_novel(self) -> bool: ...
    @property
    def highest_similarity(self) -> float: ...
    @property
    def similar(self) -> tuple[SimilarMemory, ...]:
        """The stored memories compared, most similar first."""
    @property
    def method(self) -> _NoveltyMethod:
        """`semantic` (cosine of embeddings), `text` (word overlap, no model) or `off`."""

@final
class SuggestedCapture(Record):
    """A memory a text is worth, as it would be stored."""

    @property
    def signal(self) -> int:
        """Its signal's index in `CaptureDecision.signals`."""
    @property
    def type(self) -> _SignalType: ...
    @property
    def action(self) -> _CaptureAction:
        """`auto` (stored by `apply`) or `suggest` (stored by `apply_suggested` too)."""
    @property
    def namespace(self) -> str: ...
    @property
    def summary(self) -> str:
        """One line, at most 200 characters."""
    @property
    def content(self) -> str: ...
    @property
    def tags(self) -> tuple[str, ...]: ...
    @property
    def confidence(self) -> float:
        """The signal's confidence weighed by novelty: `c * (0.5 + 0.5 * novelty)`."""
    @property
    def novelty(self) -> Novelty: ...

@final
class SkippedCapture(Record):
    """A signal that did not become a capture, and why."""

    @property
    def signal(self) -> int: ...
    @property
    def reason(self) -> str: ...
    @property
    def novelty(self) -> Novelty | None: ...

@final
class CaptureDecision(Record):
    """What `Memcore.capture` decided about a text."""

    @property
    def action(self) -> _CaptureAction:
        """The strongest action among the captures."""
    @property
    def reason(self) -> str: ...
    @property
    def signals(self) -> tuple[CaptureSignal, ...]: ...
    @property
    def captures(self) -> tuple[SuggestedCapture, ...]: ...
    @property
    def skipped(self) -> tuple[SkippedCapture, ...]: ...
    @property
    def stored(self) -> tuple[str, ...]:
        """The refs of the memories stored (with `apply`)."""
    @property
    def warnings(self) -> tuple[str, ...]: ...

@final
class Budget(Record):
    """A token budget and its split."""

    @property
    def total(self) -> int: ...
    @property
    def working(self) -> int: ...
    @property
    def semantic(self) -> int: ...
    @property
    def tier(self) -> _Tier | None: ...

@final
class ContextItem(Record):
    """A memory in a composed context."""

    @property
    def label(self) -> str:
        """`M1`, `M2`, ...: how an answer cites it."""
    @property
    def ref(self) -> str: ...
    @property
    def section(self) -> _Section: ...
    @property
    def tokens(self) -> int: ...
    @property
    def truncated(self) -> bool: ...

@final
class ManifestEntry(Record):
    """A candidate of a composition and what became of it."""

    @property
    def ref(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def section(self) -> _Section: ...
    @property
    def source(self) -> _CandidateSource: ...
    @property
    def rank(self) -> int: ...
    @property
    def score(self) -> float | None: ...
    @property
    def parts(self) -> ScoreParts | None: ...
    @property
    def outcome(self) -> _Outcome: ...
    @property
    def label(self) -> str | None: ...
    @property
    def tokens(self) -> int: ...
    @property
    def tokens_used(self) -> int: ...
    @property
    def section_left(self) -> int: ...
    @property
    def budget_left(self) -> int: ...

@final
class ComposedContext(Record):
    """What `Memcore.compose` returns: the context, what is in it, and why."""

    @property
    def text(self) -> str: ...
    @property
    def format(self) -> _ContextFormat: ...
    @property
    def tokens(self) -> int: ...
    @property
    def budget(self) -> Budget: ...
    @property
    def tokenizer(self) -> _Tokenizer: ...
    @property
    def items(self) -> tuple[ContextItem, ...]: ...
    @property
    def manifest(self) -> tuple[ManifestEntry, ...]: ...
    @property
    def composed_at(self) -> datetime: ...
    @property
    def warnings(self) -> tuple[str, ...]: ...

@final
class SkippedLine(Record):
    """A transcript line that was not read."""

    @property
    def line(self) -> int: ...
    @property
    def reason(self) -> str: ...

@final
class SessionKeepit(Record):
    """A keepit marker of a session's message."""

    @property
    def marker_id(self) -> str: ...
    @property
    def message_uuid(self) -> str: ...
    @property
    def weight(self) -> float: ...
    @property
    def content(self) -> str: ...
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def context(self) -> str: ...
    @property
    def created_at(self) -> datetime | None: ...
    @property
    def survived_in(self) -> tuple[str, ...]: ...
    @property
    def summarized_in(self) -> tuple[str, ...]: ...

@final
class KeepitStats(Record):
    """What a compression did with keepit markers."""

    @property
    def preserved(self) -> int: ...
    @property
    def summarized(self) -> int: ...
    @property
    def weights(self) -> dict[str, int]: ...

@final
class CompressionRecord(Record):
    """A compression version of a session."""

    @property
    def version_id(self) -> str: ...
    @property
    def file(self) -> str: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def settings(self) -> dict[str, Any]: ...
    @property
    def output_tokens(self) -> int: ...
    @property
    def output_messages(self) -> int: ...
    @property
    def compression_ratio(self) -> float: ...
    @property
    def keepit_stats(self) -> KeepitStats: ...
    @property
    def source_version(self) -> str | None: ...
    @property
    def tokenizer(self) -> str: ...

@final
class SessionRecord(Record):
    """A registered session."""

    @property
    def session_id(self) -> str: ...
    @property
    def original_file(self) -> str: ...
    @property
    def source_file(self) -> str: ...
    @property
    def original_sha256(self) -> str: ...
    @property
    def format(self) -> _TranscriptFormat: ...
    @property
    def tokenizer(self) -> _Tokenizer: ...
    @property
    def original_tokens(self) -> int: ...
    @property
    def original_messages(self) -> int: ...
    @property
    def skipped_lines(self) -> tuple[SkippedLine, ...]: ...
    @property
    def skipped_count(self) -> int: ...
    @property
    def first_timestamp(self) -> datetime | None: ...
    @property
    def last_timestamp(self) -> datetime | None: ...
    @property
    def registered_at(self) -> datetime: ...
    @property
    def last_accessed(self) -> datetime | None: ...
    @property
    def metadata(self) -> dict[str, Any]: ...
    @property
    def keepit_markers(self) -> tuple[SessionKeepit, ...]: ...
    @property
    def keepit_warnings(self) -> tuple[str, ...]: ...
    @property
    def compressions(self) -> tuple[CompressionRecord, ...]: ...

@final
class SessionSummary(Record):
    """A session in a listing."""

    @property
    def session_id(self) -> str: ...
    @property
    def original_tokens(self) -> int: ...
    @property
    def original_messages(self) -> int: ...
    @property
    def first_timestamp(self) -> datetime | None: ...
    @property
    def last_timestamp(self) -> datetime | None: ...
    @property
    def registered_at(self) -> datetime: ...
    @property
    def versions(self) -> tuple[str, ...]: ...
    @property
    def keepit_markers(self) -> int: ...

@final
class CompositionComponent(Record):
    """One session of a composition."""

    @property
    def session_id(self) -> str: ...
    @property
    def version_id(self) -> str: ...
    @property
    def order(self) -> int: ...
    @property
    def token_contribution(self) -> int: ...
    @property
    def token_budget(self) -> int: ...
    @property
    def selection(self) -> str: ...
    @property
    def score(self) -> float | None: ...
    @property
    def recompress(self) -> dict[str, Any] | None: ...

@final
class CompositionRecord(Record):
    """A composed context of several sessions."""

    @property
    def composition_id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def token_budget(self) -> int: ...
    @property
    def components(self) -> tuple[CompositionComponent, ...]: ...
    @property
    def output_file(self) -> str: ...
    @property
    def total_tokens(self) -> int: ...
    @property
    def total_messages(self) -> int: ...
    @property
    def used_in_sessions(self) -> tuple[str, ...]: ...
    @property
    def warnings(self) -> tuple[str, ...]: ...

@final
class VersionContent(Record):
    """A version of a session with its text (`version` is None for the original)."""

    @property
    def version(self) -> CompressionRecord | None: ...
    @property
    def content(self) -> str: ...

@final
class CompositionContext(Record):
    """A composition and the context it composed."""

    @property
    def composition(self) -> CompositionRecord: ...
    @property
    def context(self) -> str: ...

@final
class SessionListing(Record):
    """The registered sessions and compositions."""

    @property
    def sessions(self) -> tuple[SessionSummary, ...]: ...
    @property
    def compositions(self) -> tuple[CompositionRecord, ...]: ...

@final
class PruneResult(Record):
    """What `Memcore.session_prune` did."""

    @property
    def deleted(self) -> tuple[str, ...]: ...
    @property
    def kept(self) -> tuple[str, ...]: ...
    @property
    def warnings(self) -> tuple[str, ...]: ...

@final
class HotTurn(Record):
    """One turn of a live session."""

    @property
    def number(self) -> int: ...
    @property
    def role(self) -> str: ...
    @property
    def content(self) -> str: ...
    @property
    def at(self) -> datetime: ...

@final
class HotNote(Record):
    """A working note of a live session, an agent's own or (agent None) the session's."""

    @property
    def agent(self) -> str | None: ...
    @property
    def text(self) -> str: ...

@final
class HotSession(Record):
    """The hot state of a live session of a tiered store."""

    @property
    def session_id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def agents(self) -> tuple[str, ...]: ...
    @property
    def started_at(self) -> datetime: ...
    @property
    def updated_at(self) -> datetime: ...
    @property
    def turns(self) -> tuple[HotTurn, ...]:
        """The last turns, oldest first."""
    @property
    def turn_count(self) -> int: ...
    @property
    def summary(self) -> str:
        """A summary of the turns no longer in `turns`."""
    @property
    def action_items(self) -> tuple[str, ...]: ...
    @property
    def notes(self) -> tuple[HotNote, ...]: ...
    @property
    def evidence(self) -> tuple[HotEvidence, ...]:
        """What recalls in the session delivered, by label."""
    @property
    def retrievals(self) -> tuple[HotRetrieval, ...]:
        """The recalls made in the session, oldest first."""

@final
class HotEvidence(Record):
    """A source a recall delivered to a live session, under its label (`M1`, ...)."""

    @property
    def label(self) -> str: ...
    @property
    def tier(self) -> _StoreTier: ...
    @property
    def source(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def agent(self) -> str | None:
        """The agent who owns it; `None` for shared evidence."""
    @property
    def document(self) -> str | None:
        """The document it is a chunk of (labelled `Doc <n>`)."""
    @property
    def text(self) -> str:
        """The passage a retrieval appended to the session's context (empty for a recall)."""

@final
class HotRetrieval(Record):
    """One recall made in a live session: its retrieval history."""

    @property
    def at(self) -> datetime: ...
    @property
    def query(self) -> str: ...
    @property
    def agent(self) -> str | None: ...
    @property
    def labels(self) -> tuple[str, ...]: ...
    @property
    def sources(self) -> tuple[str, ...]:
        """The labels' sources, in the same order."""

@final
class RecallHit(Record):
    """One piece of evidence a recall found, labelled, with its tier and provenance."""

    @property
    def label(self) -> str: ...
    @property
    def tier(self) -> _StoreTier: ...
    @property
    def source(self) -> str:
        """A memory's `collection/id` (warm) or the archive record's id (cold)."""
    @property
    def title(self) -> str: ...
    @property
    def excerpt(self) -> str: ...
    @property
    def score(self) -> float:
        """Its score in its own tier: scores of different tiers do not compare."""
    @property
    def at(self) -> datetime: ...
    @property
    def session(self) -> str | None: ...
    @property
    def agent(self) -> str | None:
        """The agent who owns it (an agent's memory); `None` for shared evidence and turns."""
    @property
    def origins(self) -> tuple[str, ...]:
        """The originals it stands for (a digest's, a demoted memory's ref)."""
    @property
    def document(self) -> str | None:
        """The document it is a chunk of (labelled `Doc <n>`)."""

@final
class RecallResults(SequenceRecord[RecallHit]):
    """What `Memcore.recall` returns: a read-only sequence of `RecallHit`."""

    @property
    def hits(self) -> tuple[RecallHit, ...]: ...
    @property
    def mode(self) -> _Mode: ...
    @property
    def warnings(self) -> tuple[str, ...]: ...

@final
class RetrievedPassage(Record):
    """A passage a retrieval appended to a live session's context, under its label."""

    @property
    def label(self) -> str:
        """`Doc 1`, `Doc 2`, ... for a document's chunk, `M1`, ... for other evidence."""
    @property
    def query(self) -> str: ...
    @property
    def tier(self) -> _StoreTier: ...
    @property
    def source(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def document(self) -> str | None: ...
    @property
    def text(self) -> str: ...

@final
class Retrieval(SequenceRecord[RetrievedPassage]):
    """What `Memcore.retrieve` returns: a read-only sequence of `RetrievedPassage`."""

    @property
    def queries(self) -> tuple[str, ...]: ...
    @property
    def passages(self) -> tuple[RetrievedPassage, ...]: ...
    @property
    def context(self) -> str:
        """The passages as prompt context: `[Doc 1] Title (source)`, then the passage."""
    @property
    def warnings(self) -> tuple[str, ...]: ...

@final
class TimelineEntry(Record):
    """One line of the timeline: an ended session or an event."""

    @property
    def at(self) -> datetime: ...
    @property
    def kind(self) -> _TimelineKind: ...
    @property
    def session_id(self) -> str | None: ...
    @property
    def title(self) -> str: ...
    @property
    def agents(self) -> tuple[str, ...]: ...
    @property
    def duration(self) -> int | None:
        """Seconds."""
    @property
    def topics(self) -> tuple[str, ...]: ...
    @property
    def consensus(self) -> str | None: ...

@final
class SessionEndReport(Record):
    """What `Memcore.session_end` did."""

    @property
    def session(self) -> str: ...
    @property
    def turns(self) -> int: ...
    @property
    def archived(self) -> int:
        """Turns archived by this call (fewer when an interrupted end is resumed)."""
    @property
    def memories(self) -> tuple[str, ...]:
        """The warm memories written: the summary, then each agent's notes."""
    @property
    def timeline(self) -> TimelineEntry: ...

@final
class TimelineListing(SequenceRecord[TimelineEntry]):
    """What `Memcore.timeline` returns: a read-only sequence of `TimelineEntry`."""

    @property
    def entries(self) -> tuple[TimelineEntry, ...]: ...
    @property
    def unreadable(self) -> int:
        """Lines of timeline.jsonl that could not be read."""

@final
class DigestStep(Record):
    """One digest of a compaction: the memories of one collection and quarter."""

    @property
    def digest(self) -> str: ...
    @property
    def period(self) -> str: ...
    @property
    def originals(self) -> tuple[str, ...]: ...
    @property
    def folded(self) -> int: ...
    @property
    def extends(self) -> bool: ...

@final
class CompactionReport(SequenceRecord[DigestStep]):
    """What `Memcore.compact` did (or would do): a read-only sequence of `DigestStep`."""

    @property
    def dry_run(self) -> bool: ...
    @property
    def cutoff(self) -> datetime: ...
    @property
    def digests(self) -> tuple[DigestStep, ...]: ...
    @property
    def pinned(self) -> int: ...
    @property
    def demoted(self) -> int: ...

@final
class RetainReport(Record):
    """What `Memcore.retain` pinned."""

    @property
    def pinned(self) -> tuple[str, ...]: ...

@final
class AuditRecord(Record):
    """One purge, as the audit log keeps it."""

    @property
    def at(self) -> datetime: ...
    @property
    def by(self) -> str | None: ...
    @property
    def target(self) -> str:
        """`memory collection/id` or `session <id>`."""
    @property
    def reason(self) -> str: ...
    @property
    def forced(self) -> bool: ...
    @property
    def warm(self) -> tuple[str, ...]: ...
    @property
    def copies(self) -> int: ...
    @property
    def cold(self) -> int: ...
    @property
    def digests(self) -> tuple[str, ...]: ...
    @property
    def timeline(self) -> int: ...

_IngestOutcome = Literal["added", "replaced", "unchanged"]

@final
class DocumentRecord(Record):
    """A document as memcore keeps it: where it came from, what it held, its chunks."""

    @property
    def id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def source(self) -> str:
        """Its path relative to the project root."""
    @property
    def sha256(self) -> str: ...
    @property
    def bytes(self) -> int: ...
    @property
    def format(self) -> Literal["markdown", "text"]: ...
    @property
    def chunk_size(self) -> int: ...
    @property
    def overlap(self) -> int: ...
    @property
    def tags(self) -> tuple[str, ...]: ...
    @property
    def generation(self) -> str: ...
    @property
    def chunks(self) -> tuple[str, ...]:
        """The chunks' references (`docs/<id>.<generation>.<n>`), in order."""
    @property
    def ingested_at(self) -> datetime: ...

@final
class IngestedDocument(Record):
    """One document of an `IngestReport`."""

    @property
    def outcome(self) -> _IngestOutcome: ...
    @property
    def document(self) -> DocumentRecord: ...

@final
class IngestReport(SequenceRecord[IngestedDocument]):
    """What `Memcore.docs_ingest` and `docs_rebuild` return: each document, in order."""

    @property
    def documents(self) -> tuple[IngestedDocument, ...]: ...

@final
class DocumentListing(SequenceRecord[DocumentRecord]):
    """What `Memcore.docs_list` returns: the documents, sorted by id."""

    @property
    def documents(self) -> tuple[DocumentRecord, ...]: ...

@final
class DocumentHit(Record):
    """A chunk `Memcore.docs_search` found, with its place in its document."""

    @property
    def document(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def heading_path(self) -> tuple[str, ...]: ...
    @property
    def position(self) -> int: ...
    @property
    def chunks(self) -> int: ...
    @property
    def ref(self) -> str: ...
    @property
    def score(self) -> float: ...
    @property
    def text(self) -> str: ...

@final
class DocumentHits(SequenceRecord[DocumentHit]):
    """What `Memcore.docs_search` returns: a read-only sequence of `DocumentHit`."""

    @property
    def hits(self) -> tuple[DocumentHit, ...]: ...
    @property
    def mode(self) -> _Mode: ...
    @property
    def warnings(self) -> tuple[str, ...]: ...

@final
class DocumentPurged(Record):
    """What `Memcore.docs_purge` removed."""

    @property
    def document(self) -> str: ...
    @property
    def chunks(self) -> int: ...
    @property
    def feedback(self) -> int: ...
    @property
    def copies(self) -> int: ...

@final
class FeedbackRecord(Record):
    """A rating of a document or chunk, as stored."""

    @property
    def ref(self) -> str: ...
    @property
    def document(self) -> str: ...
    @property
    def chunk(self) -> int | None: ...
    @property
    def rating(self) -> int: ...
    @property
    def note(self) -> str | None: ...
    @property
    def by(self) -> str | None: ...
    @property
    def at(self) -> datetime: ...

@final
class AgentProfile(Record):
    """An agent's profile: who it is and its memory limits."""

    @property
    def agent(self) -> str: ...
    @property
    def name(self) -> str | None: ...
    @property
    def persona(self) -> str | None: ...
    @property
    def style(self) -> str | None: ...
    @property
    def recent_limit(self) -> int | None: ...
    @property
    def max_memories(self) -> int | None: ...
    @property
    def fields(self) -> dict[str, Any]: ...

@final
class AgentView(SequenceRecord[MemorySummary]):
    """What `Memcore.agent_profile` returns: the profile, then the agent's newest memories."""

    @property
    def profile(self) -> AgentProfile: ...
    @property
    def memories(self) -> tuple[MemorySummary, ...]: ...
    @property
    def total(self) -> int: ...

_SummaryMode = Literal["heuristic", "command", "none"]

@final
class ProjectPolicy(Record):
    """The policy a store follows: its project manifest over its config."""

    @property
    def backend(self) -> str: ...
    @property
    def hot_context_turns(self) -> int: ...
    @property
    def hot_summary_tokens(self) -> int: ...
    @property
    def warm_window_days(self) -> int: ...
    @property
    def archive_after_days(self) -> float: ...
    @property
    def summary_mode(self) -> _SummaryMode: ...
    @property
    def summary_command(self) -> tuple[str, ...]: ...
    @property
    def command_trusted(self) -> bool | None: ...

@final
class ProjectInfo(Record):
    """What `Memcore.project_info` shows: the manifest, the policy in force, agents, documents."""

    @property
    def project_dir(self) -> str: ...
    @property
    def manifest_path(self) -> str: ...
    @property
    def manifest(self) -> dict[str, Any] | None: ...
    @property
    def policy(self) -> ProjectPolicy: ...
    @property
    def agents(self) -> tuple[str, ...]: ...
    @property
    def documents(self) -> int: ...
    @property
    def recent_sessions(self) -> tuple[TimelineEntry, ...]: ...
    @property
    def notes(self) -> tuple[str, ...]: ...

@final
class Memcore:
    """An open memory store; thread-safe. Use as a context manager or call `close()`."""

    @property
    def path(self) -> Path:
        """The store's root directory."""
    @property
    def config_file(self) -> Path | None: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None: ...
    def __enter__(self) -> Memcore: ...
    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc_value: BaseException | None,
        traceback: TracebackType | None,
        /,
    ) -> Literal[False]: ...
    def call(
        self, operation: str, request: Mapping[str, Any] | None = None, /, **fields: Any
    ) -> Any:
        """Runs any operation by name (see `operations()`) on its request record."""
    def put(
        self,
        content: str,
        *,
        create_only: bool = False,
        commit: str | None = None,
        id: str | None = None,
        collection: str | None = None,
        title: str | None = None,
        summary: str | None = None,
        type: str | None = None,
        status: _Status | None = None,
        tags: Iterable[str] = (),
        category: str | None = None,
        context: str | None = None,
        related_to: Iterable[str] = (),
        project: str | None = None,
        priority: str | None = None,
        created_by: str | None = None,
        importance: float | None = None,
        metadata: Mapping[str, Any] | None = None,
        created_at: _Time | None = None,
        vector: _Vector | None = None,
    ) -> Memory:
        """Stores a memory (replacing one with the same id, unless `create_only`); `vector`,
        from the store's embedder, is indexed instead of embedding the memory."""
    def put_many(
        self,
        items: Iterable[str | Mapping[str, Any]],
        *,
        create_only: bool = False,
        commit: str | None = None,
    ) -> builtins.list[Memory]:
        """Stores several memories in one batch; a mapping holds a memory's fields.

        More than 4,096 items are written 4,096 at a time, each slice durable on its own
        (an error after the first slice leaves the slices before it stored; putting them
        again is safe), unless `create_only` or `commit` is given or the store is
        PostgreSQL (one transaction).
        """
    def get(
        self, id: str, *, collection: str | None = None, version: _Rev | None = None
    ) -> Memory:
        """The memory `id` (or `collection/id`), now or at `version`."""
    def get_version(self, id: str, rev: _Rev, *, collection: str | None = None) -> Memory:
        """The memory as it was at `rev` (a `Version.rev`, a git revision, or "current")."""
    def update(
        self,
        id: str,
        *,
        collection: str | None = None,
        content: str | None = None,
        title: str | None = None,
        summary: str | None = None,
        type: str | None = None,
        status: _Status | None = None,
        tags: Iterable[str] | None = None,
        merge_tags: bool = False,
        category: str | None = None,
        context: str | None = None,
        related_to: Iterable[str] | None = None,
        project: str | None = None,
        priority: str | None = None,
        importance: float | None = None,
        metadata: Mapping[str, Any] | None = None,
        expected_version: int | None = None,
    ) -> Memory:
        """Changes a memory; `None` keeps a field, `""` clears it, `None` in metadata removes a key.
        With `expected_version`, a `ConflictError` if the memory is no longer at that version."""
    def transition(self, id: str, status: _Status, *, collection: str | None = None) -> Memory:
        """Moves a memory to another lifecycle status; an invalid move is a ValidationError
        whose `recovery` names the allowed ones. Archiving compresses long content, losslessly."""
    def delete(self, id: str, *, collection: str | None = None) -> TrashEntry:
        """Moves a memory to the trash."""
    def restore(self, id: str, *, collection: str | None = None) -> Memory:
        """Brings the most recently deleted memory `id` back."""
    def restore_version(self, id: str, rev: _Rev, *, collection: str | None = None) -> Memory:
        """Writes the memory back as it was at `rev`, as a new version."""
    def list(
        self,
        *,
        collection: str | None = None,
        filters: _Filters | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> Listing:
        """Memories matching every `key=value[,value...]` filter, by collection then id."""
    def collections(self) -> builtins.list[str]: ...
    def versions(self, id: str, *, collection: str | None = None) -> builtins.list[Version]:
        """The history of a memory, oldest first, current last."""
    def diff(
        self,
        id: str,
        from_rev: _Rev,
        to_rev: _Rev = "current",
        *,
        collection: str | None = None,
    ) -> str:
        """A unified diff of the memory between two revisions; empty when they match."""
    def hydrate(
        self, id: str, level: _Level = "summary", *, collection: str | None = None
    ) -> Hydrated:
        """The memory with its note, commit ("full") and changed files ("files")."""
    def search(
        self,
        text: str,
        *,
        mode: _Mode | None = None,
        limit: int | None = None,
        collections: Iterable[str] | None = None,
        tags_any: Iterable[str] | None = None,
        tags_all: Iterable[str] | None = None,
        types: Iterable[str] | None = None,
        statuses: Iterable[_Status] | None = None,
        created_after: _Time | None = None,
        created_before: _Time | None = None,
        updated_after: _Time | None = None,
        updated_before: _Time | None = None,
        filters: _Filters | None = None,
        min_similarity: float | None = None,
        recency: Mapping[str, float | bool | None] | None = None,
        linked_to: str | None = None,
        expand_links: bool = False,
        agent: str | None = None,
        shared: bool = False,
        vector: _Vector | None = None,
    ) -> SearchResults:
        """Memories matching `text`, best first (`statuses=None`: active and resolved);
        `vector`, from the store's embedder, is searched instead of embedding `text`."""
    def recall(
        self,
        text: str,
        *,
        tier: _TierScope | None = None,
        limit: int | None = None,
        mode: _Mode | None = None,
        collections: Iterable[str] | None = None,
        agent: str | None = None,
        shared: bool = False,
        session: str | None = None,
    ) -> RecallResults:
        """Labelled evidence from the tiers, warm first (`session`: record it there)."""
    def retrieve(
        self,
        session: str,
        keywords: str | None = None,
        *,
        output: str | None = None,
        agent: str | None = None,
        limit: int | None = None,
        tier: _TierScope | None = None,
        mode: _Mode | None = None,
    ) -> Retrieval:
        """Passages into a live session's context (`keywords`, or `output`'s markers)."""
    def opened_with(self) -> builtins.list[dict[str, Any]]:
        """What opening the store did to its indexes (`kind`: rebuilt, replayed, ...)."""
    def stats(self) -> Stats:
        """Counts the memories by collection and status."""
    def reindex(self, progress: Callable[[int, int], object] | None = None) -> ReindexReport:
        """Rebuilds every index; `progress(done, total)` is called as it goes."""
    def verify(self) -> VerifyReport:
        """Compares the store with every index."""
    def repair(self) -> RepairReport:
        """Re-indexes what `verify` finds missing or stale, drops orphaned entries."""
    def sync(self) -> SyncReport:
        """Indexes changes made behind memcore's back (fetched git notes, other machines' writes
        to a PostgreSQL store)."""
    def notes_merge(self, remote: str) -> NotesMergeReport:
        """Merges the git notes another clone wrote (fetched to refs/notes/REMOTE/mem/*)."""
    def process_lifecycle(
        self,
        *,
        dry_run: bool = False,
        now: _Time | None = None,
        collections: Iterable[str] | None = None,
        archive_after_days: float | None = None,
        min_relevance: float | None = None,
        tombstone_after_days: float | None = None,
        delete_after_days: float | None = None,
        compress: bool | None = None,
    ) -> LifecycleReport:
        """Archives, tombstones and deletes memories by age and relevance (`dry_run`: only plan)."""
    def keepit_list(
        self, id: str | None = None, *, collection: str | None = None, text: str | None = None
    ) -> builtins.list[KeepitMarker]:
        """The keepit markers of the memory `id` or of `text` (exactly one), in text order."""
    def keepit_set(
        self, id: str, index: int, weight: float, *, collection: str | None = None
    ) -> Memory:
        """Sets the weight of marker `index` of a memory in place (clamped, two decimals)."""
    def keepit_preview(
        self,
        id: str | None = None,
        *,
        ratio: float,
        collection: str | None = None,
        text: str | None = None,
        aggressiveness: _Aggressiveness | None = None,
        max_distance: int = 10,
    ) -> KeepitPreview:
        """Which markers of the memory `id` or of `text` survive a compression at `ratio`:1,
        at each session distance from 1 to `max_distance`."""
    def links(self, id: str, *, collection: str | None = None) -> builtins.list[LinkEdge]:
        """The memory's `[[links]]`, in content order."""
    def backlinks(self, target: str) -> builtins.list[LinkEdge]:
        """Every link into a memory, a ghost node (`ghost:x`) or a target as links write it."""
    def append(self, id: str, text: str, *, collection: str | None = None) -> Memory:
        """Adds `text` to the end of the memory (a new version)."""
    def merge(self, refs: Iterable[str], *, into: str, summary: str | None = None) -> MergeResult:
        """Merges memories into a new one; sources to the trash, links re-pointed."""
    def capture(
        self,
        text: str,
        *,
        namespace: str | None = None,
        summary: str | None = None,
        tags: Iterable[str] = (),
        created_by: str | None = None,
        check_novelty: bool = True,
        apply: bool = False,
        apply_suggested: bool = False,
    ) -> CaptureDecision:
        """Decides what in `text` is worth remembering (markers, else signal phrases), checks
        it is new, and with `apply` stores the `auto` captures (`apply_suggested`: the
        suggested ones too)."""
    def compose(
        self,
        query: str = "",
        *,
        budget: int | None = None,
        tier: _Tier | None = None,
        mode: _BudgetMode = "adaptive",
        format: _ContextFormat = "xml",
        tokenizer: _Tokenizer = "estimate",
        blocker_collections: Iterable[str] = (),
        decision_collections: Iterable[str] = (),
        recent_decisions: int | None = None,
        no_working_memory: bool = False,
        collections: Iterable[str] = (),
        search_mode: _Mode = "hybrid",
        candidates: int | None = None,
    ) -> ComposedContext:
        """The context for a prompt within a token budget, with its manifest."""
    def session_add(
        self,
        path: _StrPath,
        *,
        session_id: str | None = None,
        format: _TranscriptFormat = "auto",
        tokenizer: _Tokenizer = "estimate",
        replace: bool = False,
        composed_from: Iterable[str] = (),
    ) -> SessionRecord:
        """Registers a conversation transcript as a session."""
    def session_list(self) -> SessionListing:
        """The registered sessions and compositions."""
    def session_show(self, session: str) -> SessionRecord:
        """A session with its keepit markers and versions."""
    def session_compress(
        self,
        session: str,
        *,
        summarizer: _Summarizer | None = None,
        settings: Mapping[str, Any] | None = None,
        from_version: str | None = None,
    ) -> CompressionRecord:
        """Compresses a session into a new version."""
    def session_compose(
        self,
        name: str,
        components: str | Iterable[str | Mapping[str, Any]],
        *,
        budget: int,
        summarizer: _Summarizer | None = None,
        output: _CompositionOutput = "both",
        replace: bool = False,
    ) -> CompositionRecord:
        """Composes sessions (newest first) into one context within `budget` tokens."""
    def session_prune(
        self,
        session: str,
        *,
        versions: Iterable[str] = (),
        keep_latest: int | None = None,
        force: bool = False,
    ) -> PruneResult:
        """Deletes versions of a session (refusing, unless forced, ones compositions use)."""
    def session_version(self, session: str, version: str) -> VersionContent:
        """A version of a session with its text (`original`: the transcript)."""
    def composition_show(self, name: str) -> CompositionContext:
        """A composition with the context it composed."""
    def composition_delete(self, name: str) -> CompositionRecord:
        """Deletes a composition (its record and files); returns its record."""
    def session_start(
        self, session: str, *, title: str | None = None, agents: Iterable[str] = ()
    ) -> HotSession:
        """Starts a live session (tiered stores)."""
    def session_turn(self, session: str, role: str, content: str) -> HotSession:
        """Adds a turn to a live session."""
    def session_note(
        self, session: str, text: str, *, kind: _NoteKind = "note", agent: str | None = None
    ) -> HotSession:
        """Adds a working note or an open action item to a live session."""
    def session_live(self, session: str) -> HotSession:
        """A live session's hot state."""
    def session_end(
        self, session: str, *, topics: Iterable[str] = (), consensus: str | None = None
    ) -> SessionEndReport:
        """Ends a live session: transcript to cold, summary to warm, entry on the timeline."""
    def timeline(
        self,
        *,
        agent: str | None = None,
        since: datetime | str | None = None,
        until: datetime | str | None = None,
    ) -> TimelineListing:
        """The timeline of ended sessions and events, oldest first."""
    def compact(
        self, *, dry_run: bool = False, now: datetime | str | None = None
    ) -> CompactionReport:
        """Compacts a tiered store's warm tier into digests and the cold tier."""
    def retain(
        self, id: str | None = None, *, collection: str | None = None, session: str | None = None
    ) -> RetainReport:
        """Pins a memory, or an ended session's summary and notes."""
    def purge(
        self,
        id: str | None = None,
        *,
        reason: str,
        collection: str | None = None,
        session: str | None = None,
        by: str | None = None,
        force: bool = False,
    ) -> AuditRecord:
        """Purges a memory or a session from every tier, with an audit record."""
    def docs_ingest(
        self,
        paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
        *,
        root: str | os.PathLike[str] | None = None,
        tags: Iterable[str] | None = None,
        chunk_size: int | None = None,
        overlap: int | None = None,
        max_bytes: int | None = None,
    ) -> IngestReport:
        """Ingests markdown or text files as chunked, indexed documents."""
    def docs_list(self, *, tags: Iterable[str] | None = None) -> DocumentListing:
        """The ingested documents, sorted by id."""
    def docs_search(
        self,
        text: str,
        *,
        limit: int | None = None,
        mode: _Mode | None = None,
        documents: Iterable[str] | None = None,
        tags: Iterable[str] | None = None,
        feedback_prior: bool = False,
    ) -> DocumentHits:
        """Searches the documents' chunks; hits carry document, heading path and position."""
    def docs_purge(self, document: str) -> DocumentPurged:
        """Removes a document for good: record, chunks, feedback and index entries."""
    def docs_rebuild(
        self,
        documents: Iterable[str] | None = None,
        *,
        chunk_size: int | None = None,
        overlap: int | None = None,
    ) -> IngestReport:
        """Splits documents again from their files (all by default)."""
    def docs_feedback(
        self,
        document: str,
        rating: int,
        *,
        chunk: int | None = None,
        note: str | None = None,
        by: str | None = None,
    ) -> FeedbackRecord:
        """Rates how useful a document or one of its chunks was (1 to 5), append-only."""
    def agent_set(
        self,
        agent: str,
        *,
        name: str | None = None,
        persona: str | None = None,
        style: str | None = None,
        recent_limit: int | None = None,
        max_memories: int | None = None,
        fields: Mapping[str, Any] | None = None,
    ) -> AgentProfile:
        """Sets an agent's profile (the whole profile)."""
    def agent_profile(self, agent: str, *, limit: int | None = None) -> AgentView:
        """An agent's profile with its newest memories."""
    def agent_remember(
        self,
        agent: str,
        content: str,
        *,
        title: str | None = None,
        collection: str | None = None,
        tags: Iterable[str] | None = None,
    ) -> Memory:
        """Stores a memory of the agent's own."""
    def project_init(
        self,
        *,
        project_id: str | None = None,
        display_name: str | None = None,
        description: str | None = None,
        default_agents: Iterable[str] | None = None,
        hot_context_turns: int | None = None,
        warm_window_days: int | None = None,
        archive_after_days: int | None = None,
        summary_mode: _SummaryMode | None = None,
        summary_command: Iterable[str] | None = None,
        summary_timeout_ms: int | None = None,
    ) -> ProjectInfo:
        """Writes the project's manifest (project.json in the store)."""
    def project_info(self) -> ProjectInfo:
        """The project: manifest, policy in force, agents, documents, newest sessions."""
    def project_trust(self) -> ProjectInfo:
        """Trusts the manifest's summary command on this machine."""
    def set_summarizer(
        self, summarizer: Callable[[dict[str, Any]], str] | None, *, name: str | None = None
    ) -> None:
        """Sets the summariser compressions use by default (None: the extractive one)."""

def open(
    path: _StrPath | None = None,
    *,
    scope: _Scope = "auto",
    start_dir: _StrPath | None = None,
    backend: _Backend | None = None,
    embedder: _Embedder | None = None,
) -> Memcore:
    """Opens (creating if needed) the store at `path`, or the one `scope` finds; `embedder`
    brings a model of your own for semantic search."""

def operations() -> builtins.list[dict[str, Any]]:
    """Every operation `Memcore.call` runs: name, summary, access (`reads` or `writes`),
    request and result JSON Schemas."""

def _cli_main(argv: builtins.list[str]) -> int:
    """Runs the ``memcore`` command line ``argv`` (program name first); ``memcore.__main__``."""
    ...

def _panic_for_tests(message: str) -> None:
    """Test hook: panics inside the native call boundary, which raises MemcoreError."""
