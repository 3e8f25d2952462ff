//! `call` and `operations`: every library operation on JSON request records, as the C ABI,
//! Python and MCP reach them.

use predicates::str::contains;
use serde_json::json;

use crate::support::{Sandbox, json_error, json_of};

#[test]
fn call_runs_operations_on_json_records() {
    let sandbox = Sandbox::new();
    let put = json!({"memories": [
        {"content": "Prefer Metal on Apple silicon.", "id": "gpu", "collection": "knowledge",
         "tags": ["gpu"], "created_at": "2025-10-30T14:23:45Z"},
        {"content": "Basil and ricotta.", "id": "lasagna", "collection": "personal"}
    ]});
    let stored = json_of(&mut sandbox.run(&["call", "put", &put.to_string()]));
    assert_eq!(stored["memories"][0]["ref"], "knowledge/gpu");
    assert_eq!(stored["memories"][0]["created_at"], "2025-10-30T14:23:45Z");

    let found =
        json_of(&mut sandbox.run(&["call", "search", r#"{"text": "metal", "mode": "text"}"#]));
    assert_eq!(found["hits"][0]["memory"]["ref"], "knowledge/gpu");
    assert_eq!(found["mode"], "text");

    // The request may come on standard input.
    let changed = sandbox
        .run(&["call", "update", "-"])
        .write_stdin(
            r#"{"ref": "knowledge/gpu", "change": {"tags": ["metal"], "merge_tags": true}}"#,
        )
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let changed: serde_json::Value = serde_json::from_slice(&changed).unwrap();
    assert_eq!(changed["tags"], json!(["gpu", "metal"]));
    assert_eq!(changed["version"], 2);

    // No request means `{}`.
    let collections = json_of(&mut sandbox.run(&["call", "collections"]));
    assert_eq!(collections["collections"], json!(["knowledge", "personal"]));
    let listed = json_of(&mut sandbox.run(&["call", "list", r#"{"filters": {"tags": "metal"}}"#]));
    assert_eq!(listed["memories"][0]["ref"], "knowledge/gpu");
}

#[test]
fn call_takes_vectors_given_with_memories_and_queries() {
    use memcore::Embedder;
    let files = memcore::ModelFiles::locate(None).expect("the model (scripts/fetch-models)");
    let model = memcore::OnnxEmbedder::new(&files).unwrap();
    let mut vectors = model
        .embed(&["A grey heron nests by the reservoir every spring.", "Which birds nest here?"])
        .unwrap();
    let (birds, heron) = (vectors.pop().unwrap(), vectors.pop().unwrap());
    let sandbox = Sandbox::new();
    let model_dir = files.model.parent().unwrap().to_owned();
    let call = |operation: &str, request: &serde_json::Value| {
        let mut cmd = sandbox.run(&["call", operation, "-"]);
        cmd.env("MEMCORE_MODEL_DIR", &model_dir).write_stdin(request.to_string());
        cmd
    };
    let put = json!({"memories": [
        {"content": "The fleet deploys on Tuesdays.", "id": "deploys"},
        {"content": "Note 17.", "id": "note", "vector": heron}
    ]});
    call("put", &put).assert().success();
    // The query's words name the other memory; its vector asks for birds.
    let query = json!({"text": "deploys", "mode": "semantic", "vector": birds});
    let found = json_of(&mut call("search", &query));
    assert_eq!(found["hits"][0]["memory"]["id"], "note", "{found}");
    assert_eq!(found["warnings"], json!([]));
    // A vector of another dimension is a validation error, and nothing is written.
    call("put", &json!({"memories": [{"content": "x", "id": "x", "vector": [1, 2]}]}))
        .assert()
        .code(3)
        .stderr(contains("has 2 values; the embedder"));
    sandbox.run(&["get", "x"]).assert().code(1);
}

#[test]
fn call_refuses_bad_requests_before_touching_the_store() {
    let sandbox = Sandbox::new();
    let error = sandbox.error_in(sandbox.path(), &["call", "serch"], 2);
    assert!(error["message"].as_str().unwrap().contains("unknown operation \"serch\""));
    assert!(error["recovery"].as_str().unwrap().contains("search"));
    assert!(!sandbox.store().exists(), "an unknown operation opens no store");

    let output = sandbox
        .run(&["call", "search", r#"{"text": "x", "limmit": 3}"#, "--json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let error = json_error(&output);
    assert!(error["message"].as_str().unwrap().contains("unknown field `limmit`"), "{error}");
    assert!(error["recovery"].as_str().unwrap().contains("memcore operations search"));

    sandbox.run(&["call", "search", "{not json"]).assert().code(2).stderr(contains("not JSON"));
    // A value the operation refuses is a validation error, as from the typed commands.
    sandbox
        .run(&["call", "search", r#"{"text": "x", "limit": 0}"#])
        .assert()
        .code(3)
        .stderr(contains("limit 0 is outside"));
}

#[test]
fn operations_lists_every_operation_with_its_schemas() {
    let sandbox = Sandbox::new();
    sandbox
        .run(&["operations"])
        .assert()
        .success()
        .stdout(contains("search"))
        .stdout(contains("Find memories by meaning and words"));
    let listed = json_of(&mut sandbox.run(&["operations"]));
    let names: Vec<&str> = listed["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    for name in ["put", "get", "update", "delete", "restore", "search", "list", "verify"] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    let search = json_of(&mut sandbox.run(&["operations", "search"]));
    assert_eq!(search["request"]["required"], json!(["text"]));
    assert!(search["request"]["properties"]["tags_any"].is_object());
    assert!(search["result"]["properties"]["hits"].is_object());
    sandbox.run(&["operations", "nope"]).assert().code(2);
}
