//! `reindex`, `verify` and `repair`: looking after the derived indexes.

use memcore::{ArchiveCheck, ArchiveRepair, IndexCheck, Memcore};

use crate::failure::Failure;
use crate::output::{Output, memories};

/// `reindex`: rebuilds every index, with a progress bar on a terminal.
pub(super) fn reindex(memcore: &Memcore, out: &mut Output) -> Result<(), Failure> {
    let bar = out.progress_bar();
    let indexed = memcore.reindex(&mut |progress| {
        bar.set_length(progress.total as u64);
        bar.set_position(progress.done as u64);
    });
    bar.finish_and_clear();
    let report = indexed?;
    if out.json() {
        return out.print_json(&report);
    }
    for err in &report.unreadable {
        out.warn(&format!("unreadable, not indexed: {err}"));
    }
    if out.verbose() {
        for (name, rebuild) in &report.indexes {
            match &rebuild.unavailable {
                Some(why) => out.note(&format!("{name} index not rebuilt: {why}")),
                None => out.note(&format!("{name} index: {} entries", rebuild.indexed)),
            }
        }
    }
    out.confirm(&format!("indexed {}", memories(report.memories)))
}

/// One index's state in a line, and with `-v` the keys that differ.
fn describe(out: &mut Output, name: &str, check: &IndexCheck) -> Result<(), Failure> {
    if let Some(why) = &check.unavailable {
        return out.line(&format!("{name} index: not checked: {why}"));
    }
    let diff = &check.diff;
    if diff.is_clean() {
        return out.line(&format!("{name} index: consistent"));
    }
    let groups =
        [("missing", &diff.missing), ("orphaned", &diff.orphaned), ("stale", &diff.mismatched)];
    let counts: Vec<String> =
        groups.iter().map(|(what, keys)| format!("{} {what}", keys.len())).collect();
    out.line(&format!("{name} index: {}", counts.join(", ")))?;
    if out.verbose() {
        for (what, keys) in groups {
            for key in keys {
                out.line(&format!("  {what}: {key}"))?;
            }
        }
    }
    Ok(())
}

/// `verify`: compares every index with the store; exit code 4 when they differ.
pub(super) fn verify(memcore: &Memcore, out: &mut Output) -> Result<(), Failure> {
    let report = memcore.verify()?;
    let consistent = report.is_consistent();
    if out.json() {
        out.print_json(&report)?;
    } else {
        out.line(&format!("store: {}", memories(report.store_count)))?;
        for (name, check) in &report.indexes {
            describe(out, name, check)?;
        }
        if let Some(cold) = &report.cold {
            describe_cold(out, cold)?;
        }
        for err in &report.unreadable {
            out.warn(&format!("unreadable, not indexed: {err}"));
        }
        for warning in &report.warnings {
            out.warn(warning);
        }
    }
    if consistent {
        return Ok(());
    }
    Err(memcore::Error::index(
        "the indexes differ from the store",
        None,
        "run `memcore repair` (or `memcore reindex` to rebuild them from scratch)",
    )
    .into())
}

/// `repair`: re-indexes what is missing or stale and drops orphaned entries.
pub(super) fn repair(memcore: &Memcore, out: &mut Output) -> Result<(), Failure> {
    let report = memcore.repair()?;
    if out.json() {
        return out.print_json(&report);
    }
    out.confirm(&format!(
        "re-indexed {}, removed {} orphaned index entries{}",
        memories(report.reindexed),
        report.removed,
        match report.leftovers {
            0 => String::new(),
            n => format!(" and {n} leftovers of interrupted writes"),
        }
    ))?;
    match &report.cold {
        Some(cold) if *cold != ArchiveRepair::default() => out.confirm(&format!(
            "cold archive: {} torn bytes cut, {} damaged frames set aside in damaged/, {} \
             records re-indexed",
            cold.torn_bytes, cold.frames_set_aside, cold.reindexed
        )),
        _ => Ok(()),
    }
}

/// A tiered store's cold archive as `verify` found it.
fn describe_cold(out: &mut Output, check: &ArchiveCheck) -> Result<(), Failure> {
    let held = format!("{} records in {} segments", check.records, check.segments);
    if check.consistent() {
        return out.line(&format!("cold archive: {held}, consistent"));
    }
    out.line(&format!(
        "cold archive: {held}: {} damaged, {} torn bytes, {} unindexed, {} dangling",
        check.damaged.len(),
        check.torn_bytes,
        check.unindexed,
        check.dangling
    ))?;
    for damage in &check.damaged {
        out.warn(&format!("cold archive damaged at {damage}"));
    }
    Ok(())
}

/// `sync`: indexes what changed behind memcore's back: for git notes only what changed since
/// the last sync (which also runs whenever another subcommand opens a git-notes store), else
/// every memory is compared, as `repair` does. The store is opened without that open-time
/// sync, so the report counts what this sync did.
pub(super) fn sync(memcore: &Memcore, out: &mut Output) -> Result<(), Failure> {
    let report = memcore.sync()?;
    if out.json() {
        return out.print_json(&report);
    }
    let how = if report.full { "compared the whole store" } else { "changes since the last sync" };
    out.confirm(&format!("synced {} ({how})", memories(report.synced)))
}
