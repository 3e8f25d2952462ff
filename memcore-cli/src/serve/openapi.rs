//! The OpenAPI 3.1 document of the API, made from the operations' own JSON Schemas (the
//! request and result records every binding uses), so it cannot drift from them.

use memcore::api::{Access, OPERATIONS};
use serde_json::{Map, Value, json};

/// The document: `POST /api/ops/{name}` for every operation, its request record as the
/// body and its result record as the `200` reply; errors as `{"error": ErrorInfo}`.
pub(super) fn document() -> Value {
    let mut paths = Map::new();
    let mut schemas = Map::new();
    for entry in OPERATIONS {
        let request = format!("{}Request", entry.name);
        let result = format!("{}Result", entry.name);
        schemas.insert(request.clone(), standalone(&request, entry.request_schema().to_value()));
        schemas.insert(result.clone(), standalone(&result, entry.result_schema().to_value()));
        let operation = json!({
            "operationId": entry.name,
            "summary": entry.summary,
            "tags": [if entry.access == Access::Reads { "reads" } else { "writes" }],
            "requestBody": {
                "required": true,
                "content": { "application/json": { "schema": { "$ref": format!("#/components/schemas/{request}") } } }
            },
            "responses": {
                "200": {
                    "description": "the result record",
                    "content": { "application/json": { "schema": { "$ref": format!("#/components/schemas/{result}") } } }
                },
                "default": { "$ref": "#/components/responses/Error" }
            }
        });
        paths.insert(format!("/api/ops/{}", entry.name), json!({ "post": operation }));
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "memcore",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "memcore's operations over HTTP. Every operation takes its request record \
                 at POST /api/ops/{name}; REST paths (/api/memories, /api/search, /api/memory/...) \
                 build the same records. Errors are {\"error\": {category, message, recovery}}: \
                 400 a malformed request, 401 no token, 403 a foreign Host or Origin, 404 not \
                 found, 409 a conflict (an edit of a version no longer current), 413 too large, \
                 422 invalid, 501 unsupported by the store."
        },
        "servers": [{ "url": "/" }],
        "paths": paths,
        "components": {
            "schemas": schemas,
            "responses": {
                "Error": {
                    "description": "an error, with memcore's category and recovery hint",
                    "content": { "application/json": { "schema": {
                        "type": "object",
                        "properties": { "error": {
                            "type": "object",
                            "properties": {
                                "category": { "type": "string" },
                                "message": { "type": "string" },
                                "recovery": { "type": "string" }
                            },
                            "required": ["category", "message", "recovery"]
                        } },
                        "required": ["error"]
                    } } }
                }
            },
            "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer" } }
        }
    })
}

/// A record's schema standing alone in `components` as `name`: OpenAPI 3.1 schemas are
/// JSON Schema 2020-12, where the record's own `#/$defs/...` references resolve against
/// its `$id`, so each gets one of its own.
fn standalone(name: &str, mut schema: Value) -> Value {
    if let Value::Object(fields) = &mut schema {
        fields.remove("$schema");
        fields.insert("$id".into(), Value::String(format!("urn:memcore:{name}")));
    }
    schema
}
