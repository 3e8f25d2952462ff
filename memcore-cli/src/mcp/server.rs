//! [`Server`]: the MCP handler. `tools/list` is the [`Catalogue`]; `tools/call` runs the
//! operation on a blocking thread and answers with its result record as structured content.

use std::borrow::Cow;
use std::sync::Arc;

use memcore::Memcore;
use memcore::api::{OperationEntry, operation};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion, ServerCapabilities,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

use super::catalogue::Catalogue;

/// What the server tells a client about using it, at the handshake, before the tools.
const INSTRUCTIONS: &str = "memcore is this project's long-term memory: search it before \
    answering from assumptions, and store what is worth keeping. A memory is named \
    `collection/id` or by its id alone. Every failure says what went wrong and how to recover.";

/// The handler: one store, the tools offered.
pub(super) struct Server {
    memcore: Arc<Memcore>,
    tools: Catalogue,
}

impl Server {
    /// Serves `memcore` with `tools`.
    pub(super) fn new(memcore: Arc<Memcore>, tools: Catalogue) -> Self {
        Self { memcore, tools }
    }

    /// Runs `entry` on `arguments` off the event loop (memcore's calls block on disk, the
    /// model and locks): its result record, or the tool error of its failure.
    async fn run(&self, entry: &'static OperationEntry, arguments: Value) -> CallToolResult {
        let memcore = Arc::clone(&self.memcore);
        let outcome = tokio::task::spawn_blocking(move || entry.call(&memcore, arguments)).await;
        match outcome {
            Ok(Ok(result)) => CallToolResult::structured(result),
            Ok(Err(err)) => failure(err.category().as_str(), &err.to_string(), err.recovery()),
            Err(join) => failure(
                "INTERNAL",
                &format!("`{}` stopped unexpectedly: {join}", entry.name),
                "nothing was lost (writes are atomic); retry, and report the bug if it recurs",
            ),
        }
    }
}

/// A tool error: a text a model reads (`[CATEGORY] message` and the hint), then the record
/// `{"error": {"category", "message", "recovery"}}` (the CLI's `--json` error shape) as JSON
/// text. Not as structured content, which clients may check against the tool's output
/// schema, the schema of a success.
fn failure(category: &str, message: &str, recovery: &str) -> CallToolResult {
    let record = json!({
        "error": { "category": category, "message": message, "recovery": recovery }
    });
    CallToolResult::error(vec![
        ContentBlock::text(format!("[{category}] {message}\nhint: {recovery}")),
        ContentBlock::text(record.to_string()),
    ])
}

impl ServerHandler for Server {
    fn get_info(&self) -> InitializeResult {
        let tools = self.tools.names().join(", ");
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
            .with_server_info(Implementation::new("memcore", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!("{INSTRUCTIONS} Tools: {tools}."))
    }

    /// The versions up to 2025-11-25, the newest the tests speak (rmcp would also accept
    /// the 2026 draft's handshake-free mode).
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(entry) = self.tools.find(&request.name) else {
            let offered = self.tools.names().join(", ");
            let hint = match operation(&request.name) {
                Ok(_) if super::catalogue::is_user_only(&request.name) => {
                    "; it is never offered over MCP: the user runs it".to_owned()
                }
                Ok(_) => "; start the server with `--tools all` to offer it too".to_owned(),
                Err(_) => String::new(),
            };
            return Err(ErrorData::invalid_params(
                format!("unknown tool {:?}; this server offers: {offered}{hint}", request.name),
                None,
            ));
        };
        // A call the client cancelled before it started is not run (one already running
        // finishes: its write is atomic, and rmcp drops the answer).
        if context.ct.is_cancelled() {
            return Err(ErrorData::internal_error("the client cancelled the call", None));
        }
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        Ok(self.run(entry, arguments).await.into())
    }
}
