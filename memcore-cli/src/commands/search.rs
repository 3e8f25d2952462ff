//! `search`: hybrid, semantic or full-text search with filters.

use memcore::{Memcore, Query, RecallRequest, RecallResults};

use crate::cli::SearchArgs;
use crate::failure::Failure;
use crate::output::Output;

/// An optional number for a table cell: blank when absent.
fn cell<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

/// `search QUERY`: the best hits first; warnings (e.g. no model, so text only) on stderr.
/// With `--tier` or `--session`, a search across tiers.
pub(super) fn run(memcore: &Memcore, args: SearchArgs, out: &mut Output) -> Result<(), Failure> {
    if args.tier.is_some() || args.session.is_some() {
        return recall(memcore, args, out);
    }
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
    query = query.expand_links(args.expand_links).shared(args.shared);
    if let Some(agent) = args.agent {
        query = query.agent(agent);
    }
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

/// `search QUERY --tier TIER [--session SESSION]`: labelled hits of the tiers asked for.
fn recall(memcore: &Memcore, args: SearchArgs, out: &mut Output) -> Result<(), Failure> {
    let mut request = RecallRequest::new(args.query)
        .tier(args.tier.unwrap_or_default())
        .mode(args.mode)
        .limit(args.limit)
        .shared(args.shared);
    for collection in args.collections {
        request = request.collection(collection);
    }
    if let Some(agent) = args.agent {
        request = request.agent(agent);
    }
    if let Some(session) = args.session {
        request = request.session(session);
    }
    let results: RecallResults = memcore.recall(&request)?;
    if out.json() {
        return out.print_json(&results);
    }
    for warning in &results.warnings {
        out.warn(warning);
    }
    if results.hits.is_empty() {
        out.note("nothing matches");
        return Ok(());
    }
    let rows: Vec<Vec<String>> = results
        .hits
        .iter()
        .map(|hit| {
            vec![
                format!("[{}]", hit.label),
                crate::output::serde_name(&hit.tier),
                format!("{:.4}", hit.score),
                hit.source.clone(),
                hit.title.clone(),
                hit.session.clone().unwrap_or_default(),
            ]
        })
        .collect();
    out.table(&["LABEL", "TIER", "SCORE", "SOURCE", "TITLE", "SESSION"], &rows)
}
