//! `status`, `lifecycle run` and `keepit list|set|preview`: the decay engine.

use memcore::decay::{KeepitPreviewRequest, KeepitSource, LifecycleOptions, LifecycleReport};
use memcore::{Memcore, MemoryRef};

use super::write::report;
use crate::cli::{KeepitCommand, KeepitSourceArgs, LifecycleCommand, StatusArgs};
use crate::failure::Failure;
use crate::input;
use crate::output::{Output, memories, serde_name};

/// `status REF STATUS`: moves the memory to another status.
pub(super) fn status(
    memcore: &Memcore,
    args: &StatusArgs,
    out: &mut Output,
) -> Result<(), Failure> {
    let memory = memcore.transition(&args.reference, args.status)?;
    report(out, &format!("{}:", memory.status), &memory)
}

/// `lifecycle run`: the plan (dry run) or what was done, then the counts.
pub(super) fn lifecycle(
    memcore: &Memcore,
    command: LifecycleCommand,
    out: &mut Output,
) -> Result<(), Failure> {
    let LifecycleCommand::Run(args) = command;
    let mut options = LifecycleOptions::new().dry_run(args.dry_run);
    options.now = args.now;
    options.collections = args.collections;
    options.archive_after_days = args.archive_after_days;
    options.min_relevance = args.min_relevance;
    options.tombstone_after_days = args.tombstone_after_days;
    options.delete_after_days = args.delete_after_days;
    options.compress = args.no_compress.then_some(false);
    let report = memcore.process_lifecycle(&options)?;
    if out.json() {
        return out.print_json(&report);
    }
    print_lifecycle(&report, out)
}

/// The steps of a lifecycle report as a table, its errors as warnings, and a summary line.
fn print_lifecycle(report: &LifecycleReport, out: &mut Output) -> Result<(), Failure> {
    for error in &report.errors {
        out.warn(&error.report());
    }
    if !report.steps.is_empty() {
        let rows: Vec<Vec<String>> = report
            .steps
            .iter()
            .map(|step| {
                let to = step.to.map_or_else(|| "deleted".to_owned(), |s| s.to_string());
                vec![step.reference.to_string(), step.from.to_string(), to, step.reason.clone()]
            })
            .collect();
        out.table(&["REF", "FROM", "TO", "WHY"], &rows)?;
    }
    let s = &report.stats;
    let (verb, tense) = if report.dry_run { ("would", "") } else { ("", "d") };
    let counts = format!(
        "{verb} archive{tense} {}, tombstone{tense} {}, delete{tense} {}; skipped {} of {} \
         scanned{}",
        s.archived,
        s.tombstoned,
        s.deleted,
        s.skipped,
        memories(s.scanned),
        if s.failed > 0 { format!("; {} failed", s.failed) } else { String::new() },
    );
    out.confirm(counts.trim_start())
}

/// `keepit list|set|preview`.
pub(super) fn keepit(
    memcore: &Memcore,
    command: KeepitCommand,
    out: &mut Output,
) -> Result<(), Failure> {
    match command {
        KeepitCommand::List(args) => {
            let markers = memcore.keepit_markers(&source(memcore, &args)?)?;
            if out.json() {
                return out.print_json(&serde_json::json!({ "markers": markers }));
            }
            if markers.is_empty() {
                out.note("no keepit markers");
                return Ok(());
            }
            let rows: Vec<Vec<String>> = markers
                .iter()
                .map(|m| {
                    let level = m.level.map(|l| serde_name(&l)).unwrap_or_default();
                    vec![
                        m.index.to_string(),
                        format!("{:.2}", m.weight),
                        level,
                        excerpt(&m.content),
                    ]
                })
                .collect();
            out.table(&["#", "WEIGHT", "LEVEL", "TEXT"], &rows)
        }
        KeepitCommand::Set(args) => {
            let memory = memcore.set_keepit_weight(&args.reference, args.index, args.weight)?;
            report(out, &format!("marker {} set in", args.index), &memory)
        }
        KeepitCommand::Preview(args) => {
            let mut request = KeepitPreviewRequest::new(source(memcore, &args.source)?, args.ratio);
            request.aggressiveness = args.aggressiveness;
            request.max_distance = args.max_distance;
            let preview = memcore.keepit_preview(&request)?;
            if out.json() {
                return out.print_json(&preview);
            }
            out.confirm(&format!(
                "ratio {}:1, {}; thresholds {}",
                preview.ratio,
                serde_name(&preview.aggressiveness),
                preview
                    .thresholds
                    .iter()
                    .map(|t| format!("{:.3}", t.threshold))
                    .collect::<Vec<_>>()
                    .join(" ")
            ))?;
            let rows: Vec<Vec<String>> = preview
                .markers
                .iter()
                .map(|m| {
                    let map: String =
                        m.survives.iter().map(|&s| if s { '+' } else { '-' }).collect();
                    vec![
                        m.marker.index.to_string(),
                        format!("{:.2}", m.marker.weight),
                        map,
                        m.survives_through.to_string(),
                        excerpt(&m.marker.content),
                    ]
                })
                .collect();
            out.table(&["#", "WEIGHT", "SURVIVES (1..)", "THROUGH", "TEXT"], &rows)
        }
    }
}

/// The source the arguments name: a memory, or a file's text (up to the content limit).
fn source(memcore: &Memcore, args: &KeepitSourceArgs) -> Result<KeepitSource, Failure> {
    Ok(match (&args.reference, &args.text) {
        (_, Some(path)) => {
            let limit = super::write::content_limit(memcore);
            KeepitSource::text(input::read_text(path, limit, "a text may have")?)
        }
        (Some(reference), None) => KeepitSource::memory(reference.parse::<MemoryRef>()?),
        (None, None) => KeepitSource::default(),
    })
}

/// The first line of `text`, cut to 60 characters.
fn excerpt(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    match line.char_indices().nth(60) {
        Some((cut, _)) => format!("{}...", &line[..cut]),
        None => line.to_owned(),
    }
}
