//! Queries of the link graph over the full-text index: which memory a target names, and the
//! edges into a node.

use std::collections::BTreeMap;

use super::term::{parse_edge_term, target_prefix};
use super::{EdgeTypes, GHOST_PREFIX, Link, LinkEdge, normalize_target};
use crate::index::TextIndex;
use crate::{MemoryRef, Result};

/// The memory `target` names, if the index holds one: `collection/id` exactly, or an id (in
/// the first collection, by name, of those holding it).
pub(crate) fn resolve(text: &TextIndex, target: &str) -> Result<Option<MemoryRef>> {
    let Ok(reference) = target.parse::<MemoryRef>() else { return Ok(None) };
    if reference.is_qualified() {
        return Ok(text.has_key(&reference)?.then_some(reference));
    }
    let mut keys = text.keys_with_id(reference.id())?;
    keys.sort_unstable();
    Ok(keys.into_iter().next())
}

/// The node a link to `target` reaches: the memory it names, or the ghost node.
pub(crate) fn node_of(resolved: Option<&MemoryRef>, target: &str) -> (String, bool) {
    match resolved {
        Some(memory) => (memory.to_string(), false),
        None => (format!("{GHOST_PREFIX}{target}"), true),
    }
}

/// The edge of `link`, held by `source`, whose target resolved to `resolved`.
pub(crate) fn edge(source: &MemoryRef, link: Link, resolved: Option<&MemoryRef>) -> LinkEdge {
    let (node, ghost) = node_of(resolved, &link.target);
    LinkEdge {
        source: source.clone(),
        target: link.target,
        node,
        ghost,
        label: link.label,
        edge_type: link.edge_type,
        anchor: link.anchor,
        start_char: link.start_char,
        end_char: link.end_char,
    }
}

/// The target `written` names, normalised: a memory, `ghost:<target>` or a target as links
/// write it; `None` when it cannot be a link target.
pub(crate) fn normalize_node(written: &str) -> Option<String> {
    normalize_target(written.trim().strip_prefix(GHOST_PREFIX).unwrap_or(written))
}

/// Every edge into the node `target` names (see [`normalize_node`]), by source then position.
/// Links to a memory count whether they name it `collection/id` or by its id alone.
pub(crate) fn backlinks(
    text: &TextIndex,
    target: &str,
    edge_types: &EdgeTypes,
) -> Result<Vec<LinkEdge>> {
    let Some(target) = normalize_node(target) else { return Ok(Vec::new()) };
    let resolved = resolve(text, &target)?;
    let mut written = vec![target.clone()];
    if let Some(memory) = &resolved {
        let qualified = memory.to_string();
        if !written.contains(&qualified) {
            written.push(qualified);
        }
        // `[[id]]` names this memory only if the id resolves to it (not to the same id in
        // another collection).
        let id = memory.id().to_string();
        if !written.contains(&id) && resolve(text, &id)?.as_ref() == Some(memory) {
            written.push(id);
        }
    }
    let mut edges = BTreeMap::new();
    for name in &written {
        for term in text.link_terms(&target_prefix(name))? {
            let Some(parsed) = parse_edge_term(&term) else { continue };
            let (node, ghost) = node_of(resolved.as_ref(), &parsed.target);
            let edge = LinkEdge {
                edge_type: edge_types.infer(&parsed.anchor).to_owned(),
                source: parsed.source,
                target: parsed.target,
                node,
                ghost,
                label: parsed.label,
                anchor: parsed.anchor,
                start_char: parsed.start_char,
                end_char: parsed.end_char,
            };
            edges.insert((edge.source.clone(), edge.start_char), edge);
        }
    }
    Ok(edges.into_values().collect())
}
