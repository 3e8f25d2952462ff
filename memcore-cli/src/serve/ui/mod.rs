//! The memory browser (`memcore ui`, seed 004 section 6): pages rendered on the server from
//! the library's own records, with a little vanilla JavaScript that saves through the JSON
//! API under `/api/`, so a change made in the browser is the request a program would send
//! (and passes the same checks: a same-site origin, a JSON body, a version for an edit).
//!
//! - [`layout`]: the page shell, the navigation and small formatting helpers;
//! - [`memories`]: browse, search, read and edit memories, with their links, backlinks and
//!   keepit markers (weight presets and the decay preview at distances 1-10);
//! - [`sessions`]: sessions by month with their versions and markers, the composition
//!   builder, and compositions (previewed, exported, deleted);
//! - [`lifecycle`]: what a lifecycle run would do now, or some days from now.
//!
//! The stylesheet and the script are compiled into the binary: nothing is fetched from
//! anywhere but this server, which the `Content-Security-Policy` of every page enforces.

pub(super) mod layout;
mod lifecycle;
mod memories;
mod sessions;

use std::sync::Arc;

use axum::Router;
use axum::extract::Query;
use axum::extract::rejection::QueryRejection;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use maud::html;
use memcore::Memcore;

use super::guard::LOGIN_PATH;
use super::reply::status_of;

/// The store every page reads.
type Store = axum::extract::State<Arc<Memcore>>;

/// The browser's routes, beside the API's.
pub(super) fn router() -> Router<Arc<Memcore>> {
    Router::new()
        .route("/", get(memories::index))
        .route("/memories/{collection}/{id}", get(memories::page))
        .route("/sessions", get(sessions::index))
        .route("/sessions/{session}", get(sessions::page))
        .route("/sessions/{session}/versions/{version}", get(sessions::version))
        .route("/compose", get(sessions::builder))
        .route("/compositions/{name}", get(sessions::composition))
        .route("/compositions/{name}/export", get(sessions::export))
        .route("/lifecycle", get(lifecycle::plan))
        .route(LOGIN_PATH, get(super::login::page).post(super::login::login))
        .route("/assets/ui.css", get(|| asset(include_str!("assets/ui.css"), "text/css")))
        .route("/assets/ui.js", get(|| asset(include_str!("assets/ui.js"), "text/javascript")))
        .layer(axum::middleware::map_response(protect))
}

/// An embedded asset, cached by the browser for an hour.
async fn asset(body: &'static str, kind: &'static str) -> Response {
    let kind = HeaderValue::from_static(kind);
    let cache = HeaderValue::from_static("max-age=3600");
    ([(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, cache)], body).into_response()
}

/// The headers of every page: scripts, styles and requests from this server only, no
/// framing by other sites, no type sniffing, no referrer beyond it.
async fn protect(mut response: Response) -> Response {
    let headers = response.headers_mut();
    let policy = "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(policy));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    response
}

/// Why a page could not be shown: the library's error, or work that stopped.
#[derive(Debug)]
enum PageError {
    /// The operation failed.
    Failed(memcore::Error),
    /// The worker thread stopped (a bug).
    Stopped(String),
}

/// A page's query parameters; for ones that do not parse (`?mode=fast`, `?ratio=x`), the
/// error page.
fn parameters<T>(query: Result<Query<T>, QueryRejection>) -> Result<T, PageError> {
    let Query(parameters) = query.map_err(|rejection| {
        PageError::Failed(memcore::Error::request(
            format!("the page's query is not understood: {}", rejection.body_text()),
            "follow the page's own links and forms, or fix the value named",
        ))
    })?;
    Ok(parameters)
}

impl From<memcore::Error> for PageError {
    fn from(err: memcore::Error) -> Self {
        Self::Failed(err)
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let (status, message, recovery) = match &self {
            Self::Failed(err) => {
                let info = memcore::ErrorInfo::of(err);
                (status_of(err), info.message, info.recovery)
            }
            Self::Stopped(why) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("the page stopped unexpectedly: {why}"),
                "nothing was lost (writes are atomic); reload, and report the bug if it recurs"
                    .to_owned(),
            ),
        };
        let body = html! {
            h1 { "Not shown" }
            p.error role="alert" { (message) }
            p { (recovery) }
            p { a href="/" { "Back to the memories" } }
        };
        (status, layout::page("Error", layout::Nav::None, body)).into_response()
    }
}

/// A page's result.
type Page = Result<maud::Markup, PageError>;

/// Runs `work` on the store on a blocking thread (the library's calls read files and
/// indexes); its result.
async fn on_store<T: Send + 'static>(
    memcore: Arc<Memcore>,
    work: impl FnOnce(&Memcore) -> memcore::Result<T> + Send + 'static,
) -> Result<T, PageError> {
    match tokio::task::spawn_blocking(move || work(&memcore)).await {
        Ok(result) => result.map_err(PageError::Failed),
        Err(join) => Err(PageError::Stopped(join.to_string())),
    }
}
