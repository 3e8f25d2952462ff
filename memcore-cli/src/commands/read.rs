//! `get`, `list` and `collections`: the subcommands that read memories.

use memcore::{ListOptions, Memcore};
use serde_json::json;

use crate::cli::{GetArgs, ListArgs, ListFormat};
use crate::failure::Failure;
use crate::output::Output;

/// How tables show a time: to the minute, UTC.
pub(super) const TIME_FORMAT: &str = "%Y-%m-%d %H:%M";

/// `get REF`: one memory, current or at `--version`, in `--format`.
pub(super) fn get(memcore: &Memcore, args: &GetArgs, out: &mut Output) -> Result<(), Failure> {
    let memory = match &args.version {
        Some(rev) => memcore.get_version(&args.reference, rev)?,
        None => memcore.get(&args.reference)?,
    };
    if out.json() {
        return out.print_json(&memory.to_json());
    }
    out.line(memory.render(args.format).trim_end_matches('\n'))
}

/// `list`: the memories of one or all collections that match every `--filter`, a page of
/// them with `--offset` and `--limit`.
pub(super) fn list(memcore: &Memcore, args: &ListArgs, out: &mut Output) -> Result<(), Failure> {
    let mut options = ListOptions::new().offset(args.offset);
    if let Some(collection) = &args.collection {
        options = options.collection(collection);
    }
    if let Some(limit) = args.limit {
        options = options.limit(limit);
    }
    for filter in &args.filters {
        options = options.filter(filter)?;
    }
    let listing = memcore.list(&options)?;
    if out.json() || args.format == ListFormat::Json {
        let skipped: Vec<String> = listing.skipped.iter().map(ToString::to_string).collect();
        return out.print_json(&json!({ "memories": listing.memories, "skipped": skipped }));
    }
    for err in &listing.skipped {
        out.warn(&format!("skipped an unreadable memory: {err}"));
    }
    if listing.memories.is_empty() {
        out.note("no memories match");
        return Ok(());
    }
    let mut headers = vec!["REF", "TITLE", "TAGS", "STATUS", "VERSION", "UPDATED"];
    if out.verbose() {
        headers.extend(["CREATED", "TYPE", "CATEGORY"]);
    }
    let rows: Vec<Vec<String>> = listing
        .memories
        .iter()
        .map(|m| {
            let mut row = vec![
                m.reference.to_string(),
                m.title.clone(),
                m.tags.join(","),
                m.status.to_string(),
                m.version.to_string(),
                m.updated_at.format(TIME_FORMAT).to_string(),
            ];
            if out.verbose() {
                row.push(m.created_at.format(TIME_FORMAT).to_string());
                row.push(m.kind.clone().unwrap_or_default());
                row.push(m.category.clone().unwrap_or_default());
            }
            row
        })
        .collect();
    out.table(&headers, &rows)
}

/// `collections`: the store's collections, one name a line.
pub(super) fn collections(memcore: &Memcore, out: &mut Output) -> Result<(), Failure> {
    let collections = memcore.collections()?;
    if out.json() {
        return out.print_json(&json!({ "collections": collections }));
    }
    if collections.is_empty() {
        out.note("no collections yet");
    }
    collections.iter().try_for_each(|collection| out.line(collection.as_str()))
}
