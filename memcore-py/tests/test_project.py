"""Project manifests from Python: init, info (the manifest as a dict, unknown keys kept), the
policy a tiered store follows, a summary command that runs only once trusted, and a
malformed manifest refused."""

import json
import os
import stat
from pathlib import Path

import pytest

import memcore


def test_a_manifest_is_scaffolded_and_followed(tmp_path: Path) -> None:
    store_dir = tmp_path / "knit-cast"
    with memcore.open(store_dir, backend="tiered") as store:
        info = store.project_init(default_agents=["patch", "loom"], hot_context_turns=2, summary_mode="none")
        assert isinstance(info, memcore.ProjectInfo)
        assert info.manifest is not None and info.manifest["project_id"] == "knit-cast"
        with pytest.raises(memcore.ConflictError):
            store.project_init()
    manifest = json.loads((store_dir / "project.json").read_text())
    manifest["speech"] = {"default_style": "podcast"}
    (store_dir / "project.json").write_text(json.dumps(manifest))
    with memcore.open(store_dir, backend="tiered") as store:
        info = store.project_info()
        assert isinstance(info.policy, memcore.ProjectPolicy)
        assert (info.policy.hot_context_turns, info.policy.summary_mode) == (2, "none")
        assert info.manifest is not None and info.manifest["speech"] == {"default_style": "podcast"}
        assert info.agents == ("loom", "patch")
        store.session_start("ep-1")
        for n in range(4):
            store.session_turn("ep-1", "patch", f"Turn {n} on lace.")
        assert len(store.session_live("ep-1").turns) == 2
        with pytest.raises(memcore.ValidationError):
            store.project_trust()


@pytest.mark.skipif(os.name != "posix", reason="a shell script")
def test_a_summary_command_runs_once_trusted(tmp_path: Path) -> None:
    script = tmp_path / "summarize.sh"
    script.write_text("#!/bin/sh\ncat > /dev/null\necho 'Lace waits for wool.'\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    (store_dir / "config.yaml").write_text("tiered:\n  hot_summary_tokens: 10\n")
    (store_dir / "project.json").write_text(
        json.dumps({"summary": {"mode": "command", "command": ["./summarize.sh"]}})
    )
    with memcore.open(store_dir, backend="tiered") as store:
        assert store.project_info().policy.command_trusted is False
        store.session_start("ep-2")
        for _ in range(3):
            store.session_turn("ep-2", "patch", "The lace pattern needs a lighter yarn; the supplier ships on Fridays.")
        with pytest.raises(memcore.ValidationError, match="not trusted"):
            store.session_end("ep-2")
        assert store.project_trust().policy.command_trusted is True
        store.session_end("ep-2")
        assert "Lace waits for wool." in store.get("sessions/ep-2").content


def test_a_malformed_manifest_is_refused(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    (store_dir / "project.json").write_text('{"retention": {"warm_window_days": 0}}')
    with pytest.raises(memcore.ValidationError, match="warm_window_days"):
        memcore.open(store_dir)
