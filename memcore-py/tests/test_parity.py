"""The parity suite, Python side: every case of `tests/parity/cases.tsv` through the
`Memcore` methods (keyword arguments mapped onto the core's request records), judged by
`tests/parity/compare.py` against the same expected results as the Rust and C runs.

The methods, not `Memcore.call`, run the cases: the point is that a field of a request record
is reachable as a keyword argument and comes back in the result record's `to_dict()`.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import shutil
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import memcore

PARITY = Path(__file__).resolve().parents[2] / "tests" / "parity"


def _judge() -> ModuleType:
    """`tests/parity/compare.py`, which the C run uses too."""
    spec = importlib.util.spec_from_file_location("parity_compare", PARITY / "compare.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _plain(value: Any) -> Any:
    """A result as JSON sees it: records as dicts, tuples as lists, times as RFC 3339."""
    if isinstance(value, memcore.Record):
        return _plain(value.to_dict())
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _put(store: memcore.Memcore, request: dict[str, Any]) -> Any:
    create_only = request.get("mode") == "create_only"
    commit = request.get("commit")
    memories = request["memories"]
    if len(memories) == 1:
        memory = dict(memories[0])
        content = memory.pop("content")
        stored = store.put(content, create_only=create_only, commit=commit, **memory)
        return {"memories": [stored]}
    return {"memories": store.put_many(memories, create_only=create_only, commit=commit)}


def _keepit(method: Callable[..., Any]) -> Callable[[memcore.Memcore, dict[str, Any]], Any]:
    """A runner for the keepit methods: the optional memory first, the other fields as
    keyword arguments."""

    def run(store: memcore.Memcore, request: dict[str, Any]) -> Any:
        fields = dict(request)
        return method(store, fields.pop("ref", None), **fields)

    return run


def _restore(store: memcore.Memcore, request: dict[str, Any]) -> Any:
    if "version" in request:
        return store.restore_version(request["ref"], request["version"])
    return store.restore(request["ref"])


#: How each operation runs through its method.
RUNNERS: dict[str, Callable[[memcore.Memcore, dict[str, Any]], Any]] = {
    "put": _put,
    "get": lambda s, r: s.get(r["ref"], version=r.get("version")),
    "update": lambda s, r: s.update(r["ref"], **r["change"]),
    "delete": lambda s, r: s.delete(r["ref"]),
    "restore": _restore,
    "search": lambda s, r: s.search(**r),
    "recall": lambda s, r: s.recall(**r),
    "retrieve": lambda s, r: s.retrieve(**r),
    "list": lambda s, r: s.list(**r),
    "collections": lambda s, r: {"collections": s.collections()},
    "versions": lambda s, r: {"versions": s.versions(r["ref"])},
    "diff": lambda s, r: {"diff": s.diff(r["ref"], r["from"], r.get("to", "current"))},
    "hydrate": lambda s, r: s.hydrate(r["ref"], r.get("level", "summary")),
    "stats": lambda s, r: s.stats(),
    "verify": lambda s, r: s.verify(),
    "repair": lambda s, r: s.repair(),
    "reindex": lambda s, r: s.reindex(),
    "opened": lambda s, r: {"maintenance": s.opened_with()},
    "sync": lambda s, r: s.sync(),
    "notes_merge": lambda s, r: s.notes_merge(r["remote"]),
    "transition": lambda s, r: s.transition(r["ref"], r["status"]),
    "lifecycle": lambda s, r: s.process_lifecycle(**r),
    "keepit_list": lambda s, r: {"markers": _keepit(memcore.Memcore.keepit_list)(s, r)},
    "keepit_set": lambda s, r: s.keepit_set(r["ref"], r["index"], r["weight"]),
    "keepit_preview": _keepit(memcore.Memcore.keepit_preview),
    "capture": lambda s, r: s.capture(**r),
    "links": lambda s, r: {"links": s.links(r["ref"])},
    "backlinks": lambda s, r: {"links": s.backlinks(r["target"])},
    "append": lambda s, r: s.append(r["ref"], r["text"]),
    "merge": lambda s, r: s.merge(r["refs"], into=r["into"], summary=r.get("summary")),
    "compose": lambda s, r: s.compose(**r),
    # Paths in cases are relative to the repository (where the Rust and C runs start).
    "session_add": lambda s, r: s.session_add(**{**r, "path": PARITY.parents[1] / r["path"]}),
    "session_list": lambda s, r: s.session_list(),
    "session_show": lambda s, r: s.session_show(r["session"]),
    "session_compress": lambda s, r: s.session_compress(**r),
    "session_compose": lambda s, r: s.session_compose(**r),
    "session_prune": lambda s, r: s.session_prune(**r),
    "session_version": lambda s, r: s.session_version(r["session"], r["version"]),
    "composition_show": lambda s, r: s.composition_show(r["name"]),
    "composition_delete": lambda s, r: s.composition_delete(r["name"]),
    "session_start": lambda s, r: s.session_start(**r),
    "session_turn": lambda s, r: s.session_turn(**r),
    "session_note": lambda s, r: s.session_note(**r),
    "session_live": lambda s, r: s.session_live(**r),
    "session_end": lambda s, r: s.session_end(**r),
    "timeline": lambda s, r: s.timeline(**r),
    "compact": lambda s, r: s.compact(**r),
    "retain": lambda s, r: s.retain(r.get("ref"), session=r.get("session")),
    "purge": lambda s, r: s.purge(r.get("ref"), **{k: v for k, v in r.items() if k != "ref"}),
    "docs_ingest": lambda s, r: s.docs_ingest(**r),
    "docs_list": lambda s, r: s.docs_list(**r),
    "docs_search": lambda s, r: s.docs_search(**r),
    "docs_purge": lambda s, r: s.docs_purge(r["document"]),
    "docs_rebuild": lambda s, r: s.docs_rebuild(**r),
    "docs_feedback": lambda s, r: s.docs_feedback(**r),
    "agent_set": lambda s, r: s.agent_set(**r),
    "agent_profile": lambda s, r: s.agent_profile(**r),
    "agent_remember": lambda s, r: s.agent_remember(**r),
    "project_init": lambda s, r: s.project_init(**r),
    "project_info": lambda s, r: s.project_info(),
    "project_trust": lambda s, r: s.project_trust(),
}


def test_the_methods_give_the_results_every_binding_gives(tmp_path: Path) -> None:
    judge = _judge()
    outcomes = []
    (tmp_path / "store").mkdir()
    shutil.copy(PARITY / "store.yaml", tmp_path / "store" / "config.yaml")
    # The documents the cases ingest, in the store's project root (the directory holding it).
    shutil.copytree(PARITY / "docs", tmp_path / "docs")
    with memcore.open(tmp_path / "store") as store:
        for operation, request, _ignore in judge.cases():
            try:
                result = RUNNERS[operation](store, request)
            except memcore.MemcoreError as err:
                outcomes.append({"error": err.category})
            else:
                outcomes.append({"result": _plain(result)})
    problems = judge.judge(outcomes)
    assert not problems, "\n".join(problems)


def test_every_operation_has_a_runner() -> None:
    """A new operation needs a method (and a runner here) before the suite passes."""
    assert {op["name"] for op in memcore.operations()} == set(RUNNERS)
