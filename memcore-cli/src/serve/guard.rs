//! [`Access`]: what every request must bring before it reaches an operation.
//!
//! - a `Host` header naming this server (a page on another site that rebinds its DNS name
//!   to 127.0.0.1 sends its own name, and is refused);
//! - for a change (any method but `GET`, `HEAD`, `OPTIONS`): no cross-site `Origin` or
//!   `Sec-Fetch-Site`, and a JSON body when it has one (a form another site posts is
//!   neither);
//! - the bearer token, when the server has one (always when it listens beyond loopback), or
//!   from a browser the session cookie of [`super::login`]; a browser without either asking
//!   for a page is sent to log in (the login page and the stylesheet and script it needs
//!   are open to all).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};

use super::reply::{Refusal, refused};

/// The page where a browser gives the token.
pub(super) const LOGIN_PATH: &str = "/login";
/// The cookie a browser that logged in sends instead of the token.
pub(super) const SESSION_COOKIE: &str = "memcore_session";

/// Whether `path` is open to requests without the token: the login page and the
/// stylesheet and script it needs (embedded assets, the same for everyone).
fn is_open(path: &str) -> bool {
    path == LOGIN_PATH || path.starts_with("/assets/")
}

/// Who may call the server.
#[derive(Debug, Clone)]
pub(crate) struct Access {
    /// The `Host` values it answers to, lower case (`127.0.0.1:7878`, `localhost:7878`).
    hosts: Vec<String>,
    /// The bearer token requests must bring, if any.
    token: Option<String>,
    /// The session cookie's value standing for the token in a browser: random for each
    /// server process, so the token itself is never stored there and a restart ends every
    /// browser's session.
    session: Option<String>,
    /// The largest body taken, in bytes: a longer `Content-Length` is refused unread.
    max_body: usize,
}

impl Access {
    /// The access of a server bound to `bound`: its own address (and, on loopback,
    /// `localhost` and `[::1]` at its port) and `extra_hosts` as hosts, `token` if given
    /// (with `session` as the browsers' cookie for it).
    pub(crate) fn new(
        bound: SocketAddr,
        extra_hosts: &[String],
        token: Option<(String, String)>,
        max_body: usize,
    ) -> Self {
        let port = bound.port();
        let mut hosts = vec![bound.to_string()];
        if bound.ip().is_loopback() {
            hosts.extend([
                format!("127.0.0.1:{port}"),
                format!("localhost:{port}"),
                format!("[::1]:{port}"),
            ]);
        }
        hosts.extend(extra_hosts.iter().map(|host| host.to_ascii_lowercase()));
        hosts.sort();
        hosts.dedup();
        let (token, session) = token.unzip();
        Self { hosts, token, session, max_body }
    }

    /// Whether requests must bring a token.
    pub(super) fn needs_token(&self) -> bool {
        self.token.is_some()
    }

    /// The session cookie's value when `given` is the token.
    pub(super) fn session_for(&self, given: &str) -> Option<&str> {
        let token = self.token.as_deref()?;
        self.session.as_deref().filter(|_| same(given.as_bytes(), token.as_bytes()))
    }

    /// Whether the request brings the token: as a bearer token, or as the session cookie.
    fn authorized(&self, headers: &HeaderMap) -> bool {
        let (Some(token), Some(session)) = (&self.token, &self.session) else {
            return true;
        };
        let bearer = text(headers, header::AUTHORIZATION).and_then(|v| v.strip_prefix("Bearer "));
        if bearer.is_some_and(|given| same(given.as_bytes(), token.as_bytes())) {
            return true;
        }
        headers.get_all(header::COOKIE).iter().filter_map(|v| v.to_str().ok()).any(|cookies| {
            cookies.split(';').filter_map(|c| c.trim().split_once('=')).any(|(name, value)| {
                name == SESSION_COOKIE && same(value.as_bytes(), session.as_bytes())
            })
        })
    }

    /// Whether a request of `method` for `path` with `headers` may go on; why not otherwise.
    fn admit(&self, method: &Method, path: &str, headers: &HeaderMap) -> Result<(), Denied> {
        let host = text(headers, header::HOST).map(str::to_ascii_lowercase);
        if !host.as_ref().is_some_and(|host| self.hosts.contains(host)) {
            return Err(Denied::Refused(refused(
                StatusCode::FORBIDDEN,
                &format!(
                    "this server does not answer to the host {}",
                    host.as_deref().unwrap_or("(none)")
                ),
                &format!(
                    "address it as one of: {} (`memcore serve --allow-host NAME:PORT` adds one)",
                    self.hosts.join(", ")
                ),
            )));
        }
        if !is_open(path) && !self.authorized(headers) {
            if *method == Method::GET && !path.starts_with("/api/") {
                return Err(Denied::Login);
            }
            return Err(Denied::Refused(
                refused(
                    StatusCode::UNAUTHORIZED,
                    "a missing or wrong bearer token",
                    "send `Authorization: Bearer <token>` with the server's MEMCORE_SERVE_TOKEN \
                     (a browser logs in at /login)",
                )
                .challenge(),
            ));
        }
        if matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS) {
            return Ok(());
        }
        let cross_site = text(headers, "sec-fetch-site").is_some_and(|site| site == "cross-site");
        let foreign_origin = text(headers, header::ORIGIN).is_some_and(|origin| {
            !self.hosts.iter().any(|host| origin.eq_ignore_ascii_case(&format!("http://{host}")))
        });
        if cross_site || foreign_origin {
            return Err(Denied::Refused(refused(
                StatusCode::FORBIDDEN,
                "a change requested from another site",
                "change the store from this server's own pages, or from a program (no Origin)",
            )));
        }
        let length = text(headers, header::CONTENT_LENGTH).and_then(|len| len.parse::<u64>().ok());
        if length.is_some_and(|len| len > self.max_body as u64) {
            return Err(Denied::Refused(refused(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("a request body of {} bytes", length.unwrap_or_default()),
                &format!("send at most {} MiB", self.max_body >> 20),
            )));
        }
        let has_body =
            length.is_some_and(|len| len > 0) || headers.contains_key(header::TRANSFER_ENCODING);
        let json = text(headers, header::CONTENT_TYPE).is_some_and(|kind| {
            kind.split(';')
                .next()
                .is_some_and(|k| k.trim().eq_ignore_ascii_case("application/json"))
        });
        if has_body && !json {
            return Err(Denied::Refused(refused(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "a request body that is not JSON",
                "send the request record as JSON with `Content-Type: application/json`",
            )));
        }
        Ok(())
    }
}

