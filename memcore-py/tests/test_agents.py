"""Agent profiles from Python: set, remember, the profile with the agent's newest memories,
and the errors of unknown agents and limits."""

from pathlib import Path

import pytest

import memcore


def test_an_agent_has_a_profile_and_memories_of_its_own(tmp_path: Path) -> None:
    with memcore.open(tmp_path / "store") as store:
        profile = store.agent_set("loom", persona="A patient weaver.", max_memories=2, fields={"voice": "warm"})
        assert isinstance(profile, memcore.AgentProfile)
        assert (profile.agent, profile.persona, profile.fields) == ("loom", "A patient weaver.", {"voice": "warm"})
        wool = store.agent_remember("loom", "Prefers wool to acrylic.", tags=["craft"])
        assert isinstance(wool, memcore.Memory) and wool.metadata["agent"] == "loom"
        store.agent_remember("loom", "Knits on Sundays.")
        with pytest.raises(memcore.ConflictError):
            store.agent_remember("loom", "One too many.")
        view = store.agent_profile("loom", limit=1)
        assert isinstance(view, memcore.AgentView)
        assert view.total == 2 and len(view) == 1 and view.profile == profile
        with pytest.raises(memcore.NotFoundError):
            store.agent_profile("nobody")
        with pytest.raises(memcore.ValidationError):
            store.agent_set("Not An Id")
