//! `links`, `backlinks`, `append` and `merge`: the link graph and the memory-bank operations.

use memcore::links::{LinkEdge, MergeRequest};
use memcore::{Memcore, MemoryRef};

use super::write::{content_limit, report};
use crate::cli::{AppendArgs, MergeArgs};
use crate::failure::Failure;
use crate::input;
use crate::output::Output;

/// `links REF`: the memory's links, a row each.
pub(super) fn links(memcore: &Memcore, reference: &str, out: &mut Output) -> Result<(), Failure> {
    let edges = memcore.links(reference)?;
    print_edges(&edges, "no links", out, |edge| edge.node.clone())
}

/// `backlinks TARGET`: the links into a memory or ghost node, a row each.
pub(super) fn backlinks(memcore: &Memcore, target: &str, out: &mut Output) -> Result<(), Failure> {
    let edges = memcore.backlinks(target)?;
    print_edges(&edges, "nothing links there", out, |edge| edge.source.to_string())
}

/// The edges as JSON (`{"links": [...]}`) or a table whose first column `other` names.
fn print_edges(
    edges: &[LinkEdge],
    none: &str,
    out: &mut Output,
    other: impl Fn(&LinkEdge) -> String,
) -> Result<(), Failure> {
    if out.json() {
        return out.print_json(&serde_json::json!({ "links": edges }));
    }
    if edges.is_empty() {
        out.note(none);
        return Ok(());
    }
    let rows: Vec<Vec<String>> = edges
        .iter()
        .map(|edge| vec![other(edge), edge.edge_type.clone(), edge.anchor.clone()])
        .collect();
    out.table(&["NODE", "TYPE", "CONTEXT"], &rows)
}

/// `append REF [FILE|-]`.
pub(super) fn append(
    memcore: &Memcore,
    args: &AppendArgs,
    out: &mut Output,
) -> Result<(), Failure> {
    let text = input::read_text(&args.file, content_limit(memcore), "a memory may hold")?;
    let memory = memcore.append(args.reference.as_str(), &text)?;
    report(out, "appended to", &memory)
}

/// `merge REF... --into ID`.
pub(super) fn merge(memcore: &Memcore, args: MergeArgs, out: &mut Output) -> Result<(), Failure> {
    let refs = args
        .references
        .iter()
        .map(|r| r.parse::<MemoryRef>())
        .collect::<memcore::Result<Vec<_>>>()?;
    let mut request = MergeRequest::new(refs, args.into.parse::<MemoryRef>()?);
    request.summary = args.summary;
    let merged = memcore.merge(&request)?;
    if out.json() {
        return out.print_json(&merged);
    }
    for reference in &merged.repointed {
        out.note(&format!("re-pointed the links of {reference}"));
    }
    for entry in &merged.trashed {
        out.note(&format!("moved {} to the trash", entry.reference));
    }
    let memory = &merged.memory;
    out.confirm(&format!("merged into {} (version {})", memory.reference, memory.memory.version))
}
