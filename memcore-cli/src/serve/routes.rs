//! The routes: every operation at `POST /api/ops/{name}`, and REST paths (seed 004's
//! Appendix A where they fit) that build the same request records from the path, the query
//! and the body, so that there is one implementation behind both.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::StatusCode;
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Extension, Router};
use memcore::Memcore;
use memcore::api::operation;
use serde_json::{Map, Value, json};

use super::guard::{self, Access};
use super::openapi;
use super::reply::{Refusal, failed, ok, refused};

/// The store every handler calls.
type Store = State<Arc<Memcore>>;

/// The routes over `memcore`, behind `access`, taking bodies up to `limit` bytes.
pub(super) fn router(memcore: Arc<Memcore>, access: Access, limit: usize) -> Router {
    let access = Arc::new(access);
    Router::new()
        .route("/api/openapi.json", get(|| async { ok(openapi::document()) }))
        .route("/api/ops/{operation}", post(by_name))
        .route("/api/memories", get(list).post(put_memories))
        .route("/api/memories/{collection}/{id}", get(read).patch(update).delete(delete))
        .route("/api/memories/{collection}/{id}/keepits", get(keepits))
        .route("/api/memories/{collection}/{id}/keepits/{index}", put(keepit_weight))
        .route(
            "/api/search",
            post(|store: Store, body| call_with(store, "search", body, Map::new())),
        )
        .route("/api/memory/sessions", get(|store: Store| call(store, "session_list", json!({}))))
        .route("/api/memory/sessions/{session}/versions", get(versions).post(compress))
        .route(
            "/api/memory/sessions/{session}/versions/{version}",
            get(|store: Store, Path((session, version)): Path<(String, String)>| {
                call(store, "session_version", json!({ "session": session, "version": version }))
            })
            .delete(prune),
        )
        .route("/api/memory/compositions", get(compositions).post(compose))
        .route(
            "/api/memory/compositions/{name}",
            get(|store: Store, Path(name): Path<String>| {
                call(store, "composition_show", json!({ "name": name }))
            })
            .delete(|store: Store, Path(name): Path<String>| {
                call(store, "composition_delete", json!({ "name": name }))
            }),
        )
        .route(
            "/api/memory/decay/preview",
            post(|store: Store, body| call_with(store, "keepit_preview", body, Map::new())),
        )
        .merge(super::ui::router())
        .fallback(|| async {
            refused(StatusCode::NOT_FOUND, "no such path", "see /api/openapi.json for the API")
                .into_response()
        })
        .layer(middleware::from_fn_with_state(Arc::clone(&access), guard::check))
        .layer(Extension(access))
        .layer(DefaultBodyLimit::max(limit))
        .with_state(memcore)
}

/// Runs the operation `name` on `request` on a blocking thread; its reply.
async fn call(State(memcore): Store, name: &'static str, request: Value) -> Response {
    run(memcore, name, request).await
}

async fn run(memcore: Arc<Memcore>, name: &str, request: Value) -> Response {
    match result_of(memcore, name, request).await {
        Ok(result) => ok(result),
        Err(refusal) => refusal.into_response(),
    }
}

/// The result record of the operation `name` on `request`, run on a blocking thread; the
/// error reply otherwise.
async fn result_of(memcore: Arc<Memcore>, name: &str, request: Value) -> Result<Value, Refusal> {
    let entry = operation(name).map_err(|err| failed(&err))?;
    match tokio::task::spawn_blocking(move || entry.call(&memcore, request)).await {
        Ok(Ok(result)) => Ok(result),
        Ok(Err(err)) => Err(failed(&err)),
        Err(join) => Err(refused(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("`{name}` stopped unexpectedly: {join}"),
            "nothing was lost (writes are atomic); retry, and report the bug if it recurs",
        )),
    }
}

/// Runs `name` on the JSON `body` with `fields` (from the path) set over it.
async fn call_with(
    State(memcore): Store,
    name: &'static str,
    body: Result<Bytes, BytesRejection>,
    fields: Map<String, Value>,
) -> Response {
    match object(body) {
        Ok(mut request) => {
            request.extend(fields);
            run(memcore, name, Value::Object(request)).await
        }
        Err(refusal) => refusal.into_response(),
    }
}

/// The body as a JSON object (an empty body is `{}`).
fn object(body: Result<Bytes, BytesRejection>) -> Result<Map<String, Value>, Refusal> {
    let body = body.map_err(|rejection| {
        refused(
            rejection.status(),
            &format!("the request body could not be read: {}", rejection.body_text()),
            "send at most 16 MiB of JSON",
        )
    })?;
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    match serde_json::from_slice(&body) {
        Ok(Value::Object(fields)) => Ok(fields),
        Ok(_) => Err(failed(&memcore::Error::request(
            "the request body is JSON but not an object",
            "send the operation's request record, a JSON object (see /api/openapi.json)",
        ))),
        Err(err) => Err(failed(&memcore::Error::request(
            format!("the request body is not JSON: {err}"),
            "send the operation's request record as JSON (see /api/openapi.json)",
        ))),
    }
}

