//! Bad input: each is an error with a hint and the documented exit code, and nothing is
//! written.

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Sandbox, json_error};

/// A sandbox whose store holds one memory, `keep`.
fn with_one_memory() -> Sandbox {
    let sandbox = Sandbox::new();
    sandbox.put("Keep me.", &["--id", "keep"]);
    sandbox
}

#[test]
fn unknown_flags_and_bad_values_are_usage_errors() {
    let sandbox = with_one_memory();
    let error = sandbox.rejected(&["put", "-", "--tag", "x"], "text", 2);
    assert_eq!(error["category"], "USAGE");
    assert!(error["recovery"].as_str().unwrap().contains("--tags"), "{error}");
    sandbox.rejected(&["--bogus", "list"], "", 2);
    sandbox.rejected(&["frobnicate"], "", 2);
    sandbox.rejected(&["get", "keep", "--format", "xml"], "", 2);
    sandbox.rejected(&["list", "--format", "yaml"], "", 2);
    sandbox.rejected(&["list", "--limit", "-1"], "", 2);
    sandbox.rejected(&["search", "x", "--limit", "many"], "", 2);
    // update needs something to change; --merge-tags needs --tags.
    sandbox.rejected(&["update", "keep"], "", 2);
    sandbox.rejected(&["update", "keep", "--merge-tags", "--content", "-"], "new", 2);
    sandbox.rejected(&["--backend", "svn", "list"], "", 2);
    sandbox.rejected(&["hydrate", "keep", "--level", "deep"], "", 2);
    sandbox.rejected(&["put"], "", 2);
    // One memory per FILE: --id cannot name several, and stdin holds one.
    std::fs::write(sandbox.path().join("a.md"), "A.").unwrap();
    let error = sandbox.rejected(&["put", "a.md", "-", "--id", "x"], "text", 2);
    assert!(error["message"].as_str().unwrap().contains("--id"), "{error}");
    sandbox.rejected(&["put", "-", "a.md", "-"], "text", 2);
    sandbox.run(&["--bogus"]).assert().code(2).stderr(contains("Usage:"));
}

#[test]
fn missing_files_are_usage_errors() {
    let sandbox = with_one_memory();
    let error = sandbox.rejected(&["put", "no-such-file.md"], "", 2);
    assert!(error["message"].as_str().unwrap().contains("no-such-file.md"), "{error}");
    sandbox.rejected(&["update", "keep", "--content", "no-such-file.md"], "", 2);
    std::fs::create_dir(sandbox.path().join("a-directory")).unwrap();
    sandbox.rejected(&["put", "a-directory"], "", 2);
    std::fs::write(sandbox.path().join("fine.md"), "Fine.").unwrap();
    sandbox.rejected(&["put", "fine.md", "no-such-file.md"], "", 2);
}

