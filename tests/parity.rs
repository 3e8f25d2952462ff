//! The parity suite, Rust side: runs `tests/parity/cases.tsv` through [`Memcore::call`] on a
//! fresh store and compares the results with `tests/parity/expected.jsonl`, which the C
//! (`tests/c/test_parity.c`) and Python (`memcore-py/tests/test_parity.py`) runs are held
//! to as well. It also checks that the cases use every field of every operation's request
//! record, so that a field added to a record cannot go untested from any binding.
//!
//! `MEMCORE_BLESS=1 cargo test --test parity` rewrites `expected.jsonl` from this run.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use memcore::Memcore;
use memcore::api::OPERATIONS;
use serde_json::{Map, Value, json};

/// `tests/parity/<name>`.
fn file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/parity").join(name)
}

/// One line of `cases.tsv`.
struct Case {
    operation: String,
    request: Value,
    ignore: Vec<String>,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(file("cases.tsv")).expect("cases.tsv");
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let mut parts = line.split('\t');
            let operation = parts.next().expect("operation").to_owned();
            let request = serde_json::from_str(parts.next().expect("request"))
                .unwrap_or_else(|e| panic!("bad request JSON in {line:?}: {e}"));
            let ignore =
                parts.next().map(|p| p.split(',').map(str::to_owned).collect()).unwrap_or_default();
            Case { operation, request, ignore }
        })
        .collect()
}

/// A result as the suite compares it: without null fields (bindings differ in leaving out
/// or spelling out an unset field) and without the parts that depend on the run.
fn normalized(mut value: Value, ignore: &[String]) -> Value {
    for pointer in ignore {
        let (parent, key) = pointer.rsplit_once('/').expect("a JSON pointer");
        if let Some(Value::Object(map)) = value.pointer_mut(parent) {
            map.remove(key);
        }
    }
    strip_nulls(value)
}

fn strip_nulls(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| (k, strip_nulls(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(strip_nulls).collect()),
        other => other,
    }
}

#[test]
fn every_binding_gets_these_results() {
    // The store in `store/`, so that its project root (the directory holding it) has the
    // documents the cases ingest in `docs/`.
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("store");
    std::fs::create_dir(&store).expect("store dir");
    std::fs::copy(file("store.yaml"), store.join("config.yaml")).expect("store settings");
    std::fs::create_dir(dir.path().join("docs")).expect("docs dir");
    std::fs::copy(file("docs/guide.md"), dir.path().join("docs/guide.md")).expect("document");
    let memcore = Memcore::open(&store).expect("open");
    let mut lines = Vec::new();
    for case in cases() {
        let outcome = match memcore.call(&case.operation, case.request.clone()) {
            Ok(result) => json!({ "result": normalized(result, &case.ignore) }),
            Err(err) => json!({ "error": err.category().as_str() }),
        };
        let mut line = Map::new();
        line.insert("operation".into(), case.operation.into());
        line.extend(outcome.as_object().cloned().unwrap_or_default());
        lines.push(serde_json::to_string(&line).expect("JSON"));
    }
    let got = lines.join("\n") + "\n";
    let expected_path = file("expected.jsonl");
    if std::env::var_os("MEMCORE_BLESS").is_some() {
        std::fs::write(&expected_path, &got).expect("write expected.jsonl");
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    for (i, (got, want)) in got.lines().zip(expected.lines()).enumerate() {
        assert_eq!(got, want, "case {} differs (MEMCORE_BLESS=1 accepts the new results)", i + 1);
    }
    assert_eq!(got.lines().count(), expected.lines().count(), "number of cases");
}

/// The field paths of a request schema: `memories[].tags`, `recency.weight`, ...
fn schema_paths(
    schema: &Value,
    defs: &Map<String, Value>,
    prefix: &str,
    out: &mut BTreeSet<String>,
) {
    let schema = match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => &defs[reference.rsplit('/').next().expect("a name")],
        None => schema,
    };
    if let Some(branches) = schema.get("anyOf").and_then(Value::as_array) {
        let real: Vec<&Value> =
            branches.iter().filter(|b| b.get("type") != Some(&json!("null"))).collect();
        if let [only] = real.as_slice() {
            return schema_paths(only, defs, prefix, out);
        }
        return;
    }
    if let Some(items) = schema.get("items") {
        return schema_paths(items, defs, &format!("{prefix}[]"), out);
    }
    for (name, field) in schema.get("properties").and_then(Value::as_object).into_iter().flatten() {
        let path = if prefix.is_empty() { name.clone() } else { format!("{prefix}.{name}") };
        out.insert(path.clone());
        schema_paths(field, defs, &path, out);
    }
}

/// The field paths a request uses.
fn used_paths(value: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    match value {
        Value::Object(map) => {
            for (name, field) in map {
                let path =
                    if prefix.is_empty() { name.clone() } else { format!("{prefix}.{name}") };
                out.insert(path.clone());
                used_paths(field, &path, out);
            }
        }
        Value::Array(items) => {
            items.iter().for_each(|item| used_paths(item, &format!("{prefix}[]"), out))
        }
        _ => {}
    }
}

#[test]
fn the_cases_use_every_field_of_every_request() {
    let cases = cases();
    let mut missing = Vec::new();
    for entry in OPERATIONS {
        let schema = entry.request_schema();
        let root = schema.as_value();
        let defs = root.get("$defs").and_then(Value::as_object).cloned().unwrap_or_default();
        let mut wanted = BTreeSet::new();
        schema_paths(root, &defs, "", &mut wanted);
        let mut used = BTreeSet::new();
        let mut called = false;
        for case in cases.iter().filter(|c| c.operation == entry.name) {
            called = true;
            used_paths(&case.request, "", &mut used);
        }
        if !called {
            missing.push(format!("{} (no case calls it)", entry.name));
        }
        // Free-form maps (metadata, filters by key) have no fixed fields below them.
        missing.extend(wanted.difference(&used).map(|path| format!("{}.{path}", entry.name)));
    }
    assert!(
        missing.is_empty(),
        "add cases to tests/parity/cases.tsv that use these request fields: {missing:#?}"
    );
}
