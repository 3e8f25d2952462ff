//! The git-notes backend (`--backend git-notes`, `init --backend git-notes`): put, get, list,
//! search, hydrate at each level, and sync after notes are fetched from another clone.

use std::path::Path;

use assert_cmd::Command;
use git2::Repository;
use predicates::prelude::*;
use predicates::str::contains;

use crate::gitrepo;
use crate::support::{Sandbox, json_error, json_of, keys};

/// The parser file of the commit memories attach to, and its size.
const PARSER: &str = "fn parse() {}\n";

/// `memcore --store <sandbox>/store --backend git-notes ARGS...`.
fn notes(sandbox: &Sandbox, args: &[&str]) -> Command {
    let mut cmd = sandbox.run(&["--backend", "git-notes"]);
    cmd.args(args);
    cmd
}

/// The full id of the commit HEAD names.
fn head(repo: &Repository) -> String {
    repo.head().unwrap().peel_to_commit().unwrap().id().to_string()
}

/// A repository at the sandbox's store path whose HEAD commit added two files.
fn repository(sandbox: &Sandbox) -> Repository {
    let repo = gitrepo::init_with_commit(&sandbox.store());
    std::fs::create_dir(sandbox.store().join("src")).unwrap();
    std::fs::write(sandbox.store().join("src/parser.rs"), PARSER).unwrap();
    std::fs::write(sandbox.store().join("NOTES.txt"), "parser notes\n").unwrap();
    gitrepo::commit_all(&repo, "Add the parser\n\nA recursive descent one.");
    repo
}

/// Stores `content` from stdin in the notes; returns its JSON.
fn put_note(sandbox: &Sandbox, content: &str, options: &[&str]) -> serde_json::Value {
    let mut cmd = notes(sandbox, &["put", "-"]);
    cmd.args(options).write_stdin(content);
    json_of(&mut cmd)
}

#[test]
fn put_get_list_and_search_memories_in_git_notes() {
    let sandbox = Sandbox::new();
    let repo = repository(&sandbox);
    let sha = head(&repo);
    let postgres = "## Context\n\nWe need ACID transactions.\n";
    let stored = put_note(
        &sandbox,
        postgres,
        &["--collection", "decisions", "--summary", "Use PostgreSQL", "--tags", "db"],
    );
    assert_eq!(stored["id"], format!("decisions:{sha}:0"));
    assert_eq!(stored["metadata"]["summary"], "Use PostgreSQL");
    notes(&sandbox, &["put", "-", "--collection", "decisions", "--id", "cache"])
        .write_stdin("Cache reads in Redis.")
        .assert()
        .success()
        .stdout(format!("stored decisions/decisions:{sha}:1 (version 1)\n"));
    let note =
        repo.find_note(Some("refs/notes/mem/decisions"), repo.head().unwrap().target().unwrap());
    assert!(note.unwrap().message().unwrap().contains("summary: Use PostgreSQL"));

    // Full id, short commit id, the memory's own id, with or without the namespace.
    let short = format!("decisions:{}:0", &sha[..7]);
    notes(&sandbox, &["get", &short, "--format", "raw"]).assert().success().stdout(postgres);
    for reference in ["cache", "decisions/cache", &format!("decisions:{sha}:1")] {
        let memory = json_of(&mut notes(&sandbox, &["get", reference]));
        assert_eq!(memory["content"], "Cache reads in Redis.", "{reference}");
    }

    let listing = json_of(&mut notes(&sandbox, &["list"]));
    let ids: Vec<&str> =
        listing["memories"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [format!("decisions:{sha}:0"), format!("decisions:{sha}:1")]);
    let hits = json_of(&mut notes(&sandbox, &["search", "postgresql acid", "--mode", "text"]));
    assert_eq!(hits["hits"][0]["memory"]["id"], format!("decisions:{sha}:0"));
    notes(&sandbox, &["search", "redis", "--collection", "blockers", "--mode", "text"])
        .assert()
        .success()
        .stderr(contains("no memories match"));

    let stats = json_of(&mut notes(&sandbox, &["stats"]));
    assert_eq!((&stats["backend"], &stats["memories"]), (&"git-notes".into(), &2.into()));
    notes(&sandbox, &["verify"]).assert().success().stdout(contains("text index: consistent"));
    // The indexes live in the git directory; the work tree holds no memory files.
    assert!(sandbox.store().join(".git/memcore/index").is_dir());
    assert!(!sandbox.store().join("decisions").exists());
}

