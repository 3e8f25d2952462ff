//! `compose` and `session ...`: the composition engine from the command line (live sessions
//! of a tiered store are in `tiers.rs`).

use memcore::Memcore;
use memcore::compose::{ComposeRequest, ComposedContext};
use memcore::session::{
    ComponentRequest, CompressionSettings, SessionAddRequest, SessionComposeRequest,
    SessionCompressRequest, SessionPruneRequest, SessionRecord,
};

use super::tiers;
use crate::cli::{
    ComposeArgs, CompositionCommand, SessionAddArgs, SessionCommand, SessionComposeArgs,
    SessionCompressArgs,
};
use crate::failure::Failure;
use crate::output::{Output, serde_name};

/// `compose [QUERY]`: the context on stdout (with `--manifest`, the manifest after it).
pub(super) fn compose(
    memcore: &Memcore,
    args: ComposeArgs,
    out: &mut Output,
) -> Result<(), Failure> {
    let mut request = ComposeRequest::new(args.query).format(args.format).tokenizer(args.tokenizer);
    request.budget = args.budget;
    request.tier = args.tier;
    request.no_working_memory = args.no_working_memory;
    request.collections = args.collections;
    request.search_mode = args.search_mode;
    request.mode = args.budget_mode;
    request.blocker_collections = args.blocker_collections;
    request.decision_collections = args.decision_collections;
    request.recent_decisions = args.recent_decisions;
    request.candidates = args.candidates;
    let context = memcore.compose(&request)?;
    for warning in &context.warnings {
        out.warn(warning);
    }
    if out.json() {
        return out.print_json(&context);
    }
    out.line(context.text.trim_end())?;
    if args.manifest {
        manifest(&context, out)?;
    }
    out.note(&format!(
        "{} tokens of {} ({}), {} of {} candidates included",
        context.tokens,
        context.budget.total,
        serde_name(&context.tokenizer),
        context.items.len(),
        context.manifest.len()
    ));
    Ok(())
}

/// The manifest as a table.
fn manifest(context: &ComposedContext, out: &mut Output) -> Result<(), Failure> {
    let rows: Vec<Vec<String>> = context
        .manifest
        .iter()
        .map(|entry| {
            vec![
                entry.label.clone().unwrap_or_default(),
                entry.reference.to_string(),
                format!("{}#{}", serde_name(&entry.source), entry.rank),
                serde_name(&entry.outcome),
                format!("{}/{}", entry.tokens_used, entry.tokens),
                entry.budget_left.to_string(),
                entry.score.map(|s| format!("{s:.4}")).unwrap_or_default(),
            ]
        })
        .collect();
    out.table(&["LABEL", "REF", "SOURCE", "OUTCOME", "TOKENS", "LEFT", "SCORE"], &rows)
}

/// `session ...`.
pub(super) fn session(
    memcore: &Memcore,
    command: SessionCommand,
    out: &mut Output,
) -> Result<(), Failure> {
    match command {
        SessionCommand::Add(args) => add(memcore, args, out),
        SessionCommand::List => {
            let listing = memcore.session_list()?;
            if out.json() {
                return out.print_json(&listing);
            }
            let rows: Vec<Vec<String>> = listing
                .sessions
                .iter()
                .map(|s| {
                    let first = s.first_timestamp.map(|t| t.format("%Y-%m-%d %H:%M").to_string());
                    vec![
                        s.session_id.clone(),
                        s.original_messages.to_string(),
                        s.original_tokens.to_string(),
                        first.unwrap_or_default(),
                        s.versions.join(" "),
                        s.keepit_markers.to_string(),
                    ]
                })
                .collect();
            out.table(&["SESSION", "MESSAGES", "TOKENS", "FIRST", "VERSIONS", "KEEPIT"], &rows)?;
            for composition in &listing.compositions {
                out.note(&format!(
                    "composition {}: {} sessions, {} tokens ({})",
                    composition.name,
                    composition.components.len(),
                    composition.total_tokens,
                    composition.output_file
                ));
            }
            Ok(())
        }
        SessionCommand::Show(args) => show(&memcore.session_show(&args.session)?, out),
        SessionCommand::Version(args) => {
            let version = memcore.session_version(&args.session, &args.version)?;
            if out.json() {
                return out.print_json(&version);
            }
            out.line(version.content.trim_end())
        }
        SessionCommand::Composition(CompositionCommand::Show(args)) => {
            let composed = memcore.session_composition(&args.name)?;
            if out.json() {
                return out.print_json(&composed);
            }
            out.line(composed.context.trim_end())
        }
        SessionCommand::Composition(CompositionCommand::Delete(args)) => {
            let record = memcore.session_composition_delete(&args.name)?;
            if out.json() {
                return out.print_json(&record);
            }
            out.confirm(&format!("deleted composition {}", record.name))
        }
        SessionCommand::Start(args) => tiers::start(memcore, args, out),
        SessionCommand::Turn(args) => tiers::turn(memcore, args, out),
        SessionCommand::Note(args) => tiers::note(memcore, args, out),
        SessionCommand::Live(args) => tiers::live(memcore, &args.session, out),
        SessionCommand::End(args) => tiers::end(memcore, args, out),
        SessionCommand::Retrieve(args) => tiers::retrieve(memcore, args, out),
        SessionCommand::Compress(args) => compress(memcore, args, out),
        SessionCommand::Compose(args) => compose_sessions(memcore, args, out),
        SessionCommand::Prune(args) => {
            let mut request = if args.versions.is_empty() {
                SessionPruneRequest::keep_latest(args.session, args.keep_latest.unwrap_or(0))
            } else {
                SessionPruneRequest::versions(args.session, args.versions)
            };
            request = request.force(args.force);
            let result = memcore.session_prune(&request)?;
            for warning in &result.warnings {
                out.warn(warning);
            }
            if out.json() {
                return out.print_json(&result);
            }
            out.confirm(&format!(
                "deleted {}; kept {}",
                list_or_none(&result.deleted),
                list_or_none(&result.kept)
            ))
        }
    }
}

