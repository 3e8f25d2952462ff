//! [`Catalogue`]: the operations `memcore mcp` offers as tools, and each one's MCP tool
//! description built from the operation registry.

use std::sync::Arc;

use memcore::api::{Access, OPERATIONS, OperationEntry, operation};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::Value;

use crate::failure::Failure;

/// The tools offered when `--tools` is not given: what an agent uses while it works. Seed
/// 001's nine (create `put`, read `get`, `update`, `append`, `delete`, `search`, search linked
/// `search` with `linked_to` and `backlinks`, `stats`, `merge`), the way back (`restore`),
/// browsing (`list`, `links`), the engines (`capture`, `compose`, `lifecycle`,
/// `transition`), `recall` (labelled evidence across a tiered store's tiers), `retrieve`
/// (passages into a live session, mid-conversation) and `docs_search`. Index upkeep,
/// history and sessions are one `--tools all` away.
const AGENT_TOOLS: [&str; 19] = [
    "put",
    "get",
    "update",
    "append",
    "delete",
    "restore",
    "search",
    "recall",
    "retrieve",
    "list",
    "links",
    "backlinks",
    "stats",
    "merge",
    "capture",
    "compose",
    "lifecycle",
    "transition",
    "docs_search",
];

/// Operations never offered as tools: trusting a program to run is the user's decision, not
/// an agent's (`memcore project trust` at a terminal).
const USER_ONLY: [&str; 1] = ["project_trust"];

/// Whether the operation `name` is the user's own, never a tool.
pub(crate) fn is_user_only(name: &str) -> bool {
    USER_ONLY.contains(&name)
}

/// The operations offered as tools, in the registry's order.
#[derive(Debug, Clone)]
pub(crate) struct Catalogue {
    entries: Vec<&'static OperationEntry>,
}

impl Catalogue {
    /// The tools `--tools` names: none given means the agent set, `all` every operation but
    /// the user's own ([`USER_ONLY`]), otherwise the operations named.
    ///
    /// # Errors
    ///
    /// A usage failure naming an operation that does not exist or is the user's own.
    pub(crate) fn select(names: &[String]) -> Result<Self, Failure> {
        let wanted: Vec<&str> = match names {
            [] => AGENT_TOOLS.to_vec(),
            [all] if all == "all" => OPERATIONS.iter().map(|entry| entry.name).collect(),
            names => {
                for name in names {
                    let name = name.trim();
                    operation(name)?;
                    if USER_ONLY.contains(&name) {
                        return Err(Failure::usage(
                            format!("{name} is never offered over MCP"),
                            format!("run `memcore {}` yourself", name.replace('_', " ")),
                        ));
                    }
                }
                names.iter().map(|name| name.trim()).collect()
            }
        };
        let entries = OPERATIONS
            .iter()
            .filter(|entry| wanted.contains(&entry.name) && !USER_ONLY.contains(&entry.name))
            .collect();
        Ok(Self { entries })
    }

    /// The operation offered as the tool `name`.
    pub(crate) fn find(&self, name: &str) -> Option<&'static OperationEntry> {
        self.entries.iter().copied().find(|entry| entry.name == name)
    }

    /// The names of the tools, in order.
    pub(crate) fn names(&self) -> Vec<&'static str> {
        self.entries.iter().map(|entry| entry.name).collect()
    }

    /// Every tool, as `tools/list` describes it.
    pub(crate) fn tools(&self) -> Vec<Tool> {
        self.entries.iter().map(|entry| tool(entry)).collect()
    }
}

/// The MCP tool of one operation: its name, summary, request schema as the input schema,
/// result schema as the output schema, and whether it only reads.
fn tool(entry: &OperationEntry) -> Tool {
    let reads = entry.access == Access::Reads;
    let annotations = ToolAnnotations::from_raw(
        None,
        Some(reads),
        // Writes keep history (versions, the trash), but a merge or a prune still removes
        // what a client sees: leave the hint at its cautious default.
        None,
        Some(reads),
        Some(false),
    );
    Tool::new(entry.name, entry.summary, Arc::new(object(entry.request_schema().to_value())))
        .with_raw_output_schema(Arc::new(object(entry.result_schema().to_value())))
        .with_annotations(annotations)
}

/// A JSON Schema as the object MCP carries. A record's schema is always an object (the
/// registry's tests hold every operation's request and result to it).
fn object(schema: Value) -> JsonObject {
    match schema {
        Value::Object(fields) => fields,
        other => unreachable!("a record's JSON Schema is an object, not {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_is_a_tool_with_object_schemas() {
        let catalogue = Catalogue::select(&["all".to_owned()]).expect("all");
        let tools = catalogue.tools();
        assert_eq!(tools.len(), OPERATIONS.len() - USER_ONLY.len());
        assert!(Catalogue::select(&["project_trust".to_owned()]).is_err());
        for tool in tools {
            assert_eq!(tool.input_schema.get("type"), Some(&"object".into()), "{}", tool.name);
            let output = tool.output_schema.as_ref().expect("an output schema");
            assert_eq!(output.get("type"), Some(&"object".into()), "{}", tool.name);
            assert!(tool.description.as_ref().is_some_and(|text| !text.is_empty()));
        }
    }

    #[test]
    fn the_default_is_the_agent_set_in_registry_order() {
        let catalogue = Catalogue::select(&[]).expect("default");
        let names: Vec<_> = catalogue.tools().into_iter().map(|tool| tool.name).collect();
        assert_eq!(names.len(), AGENT_TOOLS.len(), "every agent tool is an operation");
        assert_eq!(names.first().map(AsRef::as_ref), Some("put"));
        assert_eq!(catalogue.names().len(), AGENT_TOOLS.len());
        let search = catalogue.find("search").map(tool).expect("search");
        let hints = search.annotations.expect("annotations");
        assert_eq!((hints.read_only_hint, hints.open_world_hint), (Some(true), Some(false)));
        assert!(catalogue.find("reindex").is_none());
    }

    #[test]
    fn a_named_list_is_checked() {
        let chosen = Catalogue::select(&["search".to_owned(), " get".to_owned()]).expect("ok");
        assert_eq!(chosen.entries.len(), 2);
        let err = Catalogue::select(&["serch".to_owned()]).expect_err("unknown");
        assert!(err.message().contains("unknown operation \"serch\""), "{}", err.message());
    }
}