#[test]
fn hydrate_at_each_level() {
    let sandbox = Sandbox::new();
    let repo = repository(&sandbox);
    let sha = head(&repo);
    let stored =
        put_note(&sandbox, "Parse with recursive descent.", &["--collection", "decisions"]);
    let id = stored["id"].as_str().unwrap();

    let summary = json_of(&mut notes(&sandbox, &["hydrate", id, "--level", "summary"]));
    assert_eq!(keys(&summary), ["commit", "files", "files_omitted", "level", "memory", "note"]);
    assert_eq!(summary["level"], "summary");
    assert!(summary["commit"].is_null() && summary["note"].is_null(), "{summary}");
    assert_eq!(summary["memory"]["content"], "Parse with recursive descent.");
    let shown = notes(&sandbox, &["hydrate", id, "--level", "summary"]).assert().success();
    let shown = String::from_utf8(shown.get_output().stdout.clone()).unwrap();
    assert!(shown.contains(&format!("ID: {id}")) && !shown.contains("commit"), "{shown}");

    let full = json_of(&mut notes(&sandbox, &["hydrate", id]));
    assert_eq!(full["level"], "full", "full is the default level");
    assert_eq!(keys(&full["commit"]), ["author", "email", "message", "sha", "time"]);
    assert_eq!(full["commit"]["sha"], sha);
    assert_eq!(full["commit"]["message"], "Add the parser\n\nA recursive descent one.");
    assert!(full["note"].as_str().unwrap().contains("Parse with recursive descent."));
    assert_eq!(full["files"], serde_json::json!([]));
    notes(&sandbox, &["hydrate", id, "--level", "full"]).assert().success().stdout(
        contains(format!("commit      {sha}\n"))
            .and(contains("author      Test Author <author@example.com>\n"))
            .and(contains("message     Add the parser\n\n            A recursive descent"))
            .and(contains("FILE").not()),
    );
    notes(&sandbox, &["hydrate", id, "-v"])
        .assert()
        .success()
        .stdout(contains("type: decisions\ntimestamp: "));

    let files = json_of(&mut notes(&sandbox, &["hydrate", id, "--level", "files"]));
    assert_eq!(files["files_omitted"], 0);
    let parser = &files["files"][1];
    assert_eq!(keys(parser), ["content", "path", "size"]);
    assert_eq!((&parser["path"], &parser["content"]), (&"src/parser.rs".into(), &PARSER.into()));
    assert_eq!(parser["size"], PARSER.len());
    assert_eq!(files["files"][0]["path"], "NOTES.txt");
    notes(&sandbox, &["hydrate", id, "--level", "files"]).assert().success().stdout(
        contains("FILE           BYTES\n")
            .and(contains(format!("src/parser.rs  {}\n", PARSER.len()))),
    );
}

/// Fetches every notes ref of `from` into `into`, as `git fetch origin 'refs/notes/*:refs/notes/*'`.
fn fetch_notes(into: &Repository, from: &Path) {
    let mut remote = into.remote_anonymous(from.to_str().unwrap()).unwrap();
    remote.fetch(&["+refs/notes/*:refs/notes/*"], None, None).unwrap();
}

