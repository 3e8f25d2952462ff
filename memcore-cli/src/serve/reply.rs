//! Replies: a result record as JSON, an error as `{"error": {category, message, recovery}}`
//! with the HTTP status its category means.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use memcore::{Category, Error, ErrorInfo};
use serde_json::{Value, json};

/// A result record, `200 OK`.
pub(super) fn ok(result: Value) -> Response {
    Json(result).into_response()
}

/// An error reply: its status and `{"error": ...}` body.
#[derive(Debug)]
pub(super) struct Refusal {
    status: StatusCode,
    error: Value,
    /// Whether to ask for a bearer token (`WWW-Authenticate: Bearer`).
    challenge: bool,
}

impl Refusal {
    /// The same refusal asking for a bearer token.
    pub(super) fn challenge(mut self) -> Self {
        self.challenge = true;
        self
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(json!({ "error": self.error }))).into_response();
        if self.challenge {
            let bearer = HeaderValue::from_static("Bearer");
            response.headers_mut().insert(header::WWW_AUTHENTICATE, bearer);
        }
        response
    }
}

/// The reply to a failed operation: its error with the status its kind means.
pub(super) fn failed(err: &Error) -> Refusal {
    let error = serde_json::to_value(ErrorInfo::of(err)).unwrap_or_default();
    Refusal { status: status_of(err), error, challenge: false }
}

/// The HTTP status an error means.
pub(super) fn status_of(err: &Error) -> StatusCode {
    match err {
        // The request itself is wrong: a field, a type, JSON that does not parse.
        Error::Request { .. } => StatusCode::BAD_REQUEST,
        _ => match err.category() {
            Category::Validation => StatusCode::UNPROCESSABLE_ENTITY,
            Category::NotFound => StatusCode::NOT_FOUND,
            Category::Conflict => StatusCode::CONFLICT,
            Category::Unsupported => StatusCode::NOT_IMPLEMENTED,
            Category::Embedding => StatusCode::SERVICE_UNAVAILABLE,
            Category::Callback => StatusCode::BAD_GATEWAY,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        },
    }
}

/// A refusal before any operation runs (a foreign host, a missing token, a body too
/// large), in the same shape as an operation's error.
pub(super) fn refused(status: StatusCode, message: &str, recovery: &str) -> Refusal {
    let error = json!({ "category": "VALIDATION", "message": message, "recovery": recovery });
    Refusal { status, error, challenge: false }
}
