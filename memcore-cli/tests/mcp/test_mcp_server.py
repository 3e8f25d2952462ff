"""`memcore mcp` end to end through the official MCP Python SDK (`mcp` from PyPI).

Each test spawns the real `memcore` binary (`MEMCORE_CLI`, set by scripts/test-python) on a
fresh store in a temporary directory, as an MCP client would, and talks to it over stdio:
the handshake, `tools/list` and `tools/call` of every tool, the tool errors of bad calls, and
a client that goes away in the middle of one. The client checks each structured result
against the tool's output schema, so a schema that lies fails here.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

CLI = os.environ.get("MEMCORE_CLI", "")
ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.skipif(not CLI, reason="MEMCORE_CLI names the memcore binary")

# The agent's default tool set (`memcore mcp` without --tools).
AGENT_TOOLS = [
    "put", "get", "update", "delete", "restore", "search", "list", "transition", "lifecycle",
    "capture", "links", "backlinks", "append", "merge", "compose", "stats", "recall", "retrieve", "docs_search",
]


def server_env(**overrides: str) -> dict[str, str]:
    """The variables memcore reads (the model's location); the SDK passes few others on."""
    env = {k: v for k, v in os.environ.items() if k.startswith(("MEMCORE_", "ORT_"))}
    return {**env, **overrides}


@asynccontextmanager
async def connected(
    store: Path, *extra: str, env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    """A client session with `memcore --store STORE mcp EXTRA...` started in the repository
    (where the parity cases' paths are relative to), initialised."""
    params = StdioServerParameters(
        command=CLI, args=["--store", str(store), "mcp", *extra], env=env or server_env(),
        cwd=ROOT,
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def run(test: Callable[[], Awaitable[None]]) -> None:
    """Runs the coroutine function `test`, failing it after two minutes instead of hanging."""
    asyncio.run(asyncio.wait_for(test(), timeout=120))


# Operations the server never offers as tools (trusting a program is the user's decision).
USER_ONLY = {"project_trust"}


def parity_judge() -> ModuleType:
    """`tests/parity/compare.py`, the judge of the Rust, C and Python parity runs."""
    spec = importlib.util.spec_from_file_location("parity_compare", ROOT / "tests/parity/compare.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def call(session: ClientSession, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The structured result of a successful call."""
    result = await session.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    text = result.content[0]
    assert text.type == "text" and json.loads(text.text) == result.structured_content
    return result.structured_content


async def error_of(session: ClientSession, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The error record of a call that fails as a tool error: a text for the model, then the
    record as JSON text (no structured content, which is for results)."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error and result.structured_content is None, result
    readable, record = result.content
    assert readable.type == "text" and record.type == "text"
    error: dict[str, Any] = json.loads(record.text)["error"]
    assert readable.text.startswith(f"[{error['category']}] {error['message']}"), readable
    assert readable.text.endswith(f"\nhint: {error['recovery']}") and error["recovery"], error
    return error


def test_handshake_and_the_agent_tools(tmp_path: Path) -> None:
    async def test() -> None:
        async with connected(tmp_path) as session:
            init = await session.initialize()  # the handshake's answer, kept by the session
            assert init.server_info.name == "memcore"
            assert init.protocol_version == "2025-11-25"
            assert init.instructions and "Tools: put, get, update" in init.instructions
            listed = await session.list_tools()
        tools = {tool.name: tool for tool in listed.tools}
        assert sorted(tools) == sorted(AGENT_TOOLS)
        for tool in tools.values():
            assert tool.description, tool.name
            assert tool.input_schema["type"] == "object", tool.name
            assert tool.output_schema and tool.output_schema["type"] == "object", tool.name
            assert tool.annotations and tool.annotations.open_world_hint is False
        assert tools["search"].input_schema["required"] == ["text"]
        assert tools["search"].annotations and tools["search"].annotations.read_only_hint
        assert tools["put"].annotations and tools["put"].annotations.read_only_hint is False

    run(test)


def test_all_tools_are_every_operation(tmp_path: Path) -> None:
    """`--tools all` offers every operation but the user's own."""
    listed = subprocess.run(
        [CLI, "operations", "--json"], check=True, capture_output=True, text=True
    )
    operations = [op["name"] for op in json.loads(listed.stdout)["operations"]]
    operations = [name for name in operations if name not in USER_ONLY]

    async def test() -> None:
        async with connected(tmp_path, "--tools", "all") as session:
            tools = [tool.name for tool in (await session.list_tools()).tools]
            assert tools == operations
        async with connected(tmp_path, "--tools", "search,stats") as session:
            tools = [tool.name for tool in (await session.list_tools()).tools]
            assert tools == ["search", "stats"]
            instructions = (await session.initialize()).instructions
            assert instructions and instructions.endswith("Tools: search, stats.")
            with pytest.raises(MCPError, match="offers: search, stats; start the server with `--tools all`"):
                await session.call_tool("put", {"memories": []})

    run(test)


def test_seed_tools_create_read_update_append_search_linked_stats_merge_delete(
    tmp_path: Path,
) -> None:
    async def test() -> None:
        async with connected(tmp_path) as session:
            # create: `put` with create_only refuses an existing id.
            made = await call(session, "put", {"mode": "create_only", "memories": [
                {"id": "gpu", "content": "Prefer Metal over CUDA on the build Macs.",
                 "type": "preference", "tags": ["build"]},
                {"id": "ci", "content": "CI runs on the Macs; see [[gpu]] for the backend.",
                 "type": "decision"},
            ]})
            assert [m["ref"] for m in made["memories"]] == ["memory/gpu", "memory/ci"]
            conflict = await error_of(session, "put", {"mode": "create_only", "memories": [
                {"id": "gpu", "content": "again"}]})
            assert conflict["category"] == "CONFLICT"

            read = await call(session, "get", {"ref": "gpu"})
            assert read["content"].startswith("Prefer Metal")
            updated = await call(session, "update", {"ref": "gpu", "change": {"tags": ["build", "gpu"]}})
            assert updated["tags"] == ["build", "gpu"] and updated["version"] == 2
            appended = await call(session, "append", {"ref": "gpu", "text": "Checked in March."})
            assert appended["content"].rstrip().endswith("Checked in March.")

            found = await call(session, "search", {"text": "metal cuda", "mode": "text"})
            assert found["hits"][0]["memory"]["ref"] == "memory/gpu"
            semantic = await call(session, "search", {"text": "which graphics API do we use"})
            assert "memory/gpu" in [hit["memory"]["ref"] for hit in semantic["hits"]]
            linked = await call(session, "search", {"text": "macs", "mode": "text", "linked_to": "gpu"})
            assert [hit["memory"]["ref"] for hit in linked["hits"]] == ["memory/ci"]
            recalled = await call(session, "recall", {"text": "metal cuda", "mode": "text"})
            assert [(h["label"], h["tier"], h["source"]) for h in recalled["hits"]] == [
                ("M1", "warm", "memory/gpu")]
            back = await call(session, "backlinks", {"target": "gpu"})
            assert [link["source"] for link in back["links"]] == ["memory/ci"]
            links = await call(session, "links", {"ref": "ci"})
            assert links["links"][0]["anchor"]

            stats = await call(session, "stats", {})
            assert stats["memories"] == 2

            merged = await call(session, "merge", {"refs": ["gpu", "ci"], "into": "macs",
                                                   "summary": "The build Macs"})
            assert merged["memory"]["ref"] == "memory/macs"
            assert (await call(session, "stats", {}))["memories"] == 1

            await call(session, "delete", {"ref": "macs"})
            assert (await error_of(session, "get", {"ref": "macs"}))["category"] == "NOT_FOUND"
            await call(session, "restore", {"ref": "memory/macs"})
            listed = await call(session, "list", {})
            assert [m["ref"] for m in listed["memories"]] == ["memory/macs"]

    run(test)


def test_capture_compose_and_the_lifecycle(tmp_path: Path) -> None:
    async def test() -> None:
        async with connected(tmp_path) as session:
            decided = await call(session, "capture", {
                "text": "We decided to use PostgreSQL for the event store because it scales."})
            assert decided["action"] in {"store", "suggest"}, decided
            await call(session, "put", {"memories": [
                {"id": "db", "content": "The event store is PostgreSQL 16.", "type": "decision"}]})
            context = await call(session, "compose", {"query": "which database", "budget": 400})
            assert "PostgreSQL" in context["text"] and context["manifest"]
            moved = await call(session, "transition", {"ref": "db", "status": "archived"})
            assert moved["status"] == "archived"
            report = await call(session, "lifecycle", {"dry_run": True})
            assert isinstance(report, dict)

    run(test)


def test_bad_calls_are_tool_errors_with_a_recovery_hint(tmp_path: Path) -> None:
    async def test() -> None:
        async with connected(tmp_path) as session:
            typo = await error_of(session, "search", {"text": "x", "limmit": 3})
            assert typo["category"] == "VALIDATION" and "limmit" in typo["message"]
            missing = await error_of(session, "search", {})
            assert missing["category"] == "VALIDATION" and "text" in missing["message"]
            wrong = await error_of(session, "search", {"text": "x", "limit": "ten"})
            assert wrong["category"] == "VALIDATION"
            bad = await error_of(session, "put", {"memories": [{"id": "../x", "content": "c"}]})
            assert bad["category"] == "VALIDATION"
            gone = await error_of(session, "delete", {"ref": "nothing"})
            assert gone["category"] == "NOT_FOUND"
            with pytest.raises(MCPError, match="unknown tool \"nonsense\""):
                await session.call_tool("nonsense", {})
            # The session is still usable after every failure.
            assert (await call(session, "stats", {}))["memories"] == 0

    run(test)


def test_a_client_that_goes_away_mid_call_leaves_a_whole_store(tmp_path: Path) -> None:
    """The raw protocol: initialise, start a large write, close stdin at once. The server
    exits by itself (no hang) and the write is either whole or absent."""
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "put", "arguments": {
            "memories": [{"id": f"m{i}", "content": f"memory number {i} " * 20} for i in range(200)]}}},
    ]
    stdin = "".join(json.dumps(m) + "\n" for m in messages)
    done = subprocess.run(
        [CLI, "--store", str(tmp_path), "mcp"], input=stdin, capture_output=True, text=True,
        env={**os.environ}, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    stats = subprocess.run(
        [CLI, "--store", str(tmp_path), "--json", "stats"], check=True, capture_output=True,
        text=True,
    )
    # Closing stdin does not cut a call short: the server finishes it, then exits.
    assert json.loads(stats.stdout)["memories"] == 200
    verified = subprocess.run(
        [CLI, "--store", str(tmp_path), "--json", "verify"], capture_output=True, text=True
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_garbage_on_stdin_is_refused_not_a_crash(tmp_path: Path) -> None:
    done = subprocess.run(
        [CLI, "--store", str(tmp_path), "mcp"], input="this is not json\n{\"jsonrpc\": \n",
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "did not complete the handshake" in done.stderr and "panicked" not in done.stderr
    assert done.stdout == "", "nothing but the protocol on stdout"


def test_every_operation_through_mcp_gives_what_every_binding_gives(tmp_path: Path) -> None:
    """The parity suite (tests/parity/cases.tsv) through `--tools all`: every operation's
    result, checked by the client against the tool's output schema, then judged against
    the results the Rust, C and Python runs give."""
    judge = parity_judge()
    no_model = tmp_path / "no-model"
    no_model.mkdir()
    (tmp_path / "store").mkdir()
    shutil.copy(ROOT / "tests" / "parity" / "store.yaml", tmp_path / "store" / "config.yaml")
    shutil.copytree(ROOT / "tests" / "parity" / "docs", tmp_path / "docs")

    async def test() -> None:
        outcomes: list[dict[str, Any]] = []
        env = server_env(MEMCORE_MODEL_DIR=str(no_model))
        async with connected(tmp_path / "store", "--tools", "all", env=env) as session:
            listed = {tool.name for tool in (await session.list_tools()).tools}
            expected = judge.expected()
            for index, (operation, request, _ignore) in enumerate(judge.cases()):
                if operation in USER_ONLY:
                    # Never a tool: the outcome is the other bindings' by construction.
                    assert operation not in listed
                    outcomes.append({k: v for k, v in expected[index].items() if k != "operation"})
                    continue
                result = await session.call_tool(operation, request)
                if result.is_error:
                    error = json.loads(result.content[1].text)["error"]  # type: ignore[union-attr]
                    outcomes.append({"error": error["category"]})
                else:
                    outcomes.append({"result": result.structured_content})
        problems = judge.judge(outcomes)
        assert not problems, "\n".join(problems)

    run(test)


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-v"]))


def test_retrieval_mid_conversation_through_the_tools(tmp_path: Path) -> None:
    """An agent's output with a <<retrieve: ...>> marker, sent to the default `retrieve`
    tool: the document's chunk comes back labelled [Doc 1], and keeps that label."""
    (tmp_path / "docs").mkdir()
    shutil.copy(ROOT / "tests/parity/docs/guide.md", tmp_path / "docs" / "guide.md")
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "config.yaml").write_text("backend: tiered\n")

    async def test() -> None:
        tools = "docs_ingest,session_start,retrieve,session_end"
        async with connected(tmp_path / "store", "--tools", tools) as session:
            await call(session, "docs_ingest", {"paths": [str(tmp_path / "docs" / "guide.md")]})
            await call(session, "session_start", {"session": "incident-7", "agents": ["ops"]})
            output = "Checking the runbook first. <<retrieve: rollback previous image>>"
            request = {"session": "incident-7", "output": output, "agent": "ops", "mode": "text"}
            first = await call(session, "retrieve", request)
            assert first["queries"] == ["rollback previous image"]
            assert first["passages"][0]["label"] == "Doc 1", first
            assert first["context"].startswith("[Doc 1] "), first
            again = await call(session, "retrieve", {**request, "output": "<<retrieve: rollback>>"})
            assert again["passages"][0]["label"] == "Doc 1"
            ended = await call(session, "session_end", {"session": "incident-7"})
            assert ended["memories"]

    run(test)


def test_documents_through_the_tools(tmp_path: Path) -> None:
    """Documents ingested and searched by tool calls: hits carry their heading path; a client
    cannot choose the root documents are read from."""
    (tmp_path / "docs").mkdir()
    shutil.copy(ROOT / "tests/parity/docs/guide.md", tmp_path / "docs" / "guide.md")

    async def test() -> None:
        tools = "docs_ingest,docs_list,docs_search,docs_purge"
        async with connected(tmp_path / "store", "--tools", tools) as session:
            guide = str(tmp_path / "docs" / "guide.md")
            ingested = await call(session, "docs_ingest", {"paths": [guide]})
            assert ingested["documents"][0]["outcome"] == "added"
            listed = await call(session, "docs_list", {})
            assert [d["id"] for d in listed["documents"]] == ["docs-guide.md"]
            found = await call(session, "docs_search", {"text": "revert to the previous image"})
            assert found["hits"][0]["heading_path"] == ["Deploy Guide", "Rollback"], found
            rooted = await error_of(session, "docs_ingest", {"paths": ["etc/hostname"], "root": "/"})
            assert rooted["category"] == "VALIDATION" and "outside the project" in rooted["message"]
            outside = await error_of(session, "docs_ingest", {"paths": ["/etc/hostname"]})
            assert outside["category"] == "VALIDATION"
            purged = await call(session, "docs_purge", {"document": "docs-guide.md"})
            assert purged["chunks"] == 3

    run(test)