/// Why a request may not go on.
#[derive(Debug)]
enum Denied {
    /// Refused, with an error reply.
    Refused(Refusal),
    /// A browser without the session cookie asked for a page: it logs in first.
    Login,
}

/// The middleware: [`Access::admit`], then the route.
pub(super) async fn check(
    State(access): State<Arc<Access>>,
    request: Request,
    next: Next,
) -> Response {
    match access.admit(request.method(), request.uri().path(), request.headers()) {
        Ok(()) => next.run(request).await,
        Err(Denied::Refused(refusal)) => refusal.into_response(),
        Err(Denied::Login) => Redirect::to(LOGIN_PATH).into_response(),
    }
}

/// A header's value, when it is text.
fn text(headers: &HeaderMap, name: impl header::AsHeaderName) -> Option<&str> {
    headers.get(name).and_then(|value| value.to_str().ok())
}

/// Whether `a` and `b` are equal, in time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, value.parse().unwrap());
        }
        map
    }

    #[test]
    fn hosts_origins_and_tokens_are_checked() {
        let local = Access::new("127.0.0.1:7878".parse().unwrap(), &[], None, 1 << 20);
        let ok = headers(&[("host", "localhost:7878")]);
        assert!(local.admit(&Method::GET, "/api/memories", &ok).is_ok());
        assert!(
            local.admit(&Method::GET, "/", &headers(&[("host", "evil.example:7878")])).is_err()
        );
        assert!(local.admit(&Method::GET, "/", &HeaderMap::new()).is_err());
        let foreign = headers(&[("host", "127.0.0.1:7878"), ("origin", "http://evil.example")]);
        assert!(
            local.admit(&Method::GET, "/api/memories", &foreign).is_ok(),
            "a read from anywhere"
        );
        assert!(
            local.admit(&Method::POST, "/api/search", &foreign).is_err(),
            "a change only from here"
        );
        let form = headers(&[
            ("host", "127.0.0.1:7878"),
            ("content-type", "text/plain"),
            ("content-length", "3"),
        ]);
        assert!(local.admit(&Method::POST, "/api/search", &form).is_err());
        let huge = headers(&[
            ("host", "127.0.0.1:7878"),
            ("content-type", "application/json"),
            ("content-length", "2000000"),
        ]);
        assert!(local.admit(&Method::POST, "/api/search", &huge).is_err());

        let wide = Access::new(
            "0.0.0.0:7878".parse().unwrap(),
            &[],
            Some(("s3cret".into(), "c00kie".into())),
            1 << 20,
        );
        let bare = headers(&[("host", "0.0.0.0:7878")]);
        assert!(matches!(
            wide.admit(&Method::GET, "/api/memories", &bare),
            Err(Denied::Refused(_))
        ));
        assert!(matches!(wide.admit(&Method::GET, "/", &bare), Err(Denied::Login)));
        assert!(wide.admit(&Method::GET, LOGIN_PATH, &bare).is_ok());
        assert!(wide.admit(&Method::GET, "/assets/ui.js", &bare).is_ok(), "the login page's");
        let good = headers(&[("host", "0.0.0.0:7878"), ("authorization", "Bearer s3cret")]);
        assert!(wide.admit(&Method::GET, "/api/memories", &good).is_ok());
        let bad = headers(&[("host", "0.0.0.0:7878"), ("authorization", "Bearer s3cre7")]);
        assert!(wide.admit(&Method::GET, "/api/memories", &bad).is_err());
        assert_eq!(
            (wide.session_for("s3cret"), wide.session_for("s3cre7")),
            (Some("c00kie"), None)
        );
        let cookie = "theme=dark; memcore_session=c00kie";
        let mut browser = headers(&[("host", "0.0.0.0:7878")]);
        browser.insert(header::COOKIE, cookie.parse().unwrap());
        assert!(wide.admit(&Method::GET, "/", &browser).is_ok());
        assert!(wide.admit(&Method::GET, "/api/memories", &browser).is_ok());
        browser.insert(header::COOKIE, "memcore_session=forged".parse().unwrap());
        assert!(wide.admit(&Method::GET, "/api/memories", &browser).is_err());
    }
}
