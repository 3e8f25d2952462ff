//! [`Server`]: the MCP handler. `tools/list` is the [`Catalogue`]; `tools/call` runs the
//! operation on a blocking thread and answers with its result record as structured content.

use std::sync::Arc;

use memcore::Memcore;
use memcore::api::OperationEntry;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

use super::catalogue::{Catalogue, tool};

/// What the server tells a client about using it, once, at the handshake.
const INSTRUCTIONS: &str = "memcore is this project's long-term memory. Search it before \
    answering from assumptions (`search`; `compose` gives a ready context block within a token \
    budget), store what is worth keeping (`capture` decides from a message; `put` stores a \
    memory as given: markdown content, a type such as decision or preference, tags), and keep \
    it true (`update`, `append`, `merge`, `delete` to the trash, `restore`). A memory is named \
    `collection/id` or by its id alone. Every failure carries a category and a recovery hint.";

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

/// A tool error a model can read: the text says what went wrong and what to do; the
/// structured content is `{"error": {"category", "message", "recovery"}}`, the shape of the
/// CLI's `--json` errors.
fn failure(category: &str, message: &str, recovery: &str) -> CallToolResult {
    let record = json!({
        "error": { "category": category, "message": message, "recovery": recovery }
    });
    let mut result = CallToolResult::structured_error(record);
    result.content = vec![ContentBlock::text(format!("[{category}] {message}\nhint: {recovery}"))];
    result
}

impl ServerHandler for Server {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("memcore", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.find(name).map(tool)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(entry) = self.tools.find(&request.name) else {
            let offered: Vec<String> =
                self.tools.tools().into_iter().map(|tool| tool.name.into_owned()).collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool {:?}; this server offers: {}",
                    request.name,
                    offered.join(", ")
                ),
                None,
            ));
        };
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        Ok(self.run(entry, arguments).await.into())
    }
}
