//! `memcore mcp`: the store as an MCP server over stdio, built on the official Rust SDK
//! (`rmcp`).
//!
//! Every tool is an operation of [`memcore::api`]: its name, its summary as the description,
//! its request record's JSON Schema as the input schema and its result record's as the output
//! schema ([`Catalogue`]). A call runs [`memcore::api::OperationEntry::call`], the same entry
//! point the C ABI, Python and `memcore call` use, so no field is copied by hand here and a
//! new operation is a new tool. Failures are tool errors (`isError: true`) carrying memcore's
//! category, message and recovery hint ([`server`]).
//!
//! Standard output is the protocol: nothing else may print there.

mod catalogue;
mod server;

use std::sync::Arc;

use memcore::Memcore;
use rmcp::ServiceExt;
use rmcp::service::QuitReason;

pub(crate) use self::catalogue::Catalogue;
use self::server::Server;
use crate::failure::Failure;

/// Serves `memcore`'s `tools` on stdin/stdout until the client closes the connection.
///
/// A call in flight when the client closes its end runs to its end before the process exits:
/// dropping the runtime waits for its blocking tasks (so never shut it down with a timeout
/// here). A client that then kills the server leaves that write whole or absent, since every
/// write is atomic.
pub(crate) fn serve(memcore: Memcore, tools: Catalogue) -> Result<(), Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| memcore::Error::io("starting the MCP server's event loop", err))?;
    let server = Server::new(Arc::new(memcore), tools);
    runtime.block_on(async {
        let running = server.serve(rmcp::transport::stdio()).await.map_err(|err| {
            Failure::usage(
                format!("the MCP client did not complete the handshake: {err}"),
                "run `memcore mcp` from an MCP client (it speaks JSON-RPC on stdin/stdout), \
                 e.g. `{\"command\": \"memcore\", \"args\": [\"mcp\"]}` in its server settings",
            )
        })?;
        match running.waiting().await {
            Ok(QuitReason::JoinError(err)) | Err(err) => Err(stopped(err)),
            Ok(_) => Ok(()),
        }
    })
}

/// The failure of a server whose protocol task stopped unexpectedly (a bug).
fn stopped(err: tokio::task::JoinError) -> Failure {
    let err = std::io::Error::other(format!("the MCP server stopped unexpectedly: {err}"));
    memcore::Error::io("serving MCP", err).into()
}
