//! `stats`: where the store is and what it holds.

use memcore::Memcore;
use serde_json::{Value, json};

use crate::failure::Failure;
use crate::output::{Output, serde_name};

/// `stats`: the store's location and settings, and its memories by collection and status.
pub(super) fn run(memcore: &Memcore, out: &mut Output) -> Result<(), Failure> {
    let stats = memcore.stats()?;
    let location = memcore.location();
    let versioning = serde_name(&location.config.versioning);
    let backend = serde_name(&location.config.backend);
    if out.json() {
        let mut value = json!({
            "store": location.root,
            "config_file": location.config_file,
            "backend": backend,
            "versioning": versioning,
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