#[test]
fn invalid_metadata_json_is_rejected() {
    let sandbox = with_one_memory();
    sandbox.rejected(&["put", "-", "--metadata", "{oops"], "text", 2);
    let error = sandbox.rejected(&["put", "-", "--metadata", "[1, 2]"], "text", 2);
    assert!(error["message"].as_str().unwrap().contains("JSON object"), "{error}");
    sandbox.rejected(&["update", "keep", "--metadata", "not json"], "", 2);
    // Valid JSON, but a key that is a memory field: memcore refuses it.
    let error = sandbox.rejected(&["put", "-", "--metadata", r#"{"tags": 1}"#], "text", 3);
    assert_eq!(error["category"], "VALIDATION");
}

#[test]
fn invalid_ids_and_input_memcore_rejects_are_validation_errors() {
    let sandbox = with_one_memory();
    for args in [
        &["put", "-", "--id", "../escape"][..],
        &["put", "-", "--collection", ".trash"],
        &["get", "../../etc/passwd"],
        &["update", "Bad Id", "--tags", "x"],
        &["delete", "a/b/c"],
        &["search", "   "],
        &["list", "--filter", "no-equals-sign"],
    ] {
        let error = sandbox.rejected(args, "text", 3);
        assert_eq!(error["category"], "VALIDATION", "{args:?}");
    }
    sandbox.rejected(&["put", "-"], "   \n", 3);
    // A batch is validated before anything is written; a frontmatter error names its file.
    std::fs::write(sandbox.path().join("good.md"), "Fine.").unwrap();
    std::fs::write(sandbox.path().join("bad.md"), "---\ntags: [\n---\nx").unwrap();
    let error = sandbox.rejected(&["put", "good.md", "bad.md"], "", 3);
    assert!(error["message"].as_str().unwrap().starts_with("bad.md: "), "{error}");
    sandbox.rejected(&["put", "good.md", "-", "--collection", "Bad Name"], "text", 3);
    for rev in ["--version=-x", "--version=1..2"] {
        let error = sandbox.rejected(&["get", "keep", rev], "", 3);
        assert!(error["recovery"].as_str().unwrap().contains("version number"), "{error}");
    }
    sandbox.rejected(&["diff", "keep", "--from=-x"], "", 3);
    sandbox.rejected(&["get", "missing"], "", 1);
    sandbox.rejected(&["versions", "missing"], "", 1);
}

#[test]
fn a_store_path_that_is_a_file_is_rejected_with_a_hint() {
    let sandbox = Sandbox::new();
    let file = sandbox.path().join("not-a-dir");
    std::fs::write(&file, "precious").unwrap();
    let before = sandbox.snapshot();
    let error = sandbox.error_in(sandbox.path(), &["--store", "not-a-dir", "list"], 3);
    assert!(error["recovery"].as_str().unwrap().contains("directory"), "{error}");
    sandbox
        .bare_in(sandbox.path())
        .args(["--store", "not-a-dir", "put", "-"])
        .write_stdin("text")
        .assert()
        .code(3)
        .stderr(contains("not a directory").and(contains("hint:")));
    assert!(sandbox.snapshot() == before, "nothing written");
}

#[test]
fn help_documents_the_exit_codes_and_json_errors() {
    let sandbox = Sandbox::new();
    let help = sandbox.bare_in(sandbox.path()).arg("--help").assert().success();
    let help = String::from_utf8(help.get_output().stdout.clone()).unwrap();
    assert!(help.contains("Exit codes:"), "{help}");
    for code in
        ["0  success", "1  not found", "2  usage", "3  validation", "4  storage", "5  other"]
    {
        assert!(help.contains(code), "--help lacks {code:?}");
    }
    assert!(help.contains(r#"{"error": {"category", "message", "recovery", "exit_code"}}"#));
    sandbox
        .bare_in(sandbox.path())
        .arg("--version")
        .assert()
        .success()
        .stdout(contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn hydrating_a_file_store_beyond_the_summary_or_putting_at_a_commit_is_unsupported() {
    let sandbox = with_one_memory();
    for level in ["full", "files"] {
        let error = sandbox.rejected(&["hydrate", "keep", "--level", level], "", 5);
        assert_eq!(error["category"], "UNSUPPORTED", "{level}");
        assert!(error["recovery"].as_str().unwrap().contains("git-notes"), "{error}");
    }
    let summary = sandbox.json(&["hydrate", "keep", "--level", "summary"]);
    assert_eq!((&summary["level"], &summary["memory"]["id"]), (&"summary".into(), &"keep".into()));
    sandbox.rejected(&["hydrate", "missing", "--level", "summary"], "", 1);

    let before = sandbox.memory_snapshot();
    let mut put_at = sandbox.run(&["put", "-", "--commit", "HEAD", "--json"]);
    let output = put_at.write_stdin("text").output().unwrap();
    assert_eq!(output.status.code(), Some(5));
    let error = json_error(&output);
    assert_eq!(error["category"], "UNSUPPORTED");
    assert!(error["recovery"].as_str().unwrap().contains("git-notes"), "{error}");
    assert!(sandbox.memory_snapshot() == before, "no memory written");
}

/// Input is read up to a limit, never whole: `/dev/zero` or an oversized stdin is a
/// validation error naming the limit, and nothing is written.
#[test]
fn oversized_input_is_refused_without_reading_it_all() {
    let sandbox = with_one_memory();
    let error = sandbox.rejected(&["put", "/dev/zero"], "", 3);
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("/dev/zero is larger than"), "{message}");
    assert!(error["recovery"].as_str().unwrap().contains("max_content_bytes"), "{error}");
    let big = "x".repeat(100 * 1024 + 1);
    let error = sandbox.rejected(&["update", "keep", "--content", "-"], &big, 3);
    assert!(error["message"].as_str().unwrap().contains("standard input is larger"), "{error}");
    sandbox.rejected(&["keepit", "list", "--text", "/dev/zero"], "", 3);
}
