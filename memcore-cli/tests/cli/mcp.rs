//! `memcore mcp` at the protocol level: a scripted JSON-RPC exchange on stdin, the answers
//! read from stdout. The full client conversation is memcore-cli/tests/mcp/ (the official
//! Python SDK); these check the command itself.

use serde_json::{Value, json};

use crate::support::{Sandbox, json_error};

/// The answers `memcore mcp ARGS` gives to `requests` (after the handshake), by id.
fn exchange(sandbox: &Sandbox, args: &[&str], requests: &[Value]) -> Vec<Value> {
    let mut lines = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    lines.extend(requests.iter().cloned());
    let stdin: String = lines.iter().map(|line| format!("{line}\n")).collect();
    let mut cmd = sandbox.run(&["mcp"]);
    cmd.args(args);
    let output = cmd.write_stdin(stdin).output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let mut answers: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(
        answers.len(),
        requests.len() + 1,
        "one answer per request: {answers:?}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    answers.sort_by_key(|answer| answer["id"].as_u64());
    answers
}

#[test]
fn lists_tools_and_answers_a_call_in_one_session() {
    let sandbox = Sandbox::new();
    let answers = exchange(
        &sandbox,
        &["--tools", "put,stats"],
        &[
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "put", "arguments": {"memories": [{"id": "a", "content": "alpha"}]}}}),
        ],
    );
    assert_eq!(answers[0]["result"]["serverInfo"]["name"], "memcore");
    let tools = answers[1]["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["put", "stats"]);
    assert_eq!(tools[0]["inputSchema"]["required"], json!(["memories"]));
    let put = &answers[2]["result"];
    assert_eq!(put["isError"], false);
    assert_eq!(put["structuredContent"]["memories"][0]["ref"], "memory/a");
    assert_eq!(sandbox.json(&["stats"])["memories"], 1);
}

#[test]
fn a_failed_call_is_a_tool_error_with_category_and_hint() {
    let sandbox = Sandbox::new();
    let answers = exchange(
        &sandbox,
        &[],
        &[json!({"jsonrpc": "2.0", "id": 1,
        "method": "tools/call", "params": {"name": "get", "arguments": {"ref": "nothing"}}})],
    );
    let result = &answers[1]["result"];
    assert_eq!(result["isError"], true);
    assert!(result.get("structuredContent").is_none(), "structured content is for results");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("[NOT_FOUND] ") && text.contains("\nhint: "), "{text}");
    let record: Value =
        serde_json::from_str(result["content"][1]["text"].as_str().unwrap()).unwrap();
    assert_eq!(record["error"]["category"], "NOT_FOUND");
    assert!(record["error"]["recovery"].as_str().is_some_and(|hint| !hint.is_empty()));
}

#[test]
fn an_unknown_tool_name_is_refused_before_serving() {
    let sandbox = Sandbox::new();
    let error = sandbox.rejected(&["mcp", "--tools", "put,serch"], "", 2);
    assert!(error["message"].as_str().unwrap().contains("unknown operation \"serch\""));
}

#[test]
fn a_client_that_never_speaks_gets_a_clear_error() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&["mcp", "--json"]).write_stdin("not json\n").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty(), "nothing but the protocol on stdout");
    let error = json_error(&output);
    assert!(error["message"].as_str().unwrap().contains("handshake"), "{error}");
    assert!(error["recovery"].as_str().unwrap().contains("MCP client"), "{error}");
}