/// `POST /api/ops/{operation}`: any operation by name.
async fn by_name(
    State(memcore): Store,
    Path(name): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    match object(body) {
        Ok(request) => run(memcore, &name, Value::Object(request)).await,
        Err(refusal) => refusal.into_response(),
    }
}

/// A memory's `collection/id` from the path, as the `ref` field.
fn reference(collection: &str, id: &str) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert("ref".into(), Value::String(format!("{collection}/{id}")));
    fields
}

/// `GET /api/memories?collection=&filter=key=value&offset=&limit=`: `list`.
async fn list(store: Store, Query(pairs): Query<Vec<(String, String)>>) -> Response {
    let mut request = Map::new();
    let mut filters = Vec::new();
    for (key, value) in pairs {
        match key.as_str() {
            "filter" => filters.push(Value::String(value)),
            "offset" | "limit" => match value.parse::<usize>() {
                Ok(n) => {
                    request.insert(key, n.into());
                }
                Err(_) => {
                    let err = memcore::Error::request(
                        format!("{key} is not a number: {value:?}"),
                        "give a whole number",
                    );
                    return failed(&err).into_response();
                }
            },
            _ => {
                request.insert(key, Value::String(value));
            }
        }
    }
    request.insert("filters".into(), Value::Array(filters));
    call(store, "list", Value::Object(request)).await
}

/// `POST /api/memories`: `put` (a `put` request record).
async fn put_memories(store: Store, body: Result<Bytes, BytesRejection>) -> Response {
    call_with(store, "put", body, Map::new()).await
}

/// `GET /api/memories/{collection}/{id}?version=`: `get`.
async fn read(
    store: Store,
    Path((collection, id)): Path<(String, String)>,
    Query(query): Query<Vec<(String, String)>>,
) -> Response {
    let mut request = reference(&collection, &id);
    for (key, value) in query {
        request.insert(key, Value::String(value));
    }
    call(store, "get", Value::Object(request)).await
}

/// `PATCH /api/memories/{collection}/{id}`: `update`, the body being the change (with
/// `expected_version`, a stale edit is a `409`).
async fn update(
    store: Store,
    Path((collection, id)): Path<(String, String)>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    match object(body) {
        Ok(change) => {
            let mut request = reference(&collection, &id);
            request.insert("change".into(), Value::Object(change));
            call(store, "update", Value::Object(request)).await
        }
        Err(refusal) => refusal.into_response(),
    }
}

/// `DELETE /api/memories/{collection}/{id}`: `delete`.
async fn delete(store: Store, Path((collection, id)): Path<(String, String)>) -> Response {
    call(store, "delete", Value::Object(reference(&collection, &id))).await
}

/// `GET /api/memories/{collection}/{id}/keepits`: `keepit_list`.
async fn keepits(store: Store, Path((collection, id)): Path<(String, String)>) -> Response {
    call(store, "keepit_list", Value::Object(reference(&collection, &id))).await
}

/// `PUT /api/memories/{collection}/{id}/keepits/{index}`: `keepit_set`, the body
/// `{"weight": 0.8}`.
async fn keepit_weight(
    store: Store,
    Path((collection, id, index)): Path<(String, String, usize)>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let mut fields = reference(&collection, &id);
    fields.insert("index".into(), index.into());
    call_with(store, "keepit_set", body, fields).await
}

/// `GET /api/memory/sessions/{session}/versions`: `session_show` (the session with its
/// versions and keepit markers).
async fn versions(store: Store, Path(session): Path<String>) -> Response {
    call(store, "session_show", json!({ "session": session })).await
}

/// `POST /api/memory/sessions/{session}/versions`: `session_compress`.
async fn compress(
    store: Store,
    Path(session): Path<String>,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let mut fields = Map::new();
    fields.insert("session".into(), Value::String(session));
    call_with(store, "session_compress", body, fields).await
}

/// `DELETE /api/memory/sessions/{session}/versions/{version}`: `session_prune` of it.
async fn prune(store: Store, Path((session, version)): Path<(String, String)>) -> Response {
    call(store, "session_prune", json!({ "session": session, "versions": [version] })).await
}

/// `GET /api/memory/compositions`: the compositions of `session_list`.
async fn compositions(State(memcore): Store) -> Response {
    match result_of(memcore, "session_list", json!({})).await {
        Ok(mut listing) => ok(json!({ "compositions": listing["compositions"].take() })),
        Err(refusal) => refusal.into_response(),
    }
}

/// `POST /api/memory/compositions`: `session_compose`.
async fn compose(store: Store, body: Result<Bytes, BytesRejection>) -> Response {
    call_with(store, "session_compose", body, Map::new()).await
}
