//! `memcore serve`: the library over HTTP (seed 004's API), on 127.0.0.1 by default.
//!
//! - [`routes`]: every operation at `POST /api/ops/{name}` with its request record as the
//!   body, and REST paths (seed 004's where they fit) that build the same records;
//! - [`guard`]: what a request must bring: a `Host` this server answers to (no DNS
//!   rebinding), a same-site `Origin` for a change, the bearer token when one is set;
//! - [`login`]: a browser's session cookie standing for the token;
//! - [`reply`]: results and errors as JSON, with the status each error category means;
//! - [`openapi`]: the OpenAPI document, made from the operations' JSON Schemas;
//! - [`ui`]: the memory browser, pages over the same store (`memcore ui`).

mod guard;
mod login;
mod openapi;
mod reply;
mod routes;
mod ui;

use std::net::SocketAddr;
use std::sync::Arc;

use memcore::Memcore;

use crate::cli::ServeArgs;
use crate::failure::Failure;
use crate::output::Output;

pub(crate) use guard::Access;

/// The environment variable holding the bearer token requests must bring.
pub(crate) const TOKEN_VAR: &str = "MEMCORE_SERVE_TOKEN";
/// The largest request body taken, in bytes.
const MAX_BODY_BYTES: usize = 16 << 20;

/// Serves `memcore` on the address `args` names until the process is stopped.
pub(crate) fn serve(memcore: Memcore, args: &ServeArgs, out: &mut Output) -> Result<(), Failure> {
    let token = std::env::var(TOKEN_VAR).ok().filter(|token| !token.is_empty());
    let addr: SocketAddr = args.addr;
    if !addr.ip().is_loopback() && token.is_none() {
        return Err(Failure::usage(
            format!("serving on {addr}, which other machines can reach, needs a token"),
            format!(
                "set {TOKEN_VAR} to a long random secret (clients send `Authorization: Bearer \
                 <it>`), or serve on 127.0.0.1"
            ),
        ));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| memcore::Error::io("starting the HTTP server's event loop", err))?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|err| memcore::Error::io(format!("listening on {addr}"), err))?;
        let bound = listener
            .local_addr()
            .map_err(|err| memcore::Error::io("reading the address served", err))?;
        let token = match token {
            Some(token) => Some((token, login::new_session()?)),
            None => None,
        };
        let access = Access::new(bound, &args.allow_hosts, token, MAX_BODY_BYTES);
        let app = routes::router(Arc::new(memcore), access, MAX_BODY_BYTES);
        out.line(&format!(
            "memcore serves http://{bound}/ (the memory browser; the API under /api/)"
        ))?;
        axum::serve(listener, app)
            .await
            .map_err(|err| memcore::Error::io(format!("serving on {bound}"), err).into())
    })
}
