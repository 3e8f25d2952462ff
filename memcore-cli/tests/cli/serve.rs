//! `memcore serve`: the HTTP API on a temp store, through a plain HTTP/1.1 client over TCP
//! (so every header is the test's to choose): memories, search, keepits, sessions, the
//! decay preview and the OpenAPI document; the checks of Host, Origin, token, body type and
//! size; and a server killed in the middle of writes losing nothing.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};

use serde_json::{Value, json};

use crate::support::Sandbox;

/// A running `memcore serve` on port 0 of 127.0.0.1, killed when dropped.
struct Server {
    child: Child,
    /// `127.0.0.1:PORT`.
    addr: String,
}

impl Server {
    fn start(sandbox: &Sandbox, extra: &[&str], token: Option<&str>) -> Self {
        let mut command = sandbox.process(&["serve", "--addr", "127.0.0.1:0"]);
        command.args(extra).stdout(Stdio::piped()).stderr(Stdio::null());
        if let Some(token) = token {
            command.env("MEMCORE_SERVE_TOKEN", token);
        }
        let mut child = command.spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_owned();
        Self { child, addr }
    }

    /// `METHOD path` with `body` (JSON) and `headers`; the status and the JSON reply.
    fn send(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> (u16, Value) {
        let host = self.addr.clone();
        let mut all: Vec<(&str, &str)> = vec![("Host", host.as_str())];
        all.extend_from_slice(headers);
        let body = body.map(Value::to_string);
        exchange(&self.addr, method, path, &all, body.as_deref(), None).parsed()
    }

    fn get(&self, path: &str) -> (u16, Value) {
        self.send("GET", path, None, &[])
    }

    /// `GET path` of a page: the reply as it came.
    fn page(&self, path: &str) -> Reply {
        exchange(&self.addr, "GET", path, &[("Host", self.addr.as_str())], None, None)
    }

    fn json(&self, method: &str, path: &str, body: &Value) -> (u16, Value) {
        self.send(method, path, Some(body), &[("Content-Type", "application/json")])
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A reply as it came: status, header lines (names in lower case) and body.
struct Reply {
    status: u16,
    headers: String,
    body: String,
}

impl Reply {
    /// The status and the body parsed as JSON (`null` if it is not).
    fn parsed(self) -> (u16, Value) {
        (self.status, serde_json::from_str(&self.body).unwrap_or(Value::Null))
    }

    /// The value of the header `name` (lower case), if sent.
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }
}

/// One HTTP/1.1 exchange: `headers` as given (no Host added), `body` with its length (or
/// `claimed` as the length); the reply as it came.
fn exchange(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
    claimed: Option<usize>,
) -> Reply {
    let mut stream = TcpStream::connect(addr).unwrap();
    // A server that answers before reading a refused body may keep the connection open.
    stream.set_read_timeout(Some(std::time::Duration::from_secs(5))).unwrap();
    let body = body.unwrap_or("");
    let mut request = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n", claimed.unwrap_or(body.len())));
    request.push_str(body);
    // A refused upload may close the connection before its body is read.
    let _ = stream.write_all(request.as_bytes());
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes);
    let reply = String::from_utf8_lossy(&bytes);
    let status = reply.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let (head, body) = reply.split_once("\r\n\r\n").unwrap_or((&reply, ""));
    Reply { status, headers: head.to_owned(), body: body.to_owned() }
}

#[test]
fn the_api_reaches_memories_search_keepits_sessions_and_decay() {
    let sandbox = Sandbox::new();
    let server = Server::start(&sandbox, &[], None);
    let memory = json!({"memories": [{"content": "Prefer Metal on Apple silicon. ##keepit0.80## Always profile first.",
        "id": "gpu", "collection": "knowledge", "tags": ["gpu"]}]});
    let (status, put) = server.json("POST", "/api/memories", &memory);
    assert_eq!(status, 200, "{put}");
    assert_eq!(put["memories"][0]["ref"], "knowledge/gpu");

    let (status, read) = server.get("/api/memories/knowledge/gpu");
    assert_eq!((status, read["version"].clone()), (200, json!(1)), "{read}");
    let (_, listed) = server.get("/api/memories?collection=knowledge&filter=tags=gpu&limit=5");
    assert_eq!(listed["memories"][0]["ref"], "knowledge/gpu", "{listed}");
    let (_, found) = server.json("POST", "/api/search", &json!({"text": "metal", "mode": "text"}));
    assert_eq!(found["hits"][0]["memory"]["ref"], "knowledge/gpu", "{found}");

    // Two editors of version 1: the second save is a conflict, never a silent overwrite.
    let first = json!({"tags": ["metal"], "merge_tags": true, "expected_version": 1});
    assert_eq!(server.json("PATCH", "/api/memories/knowledge/gpu", &first).0, 200);
    let second = json!({"content": "Use CUDA.", "expected_version": 1});
    let (status, conflict) = server.json("PATCH", "/api/memories/knowledge/gpu", &second);
    assert_eq!((status, conflict["error"]["category"].clone()), (409, json!("CONFLICT")));
    let file = std::fs::read_to_string(sandbox.store().join("knowledge/gpu.md")).unwrap();
    assert!(file.contains("Prefer Metal") && file.contains("metal"), "{file}");

    let (_, keepits) = server.get("/api/memories/knowledge/gpu/keepits");
    assert_eq!(keepits["markers"][0]["weight"], 0.8, "{keepits}");
    let (status, _) =
        server.json("PUT", "/api/memories/knowledge/gpu/keepits/0", &json!({"weight": 0.5}));
    assert_eq!(status, 200);
    let (_, keepits) = server.get("/api/memories/knowledge/gpu/keepits");
    assert_eq!(keepits["markers"][0]["weight"], 0.5);
    let preview = json!({"ref": "knowledge/gpu", "ratio": 30, "aggressiveness": "aggressive", "max_distance": 5});
    let (status, decay) = server.json("POST", "/api/memory/decay/preview", &preview);
    assert_eq!(status, 200, "{decay}");

    let (_, sessions) = server.get("/api/memory/sessions");
    assert!(sessions["sessions"].is_array(), "{sessions}");
    let (status, missing) = server.get("/api/memory/sessions/no-such/versions");
    assert_eq!((status, missing["error"]["category"].clone()), (404, json!("NOT_FOUND")));
    let (_, compositions) = server.get("/api/memory/compositions");
    assert!(compositions["compositions"].is_array());

    // Any operation by name; the OpenAPI document names every one.
    let (status, stats) = server.json("POST", "/api/ops/stats", &json!({}));
    assert_eq!((status, stats["memories"].clone()), (200, json!(1)), "{stats}");
    let (_, openapi) = server.get("/api/openapi.json");
    assert_eq!(openapi["openapi"], "3.1.0");
    let operations = memcore::api::OPERATIONS.len();
    assert_eq!(openapi["paths"].as_object().unwrap().len(), operations);

    assert_eq!(server.send("DELETE", "/api/memories/knowledge/gpu", None, &[]).0, 200);
    assert_eq!(server.get("/api/memories/knowledge/gpu").0, 404);
}

#[test]
fn the_memory_browser_serves_escaped_pages_over_the_same_store() {
    let sandbox = Sandbox::new();
    let server = Server::start(&sandbox, &[], None);
    let hostile = "<script>alert(1)</script> & [[knowledge/gpu]] ##keepit0.80## Keep this.";
    let memories = json!({"memories": [
        {"content": "Prefer Metal.", "id": "gpu", "collection": "knowledge", "title": "GPU choice"},
        {"content": hostile, "id": "odd", "collection": "knowledge", "title": "<b>odd</b>"}]});
    assert_eq!(server.json("POST", "/api/memories", &memories).0, 200);

    let index = server.page("/");
    assert_eq!(index.status, 200, "{}", index.body);
    assert!(index.body.starts_with("<!DOCTYPE html>") && index.body.contains("GPU choice"));
    let policy = index.header("content-security-policy").unwrap_or_default();
    assert!(policy.contains("default-src 'self'") && policy.contains("frame-ancestors 'none'"));
    assert_eq!(index.header("x-content-type-options"), Some("nosniff"));

    // What a memory says is shown, never run: titles, content and link anchors are escaped.
    let odd = server.page("/memories/knowledge/odd");
    assert_eq!(odd.status, 200, "{}", odd.body);
    assert!(!odd.body.contains("<script>alert") && !odd.body.contains("<b>odd"), "{}", odd.body);
    assert!(odd.body.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp;"));
    assert!(odd.body.contains("href=\"/memories/knowledge/gpu\""), "the link is shown");
    let gpu = server.page("/memories/knowledge/gpu");
    assert!(gpu.body.contains("href=\"/memories/knowledge/odd\""), "and the backlink");
    assert!(odd.body.contains("id=\"decay\""), "the decay preview of the marker");

    let hits = server.page("/?q=metal&mode=text");
    assert!(hits.body.contains("/memories/knowledge/gpu"), "{}", hits.body);
    for path in ["/sessions", "/compose", "/lifecycle?days=400", "/assets/ui.css"] {
        assert_eq!(server.page(path).status, 200, "{path}");
    }
    let script = server.page("/assets/ui.js");
    assert_eq!(script.header("content-type"), Some("text/javascript"));

    // Errors are pages too, with the library's message and recovery, and the right status.
    let missing = server.page("/memories/knowledge/nope");
    assert_eq!(missing.status, 404);
    assert!(missing.body.contains("role=\"alert\"") && missing.body.contains("'nope'"));
    assert_eq!(server.page("/memories/knowledge/..%2F..%2Fetc").status, 422);
    assert_eq!(server.page("/sessions/no-such").status, 404);
    assert_eq!(server.page("/compositions/..%2F..%2Fetc").status, 422);
    assert_eq!(server.page("/compositions/..%2F..%2Fetc/export").status, 422);
    assert_eq!(server.page("/?mode=fast").status, 400, "a query that does not parse");
    assert!(server.page("/lifecycle?days=soon").body.contains("role=\"alert\""));
    // The browser answers only to its own host, as the API does.
    let rebound = exchange(&server.addr, "GET", "/", &[("Host", "evil.example")], None, None);
    assert_eq!(rebound.status, 403);
}

#[test]
fn compositions_are_shown_exported_and_deleted() {
    let sandbox = Sandbox::new();
    let server = Server::start(&sandbox, &[], None);
    let transcript = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/parity/session.jsonl");
    let add = json!({"path": transcript, "session_id": "import-job"});
    assert_eq!(server.json("POST", "/api/ops/session_add", &add).0, 200);
    let compose = json!({"name": "ctx", "components": [{"session": "import-job"}], "budget": 300});
    let (status, record) = server.json("POST", "/api/memory/compositions", &compose);
    assert_eq!(status, 200, "{record}");

    let (status, version) = server.get("/api/memory/sessions/import-job/versions/original");
    assert_eq!((status, version["version"].clone()), (200, Value::Null), "{version}");
    assert!(version["content"].as_str().unwrap().contains("Stream the file"));
    assert_eq!(server.get("/api/memory/sessions/import-job/versions/v404").0, 404);
    let page = server.page("/sessions/import-job/versions/original");
    assert!(page.status == 200 && page.body.contains("id=\"version-text\""), "{}", page.body);

    let (status, shown) = server.get("/api/memory/compositions/ctx");
    assert_eq!(status, 200, "{shown}");
    assert_eq!(shown["composition"]["name"], "ctx");
    let context = shown["context"].as_str().unwrap().to_owned();
    assert!(context.contains("Stream the file"), "{context}");

    let page = server.page("/compositions/ctx");
    assert!(page.body.contains("id=\"composed\"") && page.body.contains("Stream the file"));
    let export = server.page("/compositions/ctx/export");
    assert_eq!(export.header("content-disposition"), Some("attachment; filename=\"ctx.md\""));
    assert_eq!(export.body, context);

    let (status, deleted) = server.send("DELETE", "/api/memory/compositions/ctx", None, &[]);
    assert_eq!((status, deleted["name"].clone()), (200, json!("ctx")), "{deleted}");
    assert_eq!(server.get("/api/memory/compositions/ctx").0, 404);
    assert_eq!(server.send("DELETE", "/api/memory/compositions/ctx", None, &[]).0, 404);
    assert_eq!(server.page("/compositions/ctx").status, 404);
}

#[test]
fn bad_requests_are_refused_with_json_errors() {
    let sandbox = Sandbox::new();
    let server = Server::start(&sandbox, &["--allow-host", "memcore.test:7878"], None);
    let search = json!({"text": "x"});
    let refused = |(status, reply): (u16, Value), want: u16| {
        assert_eq!(status, want, "{reply}");
        assert!(
            reply["error"]["message"].is_string() && reply["error"]["recovery"].is_string(),
            "{reply}"
        );
    };
    // DNS rebinding: a page of another name, resolved to 127.0.0.1, sends its own Host.
    refused(
        exchange(&server.addr, "GET", "/api/memories", &[("Host", "evil.example:80")], None, None)
            .parsed(),
        403,
    );
    refused(exchange(&server.addr, "GET", "/api/memories", &[], None, None).parsed(), 403);
    let allowed = exchange(
        &server.addr,
        "GET",
        "/api/memories",
        &[("Host", "memcore.test:7878")],
        None,
        None,
    )
    .parsed();
    assert_eq!(allowed.0, 200);
    // A change another site asks for.
    let origin = [("Content-Type", "application/json"), ("Origin", "http://evil.example")];
    refused(server.send("POST", "/api/search", Some(&search), &origin), 403);
    let site = [("Content-Type", "application/json"), ("Sec-Fetch-Site", "cross-site")];
    refused(server.send("POST", "/api/search", Some(&search), &site), 403);
    let own = format!("http://{}", server.addr);
    let same = [("Content-Type", "application/json"), ("Origin", own.as_str())];
    assert_eq!(server.send("POST", "/api/search", Some(&search), &same).0, 200);
    // A form post is not JSON.
    refused(
        server.send("POST", "/api/search", Some(&search), &[("Content-Type", "text/plain")]),
        415,
    );
    // Malformed, unknown fields, wrong types, path traversal, unknown routes and operations.
    let host = server.addr.clone();
    let headers = [("Host", host.as_str()), ("Content-Type", "application/json")];
    refused(
        exchange(&server.addr, "POST", "/api/search", &headers, Some("{\"text\":"), None).parsed(),
        400,
    );
    refused(server.json("POST", "/api/search", &json!({"text": "x", "colour": "red"})), 400);
    refused(server.json("POST", "/api/search", &json!({"text": 7})), 400);
    refused(server.get("/api/memories/..%2F..%2Fetc/passwd"), 422);
    refused(server.get("/api/nothing-here"), 404);
    refused(server.json("POST", "/api/ops/no-such-operation", &json!({})), 400);
    refused(server.get("/api/memories?limit=many"), 400);
    // A body over the limit is refused from its length, unread (none is sent: a server
    // closing with unread bytes resets the connection, losing its reply).
    let big =
        exchange(&server.addr, "POST", "/api/search", &headers, None, Some(64 << 20)).parsed();
    refused(big, 413);
}

#[test]
fn beyond_loopback_a_token_is_required() {
    let sandbox = Sandbox::new();
    let output = sandbox.run(&["serve", "--addr", "0.0.0.0:0", "--json"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stderr).contains("MEMCORE_SERVE_TOKEN"));

    let server = Server::start(&sandbox, &[], Some("correct horse battery staple"));
    assert_eq!(server.get("/api/memories").0, 401);
    let wrong = server.send("GET", "/api/memories", None, &[("Authorization", "Bearer nope")]);
    assert_eq!(wrong.0, 401);
    let right = [("Authorization", "Bearer correct horse battery staple")];
    assert_eq!(server.send("GET", "/api/memories", None, &right).0, 200);

    // A browser is sent to log in, and then sends the session cookie instead of the token.
    let page = server.page("/");
    assert_eq!((page.status, page.header("location")), (303, Some("/login")));
    let login = server.page("/login");
    assert!(login.status == 200 && login.body.contains("id=\"login\""), "{}", login.body);
    let wrong = json!({"token": "correct horse battery stapler"});
    assert_eq!(server.json("POST", "/login", &wrong).0, 401);
    let host = server.addr.clone();
    let headers = [("Host", host.as_str()), ("Content-Type", "application/json")];
    let body = json!({"token": "correct horse battery staple"}).to_string();
    let logged_in = exchange(&server.addr, "POST", "/login", &headers, Some(&body), None);
    assert_eq!(logged_in.status, 204);
    let cookie = logged_in.header("set-cookie").unwrap().to_owned();
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"), "{cookie}");
    assert!(!cookie.contains("horse"), "the token itself is not stored in the browser");
    let session = cookie.split(';').next().unwrap();
    let with_cookie = [("Host", host.as_str()), ("Cookie", session)];
    assert_eq!(exchange(&server.addr, "GET", "/", &with_cookie, None, None).status, 200);
    assert_eq!(
        exchange(&server.addr, "GET", "/api/memories", &with_cookie, None, None).status,
        200
    );
    let forged = [("Host", host.as_str()), ("Cookie", "memcore_session=0123")];
    assert_eq!(exchange(&server.addr, "GET", "/api/memories", &forged, None, None).status, 401);
}

#[cfg(unix)]
#[test]
fn a_server_killed_mid_write_loses_nothing_acknowledged() {
    let sandbox = Sandbox::new();
    let mut server = Server::start(&sandbox, &[], None);
    let addr = server.addr.clone();
    let writer = std::thread::spawn(move || {
        let mut acknowledged = Vec::new();
        for n in 0..10_000 {
            let body = json!({"memories": [{"content": format!("Note {n} on the deploy."), "id": format!("note-{n}")}]});
            let host = addr.clone();
            let headers = [("Host", host.as_str()), ("Content-Type", "application/json")];
            let (status, _) =
                exchange(&addr, "POST", "/api/memories", &headers, Some(&body.to_string()), None)
                    .parsed();
            if status != 200 {
                break;
            }
            acknowledged.push(n);
        }
        acknowledged
    });
    std::thread::sleep(std::time::Duration::from_millis(1500));
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    let acknowledged = writer.join().unwrap();
    assert!(!acknowledged.is_empty(), "no write was acknowledged before the kill");
    sandbox.run(&["verify"]).assert().success();
    for n in acknowledged {
        sandbox.run(&["get", &format!("note-{n}")]).assert().success();
    }
}
