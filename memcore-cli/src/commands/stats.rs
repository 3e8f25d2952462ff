//! `stats`: where the store is and what it holds.

use memcore::{GraphStatus, Memcore};
use serde_json::{Value, json};

use crate::failure::Failure;
use crate::output::{Output, serde_name};

/// [`Memcore::vector_graph`], the vector index's approximate-search graph, as JSON
/// (`{"state": "off|starting|ready|failed", ...}`, `null` until semantic search has been used
/// by this process) and in words.
fn vector_graph(status: Option<GraphStatus>) -> (Value, String) {
    let Some(status) = status else {
        return (Value::Null, "not started: no semantic search in this process".to_owned());
    };
    match status {
        GraphStatus::Off => (json!({ "state": "off" }), "off: vector search scans".to_owned()),
        GraphStatus::Starting { basename } => {
            let how = basename.as_ref().map_or("building".to_owned(), |d| format!("loading {d}"));
            let words = format!("starting ({how}); vector search scans meanwhile");
            (json!({ "state": "starting", "basename": basename }), words)
        }
        GraphStatus::Ready { indexed, rows } => (
            json!({ "state": "ready", "indexed": indexed, "rows": rows }),
            format!("ready: {indexed} of {rows} vectors in the graph"),
        ),
        GraphStatus::Failed(why) => {
            let words = format!("failed, vector search scans: {why}");
            (json!({ "state": "failed", "error": why }), words)
        }
        other => (json!({ "state": format!("{other:?}") }), format!("{other:?}")),
    }
}

/// `stats`: the store's location and settings, its memories by collection and status, and
/// what the vector index's approximate-search graph is doing.
pub(super) fn run(memcore: &Memcore, out: &mut Output) -> Result<(), Failure> {
    let stats = memcore.stats()?;
    let location = memcore.location();
    let versioning = serde_name(&location.config.versioning);
    let backend = serde_name(&location.config.backend);
    let (graph, graph_words) = vector_graph(memcore.vector_graph());
    if out.json() {
        let mut value = json!({
            "store": location.root,
            "config_file": location.config_file,
            "backend": backend,
            "versioning": versioning,
            "vector_graph": graph,
        });
        if let (Value::Object(value), Ok(Value::Object(counts))) =
            (&mut value, serde_json::to_value(&stats))
        {
            value.extend(counts);
        }
        return out.print_json(&value);
    }
    let settings =
        location.config_file.as_ref().map_or("defaults".into(), |f| f.display().to_string());
    out.fields(&[
        ("store", location.root.display().to_string()),
        ("settings", settings),
        ("backend", backend),
        ("versioning", versioning),
        ("memories", stats.memories.to_string()),
        ("unreadable", stats.unreadable.to_string()),
        ("graph", graph_words),
    ])?;
    for (header, counts) in [("COLLECTION", &stats.collections), ("STATUS", &stats.statuses)] {
        if counts.is_empty() {
            continue;
        }
        out.line("")?;
        let rows: Vec<Vec<String>> =
            counts.iter().map(|(name, n)| vec![name.clone(), n.to_string()]).collect();
        out.table(&[header, "MEMORIES"], &rows)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vector_graph_is_named_by_its_state() {
        let json = |status| vector_graph(status).0;
        assert_eq!(json(None), Value::Null);
        assert_eq!(json(Some(GraphStatus::Off)), json!({"state": "off"}));
        let loading = Some(GraphStatus::Starting { basename: Some("graph-1".into()) });
        assert_eq!(json(loading), json!({"state": "starting", "basename": "graph-1"}));
        let ready = vector_graph(Some(GraphStatus::Ready { indexed: 9, rows: 10 }));
        assert_eq!(ready.0, json!({"state": "ready", "indexed": 9, "rows": 10}));
        assert_eq!(ready.1, "ready: 9 of 10 vectors in the graph");
        let failed = Some(GraphStatus::Failed("damaged dump".into()));
        assert_eq!(json(failed), json!({"state": "failed", "error": "damaged dump"}));
    }
}