#[test]
fn sync_indexes_notes_fetched_from_another_clone() {
    let sandbox = Sandbox::new();
    repository(&sandbox);
    let origin = sandbox.store();
    let clone_dir = sandbox.path().join("clone");
    let clone = Repository::clone(origin.to_str().unwrap(), &clone_dir).unwrap();
    let in_clone = |args: &[&str]| {
        let mut cmd = sandbox.bare_in(&clone_dir);
        cmd.args(["--store", ".", "--backend", "git-notes"]).args(args);
        cmd
    };
    let trunk = ["search", "trunk development", "--mode", "text"];
    assert_eq!(json_of(&mut in_clone(&trunk))["hits"], serde_json::json!([]));

    put_note(&sandbox, "Adopt trunk-based development.", &["--collection", "decisions"]);
    fetch_notes(&clone, &origin);
    // `sync` opens the store without the open-time sync, so it reports the work it did.
    let report = json_of(&mut in_clone(&["sync"]));
    assert_eq!(
        report,
        serde_json::json!({"synced": 1, "full": false}),
        "git notes say what changed"
    );
    let hits = json_of(&mut in_clone(&trunk));
    assert_eq!(hits["hits"][0]["memory"]["title"], "Adopt trunk-based development.");
    in_clone(&["sync"])
        .assert()
        .success()
        .stdout("synced 0 memories (changes since the last sync)\n");

    // A file store cannot say what changed: sync compares it all, as repair does.
    let files = Sandbox::new();
    files.put("Prefer Metal.", &["--id", "gpu"]);
    let gpu = files.store().join("memory/gpu.md");
    std::fs::write(&gpu, std::fs::read_to_string(&gpu).unwrap().replace("Metal", "Vulkan"))
        .unwrap();
    assert_eq!(files.json(&["sync"]), serde_json::json!({"synced": 1, "full": true}));
    assert_eq!(
        files.json(&["search", "vulkan", "--mode", "text"])["hits"][0]["memory"]["id"],
        "gpu"
    );
}

#[test]
fn put_at_a_given_commit_in_a_batch_and_create_only() {
    let sandbox = Sandbox::new();
    let repo = repository(&sandbox);
    let parent = repo.head().unwrap().peel_to_commit().unwrap().parent_id(0).unwrap();
    std::fs::write(sandbox.path().join("a.md"), "---\nid: lexer\n---\nHand-written lexer.\n")
        .unwrap();
    std::fs::write(sandbox.path().join("b.md"), "---\nid: tokens\n---\nTokens are spans.\n")
        .unwrap();
    let mut cmd = notes(&sandbox, &["put", "a.md", "b.md", "--collection", "progress"]);
    let stored = json_of(cmd.args(["--commit", "HEAD~1", "--create-only"]));
    let ids: Vec<&str> =
        stored["memories"].as_array().unwrap().iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(ids, [format!("progress:{parent}:0"), format!("progress:{parent}:1")]);
    let note = repo.find_note(Some("refs/notes/mem/progress"), parent).unwrap();
    assert!(note.message().unwrap().contains("Tokens are spans."));

    // Create-only: the memory's own id is taken already, a conflict at any commit.
    let short = parent.to_string()[..7].to_owned();
    let mut cmd = notes(&sandbox, &["put", "a.md", "--collection", "progress", "--create-only"]);
    let output = cmd.args(["--commit", &short, "--json"]).output().unwrap();
    assert_eq!(output.status.code(), Some(5));
    assert_eq!(json_error(&output)["category"], "CONFLICT");
    notes(&sandbox, &["put", "-", "--collection", "progress", "--commit", "no-such-branch"])
        .write_stdin("x")
        .assert()
        .code(1)
        .stderr(contains("no-such-branch"));
    assert_eq!(json_of(&mut notes(&sandbox, &["stats"]))["memories"], 2);
    notes(&sandbox, &["collections"]).assert().success().stdout("progress\n");
}

#[test]
fn init_a_git_notes_project_then_use_it_from_a_nested_directory() {
    let sandbox = Sandbox::new();
    let project = sandbox.path().join("project");
    let repo = gitrepo::init_with_commit(&project);
    let nested = project.join("src/deep");
    std::fs::create_dir_all(&nested).unwrap();

    let init = json_of(sandbox.bare_in(&project).args(["init", "--backend", "git-notes"]));
    assert_eq!(keys(&init), ["backend", "config_file", "store"]);
    assert_eq!(init["backend"], "git-notes");
    let config = std::fs::read_to_string(project.join(".memcore.yaml")).unwrap();
    assert!(config.contains("backend: git-notes\n") && config.contains("path: .memcore\n"));
    assert!(!project.join(".memcore").exists(), "git notes need no store folder");

    let stored = json_of(
        sandbox
            .bare_in(&nested)
            .args(["put", "-", "--collection", "learnings"])
            .write_stdin("Lifetimes need care."),
    );
    assert_eq!(stored["id"], format!("learnings:{}:0", head(&repo)));
    assert!(repo.find_reference("refs/notes/mem/learnings").is_ok());
    let listing = json_of(sandbox.bare_in(&nested).args(["list"]));
    assert_eq!(listing["memories"][0]["id"], stored["id"]);
    sandbox
        .bare_in(&nested)
        .args(["stats"])
        .assert()
        .success()
        .stdout(contains("backend     git-notes\n"));
    // --backend file overrides the project's settings: a file store, still empty.
    let files = json_of(sandbox.bare_in(&nested).args(["--backend", "file", "list"]));
    assert_eq!(files["memories"], serde_json::json!([]));
}

