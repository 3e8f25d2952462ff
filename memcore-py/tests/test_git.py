"""Git: the git-notes backend (put, get, search, hydrate, sync between clones) and git history
for file stores inside a work tree (versions, any revision, diff, restore with autocommit), on
real repositories made with the `git` command; the errors both give; and the README's git
example."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import os
import shutil
import subprocess
from pathlib import Path
from typing import Literal

import pytest

import memcore
from conftest import README, readme_examples, write_file

AUTHOR = "Test Author"


def git(repo: Path, *args: str) -> str:
    """Runs `git -C repo args...` and returns its output, stripped. The machine's own git
    settings are left out, so only the repository's config counts."""
    if shutil.which("git") is None:
        pytest.fail("these tests need the `git` command on PATH: install git", pytrace=False)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, f"git {' '.join(args)} failed: {done.stderr}"
    return done.stdout.strip()


def init_repo(path: Path, *, commit: bool = True, branch: str = "main") -> Path:
    """A new repository at `path` with its author set, and with one commit unless told not."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", branch)
    git(path, "config", "user.name", AUTHOR)
    git(path, "config", "user.email", "test@example.com")
    if commit:
        write_file(path / "README.md", "# project\n")
        commit_all(path, "initial")
    return path


def commit_all(repo: Path, message: str) -> str:
    """Commits everything in the work tree and returns the new commit id."""
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return init_repo(tmp_path / "repo")


def found(store: memcore.Memcore, text: str) -> list[str]:
    return [hit.memory.ref for hit in store.search(text, mode="text")]


# --- the git-notes backend --------------------------------------------------------------------


class TestGitNotes:
    def test_put_get_and_search(self, repo: Path) -> None:
        head = git(repo, "rev-parse", "HEAD")
        with memcore.open(repo, backend="git-notes") as store:
            first = store.put("We need ACID.", collection="decisions", summary="Use PostgreSQL")
            second = store.put("Cache reads in Redis.", collection="decisions")
            assert first.id == f"decisions:{head}:0"
            assert second.id == f"decisions:{head}:1"
            assert first.ref == f"decisions/{first.id}"
            assert store.get(first.id).summary == "Use PostgreSQL"
            assert store.get(f"decisions:{head[:7]}:1", collection="decisions") == second
            assert found(store, "redis") == [second.ref]
            assert "decisions" in store.collections()
        note = git(repo, "notes", "--ref=mem/decisions", "show", head)
        assert "summary: Use PostgreSQL" in note and "Cache reads in Redis." in note

    def test_put_attaches_to_the_commit_asked_for(self, repo: Path) -> None:
        first = git(repo, "rev-parse", "HEAD")
        write_file(repo / "later.txt", "later\n")
        head = commit_all(repo, "later")
        with memcore.open(repo, backend="git-notes") as store:
            old = store.put("About the first commit.", collection="decisions", commit="HEAD~1")
            assert old.id == f"decisions:{first}:0"
            batch = store.put_many(
                [
                    {"content": "Another on the first commit.", "collection": "decisions"},
                    {"content": "A learning there too.", "collection": "learnings"},
                ],
                commit=first[:8],
                create_only=True,
            )
            assert [m.id for m in batch] == [f"decisions:{first}:1", f"learnings:{first}:0"]
            assert store.put("On HEAD.", collection="decisions").id == f"decisions:{head}:0"
            hydrated = store.hydrate(old.id, "full")
            assert hydrated.commit is not None and hydrated.commit.sha == first

    def test_collections_are_namespaces(self, repo: Path) -> None:
        with memcore.open(repo, backend="git-notes") as store:
            with pytest.raises(memcore.ValidationError) as caught:
                store.put("no namespace given")  # the default collection is not one
            assert "decisions" in caught.value.recovery

    def test_the_backend_can_come_from_the_config_file(self, repo: Path) -> None:
        store_dir = repo / "memories"
        write_file(store_dir / "config.yaml", "backend: git-notes\n")
        with memcore.open(store_dir) as store:
            stored = store.put("Ship on Fridays.", collection="learnings")
            assert stored.id.startswith("learnings:")
            assert not (store_dir / "learnings").exists(), "a note, not a file"

    def test_hydrate_at_every_level(self, repo: Path) -> None:
        for n in range(22):
            write_file(repo / f"f{n:02}.txt", f"file {n}\n")
        (repo / "big.bin").write_bytes(b"x" * (200 * 1024))
        sha = commit_all(repo, "add many files\n\nwith a body")
        with memcore.open(repo, backend="git-notes") as store:
            memory = store.put("Split the files.", collection="decisions")

            summary = store.hydrate(memory.id)
            assert (summary.level, summary.memory) == ("summary", memory)
            assert (summary.note, summary.commit, summary.files) == (None, None, ())
            assert summary == store.hydrate(memory.ref, "summary")

            full = store.hydrate(memory.id, "full")
            assert full.level == "full" and full.files == () and full.files_omitted == 0
            assert full.note is not None and "Split the files." in full.note
            commit = full.commit
            assert commit is not None
            assert (commit.sha, commit.author, commit.email) == (sha, AUTHOR, "test@example.com")
            assert commit.message == "add many files\n\nwith a body"
            assert commit.time.tzinfo is not None
            assert abs(dt.datetime.now(dt.timezone.utc) - commit.time) < dt.timedelta(hours=1)
            assert repr(commit).startswith(f"CommitInfo(sha='{sha}', author='{AUTHOR}', time='")
            assert repr(commit).endswith("message='add many files\\n\\nwith a body')")

            files = store.hydrate(memory.id, level="files", collection="decisions")
            assert files.commit == commit
            assert (len(files.files), files.files_omitted) == (20, 3)
            by_path = {f.path: f for f in files.files}
            assert by_path["f00.txt"].content == "file 0\n"
            assert by_path["f00.txt"].size == 7
            big = by_path["big.bin"]
            assert (big.size, big.content) == (200 * 1024, None)
            assert repr(big) == "ChangedFile(path='big.bin', size=204800)"
            assert repr(by_path["f00.txt"]) == "ChangedFile(path='f00.txt', size=7)"
            assert repr(files) == (
                f"Hydrated(ref='{memory.ref}', level='files', files=20, files_omitted=3)"
            )

            as_dict = files.to_dict()
            assert as_dict["memory"] == memory.to_dict()
            assert as_dict["level"] == "files" and as_dict["files_omitted"] == 3
            assert as_dict["commit"] == commit.to_dict()
            assert as_dict["commit"]["sha"] == sha
            assert {"path": "f00.txt", "size": 7, "content": "file 0\n"} in as_dict["files"]
            assert summary.to_dict()["commit"] is None

    def test_notes_fetched_into_a_clone_show_up_after_sync(self, repo: Path, tmp_path: Path) -> None:
        clone = tmp_path / "clone"
        with memcore.open(repo, backend="git-notes") as origin:
            trunk = origin.put("Adopt trunk-based development.", collection="decisions")
            git(tmp_path, "clone", "-q", str(repo), str(clone))
            git(clone, "fetch", "-q", "origin", "refs/notes/*:refs/notes/*")
            with memcore.open(clone, backend="git-notes") as copy:  # syncs on open
                assert found(copy, "trunk development") == [trunk.ref]

                release = origin.put("Release every Tuesday.", collection="decisions")
                origin.delete(trunk.id)
                assert found(copy, "release tuesday") == []
                git(clone, "fetch", "-q", "origin", "refs/notes/*:refs/notes/*")
                report = copy.sync()
                assert not report.full and report.synced >= 2, report
                assert found(copy, "trunk development") == []
                assert found(copy, "release tuesday") == [release.ref]
                again = copy.sync()
                assert (again.synced, again.full) == (0, False)
                assert again.to_dict() == {"synced": 0, "full": False}
                assert repr(again) == "SyncReport(synced=0, full=False)"

    def test_diverged_clones_merge_with_every_memory_once(self, repo: Path, tmp_path: Path) -> None:
        clone = tmp_path / "clone"
        with memcore.open(repo, backend="git-notes") as origin:
            origin.put("Shared before the split.", collection="decisions", id="shared")
            git(tmp_path, "clone", "-q", str(repo), str(clone))
            tracking = "+refs/notes/mem/*:refs/notes/origin/mem/*"
            git(clone, "fetch", "-q", "origin", tracking)
            with memcore.open(clone, backend="git-notes") as copy:
                first = copy.notes_merge("origin")
                assert [(n.namespace, n.outcome, n.added) for n in first] == [
                    ("decisions", "fast-forward", 1)
                ]
                rule = "Context\n\n---\n\nafter a markdown rule"
                mine = origin.put(rule, collection="decisions", id="a")
                theirs = copy.put("Written in the clone.", collection="decisions", id="b")
                assert mine.id == theirs.id  # both appended at index 1 of HEAD's note
                git(repo, "fetch", "-q", str(clone), "+refs/notes/mem/*:refs/notes/clone/mem/*")
                report = origin.notes_merge("clone")
                merge = report[0]
                assert (merge.outcome, merge.added, merge.updated) == ("merged", 1, 0)
                moved_to = theirs.id.rsplit(":", 1)[0] + ":2"
                assert [(m.from_, m.to) for m in merge.moved] == [(theirs.id, moved_to)]
                assert report.indexed >= 1 and report.remote == "clone"
                assert origin.get("a").content == rule
                assert origin.get("b").id == moved_to
                assert found(origin, "written clone") == [f"decisions/{moved_to}"]
                with pytest.raises(memcore.ValidationError):
                    origin.notes_merge("bad name..")

    def test_notes_merge_needs_git_notes(self, store: memcore.Memcore) -> None:
        with pytest.raises(memcore.UnsupportedError):
            store.notes_merge("origin")


# --- git history for file stores --------------------------------------------------------------


class TestFileStoreInGit:
    def test_versions_any_revision_and_diff(self, repo: Path) -> None:
        with memcore.open(repo / "memories") as store:
            store.put("v1: use tabs", id="style")
            commit_all(repo, "add style memory")
            store.update("style", content="v2: use spaces")
            second = commit_all(repo, "spaces")
            git(repo, "tag", "v2")
            store.update("style", content="v3: use 4 spaces")

            versions = store.versions("style")
            assert [v.message for v in versions] == [
                "add style memory",
                "spaces",
                "uncommitted changes in the work tree",
            ]
            assert versions[1].rev == second and versions[0].author == AUTHOR
            assert [v.current for v in versions] == [False, False, True]

            def content(rev: str) -> str:
                return store.get_version("style", rev).content

            assert content("HEAD~1") == "v1: use tabs"
            assert content("v2") == content(second[:8]) == "v2: use spaces"
            assert content("current") == store.get("style").content == "v3: use 4 spaces"

            diff = store.diff("style", "HEAD~1")
            assert "-v1: use tabs" in diff and "+v3: use 4 spaces" in diff
            assert diff == store.diff("style", from_rev="HEAD~1", to_rev="current")
            assert "+v2: use spaces" in store.diff("memory/style", "HEAD~1", "HEAD")
            assert store.diff("style", "HEAD", "v2", collection="memory") == ""

    def test_restore_version_commits_with_autocommit(self, repo: Path) -> None:
        store_dir = repo / "memories"
        write_file(store_dir / "config.yaml", "git_autocommit: true\n")
        with memcore.open(store_dir) as store:
            assert store.config_file == store_dir / "config.yaml"
            store.put("first", id="m")
            store.update("m", content="second")
            store.update("m", content="third")
            versions = store.versions("m")
            assert [v.message for v in versions][1:] == [
                "memcore: update memory/m",
                "memcore: update memory/m",
            ]
            restored = store.restore_version("m", versions[0].rev)
            assert (restored.content, restored.version) == ("first", 4)
            assert len(store.versions("m")) == 4
            assert store.get("m") == restored
        assert git(repo, "rev-list", "--count", "HEAD") == "5"  # initial + four writes
        assert git(repo, "status", "--porcelain", "--", "memories/memory") == ""
        assert git(repo, "show", "HEAD:memories/memory/m.md").endswith("first")

    def test_built_in_history_offers_the_same_calls(self, store: memcore.Memcore) -> None:
        store.put("alpha", id="n")
        store.update("n", content="beta")
        assert [v.rev for v in store.versions("n")] == ["1", "2"]
        diff = store.diff("n", 1, 2)
        assert "-alpha" in diff and "+beta" in diff
        assert store.diff("n", "2") == ""
        restored = store.restore_version("n", 1)
        assert (restored.content, restored.version) == ("alpha", 3)


# --- errors -----------------------------------------------------------------------------------


class TestErrors:
    def test_hydrate_beyond_summary_needs_git_notes(self, store: memcore.Memcore) -> None:
        memory = store.put("x", id="x")
        hydrated = store.hydrate("x")
        assert (hydrated.memory, hydrated.commit) == (memory, None)
        levels: tuple[Literal["full", "files"], ...] = ("full", "files")
        for level in levels:
            with pytest.raises(memcore.UnsupportedError) as caught:
                store.hydrate("x", level)
            assert "git-notes" in caught.value.recovery

    def test_bad_revisions_are_validation_errors(self, repo: Path) -> None:
        with memcore.open(repo / "memories") as store:
            store.put("text", id="m")
            commit_all(repo, "add m")
            for rev in ("-x", "--output=/tmp/x", "HEAD..HEAD~1", "HEAD:memory/m.md", "a b"):
                with pytest.raises(memcore.ValidationError):
                    store.get_version("m", rev)
            with pytest.raises(memcore.ValidationError) as caught:
                store.diff("m", "-x")
            assert "HEAD~2" in caught.value.recovery
            with pytest.raises(memcore.ValidationError):
                store.restore_version("m", "-x")
            with pytest.raises(memcore.NotFoundError):
                store.get_version("m", "no-such-tag")
            with pytest.raises(TypeError, match="not bool"):
                store.diff("m", True)
            assert store.get("m").version == 1, "nothing written"

    def test_a_repository_without_commits(self, tmp_path: Path) -> None:
        # The core tells an empty repository by libgit2's `is_empty`, which holds only while
        # HEAD is an unborn `master`; on another unborn branch a write is a NotFoundError.
        empty = init_repo(tmp_path / "empty", commit=False, branch="master")
        with memcore.open(empty, backend="git-notes") as store:
            with pytest.raises(memcore.StorageError) as caught:
                store.put("too early", collection="decisions")
        err = caught.value
        assert err.category == "STORAGE"
        assert "no commits" in str(err)
        assert "git commit --allow-empty" in err.recovery

    def test_git_notes_outside_a_repository(self, tmp_path: Path) -> None:
        with pytest.raises(memcore.ValidationError) as caught:
            memcore.open(tmp_path / "plain", backend="git-notes")
        assert "git init" in caught.value.recovery

    def test_unknown_backend_and_level_strings(self, tmp_path: Path, store: memcore.Memcore) -> None:
        assert issubclass(memcore.ValidationError, ValueError)
        with pytest.raises(memcore.ValidationError, match='unknown backend "svn"') as backend:
            memcore.open(tmp_path, backend="svn")  # type: ignore[arg-type]
        assert backend.value.recovery == 'use backend="file", "git-notes", "postgres" or "tiered"'
        store.put("x", id="x")
        with pytest.raises(memcore.ValidationError, match="at `level`: unknown variant `everything`") as level:
            store.hydrate("x", "everything")  # type: ignore[arg-type]
        assert "`summary`, `full`, `files`" in str(level.value)
        assert "memcore operations hydrate" in level.value.recovery
        with pytest.raises(memcore.ValidationError, match="unknown scope"):
            memcore.open(scope="nearby")  # type: ignore[arg-type]


def test_the_readme_git_example_runs(in_tmp_cwd: Path) -> None:
    init_repo(in_tmp_cwd)
    with memcore.open(in_tmp_cwd / "docs" / "memories") as store:
        store.put("# GPU Patterns\n\nPrefer Metal.")
        commit_all(in_tmp_cwd, "add gpu patterns")
        store.update("gpu-patterns", content="# GPU Patterns\n\nPrefer wgpu.")
        commit_all(in_tmp_cwd, "prefer wgpu")
    blocks = readme_examples("Git")
    assert len(blocks) == 1, "one git example"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(blocks[0], str(README), "exec"), {"__name__": "readme"})
    printed = out.getvalue()
    assert f"{AUTHOR} add gpu patterns" in printed and f"{AUTHOR} prefer wgpu" in printed
    assert "\n-Prefer Metal." in printed and "\n+Prefer wgpu." in printed
    head = git(in_tmp_cwd, "rev-parse", "HEAD")
    assert f"decisions:{head}:0" in printed
    assert f"CommitInfo(sha='{head}', author='{AUTHOR}'" in printed
    with memcore.open(in_tmp_cwd / "docs" / "memories") as store:
        assert store.get("gpu-patterns").content == "# GPU Patterns\n\nPrefer Metal."
