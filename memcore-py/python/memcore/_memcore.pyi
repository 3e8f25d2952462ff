# Hand-written stubs of the native module memcore._memcore (memcore-py/src/*.rs).
# `scripts/test-python` checks them against the built module with mypy's stubtest.
import builtins
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar, Literal, SupportsIndex, final, overload

_Status = Literal["active", "resolved", "archived", "tombstone"]
_Format = Literal["context", "json", "raw"]
_Scope = Literal["auto", "local", "global"]
_Mode = Literal["hybrid", "semantic", "text"]
_StrPath = str | os.PathLike[str]
_Filters = str | Iterable[str] | Mapping[str, str | Iterable[str]]

__all__ = [
    "__version__",
    "MemcoreError",
    "NotFoundError",
    "ValidationError",
    "ConflictError",
    "StorageError",
    "CorruptedError",
    "MemcoreIndexError",
    "EmbeddingError",
    "UnsupportedError",
    "Memory",
    "MemorySummary",
    "Version",
    "TrashEntry",
    "Listing",
    "ListingIterator",
    "SearchResults",
    "Hit",
    "ScoreParts",
    "VerifyReport",
    "IndexDiff",
    "RepairReport",
    "Memcore",
    "open",
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

class ConflictError(MemcoreError):
    """The memory exists, the id is ambiguous, or another writer held the lock too long."""

class StorageError(MemcoreError):
    """Reading or writing the store failed at the operating-system level."""

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

# Results: immutable; compare equal by value.

@final
class Memory:
    """One memory: markdown content plus its metadata."""

    @property
    def id(self) -> str: ...
    @property
    def collection(self) -> str: ...
    @property
    def ref(self) -> str:
        """`collection/id`: finds exactly this memory."""
    @property
    def title(self) -> str: ...
    @property
    def summary(self) -> str | None: ...
    @property
    def type(self) -> str | None: ...
    @property
    def status(self) -> _Status: ...
    @property
    def tags(self) -> tuple[str, ...]: ...
    @property
    def category(self) -> str | None: ...
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
    def created_at(self) -> datetime: ...
    @property
    def updated_at(self) -> datetime: ...
    @property
    def importance(self) -> float | None: ...
    @property
    def version(self) -> int: ...
    @property
    def metadata(self) -> dict[str, Any]:
        """Frontmatter keys memcore does not interpret (a new dict on every access)."""
    @property
    def content(self) -> str: ...
    def render(self, format: _Format = "context") -> str:
        """`context`: a block for a prompt; `json`: one JSON object; `raw`: the content."""
    def to_dict(self) -> dict[str, Any]: ...
    def __eq__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class MemorySummary:
    """The listing form of a memory; fetch the whole memory with `Memcore.get(s.ref)`."""

    @property
    def id(self) -> str: ...
    @property
    def collection(self) -> str: ...
    @property
    def ref(self) -> str: ...
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
    def to_dict(self) -> dict[str, Any]: ...
    def __eq__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Version:
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
    def to_dict(self) -> dict[str, Any]: ...
    def __eq__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class TrashEntry:
    """A memory moved to the trash; `Memcore.restore(entry.ref)` brings it back."""

    @property
    def id(self) -> str: ...
    @property
    def collection(self) -> str: ...
    @property
    def ref(self) -> str: ...
    @property
    def deleted_at(self) -> datetime: ...
    @property
    def path(self) -> Path: ...
    def to_dict(self) -> dict[str, Any]: ...
    def __eq__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Listing:
    """What `Memcore.list` returns: a read-only sequence of `MemorySummary`."""

    @property
    def skipped(self) -> tuple[MemcoreError, ...]:
        """One error per memory file that could not be read."""
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: SupportsIndex, /) -> MemorySummary: ...
    @overload
    def __getitem__(self, index: slice, /) -> list[MemorySummary]: ...
    def __iter__(self) -> ListingIterator: ...

@final
class ListingIterator(Iterator[MemorySummary]):
    def __iter__(self) -> ListingIterator: ...
    def __next__(self) -> MemorySummary: ...