#[test]
fn git_notes_outside_a_repository_are_refused_and_nothing_is_written() {
    let sandbox = Sandbox::new();
    let before = sandbox.snapshot();
    let cases = [
        (&["init", "--backend", "git-notes"][..], 3, "git init"),
        (&["init", "--backend", "git-notes", "--git-autocommit"], 2, "--git-autocommit"),
        (&["--store", "store", "--backend", "git-notes", "list"], 3, "not inside a git repository"),
    ];
    for (args, code, said) in cases {
        let error = sandbox.error_in(sandbox.path(), args, code);
        let text = format!("{} {}", error["message"], error["recovery"]);
        assert!(text.contains(said), "{args:?}: {error}");
    }
    assert!(sandbox.snapshot() == before, "nothing written");
}

#[test]
fn notes_sync_merges_a_diverged_clone_and_pushes_the_result() {
    let sandbox = Sandbox::new();
    let repo = repository(&sandbox);
    let sha = head(&repo);
    let origin = sandbox.store();
    put_note(&sandbox, "Before the clone.", &["--collection", "decisions", "--id", "early"]);
    let clone_dir = sandbox.path().join("clone");
    Repository::clone(origin.to_str().unwrap(), &clone_dir).unwrap();
    let in_clone = |args: &[&str]| {
        let mut cmd = sandbox.bare_in(&clone_dir);
        cmd.args(["--store", ".", "--backend", "git-notes"]).args(args);
        cmd
    };
    // The clone has no notes yet: a fast-forward (and nothing to push back).
    let first = json_of(&mut in_clone(&["notes", "sync", "--no-push"]));
    assert_eq!(first["namespaces"][0]["outcome"], "fast-forward", "{first}");
    // Both sides write to the same note, then the clone syncs: fetch, merge, push.
    let rule = "Context\n\n---\n\nafter a markdown rule";
    put_note(&sandbox, rule, &["--collection", "decisions", "--id", "from-origin"]);
    let mut put = in_clone(&["put", "-", "--collection", "decisions", "--id", "from-clone"]);
    json_of(put.write_stdin("Written in the clone."));
    in_clone(&["notes", "sync", "origin"])
        .assert()
        .success()
        .stdout(contains("decisions: merged (1 added, 0 updated)"))
        .stdout(contains(format!("moved    decisions:{sha}:1 -> decisions:{sha}:2")));
    // The origin got the merge by the push: all three memories, each once, the rule intact.
    let listed = json_of(&mut notes(&sandbox, &["list"]));
    assert_eq!(listed["memories"].as_array().unwrap().len(), 3, "{listed}");
    // The side that merged kept its ids; the origin's memory moved, as the merge reported.
    let got = json_of(&mut notes(&sandbox, &["get", "from-origin"]));
    assert_eq!(
        (got["content"].as_str(), got["id"].as_str()),
        (Some(rule), Some(&*format!("decisions:{sha}:2")))
    );
    let got = json_of(&mut notes(&sandbox, &["get", "from-clone"]));
    assert_eq!(got["id"], format!("decisions:{sha}:1"));
    // Bad remotes are usage errors with git's message or a hint.
    let err = sandbox.error_in(
        &clone_dir,
        &["--store", ".", "--backend", "git-notes", "notes", "sync", "nowhere"],
        2,
    );
    assert!(err["message"].as_str().unwrap().contains("git fetch"), "{err}");
    let err = sandbox.error_in(
        &clone_dir,
        &["--store", ".", "--backend", "git-notes", "notes", "merge", "bad name"],
        2,
    );
    assert!(err["message"].as_str().unwrap().contains("remote"), "{err}");
}
