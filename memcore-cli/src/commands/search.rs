//! `search`: hybrid, semantic or full-text search with filters.

use memcore::{Memcore, Query};

use crate::cli::SearchArgs;
use crate::failure::Failure;
use crate::output::Output;

/// An optional number for a table cell: blank when absent.
fn cell<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

/// `search QUERY`: the best hits first; warnings (e.g. no model, so text only) on stderr.
pub(super) fn run(memcore: &Memcore, args: SearchArgs, out: &mut Output) -> Result<(), Failure> {
    let mut query = Query::new(args.query).mode(args.mode).limit(args.limit).tags_any(args.tags);
    for collection in args.collections {
        query = query.collection(collection);
    }
    for filter in &args.filters {
        query = query.filter(filter)?;
    }
    if !args.statuses.is_empty() {
        query = query.statuses(args.statuses);
    }
    if let Some(min) = args.min_score {
        query = query.min_similarity(min);
    }
    if let Some(target) = args.linked_to {
        query = query.linked_to(target);
    }
    query = query.expand_links(args.expand_links);
    let results = memcore.search(&query)?;
    if out.json() {
        return out.print_json(&results);
    }
    for warning in &results.warnings {
        out.warn(warning);
    }
    super::tell_maintenance(&results.maintenance, out);
    if results.hits.is_empty() {
        out.note("no memories match");
        return Ok(());
    }
    let mut headers = vec!["SCORE", "REF", "TITLE", "TAGS"];
    if out.verbose() {
        headers.extend(["TEXT#", "BM25", "VECTOR#", "SIMILARITY", "RECENCY"]);
    }
    let rows: Vec<Vec<String>> = results
        .hits
        .iter()
        .map(|hit| {
            let m = &hit.memory;
            let mut row = vec![
                format!("{:.4}", hit.score),
                m.reference.to_string(),
                m.title.clone(),
                m.tags.join(","),
            ];
            if out.verbose() {
                let parts = &hit.parts;
                row.extend([
                    cell(parts.text_rank),
                    cell(parts.text_score.map(|s| format!("{s:.3}"))),
                    cell(parts.vector_rank),
                    cell(parts.vector_similarity.map(|s| format!("{s:.3}"))),
                    format!("{:.3}", parts.recency),
                ]);
            }
            row
        })
        .collect();
    if out.verbose() {
        out.note(&format!("mode: {}", results.mode));
    }
    out.table(&headers, &rows)
}
