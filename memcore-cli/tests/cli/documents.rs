//! `docs ingest | list | search | purge | rebuild | feedback`, in text and `--json`, and
//! their errors.

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::Sandbox;

const GUIDE: &str = "# Deploy Guide\n\nHow we ship the billing service.\n\n\
    ## Rollback\n\nRoll back with the previous image tag, then page the owner.\n";

#[test]
fn documents_are_ingested_searched_rated_rebuilt_and_purged() {
    let sandbox = Sandbox::new();
    std::fs::create_dir(sandbox.path().join("docs")).unwrap();
    std::fs::write(sandbox.path().join("docs/guide.md"), GUIDE).unwrap();

    let ingested = sandbox.json(&["docs", "ingest", "docs/guide.md", "--tags", "ops"]);
    let document = &ingested["documents"][0];
    assert_eq!(document["outcome"], "added");
    assert_eq!(document["document"]["id"], "docs-guide.md");
    assert_eq!(document["document"]["chunks"].as_array().unwrap().len(), 2);
    sandbox
        .run(&["docs", "ingest", "docs/guide.md", "--tags", "ops"])
        .assert()
        .success()
        .stdout(contains("unchanged").and(contains("docs-guide.md")));
    sandbox
        .run(&["docs", "list"])
        .assert()
        .success()
        .stdout(contains("docs-guide.md").and(contains("docs/guide.md")).and(contains("ops")));

    let found = sandbox.json(&["docs", "search", "previous image tag"]);
    assert_eq!(found["mode"], "text", "no model in the sandbox: {found}");
    let hit = &found["hits"][0];
    assert_eq!(hit["heading_path"], serde_json::json!(["Deploy Guide", "Rollback"]));
    assert_eq!((hit["position"].as_u64(), hit["chunks"].as_u64()), (Some(1), Some(2)));
    sandbox
        .run(&["docs", "search", "previous image tag", "--document", "docs-guide.md"])
        .assert()
        .success()
        .stdout(contains("1. docs-guide.md › Deploy Guide › Rollback  [chunk 2 of 2"));

    sandbox
        .run(&["docs", "feedback", "docs-guide.md", "5", "--chunk", "1", "--note", "spot on"])
        .assert()
        .success()
        .stdout(contains("rated docs-guide.md 5 of 5"));
    let rebuilt = sandbox.json(&["docs", "rebuild", "--chunk-size", "60"]);
    assert_eq!(rebuilt["documents"][0]["outcome"], "replaced");
    assert!(rebuilt["documents"][0]["document"]["chunks"].as_array().unwrap().len() > 2);

    sandbox
        .run(&["docs", "purge", "docs-guide.md"])
        .assert()
        .success()
        .stdout(contains("purged document docs-guide.md").and(contains("1 ratings")));
    let gone = sandbox.error_in(
        sandbox.path(),
        &["--store", sandbox.store().to_str().unwrap(), "docs", "purge", "docs-guide.md"],
        1,
    );
    assert_eq!(gone["category"], "NOT_FOUND", "{gone}");
    sandbox.run(&["docs", "list"]).assert().success().stderr(contains("no documents"));
}

#[test]
fn a_store_named_by_a_relative_path_reads_documents_from_the_working_directory() {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.path().join("notes.md"), "# Notes\n\nRelative stores work.\n").unwrap();
    sandbox
        .bare_in(sandbox.path())
        .args(["--store", ".memcore", "docs", "ingest", "notes.md"])
        .assert()
        .success()
        .stdout(contains("added").and(contains("notes.md")));
}

#[test]
fn bad_documents_are_refused_with_a_hint() {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.path().join("scan.pdf"), b"%PDF-1.7\n\0binary").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("far.md"), "# Far\n").unwrap();
    let store = sandbox.store();
    let store = store.to_str().unwrap();
    let far = outside.path().join("far.md");
    for (path, hint) in [("scan.pdf", "pdftotext"), (far.to_str().unwrap(), "inside the project")] {
        let error =
            sandbox.error_in(sandbox.path(), &["--store", store, "docs", "ingest", path], 3);
        assert!(error["recovery"].as_str().unwrap().contains(hint), "{error}");
    }
    let missing =
        sandbox.error_in(sandbox.path(), &["--store", store, "docs", "ingest", "no.md"], 1);
    assert_eq!(missing["category"], "NOT_FOUND");
    let rating =
        sandbox.error_in(sandbox.path(), &["--store", store, "docs", "feedback", "x", "3"], 1);
    assert_eq!(rating["category"], "NOT_FOUND");
}