@final
class ScoreParts:
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
    def to_dict(self) -> dict[str, Any]: ...
    def __eq__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class Hit:
    """One search result; fetch the whole memory with `Memcore.get(hit.memory.ref)`."""

    @property
    def memory(self) -> MemorySummary: ...
    @property
    def score(self) -> float:
        """`parts.base * parts.recency`; higher is better."""
    @property
    def parts(self) -> ScoreParts: ...
    def to_dict(self) -> dict[str, Any]: ...
    def __eq__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class SearchResults:
    """What `Memcore.search` returns: a read-only sequence of `Hit`, best first."""

    @property
    def mode(self) -> _Mode:
        """The mode actually used (semantic and hybrid fall back to text without the model)."""
    @property
    def warnings(self) -> tuple[str, ...]: ...
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: SupportsIndex, /) -> Hit: ...
    @overload
    def __getitem__(self, index: slice, /) -> list[Hit]: ...
    def __iter__(self) -> Iterator[Hit]: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class IndexDiff:
    """How one index differs from the store, as sorted `collection/id` keys."""

    @property
    def missing(self) -> tuple[str, ...]:
        """In the store, not in the index."""
    @property
    def orphaned(self) -> tuple[str, ...]:
        """In the index, not in the store."""
    @property
    def mismatched(self) -> tuple[str, ...]:
        """In both, but the index holds another version."""
    def is_clean(self) -> bool: ...
    def to_dict(self) -> dict[str, list[str]]: ...
    def __eq__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

@final
class VerifyReport:
    """What `Memcore.verify` found."""

    @property
    def store_count(self) -> int: ...
    @property
    def text(self) -> IndexDiff: ...
    @property
    def vectors(self) -> IndexDiff | None:
        """`None` when semantic search is unavailable; `vectors_unavailable` says why."""
    @property
    def vectors_unavailable(self) -> str | None: ...
    @property
    def unreadable(self) -> tuple[MemcoreError, ...]:
        """One error (usually `CorruptedError`) per store file that could not be read."""
    def is_consistent(self) -> bool: ...
    def to_dict(self) -> dict[str, Any]: ...

@final
class RepairReport:
    """What `Memcore.repair` did."""

    @property
    def reindexed(self) -> int: ...
    @property
    def removed(self) -> int: ...
    def to_dict(self) -> dict[str, int]: ...
    def __eq__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

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
    def put(
        self,
        content: str,
        *,
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
        created_at: datetime | None = None,
        create_only: bool = False,
    ) -> Memory:
        """Stores a memory (replacing one with the same id, unless `create_only`)."""
    def put_many(self, items: Iterable[str | Mapping[str, Any]]) -> builtins.list[Memory]:
        """Stores several memories in one batch; a mapping takes `put`'s keyword arguments."""
    def get(self, id: str, *, collection: str | None = None) -> Memory:
        """The memory `id` (or `collection/id`)."""
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
    ) -> Memory:
        """Changes a memory; `None` keeps a field, `""` clears it, `None` in metadata removes a key."""
    def delete(self, id: str, *, collection: str | None = None) -> TrashEntry:
        """Moves a memory to the trash."""
    def restore(self, id: str, *, collection: str | None = None) -> Memory:
        """Brings the most recently deleted memory `id` back."""
    def list(
        self,
        *,
        collection: str | None = None,
        filters: _Filters = (),
        limit: int | None = None,
        offset: int = 0,
    ) -> Listing:
        """Memories matching every `key=value[,value...]` filter, by collection then id."""
    def collections(self) -> builtins.list[str]: ...
    def versions(self, id: str, *, collection: str | None = None) -> builtins.list[Version]:
        """The history of a memory, oldest first, current last."""
    def get_version(
        self, id: str, rev: str | int, *, collection: str | None = None
    ) -> Memory:
        """The memory as it was at `rev` (a `Version.rev`)."""
    def search(
        self,
        text: str,
        *,
        mode: _Mode = "hybrid",
        limit: int = 10,
        collections: Iterable[str] = (),
        tags_any: Iterable[str] = (),
        tags_all: Iterable[str] = (),
        types: Iterable[str] = (),
        statuses: Iterable[_Status] | None = None,
        created_after: datetime | None = None,
        created_before: datetime | None = None,
        updated_after: datetime | None = None,
        updated_before: datetime | None = None,
        filters: _Filters = (),
        min_similarity: float | None = None,
        recency_half_life_days: float = 30.0,
        recency_weight: float = 0.0,
    ) -> SearchResults:
        """Memories matching `text`, best first (`statuses=None`: active and resolved)."""
    def reindex(self, progress: Callable[[int, int], object] | None = None) -> int:
        """Rebuilds every index; `progress(done, total)` is called as it goes."""
    def verify(self) -> VerifyReport:
        """Compares the store with every index."""
    def repair(self) -> RepairReport:
        """Re-indexes what `verify` finds missing or stale, drops orphaned entries."""

def open(
    path: _StrPath | None = None,
    *,
    scope: _Scope = "auto",
    start_dir: _StrPath | None = None,
) -> Memcore:
    """Opens (creating if needed) the store at `path`, or the one `scope` finds."""

def _panic_for_tests(message: str) -> None:
    """Test hook: panics inside the native call boundary, which raises MemcoreError."""
