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

pub(crate) use self::catalogue::Catalogue;
use self::server::Server;
use crate::failure::Failure;

/// Serves `memcore`'s `tools` on stdin/stdout until the client closes the connection.
///
/// A call in flight when the client goes away still finishes (its write is atomic either
/// way), then the server exits.
pub(crate) fn serve(memcore: Memcore, tools: Catalogue) -> Result<(), Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| stopped("cannot start the server's event loop", &err))?;
    let server = Server::new(Arc::new(memcore), tools);
    runtime.block_on(async {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|err| stopped("the MCP client did not complete the handshake", &err))?;
        running.waiting().await.map_err(|err| stopped("the MCP server stopped", &err))?;
        Ok(())
    })
}

/// A failure that ends the server.
fn stopped(what: &str, err: &dyn std::fmt::Display) -> Failure {
    Failure::usage(
        format!("{what}: {err}"),
        "run `memcore mcp` from an MCP client (it speaks JSON-RPC on stdin/stdout), e.g. \
         `{\"command\": \"memcore\", \"args\": [\"mcp\"]}` in the client's server settings",
    )
}
