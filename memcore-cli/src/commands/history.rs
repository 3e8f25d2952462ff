//! `versions` and `diff`: the history of a memory.

use memcore::Memcore;
use serde_json::json;

use super::read::TIME_FORMAT;
use crate::cli::DiffArgs;
use crate::failure::Failure;
use crate::output::Output;

/// `versions REF`: oldest first, the current version marked `*`.
pub(super) fn versions(
    memcore: &Memcore,
    reference: &str,
    out: &mut Output,
) -> Result<(), Failure> {
    let versions = memcore.versions(reference)?;
    if out.json() {
        return out.print_json(&json!({ "versions": versions }));
    }
    let rows: Vec<Vec<String>> = versions
        .iter()
        .map(|v| {
            vec![
                if v.current { "*" } else { "" }.to_owned(),
                v.rev.clone(),
                v.version.map(|n| n.to_string()).unwrap_or_default(),
                v.timestamp.format(TIME_FORMAT).to_string(),
                v.author.clone().unwrap_or_default(),
                v.message.as_deref().and_then(|m| m.lines().next()).unwrap_or_default().to_owned(),
            ]
        })
        .collect();
    out.table(&["", "REV", "VERSION", "DATE", "AUTHOR", "MESSAGE"], &rows)
}

/// `diff REF --from REV [--to REV]`: a unified diff of the memory file between two versions.
pub(super) fn diff(memcore: &Memcore, args: &DiffArgs, out: &mut Output) -> Result<(), Failure> {
    let diff = memcore.diff(&args.reference, &args.from, &args.to)?;
    if out.json() {
        return out.print_json(&json!({ "from": args.from, "to": args.to, "diff": diff }));
    }
    if diff.is_empty() {
        out.note(&format!("no differences between {} and {}", args.from, args.to));
        return Ok(());
    }
    out.diff(&diff)
}