/// `session add FILE`.
fn add(memcore: &Memcore, args: SessionAddArgs, out: &mut Output) -> Result<(), Failure> {
    let mut request = SessionAddRequest::new(args.file.to_string_lossy());
    request.session_id = args.id;
    request.format = args.format;
    request.tokenizer = args.tokenizer;
    request.replace = args.replace;
    request.composed_from = args.composed_from;
    let session = memcore.session_add(&request)?;
    for skipped in &session.skipped_lines {
        out.warn(&format!("line {} skipped: {}", skipped.line, skipped.reason));
    }
    for warning in &session.keepit_warnings {
        out.warn(warning);
    }
    if out.json() {
        return out.print_json(&session);
    }
    out.confirm(&format!(
        "session {}: {} messages, {} tokens, {} keepit markers",
        session.session_id,
        session.original_messages,
        session.original_tokens,
        session.keepit_markers.len()
    ))
}

/// `session show ID`.
fn show(session: &SessionRecord, out: &mut Output) -> Result<(), Failure> {
    if out.json() {
        return out.print_json(session);
    }
    out.line(&format!(
        "session {}: {} messages, {} tokens ({}), original {}",
        session.session_id,
        session.original_messages,
        session.original_tokens,
        serde_name(&session.tokenizer),
        session.original_file
    ))?;
    let rows: Vec<Vec<String>> = session
        .compressions
        .iter()
        .map(|v| {
            vec![
                v.version_id.clone(),
                v.file.clone(),
                v.output_tokens.to_string(),
                format!("{:.1}", v.compression_ratio),
                format!(
                    "{}/{}",
                    v.keepit_stats.preserved,
                    v.keepit_stats.preserved + v.keepit_stats.summarized
                ),
                v.source_version.clone().unwrap_or_default(),
            ]
        })
        .collect();
    if !rows.is_empty() {
        out.table(&["VERSION", "FILE", "TOKENS", "RATIO", "KEEPIT", "FROM"], &rows)?;
    }
    for marker in &session.keepit_markers {
        out.line(&format!(
            "  ##keepit{:.2}## {} [{}]",
            marker.weight, marker.content, marker.marker_id
        ))?;
    }
    Ok(())
}

/// `session compress ID`.
fn compress(memcore: &Memcore, args: SessionCompressArgs, out: &mut Output) -> Result<(), Failure> {
    let mut settings = match args.tiered {
        Some(preset) => CompressionSettings::tiered(preset),
        None => {
            let mut uniform = CompressionSettings::uniform(args.ratio.unwrap_or(10.0));
            uniform.aggressiveness = args.aggressiveness;
            uniform
        }
    };
    settings.session_distance = args.distance;
    settings.keepit_mode = args.keepit_mode;
    settings.skip_first_messages = args.skip;
    let mut request = SessionCompressRequest::new(args.session, settings);
    request.from_version = args.from_version;
    let version = memcore.session_compress(&request)?;
    if out.json() {
        return out.print_json(&version);
    }
    out.confirm(&format!(
        "{} ({}): {} tokens, {:.1}:1, keepit {} kept / {} summarised",
        version.version_id,
        version.file,
        version.output_tokens,
        version.compression_ratio,
        version.keepit_stats.preserved,
        version.keepit_stats.summarized
    ))
}

/// `session compose NAME SESSION[@VERSION]... --budget N`.
fn compose_sessions(
    memcore: &Memcore,
    args: SessionComposeArgs,
    out: &mut Output,
) -> Result<(), Failure> {
    let components = args
        .sessions
        .into_iter()
        .map(|spec| match spec.split_once('@') {
            Some((session, version)) => ComponentRequest::at_version(session, version),
            None => ComponentRequest::new(spec),
        })
        .collect();
    let mut request = SessionComposeRequest::new(args.name, components, args.budget);
    request.output = args.output;
    request.replace = args.replace;
    let composition = memcore.session_compose(&request)?;
    for warning in &composition.warnings {
        out.warn(warning);
    }
    if out.json() {
        return out.print_json(&composition);
    }
    let rows: Vec<Vec<String>> = composition
        .components
        .iter()
        .map(|c| {
            vec![
                c.session_id.clone(),
                c.version_id.clone(),
                c.selection.clone(),
                format!("{}/{}", c.token_contribution, c.token_budget),
            ]
        })
        .collect();
    out.table(&["SESSION", "VERSION", "HOW", "TOKENS"], &rows)?;
    out.confirm(&format!(
        "composition {}: {} tokens in {}",
        composition.name, composition.total_tokens, composition.output_file
    ))
}

/// `a, b` or `nothing`.
fn list_or_none(items: &[String]) -> String {
    if items.is_empty() { "nothing".to_owned() } else { items.join(", ") }
}
