//! Browsers and the token. A browser cannot add a bearer header to the pages it loads, so
//! beyond loopback it logs in once: `POST /login` with the token sets a session cookie
//! (`HttpOnly`, `SameSite=Strict`) that [`super::guard`] takes instead of the token. The
//! cookie's value is random for each server process: the token is never stored in the
//! browser, and restarting the server ends every browser's session.

use std::sync::Arc;

use axum::Extension;
use axum::body::Bytes;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{Markup, html};

use super::guard::{Access, SESSION_COOKIE};
use super::reply::refused;
use super::ui::layout::{self, Nav};

/// A new session cookie value: 256 random bits from the operating system, in hex.
pub(super) fn new_session() -> memcore::Result<String> {
    let mut session = String::with_capacity(64);
    for _ in 0..4 {
        let bits = getrandom::u64().map_err(|err| {
            memcore::Error::io("drawing a random session key", std::io::Error::other(err))
        })?;
        session.push_str(&format!("{bits:016x}"));
    }
    Ok(session)
}

/// `GET /login`: the login page, or the first page when this server needs no token.
pub(super) async fn page(Extension(access): Extension<Arc<Access>>) -> Response {
    if access.needs_token() {
        login_page().into_response()
    } else {
        Redirect::to("/").into_response()
    }
}

/// The login page: where a browser gives the server's token (`ui.js` posts it to `POST
/// /login`; the form's own post, without the script, is refused as not JSON, never sent
/// as a URL).
fn login_page() -> Markup {
    let body = html! {
        h1 { "Log in" }
        p { "This server needs its token (the MEMCORE_SERVE_TOKEN it was started with)." }
        form #login method="post" {
            label for="token" { "Token" }
            input #token type="password" name="token" autocomplete="current-password" required;
            div.actions {
                button type="submit" { "Log in" }
                output #login-status role="status" aria-live="polite" {}
            }
        }
    };
    layout::page("Log in", Nav::None, body)
}

/// `POST /login` with `{"token": "..."}`: the session cookie when the token is right, a
/// `401` when it is wrong.
pub(super) async fn login(Extension(access): Extension<Arc<Access>>, body: Bytes) -> Response {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Login {
        token: String,
    }
    if !access.needs_token() {
        let message = "this server takes no token (it listens on loopback only)";
        return refused(StatusCode::BAD_REQUEST, message, "open / directly").into_response();
    }
    let Ok(given) = serde_json::from_slice::<Login>(&body) else {
        let message = "the login body is not {\"token\": \"...\"}";
        let recovery = "send {\"token\": \"<MEMCORE_SERVE_TOKEN>\"} as JSON";
        return refused(StatusCode::BAD_REQUEST, message, recovery).into_response();
    };
    let Some(session) = access.session_for(&given.token) else {
        let recovery = "give the MEMCORE_SERVE_TOKEN the server was started with";
        return refused(StatusCode::UNAUTHORIZED, "a wrong token", recovery).into_response();
    };
    let cookie = format!("{SESSION_COOKIE}={session}; Path=/; HttpOnly; SameSite=Strict");
    (StatusCode::NO_CONTENT, [(header::SET_COOKIE, cookie)]).into_response()
}
